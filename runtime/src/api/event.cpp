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

// External and IPC events have no timestamps here (spec: 207000).
Error CheckTimedKind(const Event &ev, const char *what) {
    if (ev.flags() & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "%s is an external or IPC event, which has no timestamps", what);
    }
    return Error::Ok();
}

}  // namespace

aclError aclrtCreateEvent(aclrtEvent *event) {
    // Upstream's default event: waitable, with progress and timestamps.
    return RunApi("aclrtCreateEvent", [&] {
        return CreateEvent(event, ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                                      ACL_EVENT_TIME_LINE,
                           false);
    });
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

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
    return RunApi("aclrtResetEvent", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        const uint32_t flags = ev->flags();
        NPU_RT_CHECK(!(flags & ACL_EVENT_DEVICE_USE_ONLY),
                     "event %p is ACL_EVENT_DEVICE_USE_ONLY: the host cannot reset it", event);
        if (flags & ACL_EVENT_IPC) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "event %p is an IPC event, which cannot be reset", event);
        }
        if (ev->ex() || !(flags & ACL_EVENT_SYNC)) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "event %p cannot be reset: only events that streams can wait on "
                                 "(aclrtCreateEvent, or aclrtCreateEventWithFlag with "
                                 "ACL_EVENT_SYNC) can",
                                 event);
        }
        std::shared_ptr<Context> ctx;
        StreamRef s;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, &s, &ctx));
        ev->Reset();
        return Error::Ok();
    });
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
    return RunApi("aclrtEventElapsedTime", [&] {
        NPU_ACL_CHECK(ms != nullptr, "ms is NULL");
        NPU_ACL_CHECK(startEvent != nullptr, "startEvent is NULL");
        NPU_ACL_CHECK(endEvent != nullptr, "endEvent is NULL");
        EventRef start, end;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(startEvent, &start));
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(endEvent, &end));
        NPU_RETURN_IF_ERROR(CheckTimedKind(*start.get(), "startEvent"));
        NPU_RETURN_IF_ERROR(CheckTimedKind(*end.get(), "endEvent"));
        uint64_t t0 = 0, t1 = 0;
        NPU_RETURN_IF_ERROR(start->Timestamp(&t0));
        NPU_RETURN_IF_ERROR(end->Timestamp(&t1));
        // Negative when end was recorded first, as upstream (no ordering check).
        *ms = static_cast<float>(static_cast<double>(static_cast<int64_t>(t1 - t0)) / 1e6);
        return Error::Ok();
    });
}

aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp) {
    return RunApi("aclrtEventGetTimestamp", [&] {
        NPU_ACL_CHECK(timestamp != nullptr, "timestamp is NULL");
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        NPU_RETURN_IF_ERROR(CheckTimedKind(*ev.get(), "event"));
        uint64_t ns = 0;
        NPU_RETURN_IF_ERROR(ev->Timestamp(&ns));
        *timestamp = ns / 1000;  // microseconds of the device's monotonic clock
        return Error::Ok();
    });
}
