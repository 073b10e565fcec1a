// SPDX-License-Identifier: MIT
// Notify: a one-shot signal between streams of a device (aclrtCreateNotify,
// aclrtRecordNotify, aclrtWaitAndResetNotify). Like an event it is a word
// of the context's event slab (core/event.h), but it holds only "set" (1)
// or "clear" (0): a record queues a VALUE_WRITE of 1; a wait queues a
// VALUE_WAIT for 1 and then a VALUE_WRITE of 0, so each wait consumes one
// set and the engines resolve it without the host.
//
// The word is cleared when the notify is made. When it is destroyed, the
// slot goes back to the slab only if every operation queued on it has run;
// otherwise it stays out of use for good (a queued wait would read the word
// of the slot's next owner). Freed slots count as epoch 1 at least, so the
// next owner, an event, never mistakes a left-over 1 for its own record.
#ifndef NPU_RT_CORE_NOTIFY_H
#define NPU_RT_CORE_NOTIFY_H

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/stream_handles.h"

namespace npu::rt {

class Context;
class DeviceSession;
class EventSlab;
class IpcSignal;
class Stream;

class Notify {
  public:
    ~Notify();
    Notify(const Notify &) = delete;
    Notify &operator=(const Notify &) = delete;

    // aclrtCreateNotify on ctx's device; *handle gets the handle.
    static Error Create(Context &ctx, uint64_t flags, void **handle);
    // aclrtDestroyNotify: ACL_ERROR_RT_INVALID_HANDLE when h is not live.
    static Error Destroy(void *handle);
    // Pins the notify of handle h; ACL_ERROR_RT_INVALID_HANDLE when it is
    // not a live notify.
    static Error Acquire(void *handle, Pinned<Notify> *out);

    uint32_t id() const { return id_; }
    // aclrtRecordNotify: sets it once the work queued on s before runs.
    Error Record(Stream &s);
    // aclrtWaitAndResetNotify: work queued on s from now on waits for it
    // to be set, and the wait clears it.
    Error WaitAndReset(Stream &s);
    // aclrtNotifyBatchReset: clears it now.
    Error Reset();

    // aclrtNotifyGetExportKey: exports it (once; the same key after).
    Error Export(Context &ctx, bool no_whitelist, std::string *key);
    // aclrtNotifySetImportPid on an exported notify.
    Error SetImportPid(const int32_t *pid, size_t count);
    // aclrtNotifyImportByKey: a notify in ctx using the exporter's word.
    static Error Import(Context &ctx, const std::string &key, void **handle);

  private:
    Notify(std::shared_ptr<EventSlab> slab, uint32_t slot, uint64_t va, uint64_t epoch);
    explicit Notify(std::unique_ptr<IpcSignal> imported);
    Error CheckDeviceLocked(const Stream &s) const;
    Error Queue(Stream &s, bool wait_and_reset);
    // Whether an operation queued on the word has not run yet.
    bool BusyLocked();
    void ReleaseSlotLocked();

    const uint32_t id_;
    std::mutex mu_;  // Protects: the members below
    // The word (a slab slot, or shared words once
    // exported or when imported), per stream handle the last operation
    // queued on it.
    std::shared_ptr<EventSlab> slab_;  // null once the slot is given back
    uint32_t slot_ = 0;
    uint64_t epoch_ = 0;  // the slot's epoch when it came to this notify
    std::unique_ptr<IpcSignal> ipc_;
    uint64_t va_ = 0;
    std::vector<std::pair<void *, uint64_t>> queued_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_NOTIFY_H
