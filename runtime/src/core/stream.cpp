// SPDX-License-Identifier: MIT
#include "core/stream.h"

#include "core/checker.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>

#include <unistd.h>

#include "acl/acl_rt.h"
#include "base/singleton.h"

#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/event.h"
#include "core/exception_callbacks.h"
#include "core/host_memory.h"
#include "core/host_tasks.h"
#include "core/model_ri.h"
#include "core/stream_handles.h"
#include "core/state_hooks.h"
#include "hal/hal_trace.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

// A ring the driver or the system cannot make is a stream resource that
// ran out.
constexpr base::ErrnoCode kRingCreateCodes[] = {
    {-ENOSPC, ACL_ERROR_RT_NO_STREAM_RESOURCE},
    {-ENOMEM, ACL_ERROR_RT_NO_STREAM_RESOURCE},
    {-EMFILE, ACL_ERROR_RT_NO_STREAM_RESOURCE},
    {-ENFILE, ACL_ERROR_RT_NO_STREAM_RESOURCE},
};

HandleTable<Stream> &StreamTable() {
    // Never destroyed: handles may be used from static destructors.
    return base::Singleton<TaggedHandleTable<Stream, 0x5354>>::Get();  // "ST"
}

// aclrtGetThreadLastTaskId (Stream::NoteThreadTask), written on every
// submission: initial-exec, as ThreadState's.
[[gnu::tls_model("initial-exec")]] thread_local uint32_t t_last_task_id = 0;
[[gnu::tls_model("initial-exec")]] thread_local uint32_t t_last_task_stream = 0;

// Streams whose work upstream leaves to the device (Stream::host_executed).
constexpr uint32_t kDeviceOnlyFlags =
    ACL_STREAM_PERSISTENT | ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_CPU_SCHEDULE;

}  // namespace

Stream::~Stream() {
    if (check::On())
        check::StreamGone(*this);
    if (queue_ != nullptr) {
        if (abandon_) {
            if (host_gate_)
                host_gate_->MarkAbandoned();  // its host tasks never run
            npuHalQueueAbort(queue_);
        }
        npuHalQueueDestroy(queue_);
    }
    // After the drain, which may have needed the thread serving callbacks.
    ReportSubscriptions::Get().Forget(handle_);
    ReportSubscriptions::HostFuncs().Forget(handle_);
    ForgetStreamRecording(handle_);
    ReapDeferred(true);
}

int32_t Stream::id() const {
    return static_cast<int32_t>(HandleTable<Stream>::SlotIndex(handle_));
}

bool Stream::host_executed() const {
    return (flags_ & kDeviceOnlyFlags) == 0;
}

void Stream::NoteThreadTask(uint64_t seq) const {
    t_last_task_id = static_cast<uint32_t>(seq);
    t_last_task_stream = static_cast<uint32_t>(id());
}

uint32_t ThreadLastTaskId() {
    return t_last_task_id;
}

uint32_t ThreadLastTaskStreamId() {
    return t_last_task_stream;
}

Error Stream::AbortedError() const {
    return Error::Format(ACL_ERROR_RT_STREAM_ABORT,
                         "stream %p (device %d) was aborted (aclrtStreamAbort) during the wait",
                         handle_, session_->user_id());
}

Error Stream::Abort() {
    Error e = AbortLocked();
    // Then the model executions the stream had reached or queued (their
    // lane is another stream: not under this one's abort_mu_).
    AbortModelRuns(handle_);
    return e;
}

Error Stream::AbortLocked() {
    std::lock_guard<std::mutex> order(abort_mu_);
    aborting_.store(true, std::memory_order_release);
    abort_gen_.fetch_add(1, std::memory_order_acq_rel);
    // First the ring: a submitter blocked for room in it (one queueing a
    // host task, which holds host_mu_, included) gets it back.
    int err = npuHalQueueAbort(queue_);
    if (err == 0) {
        // Host tasks wait for their stream to reach them, which a
        // cancelled stream never does: their gate is abandoned (they are
        // dropped) and the next host task makes a new one. Under host_mu_,
        // the ring is aborted once more: a host task queued meanwhile on
        // the old gate would hold the stream for ever.
        std::lock_guard<std::mutex> host(host_mu_);
        if (host_gate_) {
            host_gate_->MarkAbandoned();
            host_gate_.reset();
            err = npuHalQueueAbort(queue_);
        }
    }
    aborting_.store(false, std::memory_order_release);
    if (err != 0)
        return Error::FromHal(err, "cannot abort the work of stream %p (device %d)", handle_,
                              session_->user_id());
    ReapDeferred(false);
    return Error::Ok();
}

