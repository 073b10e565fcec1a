// SPDX-License-Identifier: MIT
// Queries over memory the runtime knows: aclrtCheckMemType (the type of
// each address of a list) and aclrtHostMemMapCapabilities (which hardware
// accelerators reach registered host memory).
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/mem_type.h"

using npu::rt::Error;
using npu::rt::RunApi;

namespace {

constexpr uint32_t kMemTypeBits = ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_DVPP | ACL_RT_MEM_TYPE_RSVD;

}  // namespace

// *checkResult is 1 when every address has one of the types of memType,
// else 0 (a NULL entry has no type).
aclError aclrtCheckMemType(void **addrList, uint32_t size, uint32_t memType, uint32_t *checkResult,
                           uint32_t reserve) {
    return RunApi("aclrtCheckMemType", [&] {
        NPU_ACL_CHECK(addrList != nullptr, "addrList is NULL (size %u)", size);
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(checkResult != nullptr, "checkResult is NULL");
        NPU_ACL_CHECK(reserve == 0, "reserve %u must be 0", reserve);
        NPU_ACL_CHECK(memType != 0 && (memType & ~kMemTypeBits) == 0,
                      "memType 0x%x is not an OR of ACL_RT_MEM_TYPE_DEV, _DVPP and _RSVD", memType);
        uint32_t all = 1;
        for (uint32_t i = 0; i < size && all; ++i) {
            if ((npu::rt::MemTypeOf(addrList[i]) & memType) == 0)
                all = 0;
        }
        *checkResult = all;
        return Error::Ok();
    });
}

// The copy engines (SDMA, and PCIe DMA for host transfers) read and write
// registered host memory; the emulated device has none of the other
// accelerators.
aclError aclrtHostMemMapCapabilities(uint32_t deviceId, aclrtHacType hacType,
                                     aclrtHostMemMapCapability *capabilities) {
    return RunApi("aclrtHostMemMapCapabilities", [&] {
        NPU_ACL_CHECK(capabilities != nullptr, "capabilities is NULL (device %u)", deviceId);
        const int32_t type = npu::rt::EnumValue(hacType);
        NPU_ACL_CHECK(type >= ACL_RT_HAC_TYPE_STARS && type <= ACL_RT_HAC_TYPE_CCU,
                      "hacType %d is not one of ACL_RT_HAC_TYPE_* (0..9)", type);
        uint32_t phys = 0;
        if (deviceId > INT32_MAX ||
            !npu::rt::DeviceManager::Get().ToPhysical(static_cast<int32_t>(deviceId), &phys).ok())
            return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "deviceId %u is not a device",
                                 deviceId);
        const bool dma = type == ACL_RT_HAC_TYPE_SDMA || type == ACL_RT_HAC_TYPE_PCIEDMA;
        *capabilities = dma ? ACL_RT_HOST_MEM_MAP_SUPPORTED : ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED;
        return Error::Ok();
    });
}
