// SPDX-License-Identifier: MIT
#include "core/event.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>

#include "acl/acl.h"

#include "core/checker.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "base/singleton.h"
#include "core/ipc_signal.h"
#include "core/stream.h"
#include "core/stream_handles.h"
#include "hal/hal_trace.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

// Events live in device memory: its limits are theirs.
constexpr base::ErrnoCode kEventMemoryCodes[] = {
    {-ENOSPC, ACL_ERROR_RT_NO_EVENT_RESOURCE},
    {-ENOMEM, ACL_ERROR_RT_NO_EVENT_RESOURCE},
};
// A wait for an event's record that timed out.
constexpr base::ErrnoCode kEventWaitCodes[] = {{-ETIME, ACL_ERROR_RT_EVENT_SYNC_TIMEOUT}};

HandleTable<Event> &EventTable() {
    return base::Singleton<TaggedHandleTable<Event, 0x4556>>::Get();  // "EV"
}

}  // namespace

EventSlab::~EventSlab() {
    for (uint64_t va : chunks_)
        npuHalMemFree(session_->hal(), va);
}

Error EventSlab::Alloc(uint32_t *slot, uint64_t *va, uint64_t *epoch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (free_.empty()) {
        if (epochs_.size() >= kMaxSlots) {
            return Error::Format(ACL_ERROR_RT_NO_EVENT_RESOURCE,
                                 "device %d already has %u events (the limit)", session_->user_id(),
                                 kMaxSlots);
        }
        const uint64_t bytes = kSlotsPerChunk * kSlotBytes;
        struct npu_mem_alloc a = {};
        int err = npuHalMemAlloc(session_->hal(), bytes, NPU_POLICY_NORMAL_ONLY, 0, &a);
        if (err != 0) {
            return Error::FromErrno(err, kEventMemoryCodes,
                                    "cannot allocate event memory on device %d (events live in "
                                    "device memory: no memory for more events when the process "
                                    "reached its limit of allocations or of device memory, or "
                                    "the device is full)",
                                    session_->user_id());
        }
        // Epoch 0 everywhere: a never-recorded slot satisfies no wait.
        err = RunFill(*session_, reinterpret_cast<void *>(a.va), 0, bytes);
        if (err != 0) {
            npuHalMemFree(session_->hal(), a.va);
            return Error::FromHal(err, "cannot clear event memory on device %d",
                                  session_->user_id());
        }
        chunks_.push_back(a.va);
        const auto first = static_cast<uint32_t>(epochs_.size());
        epochs_.resize(epochs_.size() + kSlotsPerChunk, 0);
        for (uint32_t i = kSlotsPerChunk; i-- > 0;)
            free_.push_back(first + i);
    }
    const uint32_t s = free_.back();
    free_.pop_back();
    *slot = s;
    *va = chunks_[s / kSlotsPerChunk] + (s % kSlotsPerChunk) * kSlotBytes;
    *epoch = epochs_[s];
    return Error::Ok();
}

uint32_t EventSlab::InUse() {
    std::lock_guard<std::mutex> lock(mu_);
    return static_cast<uint32_t>(epochs_.size() - free_.size());
}

void EventSlab::Free(uint32_t slot, uint64_t last_epoch) {
    std::lock_guard<std::mutex> lock(mu_);
    if (last_epoch > epochs_[slot])
        epochs_[slot] = last_epoch;
    free_.push_back(slot);
}

Error EventSlab::ReadWord(uint64_t va, uint64_t *value) {
    int err = RunCopy(*session_, value, reinterpret_cast<const void *>(va), sizeof(*value));
    if (err != 0)
        return Error::FromHal(err, "cannot read event memory of device %d", session_->user_id());
    return Error::Ok();
}

Error EventSlab::WriteWord(uint64_t va, uint8_t byte) {
    int err = RunFill(*session_, reinterpret_cast<void *>(va), byte, sizeof(uint64_t));
    if (err != 0)
        return Error::FromHal(err, "cannot write event memory of device %d", session_->user_id());
    return Error::Ok();
}