Error Stream::SubmitFailed(int err) {
    return Error::FromHal(err, "cannot queue work on stream %p (device %d)", handle_,
                          session_->user_id());
}

Error Stream::TakeTaskError() {
    npuHalQueueError failed[HAL_QUEUE_MAX_ERRORS];
    const uint32_t n = npuHalQueueTakeErrors(queue_, failed, HAL_QUEUE_MAX_ERRORS);
    if (n == 0)
        return Error::Ok();
    // Every caller of TakeTaskError holds no runtime lock (only a pin of
    // this stream), so the callbacks may call back into the runtime.
    rtExceptionInfo info = {};
    info.stream_id = static_cast<uint32_t>(id());
    info.thread_id = static_cast<uint32_t>(::gettid());
    info.device_id = static_cast<uint32_t>(session_->user_id());
    for (uint32_t i = 0; i < std::min<uint32_t>(n, HAL_QUEUE_MAX_ERRORS); i++) {
        info.task_id = static_cast<uint32_t>(failed[i].seq);
        info.error_code = static_cast<uint32_t>(base::ErrnoToCode(failed[i].res));
        ExceptionCallbacks::Get().Report(info);
    }
    if (n == 1) {
        return Error::FromHal(failed[0].res, "task %llu of stream %p (device %d) failed",
                              static_cast<unsigned long long>(failed[0].seq), handle_,
                              session_->user_id());
    }
    return Error::FromHal(failed[0].res,
                          "task %llu of stream %p (device %d) failed (the first of %u failed "
                          "tasks)",
                          static_cast<unsigned long long>(failed[0].seq), handle_,
                          session_->user_id(), n);
}

Error Stream::WaitSeq(uint64_t seq, uint64_t timeout_ns, base::ErrnoOverrides codes) {
    if (seq == 0)
        return Error::Ok();
    const uint64_t gen = abort_gen_.load(std::memory_order_acquire);
    int err = npuHalQueueWait(queue_, seq, timeout_ns);
    if (abort_gen_.load(std::memory_order_acquire) != gen)
        return AbortedError();
    if (err == -ETIME) {
        return Error::Format(
            base::ErrnoToCode(err, codes), "stream %p (device %d) did not finish within %llu ms",
            handle_, session_->user_id(), static_cast<unsigned long long>(timeout_ns / 1000000));
    }
    if (err != 0)
        return Error::FromErrno(err, codes, "waiting for stream %p failed", handle_);
    AcquireHostTaskEffects();
    if (check::On())
        check::Completed(*this, seq);
    return Error::Ok();
}

bool Stream::Done(uint64_t seq) {
    if (npuHalQueueCompleted(queue_) < seq)
        return false;
    AcquireHostTaskEffects();
    if (check::On())
        check::Completed(*this, seq);
    return true;
}

bool Stream::Idle() {
    return Done(npuHalQueueSubmitted(queue_));
}

Error Stream::Submit(const RingDesc *descs, uint32_t n, uint64_t *seq) {
    if (StreamRecording(*this)) {
        // The APIs that a model records stop before they queue; this work
        // came from one that records no task (core/model_ri.h).
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "stream %p is capturing or bound to a model, and this work cannot "
                             "be recorded into it (README: task graphs lists what can)",
                             handle_);
    }
    if (aborting_.load(std::memory_order_acquire)) {
        if (seq != nullptr)
            *seq = npuHalQueueSubmitted(queue_);
        return Error::Ok();
    }
    uint64_t last = 0;
    int err = npuHalQueueSubmit(queue_, RingSqes(descs), n, &last);
    if (err != 0)
        return SubmitFailed(err);
    if (seq != nullptr)
        *seq = last;
    if (kind_ == Kind::kUser)
        NoteThreadTask(last);
    if (check::On())
        check::Submitted(*this, descs, n, last);
    return Error::Ok();
}

Error Stream::Synchronize(uint64_t timeout_ns) {
    NPU_RETURN_IF_ERROR(WaitSeq(npuHalQueueSubmitted(queue_), timeout_ns));
    ReapDeferred(false);
    return TakeTaskError();
}

void Stream::DeferFree(uint64_t seq, void *staging) {
    {
        std::lock_guard<std::mutex> lock(deferred_mu_);
        deferred_.emplace_back(seq, staging);
        has_deferred_.store(true, std::memory_order_release);
    }
    ReapDeferred(false);
}

