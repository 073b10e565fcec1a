// SPDX-License-Identifier: MIT
// halHostRegister, halHostUnregister(Ex): host memory mapped for a device,
// over aclrtHostRegister on that device.
#include "driver_api/drv_common.h"

using npu::drv::DeviceScope;
using npu::drv::FromAcl;
using npu::drv::Refuse;

namespace {

constexpr UINT32 kTypeMask = 0xFF;
constexpr UINT32 kReadOnly = 1U << 28;

drvError_t CheckType(const char *api, UINT32 flag) {
    const UINT32 type = flag & kTypeMask;
    if ((flag & ~(kTypeMask | kReadOnly)) != 0 || type >= HOST_REGISTER_MAX_TPYE)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: flag 0x%x is not a register type", api, flag);
    if (type != HOST_MEM_MAP_DEV && type != HOST_MEM_MAP_DEV_PCIE_TH)
        return Refuse(DRV_ERROR_NOT_SUPPORT,
                      "%s: register type %u: only HOST_MEM_MAP_DEV and HOST_MEM_MAP_DEV_V2 (host "
                      "memory mapped for the device) are supported",
                      api, type);
    return DRV_ERROR_NONE;
}

drvError_t Unregister(const char *api, void *src_ptr, UINT32 devid, UINT32 flag) {
    if (src_ptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: src_ptr is NULL", api);
    drvError_t ret = CheckType(api, flag);
    if (ret != DRV_ERROR_NONE)
        return ret;
    DeviceScope scope(devid);
    if (scope.status() != DRV_ERROR_NONE)
        return Refuse(scope.status(), "%s: device %u cannot be opened", api, devid);
    return FromAcl(aclrtHostUnregister(src_ptr));
}

}  // namespace

NPU_DRV_API drvError_t halHostRegister(void *src_ptr, UINT64 size, UINT32 flag, UINT32 devid,
                                       void **dst_ptr) {
    if (src_ptr == nullptr || dst_ptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halHostRegister: src_ptr or dst_ptr is NULL");
    if (size == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halHostRegister: size is 0");
    drvError_t ret = CheckType("halHostRegister", flag);
    if (ret != DRV_ERROR_NONE)
        return ret;
    DeviceScope scope(devid);
    if (scope.status() != DRV_ERROR_NONE)
        return Refuse(scope.status(), "halHostRegister: device %u cannot be opened", devid);
    aclrtHostRegisterType type =
        (flag & kReadOnly) ? ACL_HOST_REGISTER_READONLY : ACL_HOST_REGISTER_MAPPED;
    return FromAcl(aclrtHostRegister(src_ptr, size, type, dst_ptr));
}

NPU_DRV_API drvError_t halHostUnregister(void *src_ptr, UINT32 devid) {
    return Unregister("halHostUnregister", src_ptr, devid, HOST_MEM_MAP_DEV);
}

NPU_DRV_API drvError_t halHostUnregisterEx(void *src_ptr, UINT32 devid, UINT32 flag) {
    return Unregister("halHostUnregisterEx", src_ptr, devid, flag);
}
