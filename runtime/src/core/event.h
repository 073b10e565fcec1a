// SPDX-License-Identifier: MIT
// Event: a marker recorded on a stream, and EventSlab: the device words
// that events are made of.
//
// Each event owns a 16-byte slot of device memory in the slab of the
// context it was last recorded in (bound at the first record, as upstream
// binds device resources then): the epoch word, then the timestamp word.
// Recording queues, for an ACL_EVENT_TIME_LINE event, a TIMESTAMP of the
// engine's clock into the second word, then a VALUE_WRITE of the event's
// next epoch on the stream, and remembers (stream, sequence number);
// a stream that waits on the event queues a VALUE_WAIT GEQ of that epoch, so
// the wait is resolved by the engines without the host; synchronising or
// querying the event looks at the recorded stream's completed sequence.
// Epochs never repeat for a slot (a freed slot keeps counting for its next
// owner), so a stale value can never satisfy a newer wait.
#ifndef NPU_RT_CORE_EVENT_H
#define NPU_RT_CORE_EVENT_H

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"

namespace npu::rt {

class Context;
class DeviceSession;
class IpcSignal;
class Stream;

class EventSlab {
  public:
    static constexpr uint32_t kSlotBytes = 16;       // the epoch, then the timestamp
    static constexpr uint32_t kSlotsPerChunk = 256;  // 4 KiB of device memory
    static constexpr uint32_t kMaxSlots = 65536;     // events per device

    explicit EventSlab(std::shared_ptr<DeviceSession> session) : session_(std::move(session)) {}
    ~EventSlab();  // frees the device memory
    EventSlab(const EventSlab &) = delete;
    EventSlab &operator=(const EventSlab &) = delete;

    // A free slot: its device address and the last epoch written to it.
    // ACL_ERROR_RT_NO_EVENT_RESOURCE when all kMaxSlots are taken.
    Error Alloc(uint32_t *slot, uint64_t *va, uint64_t *epoch);
    // Returns slot; last_epoch is the newest epoch its owner used.
    void Free(uint32_t slot, uint64_t last_epoch);
    // Slots bound to events now.
    uint32_t InUse();
    // Reads the 8-byte word at device address va of a slot.
    Error ReadWord(uint64_t va, uint64_t *value);
    // Writes it now, from the host (0 or a byte repeated: a memset).
    Error WriteWord(uint64_t va, uint8_t byte);
    const DeviceSession *session() const { return session_.get(); }

  private:
    const std::shared_ptr<DeviceSession> session_;
    std::mutex mu_;  // Protects: chunk base VAs, per-slot last epochs, free slots
    std::vector<uint64_t> chunks_;
    std::vector<uint64_t> epochs_;
    std::vector<uint32_t> free_;
};

class Event {
  public:
    // complete_unrecorded: what aclrtQueryEventStatus says before the first
    // record (aclrtCreateEventExWithFlag events are complete).
    Event(uint32_t flags, bool complete_unrecorded);
    ~Event();
    Event(const Event &) = delete;
    Event &operator=(const Event &) = delete;

    uint32_t flags() const { return flags_; }
    // Made by aclrtCreateEventExWithFlag.
    bool ex() const { return complete_unrecorded_; }
    // aclrtGetEventId: a number given at creation, unique in the process.
    uint32_t id() const { return id_; }

