// SPDX-License-Identifier: MIT
#include "core/vmm.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "core/allocation_registry.h"
#include "core/checker.h"
#include "core/context.h"
#include "core/device_manager.h"
#include "core/share_registry.h"
#include "core/thread_state.h"
#include "npu/hal.h"

namespace npu::rt::vmm {

static_assert(kClassNormal == NPU_CLASS_NORMAL && kClassHuge1g == NPU_CLASS_HUGE1G);

namespace {

// The memAttr aclrtMemGetAllocationPropertiesFromHandle reports: lossy, as
// upstream's (device memory as ACL_HBM_MEM_*, host memory as ACL_MEM_*).
aclrtMemAttr PropMemAttr(const struct npu_phys_info &pi) {
    // [host][p2p][page class: NORMAL, HUGE, HUGE1G]
    static constexpr aclrtMemAttr kAttr[2][2][3] = {
        {{ACL_HBM_MEM_NORMAL, ACL_HBM_MEM_HUGE, ACL_HBM_MEM_HUGE1G},
         {ACL_HBM_MEM_P2P_NORMAL, ACL_HBM_MEM_P2P_HUGE, ACL_HBM_MEM_P2P_HUGE1G}},
        {{ACL_MEM_NORMAL, ACL_MEM_HUGE, ACL_MEM_HUGE1G},
         {ACL_MEM_P2P_NORMAL, ACL_MEM_P2P_HUGE, ACL_MEM_P2P_HUGE1G}},
    };
    static_assert(NPU_CLASS_NORMAL == 0 && NPU_CLASS_HUGE == 1 && NPU_CLASS_HUGE1G == 2);
    uint32_t cls = pi.page_class < NPU_CLASS_COUNT ? pi.page_class : NPU_CLASS_NORMAL;
    return kAttr[(pi.flags & NPU_MEM_HOST) != 0][(pi.flags & NPU_MEM_P2P) != 0][cls];
}

// The session a new VMM object goes to: the current device, else any open
// one, else device 0 (these calls need no context).
Error SessionForNewObject(std::shared_ptr<DeviceSession> *s) {
    if (std::shared_ptr<Context> ctx = ThreadState::CurrentContext()) {
        *s = ctx->session_ptr();
        return Error::Ok();
    }
    *s = DeviceManager::Get().AnySession();
    if (*s)
        return Error::Ok();
    return DeviceManager::Get().OpenSession(0, s);
}

}  // namespace

Error ClassifyMemAttr(int32_t loc_type, int32_t attr, MemClass *out) {
    bool device = loc_type == ACL_MEM_LOCATION_TYPE_DEVICE;
    bool host =
        loc_type == ACL_MEM_LOCATION_TYPE_HOST || loc_type == ACL_MEM_LOCATION_TYPE_HOST_NUMA;
    if (!device && !host) {
        return Error::Format(ACL_ERROR_INVALID_PARAM,
                             "prop->location.type %d is not HOST, HOST_NUMA or DEVICE", loc_type);
    }
    switch (attr) {
        case ACL_DDR_MEM_HUGE:
        case ACL_DDR_MEM_NORMAL:
        case ACL_DDR_MEM_P2P_HUGE:
        case ACL_DDR_MEM_P2P_NORMAL:
            if (device) {
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "prop->memAttr %d is DDR memory, not for a DEVICE location",
                                     attr);
            }
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
               attr == ACL_MEM_P2P_NORMAL || attr == ACL_MEM_P2P_HUGE || attr == ACL_MEM_P2P_HUGE1G;
    return Error::Ok();
}

Error CheckHostNumaNode(uint32_t node) {
    if (node == UINT32_MAX)
        return Error::Ok();
    char path[64];
    std::snprintf(path, sizeof(path), "/sys/devices/system/node/node%u", node);
    struct stat st;
    if (::stat(path, &st) == 0)
        return Error::Ok();
    // Without NUMA support the host is one node, node 0.
    if (node == 0 && ::stat("/sys/devices/system/node", &st) != 0)
        return Error::Ok();
    return Error::Format(ACL_ERROR_INVALID_PARAM,
                         "prop->location.id %u is not a NUMA node of this host (-1 for any)", node);
}

Error LookupHandle(aclrtDrvMemHandle handle, PhysRef *out) {
    int32_t dev = 0;
    if (!DecodePhysHandle(handle, &dev, &out->id)) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "handle %p is not a physical memory handle", handle);
    }
    out->session = DeviceManager::Get().SessionOf(dev);
    if (!out->session) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "handle %p names device %d, which is not open in this process (reset "
                             "since the handle was made, or not a handle of this process)",
                             handle, dev);
    }
    return Error::Ok();
}

