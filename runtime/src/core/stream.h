// SPDX-License-Identifier: MIT
// Stream: an in-order queue of device work, one npuHalQueue (one ring) each.
// ContextStreams: the streams of one context, with its default stream (the
// NULL stream, created on first use) and the event slab.
//
// Streams live in a process-wide handle table (core/stream_handles.h), so a
// handle from any thread resolves to the same stream and a destroyed handle
// is ACL_ERROR_RT_INVALID_HANDLE. A stream belongs to the context that
// created it; any thread whose current context that is may use it (spec
// all threads that set a device share its default context).
#ifndef NPU_RT_CORE_STREAM_H
#define NPU_RT_CORE_STREAM_H

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "base/errno_codes.h"
#include "core/error.h"
#include "error_codes/rt_error_codes.h"

struct npuHalQueue;

namespace npu::rt {

// A stream wait that timed out.
inline constexpr base::ErrnoCode kStreamWaitCodes[] = {{-ETIME, ACL_ERROR_RT_STREAM_SYNC_TIMEOUT}};

// Host work (core/host_tasks.h) reports its completion through device
// words, so through npud or the kernel: a path that neither the C++ memory
// model nor ThreadSanitizer follows. A host task publishes its writes here
// once it ran, and a wait or query that saw work complete acquires them, so
// whoever returns from aclrtSynchronizeStream sees what the host functions
// before it wrote.
inline std::atomic<uint64_t> g_host_task_effects{0};
inline void PublishHostTaskEffects() {
    g_host_task_effects.fetch_add(1, std::memory_order_release);
}
inline void AcquireHostTaskEffects() {
    (void)g_host_task_effects.load(std::memory_order_acquire);
}

class Context;
class DeviceSession;
class EventSlab;
class HostGate;
class HostTaskQueue;
struct RingDesc;

class Stream {
  public:
    // What a stream is to the user: made by aclrtCreateStream*, or the
    // context's default stream.
    enum class Kind { kUser, kDefault };

    ~Stream();  // waits for the queued work (unless abandoned), frees the ring
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    Context *context() const { return ctx_; }
    DeviceSession &session() const { return *session_; }
    const std::shared_ptr<DeviceSession> &session_ptr() const { return session_; }
    npuHalQueue *queue() const { return queue_; }
    void *handle() const { return handle_; }
    uint32_t flags() const { return flags_; }
    Kind kind() const { return kind_; }
    // aclrtStreamGetId: the handle's slot in the process's stream table,
    // so unique among live streams (of every device) and reused after a
    // destroy, as upstream reuses its stream ids.
    int32_t id() const;
    // Whether the host runs this stream's work in order and waits for it:
    // false for ACL_STREAM_PERSISTENT, ACL_STREAM_DEVICE_USE_ONLY and
    // ACL_STREAM_CPU_SCHEDULE streams, whose work upstream leaves to the
    // device (aclrtSynchronizeStream and aclrtStreamQuery return at once).
    bool host_executed() const;
    // aclrtStreamGetPriority / ACL_STREAM_ATTR_PRIORITY, in [0, 7]. Kept
    // for the user; the engines schedule every ring alike.
    uint32_t priority() const { return priority_.load(std::memory_order_relaxed); }
    void set_priority(uint32_t p) { priority_.store(p, std::memory_order_relaxed); }

    // Queues n descriptors (made by the copy planner, core/copy_plan.h) in
    // order; *seq (may be null) gets the sequence number of the last one.
    // While aclrtStreamAbort runs, the work is dropped (not queued) and *seq
    // gets the last one queued before.
    Error Submit(const RingDesc *descs, uint32_t n, uint64_t *seq);
    // Waits for everything queued so far; returns the first task error since
    // the last synchronisation. timeout_ns 0: no limit; else
    // ACL_ERROR_RT_STREAM_SYNC_TIMEOUT when it passes.
    Error Synchronize(uint64_t timeout_ns = 0);
    // Waits for descriptor seq, without taking task errors.
    // ACL_ERROR_RT_STREAM_ABORT when aclrtStreamAbort ran during the wait
    // (so for every wait above, and for an event's). codes: the caller's
    // codes for the wait's errnos (an event's wait times out with
    // ACL_ERROR_RT_EVENT_SYNC_TIMEOUT).
    Error WaitSeq(uint64_t seq, uint64_t timeout_ns = 0,
                  base::ErrnoOverrides codes = kStreamWaitCodes);
    // Whether descriptor seq has completed (never blocks).
    bool Done(uint64_t seq);
    // Whether everything queued so far has completed (never blocks).
    bool Idle();