Event::Event(uint32_t flags, bool complete_unrecorded)
    : flags_(flags), complete_unrecorded_(complete_unrecorded), id_([] {
          static std::atomic<uint32_t> next{0};
          return next.fetch_add(1, std::memory_order_relaxed);
      }()) {}

Event::~Event() {
    if (ipc_ && last_.recorded) {
        // A record still queued writes the shared words: keep them for
        // good rather than block here (the stream may never run again,
        // e.g. behind a wait no one will satisfy) or let the record write
        // freed memory.
        StreamRef rec;
        if (AcquireStream(last_.stream, &rec).ok() && !rec->Done(last_.seq))
            IpcSignal::KeepForever(std::move(ipc_));
    }
    if (ipc_ && opened_ && !WaitsDone()) {
        // A queued wait still reads the mapping: keep it for good rather
        // than let the wait read unmapped memory.
        IpcSignal::KeepForever(std::move(ipc_));
    }
    std::lock_guard<std::mutex> lock(mu_);
    ReleaseSlotLocked();
}

void Event::ReleaseSlotLocked() {
    if (slab_ctx_ == nullptr)
        return;
    if (std::shared_ptr<EventSlab> slab = slab_.lock())
        slab->Free(slot_, last_.epoch);
    slab_.reset();
    slab_ctx_ = nullptr;
}

Event::Snapshot Event::Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return last_;
}

Error Event::Record(Stream &s) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ipc_) {
        // Exported or opened: the shared words, which the exporter and the
        // processes that opened the event all record. The queued epoch
        // first, so that no process waits for an epoch no record will
        // write; it follows the newest one any of them queued.
        if (&ipc_->session() != &s.session()) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "the IPC event lives on device %d, stream %p runs on device %d",
                                 ipc_->session().user_id(), s.handle(), s.session().user_id());
        }
        uint64_t queued = 0;
        NPU_RETURN_IF_ERROR(ipc_->Read(sizeof(uint64_t), &queued));
        const uint64_t epoch = std::max(queued, ipc_epoch_) + 1;
        NPU_RETURN_IF_ERROR(ipc_->Write(sizeof(uint64_t), epoch));
        const RingDesc d = ValueWriteDesc(ipc_->va(), epoch);
        uint64_t seq = 0;
        NPU_RETURN_IF_ERROR(s.Submit(&d, 1, &seq));
        if (check::On())
            check::SignalRecorded(this, s, seq);
        ipc_epoch_ = epoch;
        last_ = Snapshot();
        last_.recorded = true;
        last_.stream = s.handle();
        last_.seq = seq;
        last_.va = ipc_->va();
        last_.epoch = epoch;
        recorded_cv_.notify_all();
        return Error::Ok();
    }
    std::shared_ptr<EventSlab> slab = slab_.lock();
    if (slab_ctx_ != s.context() || !slab) {
        // First record, or a record in another context: bind a slot there.
        ReleaseSlotLocked();
        NPU_RETURN_IF_ERROR(s.context()->streams().Slab(&slab));
        uint64_t va = 0, epoch = 0;
        NPU_RETURN_IF_ERROR(slab->Alloc(&slot_, &va, &epoch));
        slab_ = slab;
        slab_ctx_ = s.context();
        last_ = Snapshot();
        last_.va = va;
        last_.epoch = epoch;
    }
    // The timestamp first: once the epoch is visible, so is the time.
    RingDesc descs[2];
    const bool timed = (flags_ & ACL_EVENT_TIME_LINE) != 0;
    uint32_t n = 0;
    if (timed)
        descs[n++] = TimestampDesc(last_.va + sizeof(uint64_t));
    descs[n++] = ValueWriteDesc(last_.va, last_.epoch + 1);
    uint64_t seq = 0;
    NPU_RETURN_IF_ERROR(s.Submit(descs, n, &seq));
    if (check::On())
        check::SignalRecorded(this, s, seq);
    last_.epoch++;
    last_.recorded = true;
    last_.timed = timed;
    last_.stream = s.handle();
    last_.seq = seq;
    last_.slab = slab;
    recorded_cv_.notify_all();
    return Error::Ok();
}

