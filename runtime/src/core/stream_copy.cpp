// SPDX-License-Identifier: MIT
#include "core/stream_copy.h"

#include <vector>

#include "acl/acl_rt.h"
#include "core/context.h"
#include "core/device_manager.h"
#include "core/device_session.h"
#include "core/host_memory.h"
#include "core/memcpy_plan.h"
#include "core/peer_access.h"
#include "core/stream.h"

namespace npu::rt {
namespace {

// The synchronous path, row by row, after the stream has drained: for
// operands that the stream's ring cannot name.
Error CopyAfterDrain(Stream &s, Context &ctx, void *dst, const void *src, const CopyShape &sh) {
    NPU_RETURN_IF_ERROR(s.Synchronize());
    auto *d = static_cast<unsigned char *>(dst);
    auto *p = static_cast<const unsigned char *>(src);
    for (size_t r = 0; r < sh.height; ++r) {
        MemcpyPlan plan;
        NPU_RETURN_IF_ERROR(PlanMemcpy(ctx, d + r * sh.dpitch, p + r * sh.spitch, sh.width, &plan));
        NPU_RETURN_IF_ERROR(RunMemcpy(plan, d + r * sh.dpitch, p + r * sh.spitch, sh.width));
    }
    return Error::Ok();
}

// Whether s's ring may name device memory of peer (spec §7.9 peer access).
bool RingReaches(Stream &s, DeviceSession &peer) {
    const int32_t own = s.session().user_id();
    if (!PeerAccessEnabled(own, peer.user_id()))
        return false;
    return EnsurePeerLink(own, peer.user_id()).ok();
}

}  // namespace

void ClassifyForStream(const void *ptr, size_t len, DeviceSession &own, Operand *out) {
    if (own.InAperture(ptr, 1)) {
        out->loc = Loc::kDevice;
        out->dev = &own;
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
    static const char *const kNames[] = { "host", "device", "unregistered host" };
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                         "kind %d does not fit a copy from %s memory to %s memory", kind,
                         kNames[static_cast<int>(src)], kNames[static_cast<int>(dst)]);
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
    ClassifyForStream(ptr, count, s.session(), &op);
    if (op.loc == Loc::kDevice && op.dev != &s.session()) {
        NPU_RETURN_IF_ERROR(s.Synchronize());
        return RunMemset(ctx, ptr, value, count);
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
