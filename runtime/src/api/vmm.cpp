// SPDX-License-Identifier: MIT
// Virtual memory management (spec §15) and shareable handles of physical
// memory (§16): physical handles, VA reservations, mappings, access.
#include <cerrno>
#include <cstring>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/share_registry.h"
#include "core/thread_state.h"
#include "npu/hal.h"

using npu::rt::Allocation;
using npu::rt::Context;
using npu::rt::DecodePhysHandle;
using npu::rt::DeviceManager;
using npu::rt::DeviceSession;
using npu::rt::EncodePhysHandle;
using npu::rt::EnumValue;
using npu::rt::ImportNotFoundHint;
using npu::rt::Error;
using npu::rt::MemoryKind;
using npu::rt::RunApi;
using npu::rt::ShareError;
using npu::rt::ShareRegistry;
using npu::rt::ThreadState;

namespace {

constexpr uint64_t kGranularity = 2ULL << 20;
constexpr uint64_t kGranularity1G = 1ULL << 30;
// aclrtMemFabricHandle of this implementation: a magic, then the handle.
constexpr char kFabricMagic[8] = {'N', 'P', 'U', 'F', 'A', 'B', '1', '\0'};

// What a memAttr asks for (spec §15.1).
struct MemClass {
    uint32_t page_class = NPU_CLASS_NORMAL;
    bool p2p = false;
};

// Accepts memAttr for a location type (the [ACL] rows of §15.1-15.3).
Error ClassifyMemAttr(int32_t loc_type, int32_t attr, MemClass *out) {
    bool device = loc_type == ACL_MEM_LOCATION_TYPE_DEVICE;
    bool host = loc_type == ACL_MEM_LOCATION_TYPE_HOST || loc_type == ACL_MEM_LOCATION_TYPE_HOST_NUMA;
    NPU_ACL_CHECK(device || host, "prop->location.type %d is not HOST, HOST_NUMA or DEVICE",
                  loc_type);
    switch (attr) {
        case ACL_DDR_MEM_HUGE:
        case ACL_DDR_MEM_NORMAL:
        case ACL_DDR_MEM_P2P_HUGE:
        case ACL_DDR_MEM_P2P_NORMAL:
            NPU_ACL_CHECK(!device, "prop->memAttr %d is DDR memory, not for a DEVICE location",
                          attr);
            break;
        case ACL_HBM_MEM_HUGE:
        case ACL_HBM_MEM_NORMAL:
        case ACL_HBM_MEM_HUGE1G:
        case ACL_MEM_NORMAL:
        case ACL_MEM_HUGE:
        case ACL_MEM_HUGE1G:
        case ACL_MEM_P2P_NORMAL:
        case ACL_MEM_P2P_HUGE:
        case ACL_MEM_P2P_HUGE1G:
            break;
        default:
            return Error::Format(ACL_ERROR_INVALID_PARAM,
                                 "prop->memAttr %d is not accepted for physical memory", attr);
    }
    switch (attr) {
        case ACL_DDR_MEM_HUGE:
        case ACL_DDR_MEM_P2P_HUGE:
        case ACL_HBM_MEM_HUGE:
        case ACL_MEM_HUGE:
        case ACL_MEM_P2P_HUGE:
            out->page_class = NPU_CLASS_HUGE;
            break;
        case ACL_HBM_MEM_HUGE1G:
        case ACL_MEM_HUGE1G:
        case ACL_MEM_P2P_HUGE1G:
            out->page_class = NPU_CLASS_HUGE1G;
            break;
        default:
            out->page_class = NPU_CLASS_NORMAL;
            break;
    }
    out->p2p = attr == ACL_DDR_MEM_P2P_HUGE || attr == ACL_DDR_MEM_P2P_NORMAL ||
               attr == ACL_MEM_P2P_NORMAL || attr == ACL_MEM_P2P_HUGE ||
               attr == ACL_MEM_P2P_HUGE1G;
    return Error::Ok();
}

// The session behind a handle value (107017 when it names none).
Error HandleSession(aclrtDrvMemHandle handle, std::shared_ptr<DeviceSession> *s, uint32_t *id) {
    int32_t dev = 0;
    if (!DecodePhysHandle(handle, &dev, id)) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "handle %p is not a physical memory handle", handle);
    }
    *s = DeviceManager::Get().SessionOf(dev);
    if (!*s) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "handle %p belongs to device %d, which is not set any more",
                             handle, dev);
    }
    return Error::Ok();
}

