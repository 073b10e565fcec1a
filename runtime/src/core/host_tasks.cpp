// SPDX-License-Identifier: MIT
#include "core/host_tasks.h"
#include "core/checker.h"

#include <pthread.h>

#include <cerrno>
#include <chrono>
#include <string>

#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/event.h"
#include "base/singleton.h"
#include "core/stream.h"
#include "hal/hal_trace.h"
#include "npu/hal.h"

namespace npu::rt {

Error HostGate::Create(const std::shared_ptr<EventSlab> &slab, std::shared_ptr<HostGate> *out) {
    std::shared_ptr<HostGate> gate(new HostGate());
    gate->slab_ = slab;
    NPU_RETURN_IF_ERROR(
        slab->Alloc(&gate->reached_slot_, &gate->reached_va_, &gate->reached_base_));
    Error e = slab->Alloc(&gate->released_slot_, &gate->released_va_, &gate->released_base_);
    if (!e.ok()) {
        slab->Free(gate->reached_slot_, gate->reached_base_);
        gate->slab_.reset();
        return e;
    }
    *out = std::move(gate);
    return Error::Ok();
}

HostGate::~HostGate() {
    if (!slab_)
        return;
    slab_->Free(reached_slot_, reached_base_ + launched_);
    slab_->Free(released_slot_, released_base_ + launched_);
}

Error QueueHostTask(Stream &s, void (*fn)(void *), void *arg, bool blocking, HostTaskQueue &to,
                    void (*drop)(void *)) {
    std::lock_guard<std::mutex> lock(s.host_mu_);
    if (!s.host_gate_) {
        std::shared_ptr<EventSlab> slab;
        NPU_RETURN_IF_ERROR(s.context()->streams().Slab(&slab));
        NPU_RETURN_IF_ERROR(HostGate::Create(slab, &s.host_gate_));
    }
    HostGate &gate = *s.host_gate_;
    const uint64_t k = gate.launched_ + 1;
    const RingDesc descs[2] = {
        ValueWriteDesc(gate.reached_va_, gate.reached_base_ + k),
        ValueWaitDesc(gate.released_va_, gate.released_base_ + k, NPU_WAIT_GEQ),
    };
    NPU_RETURN_IF_ERROR(s.Submit(descs, blocking ? 2 : 1, nullptr));
    if (check::On())
        check::HostWorkQueued(s);
    gate.launched_ = k;
    HostTask task;
    task.fn = fn;
    task.arg = arg;
    task.blocking = blocking;
    task.drop = drop;
    task.k = k;
    task.gate = s.host_gate_;
    // Under the stream's host mutex: tasks of one stream reach the queue
    // in the order of their k.
    to.Push(std::move(task));
    return Error::Ok();
}

HostTaskQueue::HostTaskQueue(std::shared_ptr<DeviceSession> session)
    : session_(std::move(session)) {}

HostTaskQueue::~HostTaskQueue() {
    if (ring_ != nullptr) {
        // A wait for a stream that will never reach its task (abandoned)
        // must not hold the destruction.
        npuHalQueueAbort(ring_);
        npuHalQueueDestroy(ring_);
    }
    for (HostTask &t : tasks_)
        if (t.drop != nullptr)
            t.drop(t.arg);
}

int32_t HostTaskQueue::user_device_id() const {
    return session_->user_id();
}

void HostTaskQueue::Push(HostTask task) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        tasks_.push_back(std::move(task));
    }
    cv_.notify_all();
}

void HostTaskQueue::Wake() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        woken_ = true;
    }
    cv_.notify_all();
}

Error HostTaskQueue::EnsureRing() {
    if (ring_ != nullptr)
        return Error::Ok();
    int err = npuHalQueueCreate(session_->hal(), 0, &ring_);
    if (err != 0) {
        ring_ = nullptr;
        return Error::FromHal(err, "cannot create the ring that runs host tasks on device %d",
                              session_->user_id());
    }
    hal::trace::NameQueue(ring_, "host tasks of device " + std::to_string(session_->user_id()));
    return Error::Ok();
}

Error HostTaskQueue::WaitReached(HostTask *task, uint64_t timeout_ns, bool *reached) {
    *reached = false;
    NPU_RETURN_IF_ERROR(EnsureRing());
    if (task->wait_seq == 0) {
        const RingDesc d = ValueWaitDesc(task->gate->reached_va_,
                                         task->gate->reached_base_ + task->k, NPU_WAIT_GEQ);
        int err = npuHalQueueSubmit(ring_, RingSqes(&d), 1, &task->wait_seq);
        if (err != 0)
            return Error::FromHal(err, "cannot queue the wait for a host task");
    }
    int err = npuHalQueueWait(ring_, task->wait_seq, timeout_ns);
    if (err == -ETIME)
        return Error::Ok();
    if (err != 0)
        return Error::FromHal(err, "waiting for a stream to reach its host task failed");
    *reached = true;
    return Error::Ok();
}

