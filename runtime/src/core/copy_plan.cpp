// SPDX-License-Identifier: MIT
// The copy planner (core/copy_plan.h): every ring descriptor of the runtime
// is made here, and Execute is where the plans run.
#include "core/copy_plan.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "acl/acl_rt.h"
#include "core/checker.h"
#include "core/context.h"
#include "core/device_session.h"
#include "core/host_memory.h"
#include "core/peer_access.h"
#include "core/stream.h"
#include "core/thread_state.h"
#include "hal/hal_host_copy.h"
#include "npu/hal.h"

namespace npu::rt {

static_assert(sizeof(RingDesc) == sizeof(struct npu_sqe), "RingDesc is one npu_sqe");
static_assert(alignof(struct npu_sqe) <= alignof(RingDesc), "RingDesc is one npu_sqe");

namespace {

// Bytes of a 32-bit fill pattern staged in pinned host memory.
constexpr size_t kSeedBytes = 4096;

// Starts a descriptor in place, all zero. Built where it lies, not built
// then copied: a copy right after the stores that wrote it waits for them
// (wide loads over narrow stores do not forward), ~13 ns on the
// aclrtMemcpyAsync fast path.
struct npu_sqe *Start(RingDesc *d) {
    return new (d->raw) npu_sqe{};
}

struct npu_sqe SqeOf(const RingDesc &d) {
    struct npu_sqe sqe;
    std::memcpy(&sqe, d.raw, sizeof(sqe));
    return sqe;
}

uint8_t DirOf(bool dst_device, bool src_device) {
    if (dst_device)
        return src_device ? NPU_DIR_D2D : NPU_DIR_H2D;
    return src_device ? NPU_DIR_D2H : NPU_DIR_H2H;
}

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

RingDesc CopyDesc(uint8_t dir, const void *dst, const void *src, size_t len) {
    RingDesc d;
    struct npu_sqe *sqe = Start(&d);
    sqe->opcode = NPU_OP_COPY;
    sqe->dir = dir;
    sqe->dst = reinterpret_cast<uint64_t>(dst);
    sqe->src = reinterpret_cast<uint64_t>(src);
    sqe->len = len;
    return d;
}

RingDesc MemsetDesc(uint8_t dir, const void *dst, uint8_t value, size_t len) {
    RingDesc d;
    struct npu_sqe *sqe = Start(&d);
    sqe->opcode = NPU_OP_MEMSET;
    sqe->dir = dir;
    sqe->dst = reinterpret_cast<uint64_t>(dst);
    sqe->len = len;
    sqe->value = value;
    return d;
}

// What a failed synchronous run was, for the message.
Error SyncFailed(int err, const CopyPlan &p, const DeviceSession &engine) {
    const struct npu_sqe first = SqeOf(p.descs()[0]);
    const auto dst = reinterpret_cast<const void *>(first.dst);
    const auto src = reinterpret_cast<const void *>(first.src);
    if (p.size() == 1 && first.opcode == NPU_OP_COPY) {
        return Error::FromHal(err, "%s copy of %llu bytes from %p to %p on device %d failed",
                              DirName(first.dir), static_cast<unsigned long long>(first.len), src,
                              dst, engine.user_id());
    }
    if (p.size() == 1 && first.opcode == NPU_OP_MEMSET) {
        return Error::FromHal(err, "filling %llu bytes at %p with 0x%02x on device %d failed",
                              static_cast<unsigned long long>(first.len), dst,
                              static_cast<unsigned>(first.value & 0xff), engine.user_id());
    }
    return Error::FromHal(err, "%u descriptors (the first: opcode %u at %p) on device %d failed",
                          p.size(), first.opcode, dst, engine.user_id());
}

// ClassifyChecked of an operand that a copy or fill is about to access:
// NPU_CHECK says why a refused range is wrong (freed, past the end).
Error ClassifyAccess(const void *ptr, size_t len, const char *role, Operand *out) {
    Error e = ClassifyChecked(ptr, len, role, out);
    if (!e.ok() && check::On())
        check::RangeRefused(ptr, len);
    return e;
}

// Whether own's rings may name device memory of peer (aclrtDeviceEnablePeerAccess).
bool RingReaches(const DeviceSession &own, const DeviceSession &peer) {
    if (!PeerAccessEnabled(own.user_id(), peer.user_id()))
        return false;
    return EnsurePeerLink(own.user_id(), peer.user_id()).ok();
}

}  // namespace

// The planner proper: a friend of CopyPlan.
class Planner {
  public:
    static Error Copy(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p);
    static Error StagedCopy(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p);
    static Error Fill(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p);
    static Error Fill32(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p);
    static Error One(const RingDesc &d, CopyPlan *p);
    static Error Now(const Context &ctx, void *dst, const void *src, size_t count,
                     DeviceSession **engine, std::shared_ptr<DeviceSession> *hold, uint8_t *dir,
                     bool *skip);
    static Error Execute(Stream *s, CopyPlan &p, uint64_t *seq);
};

CopyPlan::~CopyPlan() {
    if (staging_ != nullptr)
        FreePinnedStaging(staging_);
}

RingDesc *CopyPlan::Grow(uint32_t n) {
    n_ = n;
    if (n <= kInline)
        return inline_;
    more_.resize(n);
    return more_.data();
}

// The checks and engine of a synchronous copy of count bytes (aclrtMemcpy;
// a stream's copy that its ring cannot name). *hold keeps *engine alive
// when it is not ctx's device. *skip: nothing to move.
Error Planner::Now(const Context &ctx, void *dst, const void *src, size_t count,
                   DeviceSession **engine, std::shared_ptr<DeviceSession> *hold, uint8_t *dir,
                   bool *skip) {
    Operand d, s;
    NPU_RETURN_IF_ERROR(ClassifyAccess(dst, count, "dst", &d));
    NPU_RETURN_IF_ERROR(ClassifyAccess(src, count, "src", &s));
    *skip = dst == src;
    *dir = DirOf(d.is_device(), s.is_device());
    if (!d.is_device() && !s.is_device()) {
        *engine = &ctx.session();
    } else if (!s.is_device()) {
        *engine = d.dev;
    } else if (!d.is_device() || d.dev == s.dev) {
        *engine = s.dev;
    } else {
        // Across devices: one D2D descriptor on the engine of a device that
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
        *engine = from_src ? s.dev : d.dev;
        NPU_RETURN_IF_ERROR(from_src ? EnsurePeerLink(su, du) : EnsurePeerLink(du, su));
    }
    *hold = *engine == d.dev ? d.other : s.other;
    return Error::Ok();
}

Error Planner::Copy(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p) {
    const CopyShape &sh = req.shape;
    DeviceSession &own = s != nullptr ? s->session() : ctx->session();
    const Operand &d = req.d, &sr = req.s;
    const bool dd = d.is_device(), sd = sr.is_device();
    // Can own's rings name every device operand?
    bool ring_ok = true;
    if (dd && d.dev != &own)
        ring_ok = sd && sr.dev == &own && RingReaches(own, *d.dev);
    if (ring_ok && sd && sr.dev != &own)
        ring_ok = dd && d.dev == &own && RingReaches(own, *sr.dev);
    if (!ring_ok) {
        // Row by row on the engine that may reach both operands, once the
        // stream has drained.
        const Context &c = ctx != nullptr ? *ctx : *s->context();
        auto *dst = static_cast<unsigned char *>(req.dst);
        auto *src = static_cast<const unsigned char *>(req.src);
        RingDesc *out = p->Grow(static_cast<uint32_t>(sh.height));
        uint32_t n = 0;
        for (size_t r = 0; r < sh.height; ++r) {
            DeviceSession *engine = nullptr;
            uint8_t dir = 0;
            bool skip = false;
            void *rd = dst + r * sh.dpitch;
            const void *rs = src + r * sh.spitch;
            NPU_RETURN_IF_ERROR(Now(c, rd, rs, sh.width, &engine, &p->hold_, &dir, &skip));
            if (p->engine_ != nullptr && engine != p->engine_) {
                return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                     "the rows of the copy from %p to %p span devices", req.src,
                                     req.dst);
            }
            p->engine_ = engine;
            if (!skip)
                out[n++] = CopyDesc(dir, rd, rs, sh.width);
        }
        p->n_ = n;
        p->route_ = n != 0 ? Route::kSync : Route::kNone;
        return Error::Ok();
    }