// The session whose aperture holds a VMM address (107000 when none does).
Error VaSession(const void *va, const char *what, std::shared_ptr<DeviceSession> *s) {
    *s = DeviceManager::Get().FindSession(va, 1);
    if (!*s) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%s %p is not a device address of any set device", what, va);
    }
    return Error::Ok();
}

Error MapCommon(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                uint64_t flags, uint32_t npu_flags) {
    NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
    NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
    NPU_ACL_CHECK(size != 0, "size is 0");
    NPU_ACL_CHECK(flags == 0, "flags 0x%llx must be 0", static_cast<unsigned long long>(flags));
    std::shared_ptr<DeviceSession> hs;
    uint32_t id = 0;
    NPU_RETURN_IF_ERROR(HandleSession(handle, &hs, &id));
    NPU_RT_CHECK(offset == 0, "offset %zu must be 0", offset);
    // The reservation may belong to another device than the memory (spec
    // aclrtMapMem: the handle's device need not be current).
    std::shared_ptr<DeviceSession> vs = DeviceManager::Get().FindSession(virPtr, size);
    NPU_RT_CHECK(vs != nullptr, "virPtr %p + %zu bytes is not in a reservation of any device",
                 virPtr, size);
    uint32_t map_id = id;
    if (vs != hs) {
        int err = halPhysPeer(vs->hal(), hs->hal(), id, &map_id);
        if (err != 0) {
            return ShareError(err, true,
                              "cannot map handle %p of device %d into a reservation of device "
                              "%d: an imported handle maps only on the device it was imported "
                              "to",
                              handle, hs->user_id(), vs->user_id());
        }
    }
    int err = halVmmMap(vs->hal(), reinterpret_cast<uintptr_t>(virPtr), size, map_id, npu_flags);
    // The mapping holds the memory: the handle made for it is not needed.
    if (map_id != id)
        halPhysFree(vs->hal(), map_id);
    if (err != 0) {
        return ShareError(err, true,
                          "cannot map handle %p (%zu bytes) at %p: size must be the handle's, "
                          "virPtr aligned to its granularity, inside one reservation, not "
                          "mapped yet, and the reservation must not mix local and imported "
                          "handles or two devices' memory",
                          handle, size, virPtr);
    }
    return Error::Ok();
}

// The session a new VMM object goes to: the current device, else any open one.
Error VmmSession(std::shared_ptr<DeviceSession> *s) {
    if (std::shared_ptr<Context> ctx = ThreadState::CurrentContext()) {
        *s = ctx->session_ptr();
        return Error::Ok();
    }
    *s = DeviceManager::Get().AnySession();
    if (*s)
        return Error::Ok();
    // No device is open: these calls need no context (spec, threads and
    // contexts), so device 0 serves them.
    return DeviceManager::Get().OpenSession(0, s);
}

Error ExportHandle(aclrtDrvMemHandle handle, uint64_t flags, uint64_t *share) {
    std::shared_ptr<DeviceSession> s;
    uint32_t id = 0;
    NPU_RETURN_IF_ERROR(HandleSession(handle, &s, &id));
    int err = halShareExport(s->hal(), id, flags ? NPU_SHARE_NO_WHITELIST : 0, share);
    if (err == -ENOSPC) {
        return ShareError(err, true,
                          "handle %p cannot be exported: the process reached its limit of "
                          "shareable handles on device %d (npu-smi shows use and limits)",
                          handle, s->user_id());
    }
    if (err != 0) {
        return ShareError(err, true,
                          "handle %p cannot be exported: already exported, or imported "
                          "from another process",
                          handle);
    }
    ShareRegistry::Get().AddExportedHandle(*share, s);
    return Error::Ok();
}