Error HostTaskQueue::Release(const HostTask &task) {
    if (!task.blocking)
        return Error::Ok();
    const RingDesc d = ValueWriteDesc(task.gate->released_va_, task.gate->released_base_ + task.k);
    uint64_t seq = 0;
    int err = npuHalQueueSubmit(ring_, RingSqes(&d), 1, &seq);
    if (err == 0)
        err = npuHalQueueWait(ring_, seq, 0);
    if (err != 0)
        return Error::FromHal(err, "cannot release the stream after its host task");
    return Error::Ok();
}

Error HostTaskQueue::RunReady(uint64_t timeout_ns, const std::atomic<bool> *stop) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + std::chrono::nanoseconds(timeout_ns);
    // A slice, so that an abandoned stream or a stop request is noticed.
    constexpr uint64_t kSliceNs = 20 * 1000 * 1000;
    auto left_ns = [&]() -> uint64_t {
        if (timeout_ns == 0)
            return kSliceNs;
        const auto now = Clock::now();
        if (now >= deadline)
            return 0;
        return std::min<uint64_t>(kSliceNs, static_cast<uint64_t>((deadline - now).count()));
    };
    auto stopped = [&] { return stop != nullptr && stop->load(std::memory_order_acquire); };
    bool ran = false;
    for (;;) {
        HostTask *task = nullptr;
        {
            std::unique_lock<std::mutex> lock(mu_);
            if (tasks_.empty()) {
                if (ran)
                    return Error::Ok();
                const uint64_t wait = left_ns();
                if (wait == 0 || stopped())
                    break;
                cv_.wait_for(lock, std::chrono::nanoseconds(wait),
                             [&] { return !tasks_.empty() || woken_; });
                woken_ = false;
                continue;
            }
            task = &tasks_.front();  // only the consumer pops: stays valid
        }
        if (task->gate->abandoned()) {
            // Its stream will never reach it: a wait of ours still queued
            // for it would hold our ring (and every later task) for ever.
            if (task->wait_seq != 0 && npuHalQueueCompleted(ring_) < task->wait_seq)
                npuHalQueueAbort(ring_);
            HostTask gone;
            {
                std::lock_guard<std::mutex> lock(mu_);
                gone = std::move(tasks_.front());
                tasks_.pop_front();
            }
            if (gone.drop != nullptr)
                gone.drop(gone.arg);
            continue;
        }
        bool reached = false;
        const uint64_t wait = ran ? 0 : left_ns();
        if (ran) {
            // Only what is already reached runs after the first task.
            NPU_RETURN_IF_ERROR(WaitReached(task, 1, &reached));
            if (!reached)
                return Error::Ok();
        } else {
            if (wait == 0 || stopped())
                break;
            NPU_RETURN_IF_ERROR(WaitReached(task, wait, &reached));
            if (!reached)
                continue;
        }
        HostTask t;
        {
            std::lock_guard<std::mutex> lock(mu_);
            t = std::move(tasks_.front());
            tasks_.pop_front();
        }
        t.fn(t.arg);
        PublishHostTaskEffects();
        ran = true;
        NPU_RETURN_IF_ERROR(Release(t));
    }
    return Error::Format(ACL_ERROR_RT_REPORT_TIMEOUT, "no host task became ready within %llu ms",
                         static_cast<unsigned long long>(timeout_ns / 1000000));
}

HostFuncThread::~HostFuncThread() {
    if (thread_.joinable()) {
        stop_.store(true, std::memory_order_release);
        queue_->Wake();
        thread_.join();
    }
}

Error HostFuncThread::Queue(HostTaskQueue **out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!queue_) {
        auto queue = std::make_unique<HostTaskQueue>(session_);
        HostTaskQueue *q = queue.get();
        thread_ = std::thread([this, q] {
            while (!stop_.load(std::memory_order_acquire)) {
                // Timeouts are routine. A failing ring is retried, after a
                // pause so that a lasting failure does not spin.
                Error e = q->RunReady(0, &stop_);
                if (!e.ok() && e.code() != ACL_ERROR_RT_REPORT_TIMEOUT)
                    std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        });
        queue_ = std::move(queue);
    }
    *out = queue_.get();
    return Error::Ok();
}

ReportSubscriptions &ReportSubscriptions::Get() {
    // Never destroyed: subscriptions may be used from static destructors.
    return base::Singleton<ReportSubscriptions>::Get();
}

namespace {

// The subscribers of aclrtSubscribeHostFunc: a second instance.
class HostFuncSubscriptions : public ReportSubscriptions {
  public:
    HostFuncSubscriptions() : ReportSubscriptions(true) {}
};

}  // namespace

