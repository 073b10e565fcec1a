// SPDX-License-Identifier: MIT
// Events (spec §8.4 - §8.9).
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/context.h"
#include "core/event.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::Event;
using npu::rt::EventRef;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

constexpr uint32_t kKnownEventFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                                      ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY |
                                      ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;

Error CreateEvent(aclrtEvent *event, uint32_t flags, bool complete_unrecorded) {
    NPU_ACL_CHECK(event != nullptr, "event is NULL");
    NPU_ACL_CHECK((flags & ~kKnownEventFlags) == 0, "flag 0x%x has unknown bits", flags);
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    void *h = npu::rt::InsertEvent(std::unique_ptr<Event>(new Event(flags, complete_unrecorded)));
    if (h == nullptr)
        return Error::Format(ACL_ERROR_RT_NO_EVENT_RESOURCE, "the process has no event handle left");
    *event = h;
    return Error::Ok();
}

Error ResolveStream(aclrtStream stream, StreamRef *ref, std::shared_ptr<Context> *ctx) {
    *ctx = ThreadState::CurrentContext();
    if (stream != nullptr)
        return npu::rt::AcquireStream(stream, ref);
    if (!*ctx) {
        return Error(ACL_ERROR_RT_CONTEXT_NULL,
                     "no current context in this thread (call aclrtSetDevice first)");
    }
    return npu::rt::DefaultStream(**ctx, ref);
}

}  // namespace

aclError aclrtCreateEvent(aclrtEvent *event) {
    return RunApi("aclrtCreateEvent", [&] { return CreateEvent(event, ACL_EVENT_SYNC, false); });
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
    return RunApi("aclrtCreateEventWithFlag", [&] { return CreateEvent(event, flag, false); });
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag) {
    return RunApi("aclrtCreateEventExWithFlag", [&] { return CreateEvent(event, flag, true); });
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
    return RunApi("aclrtRecordEvent", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        std::shared_ptr<Context> ctx;
        StreamRef s;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, &s, &ctx));
        return ev->Record(*s.get());
    });
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
    return RunApi("aclrtSynchronizeEvent", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        return ev->Synchronize();
    });
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
    return RunApi("aclrtQueryEventStatus", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        NPU_ACL_CHECK(status != nullptr, "status is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        bool complete = false;
        NPU_RETURN_IF_ERROR(ev->Query(&complete));
        *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
        return Error::Ok();
    });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    return RunApi("aclrtStreamWaitEvent", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef s;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, &s, &ctx));
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        if (!ctx) {
            return Error(ACL_ERROR_RT_CONTEXT_NULL,
                         "no current context in this thread (call aclrtSetDevice first)");
        }
        if (s->context() != ctx.get()) {
            return Error::Format(ACL_ERROR_RT_STREAM_CONTEXT,
                                 "stream %p belongs to device %d's context, not the current one",
                                 stream, s->session().user_id());
        }
        return ev->WaitOn(*s.get());
    });
}

aclError aclrtDestroyEvent(aclrtEvent event) {
    return RunApi("aclrtDestroyEvent", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        return npu::rt::DestroyEvent(event);
    });
}