Error SetPidHandle(uint64_t share, int32_t *pid, size_t pidNum) {
    NPU_RT_CHECK(pidNum <= NPU_SHARE_MAX_PIDS, "pidNum %zu is above the maximum %d", pidNum,
                 NPU_SHARE_MAX_PIDS);
    std::shared_ptr<DeviceSession> s = ShareRegistry::Get().ExporterOfHandle(share);
    if (!s)
        NPU_RETURN_IF_ERROR(VmmSession(&s));
    int err = halShareSetPid(s->hal(), share, pid, static_cast<uint32_t>(pidNum));
    if (err == -ESRCH) {
        return ShareError(err, false,
                          "cannot whitelist %zu pid(s) for shareable handle 0x%llx: a pid names "
                          "no running process (pass TGIDs from aclrtDeviceGetBareTgid of live "
                          "processes); none was added",
                          pidNum, static_cast<unsigned long long>(share));
    }
    if (err != 0) {
        return ShareError(err, false,
                          "cannot whitelist %zu pid(s) for shareable handle 0x%llx: unknown, "
                          "not exported by this process, or exported without a whitelist",
                          pidNum, static_cast<unsigned long long>(share));
    }
    return Error::Ok();
}

Error ImportHandle(uint64_t share, const std::shared_ptr<DeviceSession> &s,
                   aclrtDrvMemHandle *handle) {
    struct npu_share_import si = {};
    int err = halShareImport(s->hal(), share, &si);
    if (err == -EPERM) {
        return ShareError(err, false,
                          "this process is not on the whitelist of shareable handle 0x%llx",
                          static_cast<unsigned long long>(share));
    }
    if (err == -ENOSPC) {
        return ShareError(err, false,
                          "shareable handle 0x%llx cannot be imported: the process reached its "
                          "limit of physical handles on device %d",
                          static_cast<unsigned long long>(share), s->user_id());
    }
    if (err != 0) {
        return ShareError(err, false,
                          "shareable handle 0x%llx cannot be imported on device %d: unknown, "
                          "freed by its exporter, or exported by this very process%s",
                          static_cast<unsigned long long>(share), s->user_id(),
                          ImportNotFoundHint(err));
    }
    *handle = EncodePhysHandle(s->user_id(), si.handle);
    return Error::Ok();
}

Error CheckShareType(int32_t type) {
    NPU_RT_CHECK(type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT || type == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
                 "shareType %d is not ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT or _FABRIC", type);
    return Error::Ok();
}

// The 64-bit shareable handle behind V2 caller storage.
Error ReadShareV2(const void *sh, int32_t type, uint64_t *share) {
    if (type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
        std::memcpy(share, sh, sizeof(*share));
        return Error::Ok();
    }
    const auto *fab = static_cast<const aclrtMemFabricHandle *>(sh);
    NPU_RT_CHECK(std::memcmp(fab->data, kFabricMagic, sizeof(kFabricMagic)) == 0,
                 "shareableHandle is not a fabric handle made by aclrtMemExportToShareableHandleV2");
    std::memcpy(share, fab->data + sizeof(kFabricMagic), sizeof(*share));
    return Error::Ok();
}

