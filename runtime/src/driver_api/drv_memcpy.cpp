// SPDX-License-Identifier: MIT
// drvMemcpy, halMemcpy, halMemcpy2D and halMemcpyBatch: synchronous copies
// through aclrtMemcpy and aclrtMemcpy2d. The DMA-descriptor forms
// (halMemcpySumbit, halMemcpyWait, 2-D ASYNC_CONVERT) are not supported.
#include "driver_api/drv_common.h"

using npu::drv::AnyContextScope;
using npu::drv::DeviceScope;
using npu::drv::FromAcl;
using npu::drv::Raw;
using npu::drv::Refuse;

namespace {

void *Ptr(uint64_t v) {
    return reinterpret_cast<void *>(static_cast<uintptr_t>(v));
}

bool KindOf(uint32_t dir, aclrtMemcpyKind *kind) {
    switch (dir) {
        case DRV_MEMCPY_HOST_TO_HOST:
            *kind = ACL_MEMCPY_HOST_TO_HOST;
            return true;
        case DRV_MEMCPY_HOST_TO_DEVICE:
            *kind = ACL_MEMCPY_HOST_TO_DEVICE;
            return true;
        case DRV_MEMCPY_DEVICE_TO_HOST:
            *kind = ACL_MEMCPY_DEVICE_TO_HOST;
            return true;
        case DRV_MEMCPY_DEVICE_TO_DEVICE:
            *kind = ACL_MEMCPY_DEVICE_TO_DEVICE;
            return true;
        default:
            return false;
    }
}

}  // namespace

NPU_DRV_API DVresult drvMemcpy(DVdeviceptr dst, size_t dest_max, DVdeviceptr src,
                               size_t byte_count) {
    if (dst == 0 || src == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvMemcpy: dst or src is 0");
    if (byte_count > dest_max)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvMemcpy: byte_count %zu is above dest_max %zu",
                      byte_count, dest_max);
    AnyContextScope scope;
    if (scope.status() != DRV_ERROR_NONE)
        return scope.status();
    return FromAcl(aclrtMemcpy(Ptr(dst), dest_max, Ptr(src), byte_count, ACL_MEMCPY_DEFAULT));
}

NPU_DRV_API drvError_t halMemcpy(void *dst, size_t dst_size, void *src, size_t count,
                                 struct memcpy_info *info) {
    if (dst == nullptr || src == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpy: dst or src is NULL");
    if (count > dst_size)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpy: count %zu is above dst_size %zu", count,
                      dst_size);
    aclrtMemcpyKind kind = ACL_MEMCPY_DEFAULT;
    if (info == nullptr) {
        AnyContextScope scope;
        if (scope.status() != DRV_ERROR_NONE)
            return scope.status();
        return FromAcl(aclrtMemcpy(dst, dst_size, src, count, kind));
    }
    if (info->reserve[0] != 0 || info->reserve[1] != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpy: info->reserve must be zero");
    if (!KindOf(Raw(info->dir), &kind))
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpy: info->dir %u is not a copy direction",
                      Raw(info->dir));
    DeviceScope scope(info->devid);
    if (scope.status() != DRV_ERROR_NONE)
        return Refuse(scope.status(), "halMemcpy: device %u cannot be opened", info->devid);
    return FromAcl(aclrtMemcpy(dst, dst_size, src, count, kind));
}

NPU_DRV_API drvError_t halMemcpy2D(struct MEMCPY2D *p_copy) {
    if (p_copy == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpy2D: p_copy is NULL");
    if (p_copy->type != DEVMM_MEMCPY2D_SYNC) {
        return Refuse(p_copy->type < DEVMM_MEMCPY2D_TYPE_MAX ? DRV_ERROR_NOT_SUPPORT
                                                             : DRV_ERROR_INVALID_VALUE,
                      "halMemcpy2D: type %u: only DEVMM_MEMCPY2D_SYNC is supported", p_copy->type);
    }
    struct drvMem2D &c = p_copy->copy2d;
    aclrtMemcpyKind kind = ACL_MEMCPY_DEFAULT;
    if (c.dst == nullptr || c.src == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpy2D: dst or src is NULL");
    if (!KindOf(c.direction, &kind))
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpy2D: direction %u is not a copy direction",
                      c.direction);
    AnyContextScope scope;
    if (scope.status() != DRV_ERROR_NONE)
        return scope.status();
    aclError err = aclrtMemcpy2d(c.dst, c.dpitch, c.src, c.spitch, c.width, c.height, kind);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    c.fixed_size = c.width * c.height;
    return DRV_ERROR_NONE;
}

NPU_DRV_API DVresult halMemcpyBatch(uint64_t dst[], uint64_t src[], size_t size[], size_t count) {
    if (dst == nullptr || src == nullptr || size == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpyBatch: dst, src or size is NULL");
    if (count == 0 || count > DEVMM_MEMCPY_BATCH_MAX_COUNT)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpyBatch: count %zu is not 1..%d", count,
                      DEVMM_MEMCPY_BATCH_MAX_COUNT);
    for (size_t i = 0; i < count; ++i) {
        if (dst[i] == 0 || src[i] == 0 || size[i] == 0)
            return Refuse(DRV_ERROR_INVALID_VALUE,
                          "halMemcpyBatch: entry %zu has a 0 address or size", i);
    }
    AnyContextScope scope;
    if (scope.status() != DRV_ERROR_NONE)
        return scope.status();
    for (size_t i = 0; i < count; ++i) {
        aclError err = aclrtMemcpy(Ptr(dst[i]), size[i], Ptr(src[i]), size[i], ACL_MEMCPY_DEFAULT);
        if (err != ACL_SUCCESS)
            return FromAcl(err);
    }
    return DRV_ERROR_NONE;
}

NPU_DRV_API DVresult halMemcpySumbit(struct DMA_ADDR *dma_addr, int flag) {
    (void)flag;
    if (dma_addr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpySumbit: dma_addr is NULL");
    return Refuse(DRV_ERROR_NOT_SUPPORT,
                  "halMemcpySumbit: DMA descriptors are not exposed; use aclrtMemcpyAsync");
}

NPU_DRV_API DVresult halMemcpyWait(struct DMA_ADDR *dma_addr) {
    if (dma_addr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemcpyWait: dma_addr is NULL");
    return Refuse(DRV_ERROR_NOT_SUPPORT,
                  "halMemcpyWait: DMA descriptors are not exposed; use aclrtMemcpyAsync");
}
