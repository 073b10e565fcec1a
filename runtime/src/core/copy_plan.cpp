// SPDX-License-Identifier: MIT
#include "core/copy_plan.h"

#include <optional>
#include <vector>

#include "acl/acl_rt.h"
#include "core/context.h"
#include "core/device_manager.h"
#include "core/device_session.h"
#include "core/host_memory.h"
#include "core/peer_access.h"
#include "core/stream.h"
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

// The synchronous path, row by row, after the stream has drained: for
// operands that the stream's ring cannot name.
Error CopyAfterDrain(Stream &s, Context &ctx, void *dst, const void *src, const CopyShape &sh) {
    NPU_RETURN_IF_ERROR(s.Synchronize());
    auto *d = static_cast<unsigned char *>(dst);
    auto *p = static_cast<const unsigned char *>(src);
    for (size_t r = 0; r < sh.height; ++r)
        NPU_RETURN_IF_ERROR(CopyNow(ctx, d + r * sh.dpitch, p + r * sh.spitch, sh.width));
    return Error::Ok();
}

// Whether s's ring may name device memory of peer (aclrtDeviceEnablePeerAccess).
bool RingReaches(Stream &s, DeviceSession &peer) {
    const int32_t own = s.session().user_id();
    if (!PeerAccessEnabled(own, peer.user_id()))
        return false;
    return EnsurePeerLink(own, peer.user_id()).ok();
}

}  // namespace

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

Error CopyNow(const Context &ctx, void *dst, const void *src, size_t count) {
    Operand d, s;
    NPU_RETURN_IF_ERROR(ClassifyChecked(dst, count, "dst", &d));
    NPU_RETURN_IF_ERROR(ClassifyChecked(src, count, "src", &s));
    if (dst == src)
        return Error::Ok();
    DeviceSession *engine = nullptr;
    uint32_t dir = 0;
    if (!d.is_device() && !s.is_device()) {
        dir = NPU_DIR_H2H;
        engine = &ctx.session();
    } else if (!s.is_device()) {
        dir = NPU_DIR_H2D;
        engine = d.dev;
    } else if (!d.is_device()) {
        dir = NPU_DIR_D2H;
        engine = s.dev;
    } else if (d.dev == s.dev) {
        dir = NPU_DIR_D2D;
        engine = d.dev;
    } else {
        // Across devices: one D2D descriptor on the ring of a device that
        // may name the other's addresses (aclrtDeviceEnablePeerAccess,
        // either direction). Without peer access, hardware fails the copy;
        // so does the emulator, before anything moves.
        const int32_t su = s.dev->user_id();
        const int32_t du = d.dev->user_id();
        const bool from_src = PeerAccessEnabled(su, du);
        if (!from_src && !PeerAccessEnabled(du, su)) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "copy of %zu bytes from device %d (%p) to device %d (%p) needs "
                                 "peer access: call aclrtDeviceEnablePeerAccess first",
                                 count, su, src, du, dst);
        }
        dir = NPU_DIR_D2D;
        engine = from_src ? s.dev : d.dev;
        NPU_RETURN_IF_ERROR(from_src ? EnsurePeerLink(su, du) : EnsurePeerLink(du, su));
    }
    int err = halMemcpy(engine->hal(), dst, src, count, dir);
    if (err != 0) {
        return Error::FromHal(err, "%s copy of %zu bytes from %p to %p on device %d failed",
                              DirName(dir), count, src, dst, engine->user_id());
    }
    return Error::Ok();
}

Error FillNow(const Context &ctx, void *ptr, uint8_t value, size_t count) {
    Operand op;
    NPU_RETURN_IF_ERROR(ClassifyChecked(ptr, count, "devPtr", &op));
    DeviceSession &engine = op.is_device() ? *op.dev : ctx.session();
    uint32_t dir = op.is_device() ? NPU_DIR_H2D : NPU_DIR_H2H;
    int err = halMemset(engine.hal(), ptr, value, count, dir);
    if (err != 0) {
        return Error::FromHal(err, "filling %zu bytes at %p with 0x%02x on device %d failed", count,
                              ptr, value, engine.user_id());
    }
    return Error::Ok();
}

Error IssueCopy(Stream &s, Context &ctx, void *dst, const void *src, const CopyShape &sh,
                const Operand &d, const Operand &sr, bool wait, uint64_t *seq) {
    if (seq != nullptr)
        *seq = 0;
    DeviceSession &own = s.session();
    const bool dd = d.loc == Loc::kDevice, sd = sr.loc == Loc::kDevice;
    // Can the stream's ring name every device operand?
    bool ring_ok = true;
    if (dd && d.dev != &own)
        ring_ok = sd && sr.dev == &own && RingReaches(s, *d.dev);
    if (ring_ok && sd && sr.dev != &own)
        ring_ok = dd && d.dev == &own && RingReaches(s, *sr.dev);
    if (!ring_ok)
        return CopyAfterDrain(s, ctx, dst, src, sh);

    struct npu_sqe one = {};
    one.dir = dd ? (sd ? NPU_DIR_D2D : NPU_DIR_H2D) : (sd ? NPU_DIR_D2H : NPU_DIR_H2H);
    one.dst = reinterpret_cast<uint64_t>(dst);
    one.src = reinterpret_cast<uint64_t>(src);
    one.len = sh.width;
    std::vector<struct npu_sqe> rows;
    const struct npu_sqe *sqes = &one;
    uint32_t n = 1;
    if (sh.height == 1) {
        one.opcode = NPU_OP_COPY;
    } else if (sh.dpitch <= UINT32_MAX && sh.spitch <= UINT32_MAX) {
        one.opcode = NPU_OP_COPY2D;
        one.value = sh.height;
        one.dpitch = static_cast<uint32_t>(sh.dpitch);
        one.spitch = static_cast<uint32_t>(sh.spitch);
    } else {
        // Pitches the descriptor cannot carry: one descriptor per row.
        one.opcode = NPU_OP_COPY;
        rows.assign(sh.height, one);
        for (size_t r = 0; r < sh.height; ++r) {
            rows[r].dst += r * sh.dpitch;
            rows[r].src += r * sh.spitch;
        }
        sqes = rows.data();
        n = static_cast<uint32_t>(sh.height);
    }
    if (wait)
        return s.SubmitAndWait(sqes, n);
    return s.Submit(sqes, n, seq);
}

Error IssueMemset(Stream &s, Context &ctx, void *ptr, uint8_t value, size_t count) {
    Operand op;
    Classify(ptr, count, &s.session(), &op);
    if (op.loc == Loc::kDevice && op.dev != &s.session()) {
        NPU_RETURN_IF_ERROR(s.Synchronize());
        return FillNow(ctx, ptr, value, count);
    }
    struct npu_sqe sqe = {};
    sqe.opcode = NPU_OP_MEMSET;
    sqe.dir = op.loc == Loc::kDevice ? NPU_DIR_H2D : NPU_DIR_H2H;
    sqe.dst = reinterpret_cast<uint64_t>(ptr);
    sqe.len = count;
    sqe.value = value;
    if (op.loc == Loc::kUnregistered)
        return s.SubmitAndWait(&sqe, 1);
    return s.Submit(&sqe, 1, nullptr);
}

}  // namespace npu::rt