    const uint8_t dir = DirOf(dd, sd);
    if (sh.height == 1) {
        *p->Grow(1) = CopyDesc(dir, req.dst, req.src, sh.width);
    } else if (sh.dpitch <= UINT32_MAX && sh.spitch <= UINT32_MAX) {
        struct npu_sqe *sqe = Start(p->Grow(1));
        sqe->opcode = NPU_OP_COPY2D;
        sqe->dir = dir;
        sqe->dst = reinterpret_cast<uint64_t>(req.dst);
        sqe->src = reinterpret_cast<uint64_t>(req.src);
        sqe->len = sh.width;
        sqe->value = sh.height;
        sqe->dpitch = static_cast<uint32_t>(sh.dpitch);
        sqe->spitch = static_cast<uint32_t>(sh.spitch);
    } else {
        // Pitches the descriptor cannot carry: one descriptor per row.
        RingDesc *out = p->Grow(static_cast<uint32_t>(sh.height));
        auto *dst = static_cast<unsigned char *>(req.dst);
        auto *src = static_cast<const unsigned char *>(req.src);
        for (size_t r = 0; r < sh.height; ++r)
            out[r] = CopyDesc(dir, dst + r * sh.dpitch, src + r * sh.spitch, sh.width);
    }
    p->engine_ = &own;
    p->route_ = (req.wait || s == nullptr) ? Route::kSync : Route::kRing;
    return Error::Ok();
}

// ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: the source is copied into runtime-owned
// pinned staging now; the staging is freed once the descriptor that reads
// it has completed. With no staging left, the copy moves the bytes from src
// before Execute returns.
Error Planner::StagedCopy(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p) {
    const size_t count = req.shape.width;
    void *staging = AllocPinnedStaging(count);
    if (staging == nullptr) {
        CopyRequest now = req;
        now.wait = true;
        return Copy(s, ctx, now, p);
    }
    p->staging_ = staging;
    std::memcpy(staging, req.src, count);
    CopyRequest staged = req;
    staged.src = staging;
    staged.s = Operand();
    staged.s.loc = Loc::kHost;
    staged.wait = false;
    return Copy(s, ctx, staged, p);
}

Error Planner::Fill(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p) {
    const size_t count = req.shape.width;
    const auto value = static_cast<uint8_t>(req.value);
    Operand op;
    if (s == nullptr) {
        // aclrtMemset: the address is checked now.
        NPU_RETURN_IF_ERROR(ClassifyAccess(req.dst, count, "devPtr", &op));
        p->engine_ = op.is_device() ? op.dev : &ctx->session();
        p->hold_ = op.other;
        p->route_ = Route::kSync;
    } else {
        Classify(req.dst, count, &s->session(), &op);
        if (op.is_device() && op.dev != &s->session()) {
            // Another device's memory: its engine, once the stream has drained.
            NPU_RETURN_IF_ERROR(ClassifyAccess(req.dst, count, "devPtr", &op));
            p->engine_ = op.dev;
            p->hold_ = op.other;
            p->route_ = Route::kSync;
        } else {
            p->engine_ = &s->session();
            p->route_ = op.loc == Loc::kUnregistered ? Route::kSync : Route::kRing;
        }
    }
    *p->Grow(1) = MemsetDesc(op.is_device() ? NPU_DIR_H2D : NPU_DIR_H2H, req.dst, value, count);
    return Error::Ok();
}

