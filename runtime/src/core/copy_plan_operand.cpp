// SPDX-License-Identifier: MIT
// The planner's operands: where an address lives (core/copy_plan.h).
#include <optional>

#include "acl/acl_rt.h"
#include "core/copy_plan.h"
#include "core/device_manager.h"
#include "core/device_session.h"
#include "core/host_memory.h"
#include "core/managed_memory.h"

namespace npu::rt {

void Classify(const void *ptr, size_t len, DeviceSession *own, Operand *out) {
    if (own != nullptr && own->InAperture(ptr, 1)) {
        out->loc = Loc::kDevice;
        out->dev = own;
        return;
    }
    out->other = DeviceManager::Get().FindSession(ptr, 1);
    if (out->other) {
        out->loc = Loc::kDevice;
        out->dev = out->other.get();
        return;
    }
    out->loc = LookupHostMemory(ptr, len, nullptr) ? Loc::kHost : Loc::kUnregistered;
}

Error ClassifyChecked(const void *ptr, size_t len, const char *role, Operand *out) {
    Classify(ptr, len, nullptr, out);
    if (!out->is_device())
        return Error::Ok();
    std::optional<Allocation> a = out->dev->allocations().Find(reinterpret_cast<uintptr_t>(ptr));
    if (!a) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%s %p is a device address of device %d but not inside a live "
                             "allocation",
                             role, ptr, out->dev->user_id());
    }
    if (!a->Contains(reinterpret_cast<uintptr_t>(ptr), len)) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%s %p + %zu bytes runs past the end of its allocation "
                             "(base 0x%llx, %llu bytes) on device %d",
                             role, ptr, len, static_cast<unsigned long long>(a->base),
                             static_cast<unsigned long long>(a->mapped), out->dev->user_id());
    }
    return Error::Ok();
}

Error ClassifyDeviceChecked(const void *ptr, size_t len, const char *role, Operand *out) {
    NPU_RETURN_IF_ERROR(ClassifyChecked(ptr, len, role, out));
    if (!out->is_device())
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "%s %p is not device memory", role, ptr);
    return Error::Ok();
}

void LocatePointer(const void *ptr, PointerInfo *out) {
    *out = PointerInfo();
    out->dev = DeviceManager::Get().FindSession(ptr, 1);
    if (out->dev) {
        out->kind = PtrKind::kDevice;
        return;
    }
    // Managed memory is pool memory too: asked first.
    ManagedRange managed;
    if (ManagedMemory::Get().Lookup(ptr, 0, &managed)) {
        out->kind = PtrKind::kManaged;
        out->managed_device = managed.user_device;
        return;
    }
    out->kind = LookupHostMemory(ptr, 1, nullptr) ? PtrKind::kHost : PtrKind::kUnregistered;
}

Error ReviseKind(int32_t kind, Loc src, Loc dst, int32_t *effective) {
    const bool sd = src == Loc::kDevice, dd = dst == Loc::kDevice;
    const bool su = src == Loc::kUnregistered, du = dst == Loc::kUnregistered;
    if (!su && !du) {
        // Both ACL-known: the locations decide, whatever the kind says.
        if (sd)
            *effective = dd ? ACL_MEMCPY_DEVICE_TO_DEVICE : ACL_MEMCPY_DEVICE_TO_HOST;
        else
            *effective = dd ? ACL_MEMCPY_HOST_TO_DEVICE : ACL_MEMCPY_HOST_TO_HOST;
        return Error::Ok();
    }
    // Allowed kinds as a bit mask (1 << kind), and what DEFAULT becomes.
    constexpr unsigned kH2H = 1u << ACL_MEMCPY_HOST_TO_HOST, kH2D = 1u << ACL_MEMCPY_HOST_TO_DEVICE;
    constexpr unsigned kD2H = 1u << ACL_MEMCPY_DEVICE_TO_HOST;
    constexpr unsigned kD2D = 1u << ACL_MEMCPY_DEVICE_TO_DEVICE;
    unsigned allowed;
    int32_t def;
    if (su && dd) {
        allowed = kH2D | kD2D;
        def = ACL_MEMCPY_HOST_TO_DEVICE;
    } else if (sd && du) {
        allowed = kD2H | kD2D;
        def = ACL_MEMCPY_DEVICE_TO_HOST;
    } else if (!su && du) {  // host -> unregistered
        allowed = kH2H | kH2D;
        def = ACL_MEMCPY_HOST_TO_HOST;
    } else if (su && !du) {  // unregistered -> host
        allowed = kH2H | kD2H;
        def = ACL_MEMCPY_HOST_TO_HOST;
    } else {  // unregistered -> unregistered
        allowed = kH2H | kH2D | kD2H | kD2D;
        def = ACL_MEMCPY_HOST_TO_HOST;
    }
    if (kind == ACL_MEMCPY_DEFAULT) {
        *effective = def;
        return Error::Ok();
    }
    if (kind >= 0 && kind < 4 && (allowed & (1u << kind)) != 0) {
        *effective = kind;
        return Error::Ok();
    }
    static const char *const kNames[] = {"host", "device", "unregistered host"};
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                         "kind %d does not fit a copy from %s memory to %s memory", kind,
                         kNames[static_cast<int>(src)], kNames[static_cast<int>(dst)]);
}

}  // namespace npu::rt