// The memAttr aclrtMemGetAllocationPropertiesFromHandle reports: lossy, as
// upstream's (spec, handle introspection): device memory as ACL_HBM_MEM_*,
// host memory as ACL_MEM_*.
aclrtMemAttr PropMemAttr(const struct npu_phys_info &pi) {
    bool p2p = (pi.flags & NPU_MEM_P2P) != 0;
    if (pi.flags & NPU_MEM_HOST) {
        switch (pi.page_class) {
            case NPU_CLASS_HUGE:
                return p2p ? ACL_MEM_P2P_HUGE : ACL_MEM_HUGE;
            case NPU_CLASS_HUGE1G:
                return p2p ? ACL_MEM_P2P_HUGE1G : ACL_MEM_HUGE1G;
            default:
                return p2p ? ACL_MEM_P2P_NORMAL : ACL_MEM_NORMAL;
        }
    }
    switch (pi.page_class) {
        case NPU_CLASS_HUGE:
            return p2p ? ACL_HBM_MEM_P2P_HUGE : ACL_HBM_MEM_HUGE;
        case NPU_CLASS_HUGE1G:
            return p2p ? ACL_HBM_MEM_P2P_HUGE1G : ACL_HBM_MEM_HUGE1G;
        default:
            return p2p ? ACL_HBM_MEM_P2P_NORMAL : ACL_HBM_MEM_NORMAL;
    }
}

}  // namespace

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                          aclrtMemGranularityOptions option,
                                          size_t *granularity) {
    return RunApi("aclrtMemGetAllocationGranularity", [&] {
        NPU_ACL_CHECK(prop != nullptr, "prop is NULL");
        NPU_ACL_CHECK(granularity != nullptr, "granularity is NULL");
        MemClass mc;
        int32_t loc = EnumValue(prop->location.type);
        NPU_RETURN_IF_ERROR(ClassifyMemAttr(loc, EnumValue(prop->memAttr), &mc));
        if (loc == ACL_MEM_LOCATION_TYPE_DEVICE) {
            uint32_t phys = 0;
            NPU_RETURN_IF_ERROR(DeviceManager::Get().ToPhysical(
                static_cast<int32_t>(prop->location.id), &phys));
        }
        int32_t opt = EnumValue(option);
        NPU_RT_CHECK(opt == ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM ||
                         opt == ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
                     "option %d is not MINIMUM or RECOMMENDED", opt);
        *granularity = mc.page_class == NPU_CLASS_HUGE1G ? kGranularity1G : kGranularity;
        return Error::Ok();
    });
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                             const aclrtPhysicalMemProp *prop, uint64_t flags) {
    return RunApi("aclrtMallocPhysical", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(prop != nullptr, "prop is NULL");
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(flags == 0, "flags 0x%llx must be 0", static_cast<unsigned long long>(flags));
        NPU_ACL_CHECK(EnumValue(prop->handleType) == ACL_MEM_HANDLE_TYPE_NONE,
                      "prop->handleType %d is not ACL_MEM_HANDLE_TYPE_NONE",
                      EnumValue(prop->handleType));
        NPU_ACL_CHECK(EnumValue(prop->allocationType) == ACL_MEM_ALLOCATION_TYPE_PINNED,
                      "prop->allocationType %d is not ACL_MEM_ALLOCATION_TYPE_PINNED",
                      EnumValue(prop->allocationType));
        int32_t loc = EnumValue(prop->location.type);
        NPU_ACL_CHECK(loc != ACL_MEM_LOCATION_TYPE_UNREGISTERED &&
                          loc != ACL_MEM_LOCATION_TYPE_MANAGED,
                      "prop->location.type %d (UNREGISTERED/MANAGED) cannot hold physical memory",
                      loc);
        MemClass mc;
        NPU_RETURN_IF_ERROR(ClassifyMemAttr(loc, EnumValue(prop->memAttr), &mc));
        if (loc == ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
            std::shared_ptr<Context> ctx;
            NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "physical memory on a host NUMA node is not supported by this "
                                 "driver; use location type ACL_MEM_LOCATION_TYPE_HOST");
        }
        std::shared_ptr<DeviceSession> s;
        uint32_t npu_flags = mc.p2p ? NPU_MEM_P2P : 0;
        if (loc == ACL_MEM_LOCATION_TYPE_DEVICE) {
            // The device need not be current, nor set at all.
            NPU_RETURN_IF_ERROR(
                DeviceManager::Get().OpenSession(static_cast<int32_t>(prop->location.id), &s));
        } else {
            // Host memory: the current device's driver holds it.
            NPU_RETURN_IF_ERROR(VmmSession(&s));
            npu_flags |= NPU_MEM_HOST;
        }
        int32_t dev = s->user_id();
        const char *where = loc == ACL_MEM_LOCATION_TYPE_DEVICE ? "device" : "host";
        if (mc.page_class == NPU_CLASS_HUGE1G && !s->has_huge1g()) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "device %d has no 1 GiB pages", dev);
        }
        uint32_t id = 0;
        int err = halPhysAlloc(s->hal(), size, mc.page_class, npu_flags, &id);
        if (err == -ENOSPC) {
            return ShareError(err, false,
                              "the process reached its limit of physical handles on device %d "
                              "(npu-smi shows use and limits)",
                              dev);
        }
        if (err == -ENOMEM && loc == ACL_MEM_LOCATION_TYPE_DEVICE) {
            return ShareError(err, false,
                              "device %d cannot provide %zu bytes of physical memory: the "
                              "device is full or the process reached its device memory limit",
                              dev, size);
        }
        if (err == -ENOMEM) {
            return ShareError(err, false,
                              "cannot provide %zu bytes of physical host memory through device "
                              "%d: the process reached its pinned host memory limit, or the "
                              "device's host physical memory (at most its HBM size) is in use",
                              size, dev);
        }
        if (err != 0) {
            return ShareError(err, false,
                              "cannot allocate %zu bytes of physical %s memory on device %d "
                              "(size must be a multiple of the granularity, %llu bytes)",
                              size, where, dev,
                              static_cast<unsigned long long>(
                                  mc.page_class == NPU_CLASS_HUGE1G ? kGranularity1G : kGranularity));
        }
        s->SetPhysReserve(id, prop->reserve);
        *handle = EncodePhysHandle(dev, id);
        return Error::Ok();
    });
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
    return RunApi("aclrtFreePhysical", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        std::shared_ptr<DeviceSession> s;
        uint32_t id = 0;
        NPU_RETURN_IF_ERROR(HandleSession(handle, &s, &id));
        int err = halPhysFree(s->hal(), id);
        if (err != 0)
            return ShareError(err, true, "handle %p is unknown or already freed", handle);
        struct npu_phys_info pi = {};
        if (s->PhysReserve(id) != 0 && halPhysInfo(s->hal(), id, &pi) == -ENOENT)
            s->ForgetPhysReserve(id);  // that was the last reference
        return Error::Ok();
    });
}

aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                uint64_t flags) {
    return RunApi("aclrtReserveMemAddress", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(flags <= 1, "flags 0x%llx is not 0 or 1",
                      static_cast<unsigned long long>(flags));
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(VmmSession(&s));
        NPU_RT_CHECK(alignment == 0, "alignment %zu must be 0", alignment);
        uint64_t va = 0;
        int err = halVmmReserve(s->hal(), size, reinterpret_cast<uintptr_t>(expectPtr),
                                flags ? NPU_RESERVE_HUGE : 0, &va);
        if (err != 0) {
            return ShareError(err, false,
                              "cannot reserve %zu bytes at %p on device %d (expectPtr must be "
                              "free, in the device window and aligned to the next power of two "
                              ">= size, at most 1 GiB)",
                              size, expectPtr, s->user_id());
        }
        Allocation a;
        a.base = va;
        a.requested = size;
        a.reserved = (size + kGranularity - 1) & ~(kGranularity - 1);
        a.mapped = a.reserved;
        a.page_size = static_cast<uint32_t>(kGranularity);
        a.user_device = s->user_id();
        a.kind = MemoryKind::kVmmReservation;
        s->allocations().Insert(a);
        *virPtr = reinterpret_cast<void *>(static_cast<uintptr_t>(va));
        return Error::Ok();
    });
}

aclError aclrtReleaseMemAddress(void *virPtr) {
    return RunApi("aclrtReleaseMemAddress", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(VaSession(virPtr, "virPtr", &s));
        int err = halVmmRelease(s->hal(), reinterpret_cast<uintptr_t>(virPtr));
        if (err != 0) {
            return ShareError(err, false,
                              "virPtr %p is not the start of a reservation, or something is "
                              "still mapped in it",
                              virPtr);
        }
        s->allocations().Remove(reinterpret_cast<uintptr_t>(virPtr));
        return Error::Ok();
    });
}

aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                     uint64_t flags) {
    return RunApi("aclrtMapMem",
                  [&] { return MapCommon(virPtr, size, offset, handle, flags, 0); });
}

aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                             uint64_t flags) {
    return RunApi("aclrtMemMapNoAccess", [&] {
        return MapCommon(virPtr, size, offset, handle, flags, NPU_MAP_NOACCESS);
    });
}