bool Event::AwaitRecorded(uint64_t timeout_ns) {
    std::unique_lock<std::mutex> lock(mu_);
    return recorded_cv_.wait_for(lock, std::chrono::nanoseconds(timeout_ns),
                                 [this] { return last_.recorded; });
}

Error Event::ReadShared(uint64_t *queued, uint64_t *executed) {
    NPU_RETURN_IF_ERROR(ipc_->Read(sizeof(uint64_t), queued));
    return ipc_->Read(0, executed);
}

IpcSignal *Event::Shared() {
    std::lock_guard<std::mutex> lock(mu_);
    return ipc_.get();
}

Error Event::Synchronize(uint64_t timeout_ns) {
    if (IpcSignal *ipc = Shared()) {
        // Another process's stream: watch the words, backing off to 1 ms.
        uint64_t queued = 0, executed = 0;
        NPU_RETURN_IF_ERROR(ReadShared(&queued, &executed));
        const auto deadline =
            std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
        auto pause = std::chrono::microseconds(20);
        while (executed < queued) {
            if (timeout_ns != 0 && std::chrono::steady_clock::now() >= deadline) {
                return Error::Format(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT,
                                     "the IPC event's record did not execute within %llu ms",
                                     static_cast<unsigned long long>(timeout_ns / 1000000));
            }
            std::this_thread::sleep_for(pause);
            pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(1));
            NPU_RETURN_IF_ERROR(ipc->Read(0, &executed));
        }
        return Error::Ok();
    }
    const Snapshot snap = Take();
    if (!snap.recorded)
        return Error::Ok();
    StreamRef rec;
    if (!AcquireStream(snap.stream, &rec).ok())
        return Error::Ok();  // the stream is gone, and destroying it waited
    return rec->WaitSeq(snap.seq, timeout_ns, kEventWaitCodes);
}

Error Event::Query(bool *complete) {
    if (Shared() != nullptr) {
        uint64_t queued = 0, executed = 0;
        NPU_RETURN_IF_ERROR(ReadShared(&queued, &executed));
        *complete = executed >= queued;
        return Error::Ok();
    }
    const Snapshot snap = Take();
    if (!snap.recorded) {
        *complete = complete_unrecorded_;
        return Error::Ok();
    }
    StreamRef rec;
    if (!AcquireStream(snap.stream, &rec).ok()) {
        *complete = true;
        return Error::Ok();
    }
    *complete = rec->Done(snap.seq);
    return Error::Ok();
}

Error Event::WaitOn(Stream &s) {
    if (IpcSignal *ipc = Shared()) {
        uint64_t queued = 0, executed = 0;
        NPU_RETURN_IF_ERROR(ReadShared(&queued, &executed));
        if (executed >= queued)
            return Error::Ok();  // nothing recorded, or already executed
        if (&ipc->session() != &s.session())
            return Synchronize();  // the ring cannot name another device's mapping
        const RingDesc d = ValueWaitDesc(ipc->va(), queued, NPU_WAIT_GEQ);
        uint64_t seq = 0;
        NPU_RETURN_IF_ERROR(s.Submit(&d, 1, &seq));
        if (check::On())
            check::SignalWaited(this, s, false);  // recorded by another process
        WaitsDone();
        std::lock_guard<std::mutex> lock(mu_);
        waits_.emplace_back(s.handle(), seq);
        return Error::Ok();
    }
    const Snapshot snap = Take();
    if (!snap.recorded || snap.stream == s.handle())
        return Error::Ok();  // nothing captured, or the same stream: in order anyway
    StreamRef rec;
    if (!AcquireStream(snap.stream, &rec).ok() || rec->Done(snap.seq))
        return Error::Ok();
    if (&rec->session() != &s.session()) {
        // The slot lives in another device's memory, which this stream's
        // ring cannot name: wait on the host instead. (Contexts of one
        // device share its memory, so their streams wait on the device.)
        return rec->WaitSeq(snap.seq);
    }
    const RingDesc d = ValueWaitDesc(snap.va, snap.epoch, NPU_WAIT_GEQ);
    uint64_t seq = 0;
    NPU_RETURN_IF_ERROR(s.Submit(&d, 1, &seq));
    if (check::On())
        check::SignalWaited(this, s, false);
    WaitsDone();  // drops the waits that ran, so the list stays short
    std::lock_guard<std::mutex> lock(mu_);
    waits_.emplace_back(s.handle(), seq);
    return Error::Ok();
}