// A word of four equal bytes is one byte fill. Any other word is built in
// place, without a new descriptor type: one copy puts up to kSeedBytes of
// the pattern (staged in pinned host memory) at dst, then copies from the
// filled prefix double it, [0, k) -> [k, 2k), until the range is full. The
// ring runs its descriptors in order and no copy overlaps itself, so each
// copy reads bytes the previous ones wrote: 1 + log2(4n / kSeedBytes)
// descriptors, and no staging larger than kSeedBytes.
Error Planner::Fill32(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *p) {
    DeviceSession &own = s != nullptr ? s->session() : ctx->session();
    const size_t words = req.shape.width;
    const size_t bytes = words * sizeof(uint32_t);
    const auto value = static_cast<uint32_t>(req.value);
    const bool device = req.d.is_device();
    if (device && req.d.dev != &own) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "ptr %p is memory of device %d, the stream runs on device %d", req.dst,
                             req.d.dev->user_id(), own.user_id());
    }
    if (!device && !HostMemoryPinnedFor(req.dst, bytes, own.physical_id())) {
        // Host memory that the backend could not pin: the CPU, once the
        // stream has drained.
        p->route_ = Route::kHost;
        p->host_dst_ = req.dst;
        p->n32_ = words;
        p->word32_ = value;
        return Error::Ok();
    }
    p->engine_ = &own;
    p->route_ = (req.wait || s == nullptr) ? Route::kSync : Route::kRing;
    const auto b0 = static_cast<uint8_t>(value);
    if (value == b0 * 0x01010101u) {
        *p->Grow(1) = MemsetDesc(device ? NPU_DIR_H2D : NPU_DIR_H2H, req.dst, b0, bytes);
        return Error::Ok();
    }
    const size_t seed = std::min(bytes, kSeedBytes);
    void *staging = AllocPinnedStaging(seed);
    if (staging == nullptr) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "no pinned host memory left for the %zu-byte fill pattern", seed);
    }
    p->staging_ = staging;
    for (size_t i = 0; i < seed / sizeof(uint32_t); ++i)
        std::memcpy(static_cast<char *>(staging) + i * sizeof(uint32_t), &value, sizeof(value));
    uint32_t n = 1;
    for (size_t done = seed; done < bytes; done *= 2)
        ++n;
    RingDesc *out = p->Grow(n);
    auto *dst = static_cast<unsigned char *>(req.dst);
    out[0] = CopyDesc(device ? NPU_DIR_H2D : NPU_DIR_H2H, dst, staging, seed);
    uint32_t i = 1;
    for (size_t done = seed; done < bytes;) {
        const size_t len = std::min(done, bytes - done);
        out[i++] = CopyDesc(device ? NPU_DIR_D2D : NPU_DIR_H2H, dst + done, dst, len);
        done += len;
    }
    return Error::Ok();
}

Error Planner::One(const RingDesc &d, CopyPlan *p) {
    *p->Grow(1) = d;
    p->route_ = Route::kRing;
    return Error::Ok();
}

Error Plan(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *out) {
    switch (req.op) {
        case CopyOp::kCopy:
            return Planner::Copy(s, ctx, req, out);
        case CopyOp::kStagedCopy:
            return Planner::StagedCopy(s, ctx, req, out);
        case CopyOp::kFill:
            return Planner::Fill(s, ctx, req, out);
        case CopyOp::kFill32:
            return Planner::Fill32(s, ctx, req, out);
        case CopyOp::kValueWrite:
            return Planner::One(ValueWriteDesc(reinterpret_cast<uint64_t>(req.dst), req.value),
                                out);
        case CopyOp::kValueWait:
            return Planner::One(
                ValueWaitDesc(reinterpret_cast<uint64_t>(req.dst), req.value, req.cond), out);
        case CopyOp::kCopyIndirect: {
            RingDesc d;
            struct npu_sqe *sqe = Start(&d);
            sqe->opcode = NPU_OP_COPY_INDIRECT;
            sqe->dir = NPU_DIR_D2D;
            sqe->src = reinterpret_cast<uint64_t>(req.src);
            return Planner::One(d, out);
        }
        case CopyOp::kCopyDeref: {
            RingDesc d;
            struct npu_sqe *sqe = Start(&d);
            sqe->opcode = NPU_OP_COPY_DEREF;
            sqe->dir = NPU_DIR_D2D;
            sqe->dst = reinterpret_cast<uint64_t>(req.dst);
            sqe->src = reinterpret_cast<uint64_t>(req.src);
            sqe->len = req.shape.width;
            sqe->dst_off = req.dst_off;
            sqe->src_off = req.src_off;
            return Planner::One(d, out);
        }
        case CopyOp::kReduce: {
            RingDesc d;
            struct npu_sqe *sqe = Start(&d);
            sqe->opcode = NPU_OP_REDUCE;
            sqe->dir = NPU_DIR_D2D;
            sqe->dst = reinterpret_cast<uint64_t>(req.dst);
            sqe->src = reinterpret_cast<uint64_t>(req.src);
            sqe->len = req.shape.width;
            sqe->value = req.value;
            return Planner::One(d, out);
        }
    }
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "unknown copy request %d",
                         static_cast<int>(req.op));
}

