// SPDX-License-Identifier: MIT
// Host work in stream order: aclrtLaunchHostFunc (a thread of the context
// runs it) and aclrtLaunchCallback (a user thread subscribed with
// aclrtSubscribeReport runs it inside aclrtProcessReport).
//
// The stream and the host hand over through two device words of the
// context's event slab (core/event.h), the stream's HostGate: launching
// the k-th host task on a stream queues a VALUE_WRITE of "reached = k" and,
// unless the task does not block (ACL_CALLBACK_NO_BLOCK), a VALUE_WAIT of
// "released >= k". The thread that runs the task waits on a ring of its own
// for "reached >= k", runs it, writes "released = k" and waits for that
// write before it lets go of the gate, so no late write can land in a slot
// that has a new owner. The engines resolve both waits; no host thread
// polls, and the ring of the stream never depends on the stream object.
//
// A HostTaskQueue has one consumer at a time: the context's host-function
// thread, or the subscribed thread in aclrtProcessReport. Tasks run in the
// order they were queued, across streams too (as one upstream callback
// thread runs them). Host work must not call synchronising, allocating or
// submitting ACL APIs (upstream documents the same restriction: such a call
// can wait for the very task it runs in).
#ifndef NPU_RT_CORE_HOST_TASKS_H
#define NPU_RT_CORE_HOST_TASKS_H

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/singleton.h"
#include "core/error.h"

struct npuHalQueue;

namespace npu::rt {

class DeviceSession;
class EventSlab;
class HostTaskQueue;
class Stream;

// The two words of a stream's host hand-over; shared by the stream and its
// queued tasks, freed (to the slab) when the last of them lets go.
class HostGate {
  public:
    static Error Create(const std::shared_ptr<EventSlab> &slab, std::shared_ptr<HostGate> *out);
    ~HostGate();
    HostGate(const HostGate &) = delete;
    HostGate &operator=(const HostGate &) = delete;

    // The stream is gone without running its queued work (destroyed with
    // aclrtDestroyStreamForce): its tasks are dropped, never run.
    void MarkAbandoned() { abandoned_.store(true, std::memory_order_release); }
    bool abandoned() const { return abandoned_.load(std::memory_order_acquire); }

  private:
    friend class HostTaskQueue;
    friend Error QueueHostTask(Stream &, void (*)(void *), void *, bool, HostTaskQueue &,
                               void (*)(void *));
    HostGate() = default;

    std::shared_ptr<EventSlab> slab_;
    uint32_t reached_slot_ = 0, released_slot_ = 0;
    uint64_t reached_va_ = 0, released_va_ = 0;
    // Epochs already used by the slots' earlier owners: task k writes
    // base + k, so no stale value can satisfy a wait.
    uint64_t reached_base_ = 0, released_base_ = 0;
    uint64_t launched_ = 0;  // protected by the stream's host mutex
    std::atomic<bool> abandoned_{false};
};

struct HostTask {
    void (*fn)(void *) = nullptr;
    void *arg = nullptr;
    bool blocking = true;
    uint64_t k = 0;
    std::shared_ptr<HostGate> gate;
    uint64_t wait_seq = 0;  // the consumer's VALUE_WAIT for it, once queued
    // Called, instead of fn, for a task that never runs (its stream
    // aborted or abandoned it, or the queue goes first); may be null.
    void (*drop)(void *) = nullptr;
};

class HostTaskQueue {
  public:
    explicit HostTaskQueue(std::shared_ptr<DeviceSession> session);
    ~HostTaskQueue();  // drops what was never run
    HostTaskQueue(const HostTaskQueue &) = delete;
    HostTaskQueue &operator=(const HostTaskQueue &) = delete;

    int32_t user_device_id() const;
    void Push(HostTask task);
    // Waits up to timeout_ns (0: no limit) for the first task to be
    // reached by its stream, runs it and every further one already reached,
    // in order. ACL_ERROR_RT_REPORT_TIMEOUT when none was reached in time;
    // returns early, with that error, once *stop is set.
    Error RunReady(uint64_t timeout_ns, const std::atomic<bool> *stop = nullptr);
    // Wakes a RunReady that waits for a task to arrive.
    void Wake();