aclError aclrtUnmapMem(void *virPtr) {
    return RunApi("aclrtUnmapMem", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(VaSession(virPtr, "virPtr", &s));
        int err = halVmmUnmap(s->hal(), reinterpret_cast<uintptr_t>(virPtr));
        if (err != 0)
            return ShareError(err, false, "virPtr %p is not the start of a mapping", virPtr);
        return Error::Ok();
    });
}

aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count) {
    return RunApi("aclrtMemSetAccess", [&] {
        NPU_RT_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_RT_CHECK(desc != nullptr, "desc is NULL");
        NPU_RT_CHECK(count != 0, "count is 0");
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(VaSession(virPtr, "virPtr", &s));
        for (size_t i = 0; i < count; ++i) {
            int32_t fl = EnumValue(desc[i].flags);
            int32_t type = EnumValue(desc[i].location.type);
            NPU_RT_CHECK(fl == ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
                         "desc[%zu].flags %d: only ACL_RT_MEM_ACCESS_FLAGS_READWRITE is "
                         "supported",
                         i, fl);
            uint32_t loc_id = desc[i].location.id;
            if (type == ACL_MEM_LOCATION_TYPE_DEVICE) {
                Error e = DeviceManager::Get().ToPhysical(static_cast<int32_t>(loc_id), &loc_id);
                NPU_RT_CHECK(e.ok(), "desc[%zu].location.id %u is not a device", i,
                             desc[i].location.id);
            } else {
                NPU_RT_CHECK(type == ACL_MEM_LOCATION_TYPE_HOST && loc_id == 0,
                             "desc[%zu].location (type %d, id %u) is not HOST 0 or a DEVICE", i,
                             type, loc_id);
            }
            int err = halVmmSetAccess(s->hal(), reinterpret_cast<uintptr_t>(virPtr), size,
                                      static_cast<uint32_t>(type), loc_id, NPU_ACCESS_RW);
            if (err != 0) {
                return ShareError(err, false,
                                  "virPtr %p + %zu bytes is not exactly one mapping", virPtr,
                                  size);
            }
        }
        return Error::Ok();
    });
}

aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag) {
    return RunApi("aclrtMemGetAccess", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_ACL_CHECK(location != nullptr, "location is NULL");
        NPU_ACL_CHECK(flag != nullptr, "flag is NULL");
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(VaSession(virPtr, "virPtr", &s));
        int32_t type = EnumValue(location->type);
        uint32_t loc_id = location->id;
        if (type == ACL_MEM_LOCATION_TYPE_DEVICE) {
            Error e = DeviceManager::Get().ToPhysical(static_cast<int32_t>(loc_id), &loc_id);
            NPU_RT_CHECK(e.ok(), "location->id %u is not a device", location->id);
        }
        uint32_t access = 0;
        int err = halVmmGetAccess(s->hal(), reinterpret_cast<uintptr_t>(virPtr),
                                  static_cast<uint32_t>(type), loc_id, &access);
        if (err != 0)
            return ShareError(err, false, "virPtr %p is not in a mapping (or bad location)", virPtr);
        *flag = access;
        return Error::Ok();
    });
}

aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle) {
    return RunApi("aclrtMemRetainAllocationHandle", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(VaSession(virPtr, "virPtr", &s));
        uint32_t id = 0;
        int err = halPhysRetain(s->hal(), reinterpret_cast<uintptr_t>(virPtr), &id);
        if (err != 0)
            return ShareError(err, false, "virPtr %p is not in a VMM mapping", virPtr);
        *handle = EncodePhysHandle(s->user_id(), id);
        return Error::Ok();
    });
}

aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
                                                   aclrtPhysicalMemProp *prop) {
    return RunApi("aclrtMemGetAllocationPropertiesFromHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(prop != nullptr, "prop is NULL");
        std::shared_ptr<DeviceSession> s;
        uint32_t id = 0;
        NPU_RETURN_IF_ERROR(HandleSession(handle, &s, &id));
        struct npu_phys_info pi = {};
        int err = halPhysInfo(s->hal(), id, &pi);
        if (err != 0)
            return ShareError(err, true, "handle %p is unknown or already freed", handle);
        *prop = aclrtPhysicalMemProp{};
        prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
        prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
        prop->memAttr = PropMemAttr(pi);
        if (pi.flags & NPU_MEM_HOST) {
            prop->location.type = ACL_MEM_LOCATION_TYPE_HOST;
            prop->location.id = 0;
        } else {
            // The memory's device: another one than the handle's for memory
            // of another device mapped here (aclrtMemRetainAllocationHandle).
            int32_t owner = s->user_id();
            DeviceManager::Get().ToUser(pi.device, &owner);
            prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
            prop->location.id = static_cast<uint32_t>(owner);
        }
        prop->reserve = s->PhysReserve(id);
        return Error::Ok();
    });
}

aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                         uint64_t flags, uint64_t *shareableHandle) {
    return RunApi("aclrtMemExportToShareableHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(EnumValue(handleType) == ACL_MEM_HANDLE_TYPE_NONE,
                      "handleType %d is not ACL_MEM_HANDLE_TYPE_NONE", EnumValue(handleType));
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        NPU_RT_CHECK(flags <= ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                     "flags 0x%llx is not 0 or ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
                     static_cast<unsigned long long>(flags));
        return ExportHandle(handle, flags, shareableHandle);
    });
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum) {
    return RunApi("aclrtMemSetPidToShareableHandle", [&] {
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        NPU_ACL_CHECK(pidNum != 0, "pidNum is 0");
        return SetPidHandle(shareableHandle, pid, pidNum);
    });
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                           aclrtDrvMemHandle *handle) {
    return RunApi("aclrtMemImportFromShareableHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(DeviceManager::Get().ToPhysical(deviceId, &phys));
        std::shared_ptr<DeviceSession> s = DeviceManager::Get().SessionOf(deviceId);
        if (!s) {
            return Error::Format(ACL_ERROR_RT_CONTEXT_NULL,
                                 "device %d is not set in this process (aclrtSetDevice)",
                                 deviceId);
        }
        return ImportHandle(shareableHandle, s, handle);
    });
}

aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                           aclrtMemSharedHandleType shareType,
                                           void *shareableHandle) {
    return RunApi("aclrtMemExportToShareableHandleV2", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        int32_t type = EnumValue(shareType);
        NPU_RETURN_IF_ERROR(CheckShareType(type));
        NPU_RT_CHECK(flags <= ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                     "flags 0x%llx is not 0 or ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
                     static_cast<unsigned long long>(flags));
        uint64_t share = 0;
        NPU_RETURN_IF_ERROR(ExportHandle(handle, flags, &share));
        if (type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
            std::memcpy(shareableHandle, &share, sizeof(share));
        } else {
            aclrtMemFabricHandle fab = {};
            std::memcpy(fab.data, kFabricMagic, sizeof(kFabricMagic));
            std::memcpy(fab.data + sizeof(kFabricMagic), &share, sizeof(share));
            std::memcpy(shareableHandle, &fab, sizeof(fab));
        }
        return Error::Ok();
    });
}

aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
                                             aclrtMemSharedHandleType shareType, uint64_t flags,
                                             aclrtDrvMemHandle *handle) {
    return RunApi("aclrtMemImportFromShareableHandleV2", [&] {
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(flags == 0, "flags 0x%llx must be 0", static_cast<unsigned long long>(flags));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        int32_t type = EnumValue(shareType);
        NPU_RETURN_IF_ERROR(CheckShareType(type));
        uint64_t share = 0;
        NPU_RETURN_IF_ERROR(ReadShareV2(shareableHandle, type, &share));
        return ImportHandle(share, ctx->session_ptr(), handle);
    });
}

aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
                                           aclrtMemSharedHandleType shareType, int32_t *pid,
                                           size_t pidNum) {
    return RunApi("aclrtMemSetPidToShareableHandleV2", [&] {
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        NPU_ACL_CHECK(pidNum != 0, "pidNum is 0");
        int32_t type = EnumValue(shareType);
        NPU_RETURN_IF_ERROR(CheckShareType(type));
        uint64_t share = 0;
        NPU_RETURN_IF_ERROR(ReadShareV2(shareableHandle, type, &share));
        return SetPidHandle(share, pid, pidNum);
    });
}
