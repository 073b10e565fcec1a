// SPDX-License-Identifier: MIT
// Stream: an in-order queue of device work, one halQueue (one ring) each.
// ContextStreams: the streams of one context, with its default stream (the
// NULL stream, created on first use) and the event slab.
//
// Streams live in a process-wide handle table (core/stream_handles.h), so a
// handle from any thread resolves to the same stream and a destroyed handle
// is ACL_ERROR_RT_INVALID_HANDLE. A stream belongs to the context that
// created it; any thread whose current context that is may use it (spec
// §6.1: all threads that set a device share its default context).
#ifndef NPU_RT_CORE_STREAM_H
#define NPU_RT_CORE_STREAM_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "core/error.h"
#include "npu/hal.h"

namespace npu::rt {

class Context;
class DeviceSession;
class EventSlab;
class HostGate;
class HostTaskQueue;

class Stream {
  public:
    ~Stream();  // waits for the queued work (unless abandoned), frees the ring
    Stream(const Stream &) = delete;
    Stream &operator=(const Stream &) = delete;

    Context *context() const { return ctx_; }
    DeviceSession &session() const { return *session_; }
    const std::shared_ptr<DeviceSession> &session_ptr() const { return session_; }
    halQueue *queue() const { return queue_; }
    void *handle() const { return handle_; }
    uint32_t flags() const { return flags_; }

    // Queues n descriptors in order; *seq (may be null) gets the sequence
    // number of the last one.
    Error Submit(const struct npu_sqe *sqes, uint32_t n, uint64_t *seq) {
        int err = halQueueSubmit(queue_, sqes, n, seq);
        if (err != 0)
            return SubmitFailed(err);
        return Error::Ok();
    }
    // Queues one descriptor and waits for it (and so for everything queued
    // before it): the synchronous fallback of spec §6.4. Returns the first
    // task error of the stream, if any.
    Error SubmitAndWait(const struct npu_sqe *sqes, uint32_t n);
    // Waits for everything queued so far; returns the first task error since
    // the last synchronisation. timeout_ns 0: no limit; else
    // ACL_ERROR_RT_STREAM_SYNC_TIMEOUT when it passes.
    Error Synchronize(uint64_t timeout_ns = 0);
    // Waits for descriptor seq, without taking task errors.
    Error WaitSeq(uint64_t seq, uint64_t timeout_ns = 0);
    // Whether descriptor seq has completed (never blocks).
    bool Done(uint64_t seq) { return halQueueCompleted(queue_) >= seq; }
    // Whether everything queued so far has completed (never blocks).
    bool Idle() { return halQueueCompleted(queue_) >= halQueueSubmitted(queue_); }

    // Staging memory (AllocPinnedStaging) used by descriptors up to seq:
    // freed once they completed, lazily.
    void DeferFree(uint64_t seq, void *staging);

    // Destroy without waiting: the queued work is abandoned.
    void Abandon() { abandon_ = true; }

    void set_failure_mode(uint64_t mode) { failure_mode_.store(mode); }

    // aclrtLaunchHostFunc ran work on this stream (which then takes no
    // callbacks of aclrtLaunchCallback: upstream keeps them apart).
    bool used_host_func() const { return used_host_func_.load(std::memory_order_acquire); }
    void set_used_host_func() { used_host_func_.store(true, std::memory_order_release); }

    // aclrtSetStreamResLimit: cores per aclrtDevResLimitType, kNoResLimit if unset.
    static constexpr uint32_t kNoResLimit = UINT32_MAX;
    std::atomic<uint32_t> res_limit[2] = {kNoResLimit, kNoResLimit};

  private:
    friend class ContextStreams;
    friend Error QueueHostTask(Stream &, void (*)(void *), void *, bool, HostTaskQueue &);
    Stream(Context *ctx, std::shared_ptr<DeviceSession> session, uint32_t flags)
        : ctx_(ctx), session_(std::move(session)), flags_(flags) {}

    Error SubmitFailed(int err);
    Error TakeTaskError();
    void ReapDeferred(bool all);

    Context *const ctx_;
    const std::shared_ptr<DeviceSession> session_;
    const uint32_t flags_;
    halQueue *queue_ = nullptr;  // owned
    void *handle_ = nullptr;
    bool abandon_ = false;
    std::atomic<uint64_t> failure_mode_{0};
    std::atomic<bool> used_host_func_{false};

    std::mutex host_mu_;
    // Protected by host_mu_: the words of the host hand-over
    // (core/host_tasks.h), made on the first host task.
    std::shared_ptr<HostGate> host_gate_;

    std::atomic<bool> has_deferred_{false};
    std::mutex deferred_mu_;
    // Protected by deferred_mu_: (last sequence number using it, staging).
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
// The default stream of ctx (created on first use).
Error DefaultStream(Context &ctx, StreamRef *out);

class ContextStreams {
  public:
    // The default stream and quota count against the device's limit.
    static constexpr uint32_t kMaxStreams = 1984;

    ContextStreams(Context *ctx, std::shared_ptr<DeviceSession> session);
    // Destroys every stream of the context (waiting for their work) and
    // the event slab.
    ~ContextStreams();
    ContextStreams(const ContextStreams &) = delete;
    ContextStreams &operator=(const ContextStreams &) = delete;

    // aclrtCreateStream: a new stream; *handle gets its handle.
    Error Create(uint32_t flags, void **handle);
    // aclrtDestroyStream[Force]: the handle is known to be live and ours.
    Error Destroy(void *handle, bool force);
    // The default stream, created on first use; nullptr with *err set
    // when creation failed.
    Stream *Default(Error *err);
    // A private stream for the synchronous calls that need descriptors
    // (2-D copies, batches), created on first use.
    Stream *Internal(Error *err);
    // aclrtSynchronizeDevice: every stream of the context. timeout_ns 0: no
    // limit; else ACL_ERROR_RT_STREAM_SYNC_TIMEOUT once that much has passed
    // in all.
    Error SynchronizeAll(uint64_t timeout_ns = 0);

    // The context's slab of event slots, created on first use.
    Error Slab(std::shared_ptr<EventSlab> *out);

  private:
    Error CreateLocked(uint32_t flags, bool counted, Stream **out);

    Context *const ctx_;
    const std::shared_ptr<DeviceSession> session_;
    std::atomic<Stream *> default_{nullptr};
    std::atomic<Stream *> internal_{nullptr};
    std::mutex mu_;
    // Protected by mu_: every live stream handle of the context, the count
    // against kMaxStreams, the slab.
    std::vector<void *> handles_;
    uint32_t counted_ = 0;
    std::shared_ptr<EventSlab> slab_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_STREAM_H
