// SPDX-License-Identifier: MIT
#include "core/memcpy_plan.h"

#include <algorithm>
#include <memory>

#include "core/device_manager.h"
#include "core/peer_access.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

const char *DirName(uint32_t dir) {
    switch (dir) {
        case NPU_DIR_H2D:
            return "host to device";
        case NPU_DIR_D2H:
            return "device to host";
        case NPU_DIR_D2D:
            return "device to device";
        case NPU_DIR_H2H:
            return "host to host";
        default:
            return "?";
    }
}

Error Copy(DeviceSession &dev, void *dst, const void *src, size_t count, uint32_t dir) {
    int err = halMemcpy(dev.hal(), dst, src, count, dir);
    if (err != 0) {
        return Error::FromHal(err, "%s copy of %zu bytes from %p to %p on device %d failed",
                              DirName(dir), count, src, dst, dev.user_id());
    }
    return Error::Ok();
}

}  // namespace

Error ClassifyOperand(const void *ptr, size_t len, const char *role, CopyOperand *out) {
    out->device = DeviceManager::Get().FindSession(ptr, 1);
    if (!out->device)
        return Error::Ok();
    std::optional<Allocation> a = out->device->allocations().Find(reinterpret_cast<uintptr_t>(ptr));
    if (!a) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%s %p is a device address of device %d but not inside a live "
                             "allocation",
                             role, ptr, out->device->user_id());
    }
    if (!a->Contains(reinterpret_cast<uintptr_t>(ptr), len)) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%s %p + %zu bytes runs past the end of its allocation "
                             "(base 0x%llx, %llu bytes) on device %d",
                             role, ptr, len, static_cast<unsigned long long>(a->base),
                             static_cast<unsigned long long>(a->mapped), out->device->user_id());
    }
    return Error::Ok();
}

Error PlanMemcpy(const Context &ctx, void *dst, const void *src, size_t count, MemcpyPlan *plan) {
    CopyOperand d, s;
    NPU_RETURN_IF_ERROR(ClassifyOperand(dst, count, "dst", &d));
    NPU_RETURN_IF_ERROR(ClassifyOperand(src, count, "src", &s));
    *plan = MemcpyPlan();
    if (dst == src)
        return Error::Ok();
    plan->route = MemcpyPlan::Route::kDirect;
    if (!d.is_device() && !s.is_device()) {
        plan->dir = NPU_DIR_H2H;
        plan->engine = ctx.session_ptr();
    } else if (!s.is_device()) {
        plan->dir = NPU_DIR_H2D;
        plan->engine = d.device;
    } else if (!d.is_device()) {
        plan->dir = NPU_DIR_D2H;
        plan->engine = s.device;
    } else if (d.device == s.device) {
        plan->dir = NPU_DIR_D2D;
        plan->engine = d.device;
    } else {
        // Across devices: one D2D descriptor on the ring of a device that
        // may name the other's addresses (aclrtDeviceEnablePeerAccess, either
        // direction). Without peer access, hardware fails the copy (spec
        // §7.9); so does the emulator, before anything moves.
        int32_t su = s.device->user_id();
        int32_t du = d.device->user_id();
        const bool from_src = PeerAccessEnabled(su, du);
        if (!from_src && !PeerAccessEnabled(du, su)) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "copy of %zu bytes from device %d (%p) to device %d (%p) needs "
                                 "peer access: call aclrtDeviceEnablePeerAccess first",
                                 count, su, src, du, dst);
        }
        plan->dir = NPU_DIR_D2D;
        plan->engine = from_src ? s.device : d.device;
        NPU_RETURN_IF_ERROR(from_src ? EnsurePeerLink(su, du) : EnsurePeerLink(du, su));
    }
    return Error::Ok();
}

Error RunMemcpy(const MemcpyPlan &plan, void *dst, const void *src, size_t count) {
    switch (plan.route) {
        case MemcpyPlan::Route::kNone:
            return Error::Ok();
        case MemcpyPlan::Route::kDirect:
            return Copy(*plan.engine, dst, src, count, plan.dir);
    }
    return Error::Ok();
}

Error RunMemset(const Context &ctx, void *ptr, uint8_t value, size_t count) {
    CopyOperand op;
    NPU_RETURN_IF_ERROR(ClassifyOperand(ptr, count, "devPtr", &op));
    DeviceSession &engine = op.is_device() ? *op.device : ctx.session();
    uint32_t dir = op.is_device() ? NPU_DIR_H2D : NPU_DIR_H2H;
    int err = halMemset(engine.hal(), ptr, value, count, dir);
    if (err != 0) {
        return Error::FromHal(err, "filling %zu bytes at %p with 0x%02x on device %d failed", count,
                              ptr, value, engine.user_id());
    }
    return Error::Ok();
}

}  // namespace npu::rt