Error Planner::Execute(Stream *s, CopyPlan &p, uint64_t *seq) {
    if (seq != nullptr)
        *seq = 0;
    switch (p.route_) {
        case Route::kNone:
            return Error::Ok();
        case Route::kRing: {
            uint64_t last = 0;
            Error e = s->Submit(p.descs(), p.n_, &last);
            if (p.staging_ != nullptr && e.ok() && last != 0) {
                s->DeferFree(last, p.staging_);
                p.staging_ = nullptr;  // the stream frees it
            }
            if (seq != nullptr && e.ok())
                *seq = last;
            return e;
        }
        case Route::kSync: {
            if (s != nullptr)
                NPU_RETURN_IF_ERROR(s->Synchronize());
            if (check::On())
                check::RanNow(p.descs(), p.n_);
            int err = npuHalDeviceRun(p.engine_->hal(), RingSqes(p.descs()), p.n_);
            if (err != 0)
                return SyncFailed(err, p, *p.engine_);
            return Error::Ok();
        }
        case Route::kHost: {
            if (s != nullptr)
                NPU_RETURN_IF_ERROR(s->Synchronize());
            auto *words = static_cast<char *>(p.host_dst_);
            for (size_t i = 0; i < p.n32_; ++i)
                std::memcpy(words + i * sizeof(uint32_t), &p.word32_, sizeof(p.word32_));
            return Error::Ok();
        }
    }
    return Error::Ok();
}

Error Execute(Stream *s, CopyPlan &plan, uint64_t *seq) {
    return Planner::Execute(s, plan, seq);
}

Error PlanAndExecute(Stream *s, const Context *ctx, const CopyRequest &req) {
    CopyPlan plan;
    NPU_RETURN_IF_ERROR(Plan(s, ctx, req, &plan));
    return Execute(s, plan, nullptr);
}

namespace {

// Whether both operands lie in the stream's own device, where the copy is
// one D2D descriptor whatever the kind says (but the staged kind).
inline bool IsOwnDeviceCopy(const Stream &s, const void *dst, const void *src, size_t count,
                            int32_t kind) {
    const DeviceSession &own = s.session();
    return kind != ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE && own.InAperture(dst, count) &&
           own.InAperture(src, count);
}

inline Error SubmitOwnDeviceCopy(Stream &s, void *dst, const void *src, size_t count) {
    if (dst == src)
        return Error::Ok();
    const RingDesc d = CopyDesc(NPU_DIR_D2D, dst, src, count);
    return s.Submit(&d, 1, nullptr);
}

}  // namespace

Error MemcpyAsync(StreamRef &ref, void *dst, const void *src, size_t count, int32_t kind) {
    // The common case first: a stream of the current context (the pin
    // keeps the context alive, so its identity is all the check needs) and
    // both operands in its device. Any other case, errors included, is
    // decided below with a reference to the context.
    if (ref && ThreadState::IsCurrent(ref->context()) &&
        IsOwnDeviceCopy(*ref.get(), dst, src, count, kind))
        return SubmitOwnDeviceCopy(*ref.get(), dst, src, count);

    std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
    if (!ctx)
        return ThreadState::NoContextError();
    if (!ref)
        NPU_RETURN_IF_ERROR(DefaultStream(*ctx, &ref));
    return MemcpyAsyncIn(ref, *ctx, dst, src, count, kind);
}

