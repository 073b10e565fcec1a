// SPDX-License-Identifier: MIT
// DeviceHooks: the named callbacks of aclrtRegDeviceStateCallback, run
// with ACL_RT_DEVICE_STATE_SET_PRE / _SET_POST around aclrtSetDevice and
// ACL_RT_DEVICE_STATE_RESET_PRE / _RESET_POST around aclrtResetDevice and
// aclrtResetDeviceForce.
//
// The hooks run on the thread that makes the call, with no lock of the
// runtime held, in the order they were registered: PRE once the device id
// is known to be valid, before the call does anything; POST after the call
// succeeded (a call that fails after PRE runs no POST). Every call runs
// them, not only the one that opens or tears down the device.
#ifndef NPU_RT_CORE_DEVICE_HOOKS_H
#define NPU_RT_CORE_DEVICE_HOOKS_H

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "core/error.h"

namespace npu::rt {

class DeviceHooks {
  public:
    static DeviceHooks &Get();

    // Adds hook name; ACL_ERROR_RT_PARAM_INVALID when the name is taken.
    // A null callback removes the name (no error when absent).
    Error Register(const std::string &name, aclrtDeviceStateCallback callback, void *args);
    // Runs every hook for user device user_id.
    void Notify(int32_t user_id, aclrtDeviceState state);

  private:
    struct Hook {
        std::string name;
        aclrtDeviceStateCallback callback;
        void *args;
    };

    std::mutex mu_;  // Protects: hooks_
    std::vector<Hook> hooks_;
    // Whether hooks_ is non-empty: the device paths look at this only.
    std::atomic<bool> any_{false};
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_DEVICE_HOOKS_H
