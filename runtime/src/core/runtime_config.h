// SPDX-License-Identifier: MIT
// RuntimeConfig: the process-wide settings of the runtime-configuration
// calls: system parameters (aclrtSetSysParamOpt), device resource limits
// (aclrtSetDeviceResLimit), the limits of aclrtDeviceSetLimit, the stream
// whose limits the calling thread uses (aclrtUseStreamResInCurrentThread),
// kernel-execution and event-wait timeouts and the task scheduler of
// aclrtSetTsDevice. No kernel runs on
// the emulated device, so the limits and timeouts are stored and reported
// back; nothing enforces them. The argument checks are the caller's.
#ifndef NPU_RT_CORE_RUNTIME_CONFIG_H
#define NPU_RT_CORE_RUNTIME_CONFIG_H

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "base/singleton.h"
#include "core/error.h"

namespace npu::rt {

class DeviceSession;

class RuntimeConfig {
  public:
    // The instance (base::Singleton). In a forked child the settings of
    // the process (system parameters, timeouts) are kept, those of the
    // parent's device opens and the calling thread's bound stream are not
    // (ForkChildCopy).
    static RuntimeConfig &Get();

    // System parameters (aclSysParamOpt 0..3): 0 until set.
    static constexpr int kSysParams = 4;
    void SetSysParam(int opt, int64_t value);
    int64_t SysParam(int opt);

    // Resource types (aclrtDevResLimitType) and the hardware count of each.
    static constexpr int kResTypes = 2;
    static uint32_t HardwareCores(int type);

    // The process limit of type on user device user_id: what
    // SetDeviceResLimit stored since the device was last opened, else the
    // hardware count. A limit belongs to one open of the device (as
    // upstream's belongs to its device object): a reset device starts
    // again from the hardware counts.
    uint32_t DeviceResLimit(int32_t user_id, int type);
    // The limits of an open device; ACL_ERROR_RT_DEV_SETUP_ERROR when the
    // process has not set user_id, as upstream without its device object.
    Error SetDeviceResLimit(int32_t user_id, int type, uint32_t value);
    Error ResetDeviceResLimit(int32_t user_id);

    // The stream handle whose limits the calling thread uses, nullptr for
    // none (aclrtUseStreamResInCurrentThread / ...Unuse...).
    static void BindThreadStream(void *handle);
    static void UnbindThreadStream(void *handle);  // only if it is the bound one
    static void *BoundThreadStream();

    // Kernel-execution timeout in microseconds, kNoTimeout when never set
    // or set to "never". Stored as applied: a multiple of kOpIntervalUs in
    // 1..kOpMaxIntervals intervals.
    static constexpr uint64_t kOpIntervalUs = 1000000;  // 1 s
    static constexpr uint64_t kOpMaxIntervals = 254;
    static constexpr uint64_t kNoTimeout = UINT64_MAX;
    // Applies a request of us microseconds (0: the maximum when
    // zero_is_max, else never) and returns what is in effect.
    uint64_t SetOpTimeout(uint64_t us, bool zero_is_max);
    uint64_t OpTimeout();

    // aclrtDeviceSetLimit values (aclrtDeviceLimit 0..4), process-wide as
    // upstream's: 0 until set. Stored only: no kernel runs, so no stack or
    // printf FIFO exists to size.
    static constexpr int kDeviceLimits = 5;
    void SetDeviceLimit(int limit, size_t value);
    size_t DeviceLimit(int limit);

    void SetOpWaitTimeout(uint32_t seconds);
    void SetTsId(int32_t ts);

  private:
    friend class base::Singleton<RuntimeConfig>;
    RuntimeConfig() = default;
    static RuntimeConfig *ForkChildCopy(const RuntimeConfig &parent);

    struct DeviceLimits {
        std::weak_ptr<DeviceSession> session;  // the open they belong to
        std::array<uint32_t, kResTypes> cores{};
    };

    std::mutex mu_;  // Protects: every setting below
    std::array<int64_t, kSysParams> sys_params_{};
    std::array<size_t, kDeviceLimits> dev_limits_{};
    std::vector<DeviceLimits> device_limits_;  // by user id, grown on demand
    uint64_t op_timeout_us_ = kNoTimeout;
    uint32_t op_wait_timeout_s_ = 0;
    int32_t ts_id_ = 0;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_RUNTIME_CONFIG_H