    // Staging memory (AllocPinnedStaging) used by descriptors up to seq:
    // freed once they completed, lazily.
    void DeferFree(uint64_t seq, void *staging);

    // Destroy without waiting: the queued work is abandoned.
    void Abandon() { abandon_ = true; }

    // aclrtStreamAbort: discards every task queued and not yet started
    // (host tasks included: they never run) and the tasks queued while it
    // runs; the running one finishes. Waits in progress end with
    // ACL_ERROR_RT_STREAM_ABORT. The stream stays usable: work queued
    // afterwards runs.
    Error Abort();

    uint64_t failure_mode() const { return failure_mode_.load(); }
    void set_failure_mode(uint64_t mode) { failure_mode_.store(mode); }
    // ACL_STREAM_ATTR_USER_CUSTOM_TAG and ACL_STREAM_ATTR_CACHE_OP_INFO:
    // stored for aclrtGetStreamAttribute, no effect here.
    uint32_t user_tag() const { return user_tag_.load(std::memory_order_relaxed); }
    void set_user_tag(uint32_t v) { user_tag_.store(v, std::memory_order_relaxed); }
    uint32_t cache_op_info() const { return cache_op_.load(std::memory_order_relaxed); }
    void set_cache_op_info(uint32_t v) { cache_op_.store(v, std::memory_order_relaxed); }

    // aclrtLaunchHostFunc ran work on this stream (which then takes no
    // callbacks of aclrtLaunchCallback: upstream keeps them apart).
    bool used_host_func() const { return used_host_func_.load(std::memory_order_acquire); }
    void set_used_host_func() { used_host_func_.store(true, std::memory_order_release); }

    // aclrtSetStreamResLimit: cores per aclrtDevResLimitType, kNoResLimit if unset.
    static constexpr uint32_t kNoResLimit = UINT32_MAX;
    std::atomic<uint32_t> res_limit[2] = {kNoResLimit, kNoResLimit};

  private:
    friend class ContextStreams;
    friend Error QueueHostTask(Stream &, void (*)(void *), void *, bool, HostTaskQueue &,
                               void (*)(void *));
    Stream(Context *ctx, std::shared_ptr<DeviceSession> session, Kind kind, uint32_t flags,
           uint32_t priority)
        : ctx_(ctx),
          session_(std::move(session)),
          kind_(kind),
          flags_(flags),
          priority_(priority) {}

    Error SubmitFailed(int err);
    Error TakeTaskError();
    void ReapDeferred(bool all);
    Error AbortedError() const;
    Error AbortLocked();  // Abort under abort_mu_
    void NoteThreadTask(uint64_t seq) const;

    Context *const ctx_;
    const std::shared_ptr<DeviceSession> session_;
    const Kind kind_;
    const uint32_t flags_;
    std::atomic<uint32_t> priority_;
    std::atomic<uint32_t> user_tag_{0};
    std::atomic<uint32_t> cache_op_{0};
    npuHalQueue *queue_ = nullptr;  // owned
    void *handle_ = nullptr;
    bool abandon_ = false;
    std::atomic<uint64_t> failure_mode_{0};
    std::atomic<bool> used_host_func_{false};

    std::mutex abort_mu_;  // Protects: the order of aborts (one at a time), no data
    // Set while an abort runs (work is dropped); aborts so far, which a
    // wait compares before and after.
    std::atomic<bool> aborting_{false};
    std::atomic<uint64_t> abort_gen_{0};

    std::mutex host_mu_;  // Protects: host_gate_ and its launch count
    // host_gate_: the words of the host hand-over
    // (core/host_tasks.h), made on the first host task (again after an
    // abort, which abandons the old ones).
    std::shared_ptr<HostGate> host_gate_;