void Stream::ReapDeferred(bool all) {
    if (!has_deferred_.load(std::memory_order_acquire))
        return;
    std::vector<void *> ready;
    {
        std::lock_guard<std::mutex> lock(deferred_mu_);
        const uint64_t done = all ? UINT64_MAX : npuHalQueueCompleted(queue_);
        auto keep = std::partition(deferred_.begin(), deferred_.end(),
                                   [done](const auto &d) { return d.first > done; });
        for (auto it = keep; it != deferred_.end(); ++it)
            ready.push_back(it->second);
        deferred_.erase(keep, deferred_.end());
        has_deferred_.store(!deferred_.empty(), std::memory_order_release);
    }
    for (void *p : ready)
        FreePinnedStaging(p);
}

void StreamRef::Reset() {
    if (pinned_ != nullptr)
        StreamTable().Release(pinned_);
    pinned_ = nullptr;
    stream_ = nullptr;
}

Error AcquireStream(void *handle, StreamRef *out) {
    out->Reset();
    Stream *s = StreamTable().Acquire(handle);
    if (s == nullptr) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "stream %p is not a live stream (destroyed, or not a stream)", handle);
    }
    out->stream_ = s;
    out->pinned_ = handle;
    return Error::Ok();
}

Error CheckStreamContext(const StreamRef &ref, const Context &ctx) {
    if (ref->context() != &ctx) {
        return Error::Format(ACL_ERROR_RT_STREAM_CONTEXT,
                             "stream %p belongs to another context (device %d) than the current "
                             "one (%p, device %d)",
                             ref->handle(), ref->session().user_id(), ctx.handle(),
                             ctx.user_device_id());
    }
    return Error::Ok();
}

Error DefaultStream(Context &ctx, StreamRef *out) {
    out->Reset();
    Error err;
    out->stream_ = ctx.streams().Default(&err);
    return err;
}

ContextStreams::ContextStreams(Context *ctx, std::shared_ptr<DeviceSession> session)
    : ctx_(ctx), session_(std::move(session)) {}

ContextStreams::~ContextStreams() {
    std::vector<void *> handles;
    {
        std::lock_guard<std::mutex> lock(mu_);
        handles.swap(handles_);
    }
    // Model executions end first: a stream waits for its work as it goes,
    // and an execution may wait on another stream or loop for ever.
    for (void *h : handles)
        StopModelRuns(h, true);
    // Newest first, the default stream (created early) last.
    for (auto it = handles.rbegin(); it != handles.rend(); ++it) {
        StreamHooks::Get().Notify(*it, ACL_RT_STREAM_STATE_DESTROY_PRE);
        std::unique_ptr<Stream> s = StreamTable().Remove(*it);
        if (s)
            session_->live_streams().fetch_sub(1, std::memory_order_relaxed);
        s.reset();
    }
    std::lock_guard<std::mutex> lock(mu_);
    slab_.reset();
}

Error ContextStreams::CreateLocked(Stream::Kind kind, uint32_t flags, uint32_t priority,
                                   Stream **out) {
    // A place in the device's quota, given back unless the stream is made.
    struct Quota {
        std::atomic<uint32_t> *live = nullptr;
        ~Quota() {
            if (live != nullptr)
                live->fetch_sub(1, std::memory_order_relaxed);
        }
    } quota;
    std::atomic<uint32_t> &live = session_->live_streams();
    const uint32_t before = live.fetch_add(1, std::memory_order_relaxed);
    quota.live = &live;
    if (before >= kMaxStreams) {
        return Error::Format(ACL_ERROR_RT_NO_STREAM_RESOURCE,
                             "device %d already has %u streams (the limit)", session_->user_id(),
                             before);
    }
    std::unique_ptr<Stream> s(new Stream(ctx_, session_, kind, flags, priority));
    int err = npuHalQueueCreate(session_->hal(), 0, &s->queue_);
    if (err != 0) {
        return Error::FromErrno(err, kRingCreateCodes,
                                "cannot create the ring of a new stream on device %d%s",
                                session_->user_id(),
                                err == -ENOSPC ? " (the process reached its limit of streams, "
                                                 "rings: npu-smi shows use and limits)"
                                               : "");
    }
    Stream *raw = s.get();
    handles_.reserve(handles_.size() + 1);
    void *h = StreamTable().Insert(std::move(s));
    if (h == nullptr) {
        return Error::Format(ACL_ERROR_RT_NO_STREAM_RESOURCE,
                             "the process has no stream handle left");
    }
    raw->handle_ = h;
    if (base::trace::On()) {
        static constexpr const char *kKinds[] = {"stream", "default stream"};
        char name[96];
        std::snprintf(name, sizeof(name), "%s %p (device %d)", kKinds[static_cast<int>(kind)], h,
                      session_->user_id());
        hal::trace::NameQueue(raw->queue_, name);
    }
    handles_.push_back(h);
    quota.live = nullptr;  // the stream holds its place now
    *out = raw;
    return Error::Ok();
}

