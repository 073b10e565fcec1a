// SPDX-License-Identifier: MIT
#include "core/notify.h"

#include "core/checker.h"

#include <algorithm>
#include <atomic>

#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/event.h"
#include "base/singleton.h"
#include "core/ipc_signal.h"
#include "core/stream.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

uint32_t NextId() {
    static std::atomic<uint32_t> next{0};
    return next.fetch_add(1, std::memory_order_relaxed);
}

HandleTable<Notify> &NotifyTable() {
    // Never destroyed: handles may be used from static destructors.
    return base::Singleton<TaggedHandleTable<Notify, 0x4e54>>::Get();  // "NT"
}

}  // namespace

Notify::Notify(std::shared_ptr<EventSlab> slab, uint32_t slot, uint64_t va, uint64_t epoch)
    : id_(NextId()), slab_(std::move(slab)), slot_(slot), epoch_(epoch), va_(va) {}

Notify::Notify(std::unique_ptr<IpcSignal> imported)
    : id_(NextId()), ipc_(std::move(imported)), va_(ipc_->va()) {}

bool Notify::BusyLocked() {
    for (const auto &[stream, seq] : queued_) {
        StreamRef s;
        // A destroyed stream ran (or cancelled) its work first.
        if (AcquireStream(stream, &s).ok() && !s->Done(seq))
            return true;
    }
    return false;
}

void Notify::ReleaseSlotLocked() {
    if (slab_)
        slab_->Free(slot_, std::max<uint64_t>(epoch_, 1));
    slab_.reset();
}

Notify::~Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    if (BusyLocked()) {
        // Still named by a queued operation: never reused, never unmapped.
        IpcSignal::KeepForever(std::move(ipc_));
        slab_.reset();
        return;
    }
    ReleaseSlotLocked();
}

Error Notify::Create(Context &ctx, uint64_t flags, void **handle) {
    std::shared_ptr<EventSlab> slab;
    NPU_RETURN_IF_ERROR(ctx.streams().Slab(&slab));
    uint32_t slot = 0;
    uint64_t va = 0, epoch = 0;
    Error e = slab->Alloc(&slot, &va, &epoch);
    if (e.code() == ACL_ERROR_RT_NO_EVENT_RESOURCE)
        return Error(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, e.message());
    NPU_RETURN_IF_ERROR(e);
    std::unique_ptr<Notify> n(new Notify(slab, slot, va, epoch));
    NPU_RETURN_IF_ERROR(n->Reset());
    (void)flags;  // ACL_NOTIFY_DEVICE_USE_ONLY: every notify is device-only here
    void *h = NotifyTable().Insert(std::move(n));
    if (h == nullptr)
        return Error(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "the process has no notify handle left");
    *handle = h;
    return Error::Ok();
}

Error Notify::Destroy(void *handle) {
    if (!NotifyTable().Remove(handle)) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "notify %p is not a live notify (destroyed, or not a notify)", handle);
    }
    return Error::Ok();
}

Error Notify::Acquire(void *handle, Pinned<Notify> *out) {
    if (!out->Acquire(NotifyTable(), handle)) {
        return Error::Format(ACL_ERROR_RT_INVALID_HANDLE,
                             "notify %p is not a live notify (destroyed, or not a notify)", handle);
    }
    return Error::Ok();
}

Error Notify::CheckDeviceLocked(const Stream &s) const {
    const DeviceSession *own = ipc_ ? &ipc_->session() : slab_->session();
    if (&s.session() != own) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "the notify lives on device %d, stream %p runs on device %d",
                             own->user_id(), s.handle(), s.session().user_id());
    }
    return Error::Ok();
}

// Record: the word := 1. Wait and reset: until the word is 1, then := 0.
Error Notify::Queue(Stream &s, bool wait_and_reset) {
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckDeviceLocked(s));
    RingDesc descs[2];
    uint32_t n = 0;
    if (wait_and_reset) {
        descs[n++] = ValueWaitDesc(va_, 1, NPU_WAIT_EQ);
        descs[n++] = ValueWriteDesc(va_, 0);
    } else {
        descs[n++] = ValueWriteDesc(va_, 1);
    }
    uint64_t seq = 0;
    NPU_RETURN_IF_ERROR(s.Submit(descs, n, &seq));
    if (check::On()) {
        if (wait_and_reset)
            check::SignalWaited(this, s, true);
        else
            check::SignalRecorded(this, s, seq);
    }
    // Drop what has run, so the list stays as short as the streams in use.
    std::erase_if(queued_, [&](const std::pair<void *, uint64_t> &q) {
        StreamRef r;
        return q.first == s.handle() || !AcquireStream(q.first, &r).ok() || r->Done(q.second);
    });
    queued_.emplace_back(s.handle(), seq);
    return Error::Ok();
}

Error Notify::Record(Stream &s) {
    return Queue(s, false);
}

Error Notify::WaitAndReset(Stream &s) {
    return Queue(s, true);
}

Error Notify::Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    if (ipc_)
        return ipc_->Write(0, 0);
    return slab_->WriteWord(va_, 0);
}

Error Notify::Export(Context &ctx, bool no_whitelist, std::string *key) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ipc_ && ipc_->imported()) {
        return Error(ACL_ERROR_RT_PARAM_INVALID,
                     "the notify was imported (aclrtNotifyImportByKey): only its exporter can "
                     "export it");
    }
    if (!ipc_) {
        if (BusyLocked()) {
            return Error(ACL_ERROR_RT_PARAM_INVALID,
                         "work queued on the notify has not run yet: export a notify before "
                         "recording or waiting on it");
        }
        NPU_RETURN_IF_ERROR(IpcSignal::Export(ctx, no_whitelist, &ipc_));
        va_ = ipc_->va();
        queued_.clear();
        ReleaseSlotLocked();
    }
    *key = ipc_->key();
    return Error::Ok();
}

Error Notify::SetImportPid(const int32_t *pid, size_t count) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!ipc_ || ipc_->imported()) {
        return Error(ACL_ERROR_RT_PARAM_INVALID,
                     "the notify is not exported by this process (aclrtNotifyGetExportKey first)");
    }
    return ipc_->SetImportPid(pid, count);
}

Error Notify::Import(Context &ctx, const std::string &key, void **handle) {
    std::unique_ptr<IpcSignal> sig;
    NPU_RETURN_IF_ERROR(IpcSignal::Import(ctx, key, &sig));
    std::unique_ptr<Notify> n(new Notify(std::move(sig)));
    void *h = NotifyTable().Insert(std::move(n));
    if (h == nullptr)
        return Error(ACL_ERROR_RT_NO_NOTIFY_RESOURCE, "the process has no notify handle left");
    *handle = h;
    return Error::Ok();
}

}  // namespace npu::rt