Error MemcpyAsyncIn(StreamRef &ref, Context &ctx_ref, void *dst, const void *src, size_t count,
                    int32_t kind) {
    Context *const ctx = &ctx_ref;
    Stream &s = *ref.get();
    if (IsOwnDeviceCopy(s, dst, src, count, kind)) {
        if (dst != src)
            NPU_RETURN_IF_ERROR(CheckStreamContext(ref, *ctx));
        return SubmitOwnDeviceCopy(s, dst, src, count);
    }

    CopyRequest req;
    req.dst = dst;
    req.src = src;
    req.shape = CopyShape{count, 1, count, count};
    Classify(dst, count, &s.session(), &req.d);
    Classify(src, count, &s.session(), &req.s);
    const Operand &d = req.d, &sr = req.s;
    if (kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        if (!d.is_device() || sr.is_device()) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE needs host src and device dst "
                                 "(src %p, dst %p)",
                                 src, dst);
        }
        NPU_RETURN_IF_ERROR(CheckStreamContext(ref, *ctx));
        req.op = CopyOp::kStagedCopy;
        return PlanAndExecute(&s, ctx, req);
    }
    int32_t eff = 0;
    NPU_RETURN_IF_ERROR(ReviseKind(kind, sr.loc, d.loc, &eff));
    if (eff == ACL_MEMCPY_HOST_TO_HOST) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "asynchronous host-to-host copies are not supported (src %p, dst %p)",
                             src, dst);
    }
    if (dst == src)
        return Error::Ok();
    NPU_RETURN_IF_ERROR(CheckStreamContext(ref, *ctx));
    req.wait = NeedsSyncFallback(eff, sr.loc, d.loc);
    return PlanAndExecute(&s, ctx, req);
}

namespace {

// Small synchronous copies between pageable host memory and a device in
// another process (npud) go through pinned staging that the daemon maps:
// the runtime moves the program's bytes itself, guarded so that a bad
// address is still an error and not a crash, and the daemon reads or writes
// no /proc/PID/mem (two system calls of its own per copy, the larger part
// of a small copy's cost there). Bigger copies go direct, where the
// daemon's access costs less than a second pass over the data.
// NPU_STAGE_PAGEABLE=0 turns the staging off.
constexpr size_t kStageMax = 64 * 1024;

bool StagePageable() {
    static const bool on = [] {
        const char *v = std::getenv("NPU_STAGE_PAGEABLE");
        return v == nullptr || std::strcmp(v, "0") != 0;
    }();
    return on;
}

bool WantStaging(const DeviceSession &engine, uint8_t dir, void *dst, const void *src,
                 size_t count) {
    if ((dir != NPU_DIR_H2D && dir != NPU_DIR_D2H) || count > kStageMax || !StagePageable() ||
        npuHalBackendIsInproc())
        return false;
    const void *host = dir == NPU_DIR_H2D ? src : dst;
    return !HostMemoryPinnedFor(host, count, engine.physical_id());
}

Error CopyFailed(int err, uint8_t dir, void *dst, const void *src, size_t count,
                 const DeviceSession &engine) {
    return Error::FromHal(err, "%s copy of %zu bytes from %p to %p on device %d failed",
                          DirName(dir), count, src, dst, engine.user_id());
}

// The copy through pinned staging; *staged is false when no staging was
// free, and the caller copies directly.
Error RunStaged(DeviceSession &engine, uint8_t dir, void *dst, const void *src, size_t count,
                bool *staged) {
    const std::unique_ptr<void, void (*)(void *)> staging(AllocPinnedStaging(count),
                                                          FreePinnedStaging);
    *staged = staging != nullptr;
    if (!*staged)
        return Error::Ok();
    void *buf = staging.get();
    if (dir == NPU_DIR_H2D && hal::HostCopyGuarded(buf, src, count, true) != 0)
        return CopyFailed(-EFAULT, dir, dst, src, count, engine);
    const RingDesc d =
        dir == NPU_DIR_H2D ? CopyDesc(dir, dst, buf, count) : CopyDesc(dir, buf, src, count);
    const int err = npuHalDeviceRun(engine.hal(), RingSqes(&d), 1);
    if (err != 0)
        return CopyFailed(err, dir, dst, src, count, engine);
    if (dir == NPU_DIR_D2H && hal::HostCopyGuarded(dst, buf, count, false) != 0)
        return CopyFailed(-EFAULT, dir, dst, src, count, engine);
    return Error::Ok();
}

}  // namespace