Error SessionOfAddress(const void *va, const char *what, std::shared_ptr<DeviceSession> *out) {
    *out = DeviceManager::Get().FindSession(va, 1);
    if (!*out) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%s %p is not a device address of any set device", what, va);
    }
    return Error::Ok();
}

Error AllocPhysical(int32_t dev, bool host, size_t size, const MemClass &mc, uint64_t reserve,
                    aclrtDrvMemHandle *out) {
    std::shared_ptr<DeviceSession> s;
    uint32_t npu_flags = mc.p2p ? NPU_MEM_P2P : 0;
    if (host) {
        NPU_RETURN_IF_ERROR(SessionForNewObject(&s));
        npu_flags |= NPU_MEM_HOST;
    } else {
        NPU_RETURN_IF_ERROR(DeviceManager::Get().OpenSession(dev, &s));
    }
    dev = s->user_id();
    if (mc.huge1g() && !s->has_huge1g()) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "device %d has no 1 GiB pages", dev);
    }
    uint32_t id = 0;
    int err = npuHalPhysAlloc(s->hal(), size, mc.page_class, npu_flags, &id);
    if (err == -ENOSPC) {
        return Error::FromErrno(err, kShareCodes,
                                "the process reached its limit of physical handles on device %d "
                                "(npu-smi shows use and limits)",
                                dev);
    }
    if (err == -ENOMEM && !host) {
        return Error::FromErrno(err, kShareCodes,
                                "device %d cannot provide %zu bytes of physical memory: the device "
                                "is full or the process reached its device memory limit",
                                dev, size);
    }
    if (err == -ENOMEM) {
        return Error::FromErrno(
            err, kShareCodes,
            "cannot provide %zu bytes of physical host memory through device %d: "
            "the process or the device reached its pinned host memory limit "
            "(limit_pin_mb, host_pin_mb)",
            size, dev);
    }
    if (err != 0) {
        return Error::FromErrno(
            err, kShareCodes,
            "cannot allocate %zu bytes of physical %s memory on device %d (size "
            "must be a multiple of the granularity, %llu bytes)",
            size, host ? "host" : "device", dev, static_cast<unsigned long long>(mc.granularity()));
    }
    s->SetPhysReserve(id, reserve);
    *out = EncodePhysHandle(dev, id);
    return Error::Ok();
}

Error FreePhysical(const PhysRef &ref, aclrtDrvMemHandle handle) {
    DeviceSession &s = *ref.session;
    int err = npuHalPhysFree(s.hal(), ref.id);
    if (err != 0)
        return Error::FromErrno(err, kShareHandleCodes, "handle %p is unknown or already freed",
                                handle);
    struct npu_phys_info pi = {};
    if (s.PhysReserve(ref.id) != 0 && npuHalPhysInfo(s.hal(), ref.id, &pi) == -ENOENT)
        s.ForgetPhysReserve(ref.id);  // that was the last reference
    return Error::Ok();
}

Error Properties(const PhysRef &ref, aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop) {
    DeviceSession &s = *ref.session;
    struct npu_phys_info pi = {};
    int err = npuHalPhysInfo(s.hal(), ref.id, &pi);
    if (err != 0)
        return Error::FromErrno(err, kShareHandleCodes, "handle %p is unknown or already freed",
                                handle);
    *prop = aclrtPhysicalMemProp{};
    prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop->memAttr = PropMemAttr(pi);
    if (pi.flags & NPU_MEM_HOST) {
        prop->location.type = ACL_MEM_LOCATION_TYPE_HOST;
        prop->location.id = 0;
    } else {
        // The memory's device: another one than the handle's for memory of
        // another device mapped here (aclrtMemRetainAllocationHandle).
        int32_t owner = s.user_id();
        DeviceManager::Get().ToUser(pi.device, &owner);
        prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        prop->location.id = static_cast<uint32_t>(owner);
    }
    prop->reserve = s.PhysReserve(ref.id);
    return Error::Ok();
}

