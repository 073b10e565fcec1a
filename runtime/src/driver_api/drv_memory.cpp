// SPDX-License-Identifier: MIT
// halMemAlloc, halMemFree, halMemGetAddressRange and drvMemsetD8: device
// memory through aclrtMalloc, pinned host memory through aclrtMallocHost.
#include "driver_api/drv_common.h"

using npu::drv::AnyContextScope;
using npu::drv::DeviceScope;
using npu::drv::FromAcl;
using npu::drv::Refuse;

namespace {

constexpr unsigned long long kUnsupportedBits = MEM_ADVISE_4G | MEM_ADVISE_TS | MEM_ADVISE_BAR |
                                                MEM_READONLY | MEM_HOST_RW_DEV_RO | MEM_DEV_CP_ONLY;

aclrtMemMallocPolicy DevicePolicy(unsigned long long flag) {
    const bool p2p = (flag & MEM_ADVISE_P2P) != 0;
    if (flag & MEM_PAGE_GIANT)
        return p2p ? ACL_MEM_MALLOC_HUGE1G_ONLY_P2P : ACL_MEM_MALLOC_HUGE1G_ONLY;
    if (flag & MEM_PAGE_HUGE)
        return p2p ? ACL_MEM_MALLOC_HUGE_ONLY_P2P : ACL_MEM_MALLOC_HUGE_ONLY;
    return p2p ? ACL_MEM_MALLOC_HUGE_FIRST_P2P : ACL_MEM_MALLOC_HUGE_FIRST;
}

}  // namespace

NPU_DRV_API drvError_t halMemAlloc(void **pp, unsigned long long size, unsigned long long flag) {
    if (pp == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemAlloc: pp is NULL");
    if (size == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemAlloc: size is 0");
    const uint32_t dev = static_cast<uint32_t>(flag & MEM_DEVID_MASK);
    const unsigned virt = (flag >> MEM_VIRT_BIT) & ((1U << MEM_VIRT_WIDTH) - 1);
    if (flag & kUnsupportedBits) {
        return Refuse(DRV_ERROR_NOT_SUPPORT,
                      "halMemAlloc: flag 0x%llx asks for 4G/TS/BAR/read-only/CP-only memory, "
                      "which this device does not have",
                      flag);
    }
    DeviceScope scope(dev);
    if (scope.status() != DRV_ERROR_NONE)
        return Refuse(scope.status(), "halMemAlloc: device %u cannot be opened", dev);
    switch (virt) {
        case MEM_SVM_VAL:
        case MEM_DEV_VAL:
        case MEM_DVPP_VAL:
            return FromAcl(aclrtMalloc(pp, size, DevicePolicy(flag)));
        case MEM_HOST_VAL:
        case MEM_HOST_UVA_VAL:
            return FromAcl(aclrtMallocHost(pp, size));
        default:
            return Refuse(virt < MEM_MAX_VAL ? DRV_ERROR_NOT_SUPPORT : DRV_ERROR_INVALID_VALUE,
                          "halMemAlloc: virtual memory type %u (flag 0x%llx) is not SVM, DEV, "
                          "DVPP, HOST or HOST_UVA",
                          virt, flag);
    }
}

NPU_DRV_API drvError_t halMemFree(void *pp) {
    if (pp == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemFree: pp is NULL");
    AnyContextScope scope;
    if (scope.status() != DRV_ERROR_NONE)
        return scope.status();
    aclrtPtrAttributes attr = {};
    aclError err = aclrtPointerGetAttributes(pp, &attr);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    if (attr.location.type == ACL_MEM_LOCATION_TYPE_DEVICE)
        return FromAcl(aclrtFree(pp));
    err = aclrtFreeHost(pp);
    if (err == ACL_ERROR_INVALID_PARAM || err == ACL_ERROR_RT_PARAM_INVALID)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemFree: %p is not memory of halMemAlloc", pp);
    return FromAcl(err);
}

NPU_DRV_API drvError_t halMemGetAddressRange(DVdeviceptr ptr, DVdeviceptr *pbase, size_t *psize) {
    if (ptr == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemGetAddressRange: ptr is 0");
    void *base = nullptr;
    size_t size = 0;
    aclError err = aclrtMemGetAddressRange(reinterpret_cast<void *>(static_cast<uintptr_t>(ptr)),
                                           &base, &size);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    if (pbase != nullptr)
        *pbase = reinterpret_cast<uintptr_t>(base);
    if (psize != nullptr)
        *psize = size;
    return DRV_ERROR_NONE;
}

NPU_DRV_API DVresult drvMemsetD8(DVdeviceptr dst, size_t destMax, UINT8 value, size_t num) {
    if (dst == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvMemsetD8: dst is 0");
    if (num > destMax)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvMemsetD8: num %zu is above destMax %zu", num,
                      destMax);
    AnyContextScope scope;
    if (scope.status() != DRV_ERROR_NONE)
        return scope.status();
    return FromAcl(
        aclrtMemset(reinterpret_cast<void *>(static_cast<uintptr_t>(dst)), destMax, value, num));
}
