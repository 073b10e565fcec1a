// SPDX-License-Identifier: MIT
// Virtual memory management: reservations, physical handles, mappings and
// access, over aclrtReserveMemAddress, aclrtMallocPhysical and aclrtMapMem.
// A drv_mem_handle_t * is the aclrtDrvMemHandle of the same memory.
#include "driver_api/drv_common.h"

using npu::drv::FromAcl;
using npu::drv::Raw;
using npu::drv::Refuse;

namespace {

aclrtDrvMemHandle AclHandle(drv_mem_handle_t *h) {
    return reinterpret_cast<aclrtDrvMemHandle>(h);
}

// The acl properties of a drv_mem_prop.
drvError_t ToAclProp(const char *api, const struct drv_mem_prop *prop, aclrtPhysicalMemProp *out) {
    if (prop == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: prop is NULL", api);
    if (prop->pg_type >= MEM_MAX_PAGE_TYPE)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: prop->pg_type %u is not a page type", api,
                      prop->pg_type);
    if (prop->mem_type >= MEM_MAX_TYPE)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: prop->mem_type %u is not a memory type", api,
                      prop->mem_type);
    if (prop->mem_type == MEM_TS_DDR_TYPE)
        return Refuse(DRV_ERROR_NOT_SUPPORT, "%s: TS DDR memory does not exist on this device",
                      api);
    const bool p2p = prop->mem_type == MEM_P2P_HBM_TYPE || prop->mem_type == MEM_P2P_DDR_TYPE;
    *out = aclrtPhysicalMemProp{};
    out->handleType = ACL_MEM_HANDLE_TYPE_NONE;
    out->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    out->reserve = prop->reserve;
    out->location.id = prop->devid;
    switch (prop->side) {
        case MEM_DEV_SIDE: {
            static constexpr aclrtMemAttr kDev[2][3] = {
                {ACL_HBM_MEM_NORMAL, ACL_HBM_MEM_HUGE, ACL_HBM_MEM_HUGE1G},
                {ACL_MEM_P2P_NORMAL, ACL_MEM_P2P_HUGE, ACL_MEM_P2P_HUGE1G}};
            out->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
            out->memAttr = kDev[p2p][prop->pg_type];
            return DRV_ERROR_NONE;
        }
        case MEM_HOST_SIDE:
        case MEM_HOST_NUMA_SIDE: {
            static constexpr aclrtMemAttr kHost[2][3] = {
                {ACL_DDR_MEM_NORMAL, ACL_DDR_MEM_HUGE, ACL_MEM_HUGE1G},
                {ACL_DDR_MEM_P2P_NORMAL, ACL_DDR_MEM_P2P_HUGE, ACL_MEM_P2P_HUGE1G}};
            if (prop->side == MEM_HOST_SIDE) {
                out->location.type = ACL_MEM_LOCATION_TYPE_HOST;
                out->location.id = 0;
            } else {
                out->location.type = ACL_MEM_LOCATION_TYPE_HOST_NUMA;
            }
            out->memAttr = kHost[p2p][prop->pg_type];
            return DRV_ERROR_NONE;
        }
        default:
            return Refuse(DRV_ERROR_INVALID_VALUE,
                          "%s: prop->side %u is not HOST, DEV or HOST_NUMA", api, prop->side);
    }
}

}  // namespace