Error Retain(void *va, aclrtDrvMemHandle *out) {
    std::shared_ptr<DeviceSession> s;
    NPU_RETURN_IF_ERROR(SessionOfAddress(va, "virPtr", &s));
    uint32_t id = 0;
    int err = npuHalPhysRetain(s->hal(), reinterpret_cast<uintptr_t>(va), &id);
    if (err != 0)
        return Error::FromErrno(err, kShareCodes, "virPtr %p is not in a VMM mapping", va);
    *out = EncodePhysHandle(s->user_id(), id);
    return Error::Ok();
}

Error Reserve(size_t size, size_t alignment, void *expect, bool huge_va, void **out) {
    std::shared_ptr<DeviceSession> s;
    // A fixed address goes to the open device whose window holds it, which
    // need not be the current one: any device's memory maps there.
    if (expect != nullptr)
        s = DeviceManager::Get().FindSession(expect, size);
    if (!s)
        NPU_RETURN_IF_ERROR(SessionForNewObject(&s));
    if (alignment != 0)
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "alignment %zu must be 0", alignment);
    uint64_t va = 0;
    int err = npuHalVmmReserve(s->hal(), size, reinterpret_cast<uintptr_t>(expect),
                               huge_va ? NPU_RESERVE_HUGE : 0, &va);
    if (err != 0) {
        return Error::FromErrno(
            err, kShareCodes,
            "cannot reserve %zu bytes at %p on device %d (expectPtr must be free, "
            "in the device window and aligned to the next power of two >= size, "
            "at most 1 GiB)",
            size, expect, s->user_id());
    }
    const uint64_t granularity = MemClass().granularity();
    const uint64_t rounded = (size + granularity - 1) & ~(granularity - 1);
    s->allocations().Insert(Allocation::Of(MemoryKind::kVmmReservation, s->user_id(), va, size,
                                           rounded, rounded, static_cast<uint32_t>(granularity)));
    *out = reinterpret_cast<void *>(static_cast<uintptr_t>(va));
    return Error::Ok();
}

Error Release(void *va) {
    std::shared_ptr<DeviceSession> s;
    NPU_RETURN_IF_ERROR(SessionOfAddress(va, "virPtr", &s));
    int err = npuHalVmmRelease(s->hal(), reinterpret_cast<uintptr_t>(va));
    if (err != 0) {
        return Error::FromErrno(
            err, kShareCodes,
            "virPtr %p is not the start of a reservation, or something is still "
            "mapped in it",
            va);
    }
    s->allocations().Remove(reinterpret_cast<uintptr_t>(va));
    return Error::Ok();
}

Error Map(const PhysRef &ref, aclrtDrvMemHandle handle, void *va, size_t size, bool no_access) {
    // The reservation may belong to another device than the memory
    // (aclrtMapMem: the handle's device need not be current).
    std::shared_ptr<DeviceSession> vs = DeviceManager::Get().FindSession(va, size);
    if (!vs) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "virPtr %p + %zu bytes is not in a reservation of any device", va,
                             size);
    }
    uint32_t map_id = ref.id;
    if (vs != ref.session) {
        int err = npuHalPhysPeer(vs->hal(), ref.session->hal(), ref.id, &map_id);
        if (err != 0) {
            return Error::FromErrno(
                err, kShareHandleCodes,
                "cannot map handle %p of device %d into a reservation of device "
                "%d: an imported handle maps only on the device it was imported "
                "to",
                handle, ref.session->user_id(), vs->user_id());
        }
    }
    int err = npuHalVmmMap(vs->hal(), reinterpret_cast<uintptr_t>(va), size, map_id,
                           no_access ? NPU_MAP_NOACCESS : 0);
    // The mapping holds the memory: the handle made for it is not needed.
    if (map_id != ref.id)
        npuHalPhysFree(vs->hal(), map_id);
    if (err != 0) {
        return Error::FromErrno(
            err, kShareHandleCodes,
            "cannot map handle %p (%zu bytes) at %p: size must be the handle's, "
            "virPtr aligned to its granularity, inside one reservation, not "
            "mapped yet, and the reservation must not mix local and imported "
            "handles or two devices' memory",
            handle, size, va);
    }
    if (check::On())
        check::DeviceAllocated(va, size, vs->user_id(), true);
    return Error::Ok();
}

Error Unmap(void *va) {
    std::shared_ptr<DeviceSession> s;
    NPU_RETURN_IF_ERROR(SessionOfAddress(va, "virPtr", &s));
    int err = npuHalVmmUnmap(s->hal(), reinterpret_cast<uintptr_t>(va));
    if (err != 0)
        return Error::FromErrno(err, kShareCodes, "virPtr %p is not the start of a mapping", va);
    if (check::On())
        check::DeviceUnmapped(va);
    return Error::Ok();
}