Error ContextStreams::Create(uint32_t flags, uint32_t priority, void **handle) {
    void *h = nullptr;
    {
        std::lock_guard<std::mutex> lock(mu_);
        Stream *s = nullptr;
        NPU_RETURN_IF_ERROR(CreateLocked(Stream::Kind::kUser, flags, priority, &s));
        h = s->handle();
    }
    StreamHooks::Get().Notify(h, ACL_RT_STREAM_STATE_CREATE_POST);
    *handle = h;
    return Error::Ok();
}

uint32_t ContextStreams::Available() const {
    const uint32_t live = session_->live_streams().load(std::memory_order_relaxed);
    return live >= kMaxStreams ? 0 : kMaxStreams - live;
}

Error ContextStreams::Destroy(void *handle, bool force) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = std::find(handles_.begin(), handles_.end(), handle);
        if (it == handles_.end()) {
            return Error::Format(ACL_ERROR_RT_INVALID_HANDLE, "stream %p is already destroyed",
                                 handle);
        }
        const Stream *def = default_.load(std::memory_order_relaxed);
        if (def != nullptr && def->handle() == handle) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "stream %p is the context's default stream "
                                 "(aclrtCtxGetCurrentDefaultStream): it lives as long as its "
                                 "context",
                                 handle);
        }
        handles_.erase(it);
    }
    // Out of handles_ now: no other destroy gets here; the handle is live
    // until Remove.
    StreamHooks::Get().Notify(handle, ACL_RT_STREAM_STATE_DESTROY_PRE);
    StopModelRuns(handle, force);
    std::unique_ptr<Stream> s = StreamTable().Remove(handle);
    if (!s)
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE, "stream %p is already destroyed", handle);
    session_->live_streams().fetch_sub(1, std::memory_order_relaxed);
    if (force)
        s->Abandon();
    s.reset();  // waits for the stream's work unless abandoned
    return Error::Ok();
}

Stream *ContextStreams::Default(Error *err) {
    Stream *s = default_.load(std::memory_order_acquire);
    if (s != nullptr)
        return s;
    {
        std::lock_guard<std::mutex> lock(mu_);
        s = default_.load(std::memory_order_relaxed);
        if (s != nullptr)
            return s;
        *err = CreateLocked(Stream::Kind::kDefault, 0, 0, &s);
        if (!err->ok())
            return nullptr;
        default_.store(s, std::memory_order_release);
    }
    // The default stream lives as long as the context, which the caller
    // holds: s stays valid.
    StreamHooks::Get().Notify(s->handle(), ACL_RT_STREAM_STATE_CREATE_POST);
    return s;
}

Error ContextStreams::SynchronizeAll(uint64_t timeout_ns) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
    std::vector<void *> handles;
    {
        std::lock_guard<std::mutex> lock(mu_);
        handles = handles_;
    }
    Error first;
    for (void *h : handles) {
        StreamRef ref;
        if (!AcquireStream(h, &ref).ok())
            continue;  // destroyed meanwhile: nothing left to wait for
        uint64_t left = 0;
        if (timeout_ns != 0) {
            auto now = std::chrono::steady_clock::now();
            left = now < deadline
                       ? static_cast<uint64_t>(
                             std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now)
                                 .count())
                       : 1;  // past it: one more look, then the timeout
        }
        Error e = ref->Synchronize(left);
        if (e.code() == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
            return e;
        if (!e.ok() && first.ok())
            first = e;
    }
    return first;
}

Error ContextStreams::AbortAll() {
    std::vector<void *> handles;
    {
        std::lock_guard<std::mutex> lock(mu_);
        handles = handles_;
    }
    Error first;
    // The default stream lives as long as the context, which the caller holds.
    if (Stream *d = default_.load(std::memory_order_acquire); d != nullptr)
        first = d->Abort();
    for (void *h : handles) {
        StreamRef ref;
        if (!AcquireStream(h, &ref).ok())
            continue;  // destroyed meanwhile: nothing left to abort
        Error e = ref->Abort();
        if (!e.ok() && first.ok())
            first = e;
    }
    return first;
}

Error ContextStreams::Slab(std::shared_ptr<EventSlab> *out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!slab_)
        slab_ = std::make_shared<EventSlab>(session_);
    *out = slab_;
    return Error::Ok();
}

}  // namespace npu::rt