NPU_DRV_API drvError_t halMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
                                            uint64_t flag) {
    constexpr uint64_t kKnown = 0x3 | MEM_RSV_TYPE_DEVICE_SHARE | MEM_RSV_TYPE_REMOTE_MAP;
    if (ptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemAddressReserve: ptr is NULL");
    if (size == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemAddressReserve: size is 0");
    if ((flag & ~kKnown) != 0 || (flag & 0x3) >= MEM_MAX_PAGE_TYPE)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemAddressReserve: flag 0x%llx is not known",
                      static_cast<unsigned long long>(flag));
    if (alignment != 0 && (alignment & (alignment - 1)) != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemAddressReserve: alignment %zu is not a power of two", alignment);
    if (addr != nullptr && alignment != 0 && reinterpret_cast<uintptr_t>(addr) % alignment != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemAddressReserve: addr %p is not aligned to %zu", addr, alignment);
    void *va = nullptr;
    const uint64_t huge = (flag & 0x3) != MEM_NORMAL_PAGE_TYPE ? 1 : 0;
    aclError err = aclrtReserveMemAddress(&va, size, 0, addr, huge);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    if (alignment != 0 && reinterpret_cast<uintptr_t>(va) % alignment != 0) {
        // Larger than the reservation's own alignment: find an aligned
        // start inside a reservation of size + alignment, and take it.
        (void)aclrtReleaseMemAddress(va);
        err = aclrtReserveMemAddress(&va, size + alignment, 0, nullptr, huge);
        if (err != ACL_SUCCESS)
            return FromAcl(err);
        uintptr_t at = (reinterpret_cast<uintptr_t>(va) + alignment - 1) & ~(alignment - 1);
        (void)aclrtReleaseMemAddress(va);
        err = aclrtReserveMemAddress(&va, size, 0, reinterpret_cast<void *>(at), huge);
        if (err != ACL_SUCCESS)
            return FromAcl(err);
    }
    *ptr = va;
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemAddressFree(void *ptr) {
    if (ptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemAddressFree: ptr is NULL");
    return FromAcl(aclrtReleaseMemAddress(ptr));
}

NPU_DRV_API drvError_t halMemCreate(drv_mem_handle_t **handle, size_t size,
                                    const struct drv_mem_prop *prop, uint64_t flag) {
    if (handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemCreate: handle is NULL");
    if (size == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemCreate: size is 0");
    if (flag != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemCreate: flag 0x%llx must be 0",
                      static_cast<unsigned long long>(flag));
    aclrtPhysicalMemProp ap;
    drvError_t ret = ToAclProp("halMemCreate", prop, &ap);
    if (ret != DRV_ERROR_NONE)
        return ret;
    aclrtDrvMemHandle h = nullptr;
    aclError err = aclrtMallocPhysical(&h, size, &ap, 0);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *handle = reinterpret_cast<drv_mem_handle_t *>(h);
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemRelease(drv_mem_handle_t *handle) {
    if (handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemRelease: handle is NULL");
    return FromAcl(aclrtFreePhysical(AclHandle(handle)));
}

NPU_DRV_API drvError_t halMemRetainAllocationHandle(drv_mem_handle_t **handle, void *ptr) {
    if (handle == nullptr || ptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemRetainAllocationHandle: handle or ptr is NULL");
    aclrtDrvMemHandle h = nullptr;
    aclError err = aclrtMemRetainAllocationHandle(ptr, &h);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *handle = reinterpret_cast<drv_mem_handle_t *>(h);
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemGetAllocationPropertiesFromHandle(struct drv_mem_prop *prop,
                                                               drv_mem_handle_t *handle) {
    if (prop == nullptr || handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemGetAllocationPropertiesFromHandle: prop or handle is NULL");
    aclrtPhysicalMemProp ap = {};
    aclError err = aclrtMemGetAllocationPropertiesFromHandle(AclHandle(handle), &ap);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *prop = drv_mem_prop{};
    const bool dev = ap.location.type == ACL_MEM_LOCATION_TYPE_DEVICE;
    prop->side = dev ? MEM_DEV_SIDE : MEM_HOST_SIDE;
    prop->devid = dev ? ap.location.id : 0;
    prop->reserve = ap.reserve;
    bool p2p = false;
    switch (ap.memAttr) {
        case ACL_HBM_MEM_HUGE:
        case ACL_MEM_HUGE:
        case ACL_DDR_MEM_HUGE:
            prop->pg_type = MEM_HUGE_PAGE_TYPE;
            break;
        case ACL_HBM_MEM_P2P_HUGE:
        case ACL_MEM_P2P_HUGE:
        case ACL_DDR_MEM_P2P_HUGE:
            prop->pg_type = MEM_HUGE_PAGE_TYPE;
            p2p = true;
            break;
        case ACL_HBM_MEM_HUGE1G:
        case ACL_MEM_HUGE1G:
            prop->pg_type = MEM_GIANT_PAGE_TYPE;
            break;
        case ACL_HBM_MEM_P2P_HUGE1G:
        case ACL_MEM_P2P_HUGE1G:
            prop->pg_type = MEM_GIANT_PAGE_TYPE;
            p2p = true;
            break;
        case ACL_HBM_MEM_P2P_NORMAL:
        case ACL_MEM_P2P_NORMAL:
        case ACL_DDR_MEM_P2P_NORMAL:
            prop->pg_type = MEM_NORMAL_PAGE_TYPE;
            p2p = true;
            break;
        default:
            prop->pg_type = MEM_NORMAL_PAGE_TYPE;
            break;
    }
    if (dev)
        prop->mem_type = p2p ? MEM_P2P_HBM_TYPE : MEM_HBM_TYPE;
    else
        prop->mem_type = p2p ? MEM_P2P_DDR_TYPE : MEM_DDR_TYPE;
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemMap(void *ptr, size_t size, size_t offset, drv_mem_handle_t *handle,
                                 uint64_t flag) {
    if (ptr == nullptr || handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemMap: ptr or handle is NULL");
    if (size == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemMap: size is 0");
    if (offset != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemMap: offset %zu must be 0", offset);
    if (flag != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemMap: flag 0x%llx must be 0",
                      static_cast<unsigned long long>(flag));
    return FromAcl(aclrtMapMem(ptr, size, 0, AclHandle(handle), 0));
}

NPU_DRV_API drvError_t halMemUnmap(void *ptr) {
    if (ptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemUnmap: ptr is NULL");
    return FromAcl(aclrtUnmapMem(ptr));
}

NPU_DRV_API drvError_t halMemSetAccess(void *ptr, size_t size, struct drv_mem_access_desc *desc,
                                       size_t count) {
    constexpr size_t kMaxDesc = 64;
    if (ptr == nullptr || desc == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemSetAccess: ptr or desc is NULL");
    if (size == 0 || count == 0 || count > kMaxDesc)
        return Refuse(
            DRV_ERROR_INVALID_VALUE,
            "halMemSetAccess: size %zu and count %zu must be non-zero (count at most %zu)", size,
            count, kMaxDesc);
    aclrtMemAccessDesc ad[kMaxDesc] = {};
    for (size_t i = 0; i < count; ++i) {
        if (Raw(desc[i].type) != MEM_ACCESS_TYPE_READWRITE) {
            return Refuse(Raw(desc[i].type) == MEM_ACCESS_TYPE_NONE ||
                                  Raw(desc[i].type) == MEM_ACCESS_TYPE_READ
                              ? DRV_ERROR_NOT_SUPPORT
                              : DRV_ERROR_INVALID_VALUE,
                          "halMemSetAccess: desc[%zu].type %d: only MEM_ACCESS_TYPE_READWRITE is "
                          "supported",
                          i, static_cast<int>(Raw(desc[i].type)));
        }
        ad[i].flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
        if (Raw(desc[i].location.side) == MEM_DEV_SIDE) {
            ad[i].location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        } else if (Raw(desc[i].location.side) == MEM_HOST_SIDE) {
            ad[i].location.type = ACL_MEM_LOCATION_TYPE_HOST;
        } else {
            return Refuse(DRV_ERROR_INVALID_VALUE,
                          "halMemSetAccess: desc[%zu].location.side %d is not HOST or DEV", i,
                          static_cast<int>(Raw(desc[i].location.side)));
        }
        ad[i].location.id = desc[i].location.id;
    }
    return FromAcl(aclrtMemSetAccess(ptr, size, ad, count));
}

NPU_DRV_API drvError_t halMemGetAccess(void *ptr, struct drv_mem_location *location,
                                       uint64_t *flags) {
    if (ptr == nullptr || location == nullptr || flags == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemGetAccess: ptr, location or flags is NULL");
    aclrtMemLocation loc = {};
    if (Raw(location->side) == MEM_DEV_SIDE)
        loc.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    else if (Raw(location->side) == MEM_HOST_SIDE)
        loc.type = ACL_MEM_LOCATION_TYPE_HOST;
    else
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemGetAccess: location->side %d is not HOST or DEV",
                      static_cast<int>(Raw(location->side)));
    loc.id = location->id;
    uint64_t f = 0;
    aclError err = aclrtMemGetAccess(ptr, &loc, &f);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    switch (f) {
        case ACL_RT_MEM_ACCESS_FLAGS_READWRITE:
            *flags = MEM_ACCESS_TYPE_READWRITE;
            break;
        case ACL_RT_MEM_ACCESS_FLAGS_READ:
            *flags = MEM_ACCESS_TYPE_READ;
            break;
        default:
            *flags = MEM_ACCESS_TYPE_NONE;
            break;
    }
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemGetAllocationGranularity(const struct drv_mem_prop *prop,
                                                      drv_mem_granularity_options option,
                                                      size_t *granularity) {
    if (granularity == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemGetAllocationGranularity: granularity is NULL");
    if (Raw(option) != MEM_ALLOC_GRANULARITY_MINIMUM &&
        Raw(option) != MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemGetAllocationGranularity: option %d is not MINIMUM or RECOMMENDED",
                      static_cast<int>(Raw(option)));
    aclrtPhysicalMemProp ap;
    drvError_t ret = ToAclProp("halMemGetAllocationGranularity", prop, &ap);
    if (ret != DRV_ERROR_NONE)
        return ret;
    if (ap.location.type == ACL_MEM_LOCATION_TYPE_HOST_NUMA)
        ap.location.type = ACL_MEM_LOCATION_TYPE_HOST;  // the same granularity
    return FromAcl(aclrtMemGetAllocationGranularity(
        &ap, static_cast<aclrtMemGranularityOptions>(Raw(option)), granularity));
}
