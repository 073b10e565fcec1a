// SPDX-License-Identifier: MIT
// What the device-information calls report about an emulated device
// (aclrtGetDeviceInfo, aclGetDeviceCapability, aclrtDeviceGetUuid,
// aclrtDeviceGetPCIBusId, ...). The emulated device is a memory device: it
// has no AI Cores, so the core counts and cache size are those of the SoC
// that aclrtGetSocName names by default (Ascend910B2), for programs that
// size their work by them. The memory size, the ids and the bus ids are the
// device's own.
#ifndef NPU_RT_CORE_DEVICE_INFO_H
#define NPU_RT_CORE_DEVICE_INFO_H

#include <cstdint>
#include <string>

#include "core/error.h"

namespace npu::rt {

// The Ascend910B2 figures reported for every device.
struct DeviceProfile {
    static constexpr int64_t kAiCpuCores = 6;
    static constexpr int64_t kAiCores = 24;  // also the cube cores
    static constexpr int64_t kVectorCores = 48;
    static constexpr int64_t kL2Bytes = 192LL << 20;
    static constexpr int64_t kNpuArch = 2201;  // the dav-c220 architecture
};

// Bytes of device memory of user device user_id (the driver's HBM size),
// asked of the open session, or of a short-lived open of the device when
// the process has not opened it, once per physical device (the size of a
// device does not change). ACL_ERROR_RT_INVALID_DEVICEID when user_id is
// not visible.
Error DeviceMemorySize(int32_t user_id, uint64_t *bytes);

// aclrtGetDeviceUtilizationRate: the share (0-100) of the time the copy
// engines of user device user_id spent running descriptors (the driver's
// busy time, summed over engines, over the engines' count), since the
// previous query in this process, or since the device started for the
// first. Asked of the open session, or of a short-lived open.
Error EngineUtilization(int32_t user_id, int32_t *percent);

// The 16 bytes of aclrtDeviceGetUuid for physical device phys_id: fixed
// per physical device, the same in every process.
void DeviceUuid(uint32_t phys_id, char out[16]);

// The emulated PCI bus id of physical device phys_id, "DDDD:BB:00.0" with
// domain and bus DDDDBB = phys_id + 1 (hexadecimal, lower case: device 0 is
// "0000:01:00.0"), and the reverse: the physical id of a bus id in that
// form (the domain may be left out for 0000, hex digits of either case),
// false when text is not one.
std::string DevicePciBusId(uint32_t phys_id);
bool ParsePciBusId(const char *text, uint32_t *phys_id);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_DEVICE_INFO_H