ReportSubscriptions &ReportSubscriptions::HostFuncs() {
    return base::Singleton<HostFuncSubscriptions>::Get();
}

Error ReportSubscriptions::Subscribe(uint64_t thread_id, Stream &s) {
    std::lock_guard<std::mutex> lock(mu_);
    // Under mu_, as ClaimForHostFunc sets the mark: one of the two wins.
    if (!host_funcs_ && s.used_host_func()) {
        return Error::Format(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                             "stream %p already runs aclrtLaunchHostFunc work; it cannot also "
                             "take callbacks",
                             s.handle());
    }
    auto bound = streams_.find(s.handle());
    if (bound != streams_.end()) {
        if (bound->second == thread_id) {
            return Error::Format(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                                 "thread %llu already serves stream %p",
                                 static_cast<unsigned long long>(thread_id), s.handle());
        }
        return Error::Format(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                             "stream %p is already served by thread %llu", s.handle(),
                             static_cast<unsigned long long>(bound->second));
    }
    auto it = threads_.find(thread_id);
    if (it == threads_.end()) {
        if (threads_.size() >= kMaxThreads) {
            return Error::Format(ACL_ERROR_RT_INTERNAL_ERROR,
                                 "%zu threads already serve callbacks (the limit)", kMaxThreads);
        }
        Subscriber sub;
        sub.device = s.session().user_id();
        sub.queue = std::make_shared<HostTaskQueue>(s.session_ptr());
        it = threads_.emplace(thread_id, std::move(sub)).first;
    } else if (it->second.device != s.session().user_id()) {
        return Error::Format(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                             "thread %llu serves streams of device %d, stream %p is on device %d",
                             static_cast<unsigned long long>(thread_id), it->second.device,
                             s.handle(), s.session().user_id());
    }
    it->second.streams.push_back(s.handle());
    streams_.emplace(s.handle(), thread_id);
    return Error::Ok();
}

Error ReportSubscriptions::Unsubscribe(uint64_t thread_id, Stream &s) {
    std::lock_guard<std::mutex> lock(mu_);
    auto bound = streams_.find(s.handle());
    if (bound == streams_.end()) {
        return Error::Format(ACL_ERROR_RT_STREAM_SUBSCRIBE, "stream %p is not subscribed",
                             s.handle());
    }
    if (bound->second != thread_id) {
        return Error::Format(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                             "stream %p is served by thread %llu, not %llu", s.handle(),
                             static_cast<unsigned long long>(bound->second),
                             static_cast<unsigned long long>(thread_id));
    }
    streams_.erase(bound);
    auto it = threads_.find(thread_id);
    std::erase(it->second.streams, s.handle());
    if (it->second.streams.empty())
        threads_.erase(it);
    return Error::Ok();
}

Error ReportSubscriptions::QueueOf(const Stream &s, std::shared_ptr<HostTaskQueue> *out) {
    std::lock_guard<std::mutex> lock(mu_);
    auto bound = streams_.find(s.handle());
    if (bound == streams_.end()) {
        return Error::Format(ACL_ERROR_RT_STREAM_NO_CB_REG,
                             "no thread serves callbacks of stream %p (%s)", s.handle(),
                             host_funcs_ ? "aclrtSubscribeHostFunc" : "aclrtSubscribeReport");
    }
    *out = threads_.at(bound->second).queue;
    return Error::Ok();
}

Error ReportSubscriptions::OwnQueue(std::shared_ptr<HostTaskQueue> *out) {
    const uint64_t self = static_cast<uint64_t>(pthread_self());
    std::lock_guard<std::mutex> lock(mu_);
    auto it = threads_.find(self);
    if (it == threads_.end()) {
        return Error::Format(ACL_ERROR_RT_THREAD_SUBSCRIBE,
                             "the calling thread (%llu) serves no stream (%s)",
                             static_cast<unsigned long long>(self),
                             host_funcs_ ? "aclrtSubscribeHostFunc" : "aclrtSubscribeReport");
    }
    *out = it->second.queue;
    return Error::Ok();
}

bool ReportSubscriptions::Subscribed(const Stream &s) {
    std::lock_guard<std::mutex> lock(mu_);
    return streams_.count(s.handle()) != 0;
}

bool ReportSubscriptions::ClaimForHostFunc(Stream &s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (streams_.count(s.handle()) != 0)
        return false;
    s.set_used_host_func();
    return true;
}

void ReportSubscriptions::Forget(const void *stream_handle) {
    std::lock_guard<std::mutex> lock(mu_);
    auto bound = streams_.find(stream_handle);
    if (bound == streams_.end())
        return;
    auto it = threads_.find(bound->second);
    streams_.erase(bound);
    std::erase(it->second.streams, stream_handle);
    if (it->second.streams.empty())
        threads_.erase(it);
}

}  // namespace npu::rt