    // aclrtRecordEvent: captures the work queued on s so far.
    Error Record(Stream &s);
    // aclrtSynchronizeEvent[WithTimeout]: waits for the captured work
    // (timeout_ns 0: forever; ACL_ERROR_RT_EVENT_SYNC_TIMEOUT past it).
    Error Synchronize(uint64_t timeout_ns = 0);
    // aclrtQueryEventStatus: whether the captured work is done.
    Error Query(bool *complete);
    // aclrtStreamWaitEvent: work queued on s from now on waits for the
    // captured work.
    Error WaitOn(Stream &s);
    // aclrtQueryEventWaitStatus: whether every wait that aclrtStreamWaitEvent
    // queued on this event has executed.
    bool WaitsDone();
    // aclrtResetEvent: the event is not recorded any more (waits already
    // queued still wait for what they captured).
    void Reset();
    // Whether a record is in effect (recorded and not reset since): a wait
    // queued now would wait for something.
    bool Recorded() {
        std::lock_guard<std::mutex> lock(mu_);
        return last_.recorded;
    }
    // Waits up to timeout_ns for a record to be in effect; returns whether
    // one is (a model's event wait waits for the record, not its work).
    bool AwaitRecorded(uint64_t timeout_ns);
    // aclrtEventGetTimestamp, aclrtEventElapsedTime: the engine's clock, in
    // ns, when the last record executed. ACL_ERROR_RT_INTERNAL_ERROR if the
    // event was never recorded, ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID while
    // the record has not run or for an event without ACL_EVENT_TIME_LINE.
    Error Timestamp(uint64_t *ns);

    // aclrtIpcGetEventHandle: exports the event (once; the same key after)
    // in ctx's device. Later records also write the shared words.
    Error Export(Context &ctx, std::string *key);
    // aclrtIpcOpenEventHandle: a new event in ctx bound to the exporter's
    // event of key; *handle gets its handle.
    static Error Open(Context &ctx, const std::string &key, void **handle);
    // Made by aclrtIpcOpenEventHandle: it is waited on and recorded
    // through the exporter's words.
    bool opened() const { return opened_; }

  private:
    struct Snapshot {
        bool recorded = false;
        void *stream = nullptr;  // handle of the recorded stream
        uint64_t seq = 0;
        uint64_t va = 0;
        uint64_t epoch = 0;
        bool timed = false;  // the record wrote a timestamp at va + 8
        std::weak_ptr<EventSlab> slab;
    };
    Snapshot Take();
    void ReleaseSlotLocked();
    // An opened event's state in the exporter's words: the epoch of the
    // newest record queued and of the newest one executed.
    Error ReadShared(uint64_t *queued, uint64_t *executed);
    // The shared words of an exported or opened event (set once, kept
    // until destruction), else null: then its state is in those words,
    // which every process recording it writes.
    IpcSignal *Shared();

    const uint32_t flags_;
    const bool complete_unrecorded_;
    const uint32_t id_;
    bool opened_ = false;                  // set before the event has a handle
    std::mutex mu_;                        // Protects: every member below
    std::condition_variable recorded_cv_;  // with mu_: a record came into effect
    // The slot binding and what the last record captured.
    std::weak_ptr<EventSlab> slab_;
    Context *slab_ctx_ = nullptr;
    uint32_t slot_ = 0;
    Snapshot last_;
    // Waits queued on streams (stream handle, sequence number) that had not
    // executed when last looked at.
    std::vector<std::pair<void *, uint64_t>> waits_;
    // IPC (core/ipc_signal.h): the exported words, or those of the exporter
    // an opened event sees. Word 0: the epoch the newest executed record
    // wrote; word 1: the epoch of the newest record queued, written by the
    // exporter's host before it queues the record.
    std::unique_ptr<IpcSignal> ipc_;
    uint64_t ipc_epoch_ = 0;  // the exporter's newest epoch
};

// The user handles of events (same scheme as streams).
void *InsertEvent(std::unique_ptr<Event> ev);
// Pins the event of handle h for a call; ACL_ERROR_RT_INVALID_HANDLE when
// it is not a live event.
class EventRef {
  public:
    EventRef() = default;
    ~EventRef();
    EventRef(const EventRef &) = delete;
    EventRef &operator=(const EventRef &) = delete;
    Event *operator->() const { return ev_; }
    Event *get() const { return ev_; }

  private:
    friend Error AcquireEvent(void *handle, EventRef *out);
    Event *ev_ = nullptr;
    const void *pinned_ = nullptr;
};
Error AcquireEvent(void *handle, EventRef *out);
// aclrtDestroyEvent: ACL_ERROR_RT_INVALID_HANDLE when h is not live.
Error DestroyEvent(void *handle);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_EVENT_H