    std::atomic<bool> has_deferred_{false};
    std::mutex deferred_mu_;  // Protects: deferred_
    // deferred_: (last sequence number using it, staging).
    std::vector<std::pair<uint64_t, void *>> deferred_;
};

// A stream in use by one API call: pins an explicit stream's handle for the
// call's duration (the default stream lives as long as its context, which
// the caller holds).
class StreamRef {
  public:
    StreamRef() = default;
    ~StreamRef() { Reset(); }
    StreamRef(const StreamRef &) = delete;
    StreamRef &operator=(const StreamRef &) = delete;

    Stream *get() const { return stream_; }
    Stream *operator->() const { return stream_; }
    explicit operator bool() const { return stream_ != nullptr; }
    void Reset();

  private:
    friend Error AcquireStream(void *handle, StreamRef *out);
    friend Error DefaultStream(Context &ctx, StreamRef *out);
    Stream *stream_ = nullptr;
    const void *pinned_ = nullptr;  // handle to release, when explicit
};

// Resolves a non-null user handle; ACL_ERROR_RT_INVALID_HANDLE when it is
// not a live stream.
Error AcquireStream(void *handle, StreamRef *out);
// ACL_ERROR_RT_STREAM_CONTEXT when ref's stream belongs to a context other
// than ctx.
Error CheckStreamContext(const StreamRef &ref, const Context &ctx);
// The default stream of ctx (created on first use).
Error DefaultStream(Context &ctx, StreamRef *out);

// aclrtGetThreadLastTaskId: the sequence number, on its stream, of the last
// task the calling thread queued on a stream made by aclrtCreateStream*
// (0 before the first).
uint32_t ThreadLastTaskId();
// rtGetTaskIdAndStreamID: the id (Stream::id) of that task's stream (0
// before the first).
uint32_t ThreadLastTaskStreamId();

class ContextStreams {
  public:
    // The default stream and quota count against the device's limit (all
    // the contexts of the device together).
    static constexpr uint32_t kMaxStreams = 1984;

    ContextStreams(Context *ctx, std::shared_ptr<DeviceSession> session);
    // Destroys every stream of the context (waiting for their work) and
    // the event slab.
    ~ContextStreams();
    ContextStreams(const ContextStreams &) = delete;
    ContextStreams &operator=(const ContextStreams &) = delete;

    // aclrtCreateStream[WithConfig]: a new stream (flags: ACL_STREAM_*,
    // priority in [0, 7]); *handle gets its handle. Then the
    // ACL_RT_STREAM_STATE_CREATE_POST hooks run.
    Error Create(uint32_t flags, uint32_t priority, void **handle);
    // aclrtDestroyStream[Force]: the handle is known to be live and ours.
    // The ACL_RT_STREAM_STATE_DESTROY_PRE hooks run first.
    Error Destroy(void *handle, bool force);
    // Streams that the device's quota still allows (aclrtGetStreamAvailableNum).
    uint32_t Available() const;
    // The default stream, created on first use; nullptr with *err set
    // when creation failed.
    Stream *Default(Error *err);
    // aclrtSynchronizeDevice: every stream of the context. timeout_ns 0: no
    // limit; else ACL_ERROR_RT_STREAM_SYNC_TIMEOUT once that much has passed
    // in all.
    Error SynchronizeAll(uint64_t timeout_ns = 0);
    // aclrtDeviceTaskAbort: aclrtStreamAbort on the default stream and every
    // explicit stream of the context; the first error, after trying all.
    Error AbortAll();

    // The context's slab of event slots, created on first use.
    Error Slab(std::shared_ptr<EventSlab> *out);

  private:
    Error CreateLocked(Stream::Kind kind, uint32_t flags, uint32_t priority, Stream **out);

    Context *const ctx_;
    const std::shared_ptr<DeviceSession> session_;
    std::atomic<Stream *> default_{nullptr};
    std::mutex mu_;  // Protects: handles_, slab_, creating default_
    // handles_: every live stream handle of the context; slab_: the slab.
    // The count against kMaxStreams is the session's (all contexts of the
    // device), DeviceSession::live_streams().
    std::vector<void *> handles_;
    std::shared_ptr<EventSlab> slab_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_STREAM_H