bool Event::WaitsDone() {
    std::lock_guard<std::mutex> lock(mu_);
    std::erase_if(waits_, [](const std::pair<void *, uint64_t> &w) {
        StreamRef rec;
        // A destroyed stream finished (or cancelled) its waits first.
        return !AcquireStream(w.first, &rec).ok() || rec->Done(w.second);
    });
    return waits_.empty();
}

void Event::Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    last_.recorded = false;
    last_.timed = false;
}

Error Event::Timestamp(uint64_t *ns) {
    const Snapshot snap = Take();
    if (!snap.recorded) {
        return Error::Format(ACL_ERROR_RT_INTERNAL_ERROR,
                             "event %p was never recorded (or was reset since)", this);
    }
    if (!snap.timed) {
        return Error::Format(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                             "the event has no timestamps: create it with aclrtCreateEvent or "
                             "with ACL_EVENT_TIME_LINE");
    }
    // A destroyed stream finished its work first.
    StreamRef rec;
    const bool complete = !AcquireStream(snap.stream, &rec).ok() || rec->Done(snap.seq);
    std::shared_ptr<EventSlab> slab = snap.slab.lock();
    if (!complete || !slab) {
        return Error::Format(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID,
                             "the event's last record has not executed yet (synchronize the "
                             "event or its stream first)");
    }
    NPU_RETURN_IF_ERROR(slab->ReadWord(snap.va + sizeof(uint64_t), ns));
    // The record queued the timestamp just before its epoch write (Record).
    if (base::trace::On() && rec)
        hal::trace::EngineTimestamp(rec->queue(), snap.seq - 1, *ns);
    return Error::Ok();
}

Error Event::Export(Context &ctx, std::string *key) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ipc_) {
        // No whitelist: upstream's IPC events have none; the 64 random
        // bytes of the key are the capability.
        NPU_RETURN_IF_ERROR(IpcSignal::Export(ctx, true, &ipc_));
    }
    *key = ipc_->key();
    return Error::Ok();
}

Error Event::Open(Context &ctx, const std::string &key, void **handle) {
    std::unique_ptr<Event> ev(new Event(ACL_EVENT_IPC, true));
    ev->opened_ = true;
    NPU_RETURN_IF_ERROR(IpcSignal::Import(ctx, key, &ev->ipc_));
    void *h = InsertEvent(std::move(ev));
    if (h == nullptr)
        return Error::Format(ACL_ERROR_RT_NO_EVENT_RESOURCE,
                             "the process has no event handle left");
    *handle = h;
    return Error::Ok();
}

void *InsertEvent(std::unique_ptr<Event> ev) {
    return EventTable().Insert(std::move(ev));
}

EventRef::~EventRef() {
    if (pinned_ != nullptr)
        EventTable().Release(pinned_);
}

Error AcquireEvent(void *handle, EventRef *out) {
    Event *ev = EventTable().Acquire(handle);
    if (ev == nullptr) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "event %p is not a live event (destroyed, or not an event)", handle);
    }
    out->ev_ = ev;
    out->pinned_ = handle;
    return Error::Ok();
}

Error DestroyEvent(void *handle) {
    std::unique_ptr<Event> ev = EventTable().Remove(handle);
    if (!ev) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "event %p is not a live event (destroyed, or not an event)", handle);
    }
    return Error::Ok();
}

}  // namespace npu::rt