Error SetAccess(DeviceSession &s, void *va, size_t size, int32_t loc_type, uint32_t loc_id) {
    int err = npuHalVmmSetAccess(s.hal(), reinterpret_cast<uintptr_t>(va), size,
                                 static_cast<uint32_t>(loc_type), loc_id, NPU_ACCESS_RW);
    if (err != 0)
        return Error::FromErrno(err, kShareCodes,
                                "virPtr %p + %zu bytes is not exactly one mapping", va, size);
    return Error::Ok();
}

Error GetAccess(DeviceSession &s, void *va, int32_t loc_type, uint32_t loc_id, uint64_t *flag) {
    uint32_t access = 0;
    int err = npuHalVmmGetAccess(s.hal(), reinterpret_cast<uintptr_t>(va),
                                 static_cast<uint32_t>(loc_type), loc_id, &access);
    if (err != 0)
        return Error::FromErrno(err, kShareCodes, "virPtr %p is not in a mapping (or bad location)",
                                va);
    *flag = access;
    return Error::Ok();
}

Error ExportHandle(aclrtDrvMemHandle handle, bool no_whitelist, uint64_t *share) {
    PhysRef ref;
    NPU_RETURN_IF_ERROR(LookupHandle(handle, &ref));
    int err = npuHalShareExport(ref.session->hal(), ref.id,
                                no_whitelist ? NPU_SHARE_NO_WHITELIST : 0, share);
    if (err == -ENOSPC) {
        return Error::FromErrno(err, kShareHandleCodes,
                                "handle %p cannot be exported: the process reached its limit of "
                                "shareable handles on device %d (npu-smi shows use and limits)",
                                handle, ref.session->user_id());
    }
    if (err != 0) {
        return Error::FromErrno(err, kShareHandleCodes,
                                "handle %p cannot be exported: already exported, or imported from "
                                "another process",
                                handle);
    }
    ShareRegistry::Get().AddExportedHandle(*share, ref.session);
    return Error::Ok();
}

Error SetPidHandle(uint64_t share, int32_t *pid, size_t count) {
    if (count > NPU_SHARE_MAX_PIDS) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "pidNum %zu is above the maximum %d",
                             count, NPU_SHARE_MAX_PIDS);
    }
    std::shared_ptr<DeviceSession> s = ShareRegistry::Get().ExporterOfHandle(share);
    if (!s)
        NPU_RETURN_IF_ERROR(SessionForNewObject(&s));
    int err = npuHalShareSetPid(s->hal(), share, pid, static_cast<uint32_t>(count));
    if (err == -ESRCH) {
        return Error::FromErrno(
            err, kShareCodes,
            "cannot whitelist %zu pid(s) for shareable handle 0x%llx: a pid names "
            "no running process (pass TGIDs from aclrtDeviceGetBareTgid of live "
            "processes); none was added",
            count, static_cast<unsigned long long>(share));
    }
    if (err != 0) {
        return Error::FromErrno(err, kShareCodes,
                                "cannot whitelist %zu pid(s) for shareable handle 0x%llx: unknown, "
                                "not exported by this process, or exported without a whitelist",
                                count, static_cast<unsigned long long>(share));
    }
    return Error::Ok();
}

Error ImportHandle(uint64_t share, const std::shared_ptr<DeviceSession> &s,
                   aclrtDrvMemHandle *out) {
    struct npu_share_import si = {};
    int err = npuHalShareImport(s->hal(), share, &si);
    if (err == -EPERM) {
        return Error::FromErrno(err, kShareCodes,
                                "this process is not on the whitelist of shareable handle 0x%llx",
                                static_cast<unsigned long long>(share));
    }
    if (err == -ENOSPC) {
        return Error::FromErrno(
            err, kShareCodes,
            "shareable handle 0x%llx cannot be imported: the process reached its "
            "limit of physical handles on device %d",
            static_cast<unsigned long long>(share), s->user_id());
    }
    if (err != 0) {
        return Error::FromErrno(err, kShareCodes,
                                "shareable handle 0x%llx cannot be imported on device %d: unknown, "
                                "freed by its exporter, or exported by this very process%s",
                                static_cast<unsigned long long>(share), s->user_id(),
                                ImportNotFoundHint(err));
    }
    *out = EncodePhysHandle(s->user_id(), si.handle);
    return Error::Ok();
}

}  // namespace npu::rt::vmm
