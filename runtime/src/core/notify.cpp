// SPDX-License-Identifier: MIT
#include "core/notify.h"

#include <algorithm>
#include <atomic>

#include "core/context.h"
#include "core/device_session.h"
#include "core/event.h"
#include "core/fork.h"
#include "core/stream.h"

namespace npu::rt {
namespace {

HandleTable<Notify> *&NotifyTableSlot() {
    // Never destroyed: handles may be used from static destructors.
    static auto *table = new HandleTable<Notify>(0x4e54);  // "NT"
    return table;
}

HandleTable<Notify> &NotifyTable() {
    return *NotifyTableSlot();
}

}  // namespace

void NotifiesForkChild() {
    KeepParentCopy(NotifyTableSlot());
    NotifyTableSlot() = new HandleTable<Notify>(0x4e54);
}

Notify::Notify(std::shared_ptr<EventSlab> slab, uint32_t slot, uint64_t va, uint64_t epoch)
    : slab_(std::move(slab)), slot_(slot), va_(va), epoch_(epoch), id_([] {
          static std::atomic<uint32_t> next{0};
          return next.fetch_add(1, std::memory_order_relaxed);
      }()) {}

Notify::~Notify() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &[stream, seq] : queued_) {
        StreamRef s;
        // A destroyed stream ran (or cancelled) its work first.
        if (AcquireStream(stream, &s).ok() && !s->Done(seq))
            return;  // still in use by a queued operation: never reused
    }
    slab_->Free(slot_, std::max<uint64_t>(epoch_, 1));
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

Error Notify::CheckDevice(const Stream &s) const {
    if (&s.session() != slab_->session()) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "the notify lives on device %d, stream %p runs on device %d",
                             slab_->session()->user_id(), s.handle(), s.session().user_id());
    }
    return Error::Ok();
}

Error Notify::Queue(Stream &s, const struct npu_sqe *sqes, uint32_t n) {
    NPU_RETURN_IF_ERROR(CheckDevice(s));
    std::lock_guard<std::mutex> lock(mu_);
    uint64_t seq = 0;
    NPU_RETURN_IF_ERROR(s.Submit(sqes, n, &seq));
    // Drop what has run, so the list stays as short as the streams in use.
    std::erase_if(queued_, [&](const std::pair<void *, uint64_t> &q) {
        StreamRef r;
        return q.first == s.handle() || !AcquireStream(q.first, &r).ok() || r->Done(q.second);
    });
    queued_.emplace_back(s.handle(), seq);
    return Error::Ok();
}

Error Notify::Record(Stream &s) {
    struct npu_sqe sqe = {};
    sqe.opcode = NPU_OP_VALUE_WRITE;
    sqe.dst = va_;
    sqe.value = 1;
    return Queue(s, &sqe, 1);
}

Error Notify::WaitAndReset(Stream &s) {
    struct npu_sqe sqes[2] = {};
    sqes[0].opcode = NPU_OP_VALUE_WAIT;
    sqes[0].dst = va_;
    sqes[0].value = 1;
    sqes[0].cond = NPU_WAIT_EQ;
    sqes[1].opcode = NPU_OP_VALUE_WRITE;
    sqes[1].dst = va_;
    sqes[1].value = 0;
    return Queue(s, sqes, 2);
}

Error Notify::Reset() {
    return slab_->WriteWord(va_, 0);
}

}  // namespace npu::rt