  private:
    // Waits up to timeout_ns for the task to be reached. false on timeout.
    Error WaitReached(HostTask *task, uint64_t timeout_ns, bool *reached);
    Error Release(const HostTask &task);
    Error EnsureRing();

    const std::shared_ptr<DeviceSession> session_;
    npuHalQueue *ring_ = nullptr;  // owned; only the consumer uses it
    std::mutex mu_;                // Protects: tasks_ (in launch order), woken_ (the wake-up flag)
    std::condition_variable cv_;
    std::deque<HostTask> tasks_;
    bool woken_ = false;
};

// aclrtLaunchHostFunc's thread of one context, started on first use.
class HostFuncThread {
  public:
    explicit HostFuncThread(std::shared_ptr<DeviceSession> session)
        : session_(std::move(session)) {}
    // Stops the thread. The context's streams are gone by then, so every
    // task that could run has run.
    ~HostFuncThread();
    HostFuncThread(const HostFuncThread &) = delete;
    HostFuncThread &operator=(const HostFuncThread &) = delete;

    // The queue the thread serves, starting the thread if needed.
    Error Queue(HostTaskQueue **out);

  private:
    const std::shared_ptr<DeviceSession> session_;
    std::mutex mu_;                         // Protects: queue_ and thread_, set once by Queue()
    std::unique_ptr<HostTaskQueue> queue_;  // protected by mu_ until started
    std::thread thread_;
    std::atomic<bool> stop_{false};
};

// Queues host task fn(arg) on s for the consumer of `to`.
// drop(arg), when not null, runs instead if the task never runs.
Error QueueHostTask(Stream &s, void (*fn)(void *), void *arg, bool blocking, HostTaskQueue &to,
                    void (*drop)(void *) = nullptr);

// The subscriptions of aclrtSubscribeReport: which user thread serves which
// streams, process-wide.
class ReportSubscriptions {
  public:
    // The instance (base::Singleton); a forked child has no subscription.
    // Get: the subscribers of aclrtSubscribeReport (callbacks);
    // HostFuncs: those of aclrtSubscribeHostFunc, a stream's other
    // subscriber, independent of the first.
    static ReportSubscriptions &Get();
    static ReportSubscriptions &HostFuncs();

    static constexpr size_t kMaxThreads = 1024;

    Error Subscribe(uint64_t thread_id, Stream &s);
    Error Unsubscribe(uint64_t thread_id, Stream &s);
    // The queue of the thread that serves s; ACL_ERROR_RT_STREAM_NO_CB_REG
    // when none does.
    Error QueueOf(const Stream &s, std::shared_ptr<HostTaskQueue> *out);
    // The queue the calling thread serves; ACL_ERROR_RT_THREAD_SUBSCRIBE
    // when it serves none.
    Error OwnQueue(std::shared_ptr<HostTaskQueue> *out);
    bool Subscribed(const Stream &s);
    // Marks s as running aclrtLaunchHostFunc work unless it is subscribed
    // (then false): one step under mu_, against a concurrent Subscribe.
    bool ClaimForHostFunc(Stream &s);
    // A destroyed stream's subscription goes with it.
    void Forget(const void *stream_handle);

  protected:
    friend class base::Singleton<ReportSubscriptions>;
    ReportSubscriptions() = default;
    explicit ReportSubscriptions(bool host_funcs) : host_funcs_(host_funcs) {}

  private:
    // HostFuncs(): aclrtLaunchHostFunc work on the stream does not matter,
    // and the messages name aclrtSubscribeHostFunc.
    const bool host_funcs_ = false;

    struct Subscriber {
        int32_t device = -1;
        std::vector<const void *> streams;
        std::shared_ptr<HostTaskQueue> queue;
    };
    std::mutex mu_;  // Protects: threads_, streams_
    // Subscribers by thread id, and the thread of each subscribed stream
    // handle.
    std::unordered_map<uint64_t, Subscriber> threads_;
    std::unordered_map<const void *, uint64_t> streams_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_HOST_TASKS_H