Error CopyNow(const Context &ctx, void *dst, const void *src, size_t count) {
    DeviceSession *engine = nullptr;
    std::shared_ptr<DeviceSession> hold;
    uint8_t dir = 0;
    bool skip = false;
    NPU_RETURN_IF_ERROR(Planner::Now(ctx, dst, src, count, &engine, &hold, &dir, &skip));
    if (skip)
        return Error::Ok();
    const RingDesc d = CopyDesc(dir, dst, src, count);
    if (check::On())
        check::RanNow(&d, 1);
    if (WantStaging(*engine, dir, dst, src, count)) {
        bool staged = false;
        Error e = RunStaged(*engine, dir, dst, src, count, &staged);
        if (staged)
            return e;
    }
    const int err = npuHalDeviceRun(engine->hal(), RingSqes(&d), 1);
    if (err != 0)
        return CopyFailed(err, dir, dst, src, count, *engine);
    return Error::Ok();
}

Error FillNow(const Context &ctx, void *ptr, uint8_t value, size_t count) {
    CopyRequest req;
    req.op = CopyOp::kFill;
    req.dst = ptr;
    req.value = value;
    req.shape.width = count;
    return PlanAndExecute(nullptr, &ctx, req);
}

Error CopyBatchNow(const BatchCopy *copies, size_t n) {
    std::vector<RingDesc> descs;
    descs.reserve(n);
    std::vector<bool> taken(n, false);
    for (size_t first = 0; first < n; ++first) {
        if (taken[first])
            continue;
        DeviceSession *engine =
            copies[first].d->is_device() ? copies[first].d->dev : copies[first].s->dev;
        descs.clear();
        for (size_t i = first; i < n; ++i) {
            const BatchCopy &c = copies[i];
            const bool to_device = c.d->is_device();
            if (taken[i] || (to_device ? c.d->dev : c.s->dev) != engine)
                continue;
            taken[i] = true;
            descs.push_back(CopyDesc(to_device ? NPU_DIR_H2D : NPU_DIR_D2H, c.dst, c.src, c.size));
        }
        if (check::On())
            check::RanNow(descs.data(), static_cast<uint32_t>(descs.size()));
        int err = npuHalDeviceRun(engine->hal(), RingSqes(descs.data()),
                                  static_cast<uint32_t>(descs.size()));
        if (err != 0) {
            return Error::FromHal(err, "%zu copies of the batch on device %d failed", descs.size(),
                                  engine->user_id());
        }
    }
    return Error::Ok();
}

int RunCopy(DeviceSession &engine, void *dst, const void *src, size_t count) {
    const RingDesc d = CopyDesc(DirOf(engine.InAperture(dst, count), engine.InAperture(src, count)),
                                dst, src, count);
    return npuHalDeviceRun(engine.hal(), RingSqes(&d), 1);
}

int RunFill(DeviceSession &engine, void *dst, uint8_t value, size_t count) {
    const RingDesc d =
        MemsetDesc(engine.InAperture(dst, count) ? NPU_DIR_H2D : NPU_DIR_H2H, dst, value, count);
    return npuHalDeviceRun(engine.hal(), RingSqes(&d), 1);
}

size_t MemcpyDescSize() {
    return sizeof(struct npu_copy_ind);
}

Error WriteMemcpyDesc(const Context &ctx, void *desc, const void *src, void *dst, size_t count) {
    struct npu_copy_ind rec = {};
    rec.src = reinterpret_cast<uint64_t>(src);
    rec.dst = reinterpret_cast<uint64_t>(dst);
    rec.len = count;
    return CopyNow(ctx, desc, &rec, sizeof(rec));
}

RingDesc ValueWriteDesc(uint64_t addr, uint64_t value) {
    RingDesc d;
    struct npu_sqe *sqe = Start(&d);
    sqe->opcode = NPU_OP_VALUE_WRITE;
    sqe->dst = addr;
    sqe->value = value;
    return d;
}

RingDesc ValueWaitDesc(uint64_t addr, uint64_t value, uint32_t cond) {
    RingDesc d;
    struct npu_sqe *sqe = Start(&d);
    sqe->opcode = NPU_OP_VALUE_WAIT;
    sqe->dst = addr;
    sqe->value = value;
    sqe->cond = cond;
    return d;
}

RingDesc TimestampDesc(uint64_t addr) {
    RingDesc d;
    struct npu_sqe *sqe = Start(&d);
    sqe->opcode = NPU_OP_TIMESTAMP;
    sqe->dst = addr;
    return d;
}

}  // namespace npu::rt
