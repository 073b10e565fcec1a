// SPDX-License-Identifier: MIT
// Events.
#include <cstring>
#include <cstdio>
#include <string>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/model_ri.h"
#include "api/stream_args.h"
#include "core/context.h"
#include "core/event.h"
#include "core/ipc_signal.h"
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

// The bit upstream's aclrtCreateEvent sets and no caller may pass: the event
// can be waited on, but not reset (it has no ACL_EVENT_SYNC).
constexpr uint32_t kEventDefault = 0x4;
// aclrtCreateEvent's flags (spec: like 0x0E, timeline + progress + internal).
constexpr uint32_t kCreateEventFlags =
    ACL_EVENT_TIME_LINE | ACL_EVENT_CAPTURE_STREAM_PROGRESS | kEventDefault;

// Whether streams can wait on the event (and it holds an event id).
bool Waitable(const Event &ev) {
    return (ev.flags() & (ACL_EVENT_SYNC | kEventDefault)) != 0;
}

constexpr uint32_t kKnownEventFlags = ACL_EVENT_SYNC | ACL_EVENT_CAPTURE_STREAM_PROGRESS |
                                      ACL_EVENT_TIME_LINE | ACL_EVENT_DEVICE_USE_ONLY |
                                      ACL_EVENT_EXTERNAL | ACL_EVENT_IPC;

// flags as the caller passed them (aclrtCreateEvent passes kCreateEventFlags).
Error CreateEvent(aclrtEvent *event, uint32_t flags, bool complete_unrecorded) {
    NPU_ACL_CHECK(event != nullptr, "event is NULL");
    NPU_ACL_CHECK(flags == kCreateEventFlags || (flags & ~kKnownEventFlags) == 0,
                  "flag 0x%x has unknown bits", flags);
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    void *h = npu::rt::InsertEvent(std::unique_ptr<Event>(new Event(flags, complete_unrecorded)));
    if (h == nullptr)
        return Error::Format(ACL_ERROR_RT_NO_EVENT_RESOURCE,
                             "the process has no event handle left");
    *event = h;
    return Error::Ok();
}

// Records event on s, or, when s records into a model (core/model_ri.h),
// adds a task that records it on the stream that runs the model.
Error RecordOrCapture(aclrtEvent event, Event &ev, npu::rt::Stream &s) {
    bool recorded = false;
    NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
        s, npu::rt::TaskKind::kEventRecord, [&] { return npu::rt::TaskText("event %p", event); },
        [event](StreamRef &r, Context *) {
            EventRef e;
            NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &e));
            return e->Record(*r.get());
        },
        &recorded, event));
    return recorded ? Error::Ok() : ev.Record(s);
}

Error ResolveStream(aclrtStream stream, StreamRef *ref, std::shared_ptr<Context> *ctx) {
    *ctx = ThreadState::CurrentContext();
    return npu::rt::ResolveStream(stream, *ctx, ref);
}

// aclrtStreamWaitEvent after the ACL checks.
Error StreamWait(aclrtStream stream, aclrtEvent event) {
    std::shared_ptr<Context> ctx;
    StreamRef s;
    NPU_RETURN_IF_ERROR(ResolveStream(stream, &s, &ctx));
    EventRef ev;
    NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
    if (!ctx)
        return npu::rt::NoContextError();
    NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(s, *ctx));
    bool recorded = false;
    NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
        *s.get(), npu::rt::TaskKind::kEventWait,
        [&] { return npu::rt::TaskText("event %p", event); },
        [event](StreamRef &r, Context *) {
            EventRef e;
            NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &e));
            return e->WaitOn(*r.get());
        },
        &recorded, event));
    return recorded ? Error::Ok() : ev->WaitOn(*s.get());
}

// External and IPC events have no timestamps here (spec: 207000).
Error CheckTimedKind(const Event &ev, const char *what) {
    if (ev.flags() & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "%s is an external or IPC event, which has no timestamps", what);
    }
    return Error::Ok();
}

// aclrtQueryEvent and aclrtQueryEventWaitStatus refuse Ex, external and IPC
// events (spec: 207000).
Error CheckQueryable(const Event &ev, const char *api) {
    if (ev.ex() || (ev.flags() & (ACL_EVENT_EXTERNAL | ACL_EVENT_IPC))) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "%s does not take Ex, external or IPC events", api);
    }
    return Error::Ok();
}

}  // namespace

aclError aclrtCreateEvent(aclrtEvent *event) {
    // Upstream's default event: waitable, with timestamps, not resettable.
    return RunApi("aclrtCreateEvent", [&] { return CreateEvent(event, kCreateEventFlags, false); });
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
        return RecordOrCapture(event, *ev.get(), *s.get());
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
        *status =
            complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
        return Error::Ok();
    });
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    return RunApi("aclrtStreamWaitEvent", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        return StreamWait(stream, event);
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
        // Events of aclrtCreateEvent and aclrtCreateEventWithFlag can be
        // reset; those of aclrtCreateEventExWithFlag have no wait to undo.
        if (ev->ex()) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "event %p is from aclrtCreateEventExWithFlag, which has no wait "
                                 "to reset",
                                 event);
        }
        std::shared_ptr<Context> ctx;
        StreamRef s;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, &s, &ctx));
        bool recorded = false;
        NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
            *s.get(), npu::rt::TaskKind::kEventReset,
            [&] { return npu::rt::TaskText("event %p", event); },
            [event](StreamRef &, Context *) {
                EventRef e;
                NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &e));
                e->Reset();
                return Error::Ok();
            },
            &recorded));
        if (!recorded)
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

aclError aclrtRecordEventWithFlag(aclrtEvent event, aclrtStream stream, uint32_t flag) {
    return RunApi("aclrtRecordEventWithFlag", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        NPU_ACL_CHECK(flag == ACL_EVENT_RECORD_DEFAULT || flag == ACL_EVENT_RECORD_EXTERNAL,
                      "flag %u is not ACL_EVENT_RECORD_DEFAULT or ACL_EVENT_RECORD_EXTERNAL", flag);
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        std::shared_ptr<Context> ctx;
        StreamRef s;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, &s, &ctx));
        if (flag == ACL_EVENT_RECORD_EXTERNAL && !npu::rt::StreamRecording(*s.get())) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "ACL_EVENT_RECORD_EXTERNAL records into a captured model: "
                                 "stream %p is not capturing (aclmdlRICaptureBegin)",
                                 s->handle());
        }
        return RecordOrCapture(event, *ev.get(), *s.get());
    });
}

aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout) {
    return RunApi("aclrtSynchronizeEventWithTimeout", [&] {
        NPU_RT_CHECK(timeout >= -1, "timeout %d ms: -1 (forever) or more than 0", timeout);
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        NPU_RT_CHECK(timeout != 0, "timeout 0 ms: -1 (forever) or more than 0");
        if (ev->flags() & ACL_EVENT_EXTERNAL) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "event %p is ACL_EVENT_EXTERNAL (graph capture only)", event);
        }
        return ev->Synchronize(timeout == -1 ? 0 : static_cast<uint64_t>(timeout) * 1000000ULL);
    });
}

aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status) {
    return RunApi("aclrtQueryEvent", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        NPU_ACL_CHECK(status != nullptr, "status is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        NPU_RETURN_IF_ERROR(CheckQueryable(*ev.get(), "aclrtQueryEvent"));
        bool complete = false;
        NPU_RETURN_IF_ERROR(ev->Query(&complete));
        *status = complete ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
        return Error::Ok();
    });
}

aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status) {
    return RunApi("aclrtQueryEventWaitStatus", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        NPU_ACL_CHECK(status != nullptr, "status is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        NPU_RETURN_IF_ERROR(CheckQueryable(*ev.get(), "aclrtQueryEventWaitStatus"));
        *status =
            ev->WaitsDone() ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
        return Error::Ok();
    });
}

aclError aclrtStreamWaitEventWithFlag(aclrtStream stream, aclrtEvent event, uint32_t timeout,
                                      uint32_t flag) {
    return RunApi("aclrtStreamWaitEventWithFlag", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        NPU_ACL_CHECK(flag == ACL_EVENT_WAIT_DEFAULT || flag == ACL_EVENT_WAIT_EXTERNAL,
                      "flag %u is not ACL_EVENT_WAIT_DEFAULT or ACL_EVENT_WAIT_EXTERNAL", flag);
        NPU_ACL_CHECK(flag == ACL_EVENT_WAIT_DEFAULT || timeout == 0,
                      "timeout %u must be 0 with ACL_EVENT_WAIT_EXTERNAL", timeout);
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        NPU_RT_CHECK(!(ev->flags() & ACL_EVENT_DEVICE_USE_ONLY),
                     "event %p is ACL_EVENT_DEVICE_USE_ONLY", event);
        if (!Waitable(*ev.get())) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "event %p cannot be waited on: create it with ACL_EVENT_SYNC "
                                 "(or aclrtCreateEvent)",
                                 event);
        }
        if (flag == ACL_EVENT_WAIT_EXTERNAL) {
            StreamRef probe;
            if (stream != nullptr)
                NPU_RETURN_IF_ERROR(npu::rt::AcquireStream(stream, &probe));
            if (!probe || !npu::rt::StreamRecording(*probe.get())) {
                return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                     "ACL_EVENT_WAIT_EXTERNAL waits in a captured model: stream "
                                     "%p is not capturing (aclmdlRICaptureBegin)",
                                     stream);
            }
        }
        // The copy engines' waits have no timeout field: like such chips,
        // the timeout is accepted and not enforced.
        return StreamWait(stream, event);
    });
}

aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout) {
    return RunApi("aclrtStreamWaitEventWithTimeout", [&] {
        NPU_RT_CHECK(timeout >= 0, "timeout %d s is negative", timeout);
        NPU_RT_CHECK(event != nullptr, "event is NULL");
        // Accepted and not enforced, as on chips whose wait has no timeout.
        return StreamWait(stream, event);
    });
}

aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId) {
    return RunApi("aclrtGetEventId", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        NPU_ACL_CHECK(eventId != nullptr, "eventId is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        if (ev->flags() & ACL_EVENT_IPC) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "an IPC event has no event id");
        }
        if (!Waitable(*ev.get())) {
            return Error::Format(ACL_ERROR_RT_INTERNAL_ERROR,
                                 "event %p holds no event id: only events created with "
                                 "ACL_EVENT_SYNC (or aclrtCreateEvent) have one",
                                 event);
        }
        *eventId = ev->id();
        return Error::Ok();
    });
}

aclError aclrtGetEventAvailNum(uint32_t *eventCount) {
    return RunApi("aclrtGetEventAvailNum", [&] {
        NPU_ACL_CHECK(eventCount != nullptr, "eventCount is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        // Events take a device slot when first recorded (core/event.h).
        std::shared_ptr<npu::rt::EventSlab> slab;
        NPU_RETURN_IF_ERROR(ctx->streams().Slab(&slab));
        *eventCount = npu::rt::EventSlab::kMaxSlots - slab->InUse();
        return Error::Ok();
    });
}

aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle) {
    return RunApi("aclrtIpcGetEventHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        EventRef ev;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireEvent(event, &ev));
        NPU_RT_CHECK(ev->ex() && (ev->flags() & ACL_EVENT_IPC) && !ev->opened(),
                     "event %p is not an IPC event of this process: create it with "
                     "aclrtCreateEventExWithFlag(ACL_EVENT_IPC)",
                     event);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        std::string key;
        NPU_RETURN_IF_ERROR(ev->Export(*ctx, &key));
        static_assert(sizeof(handle->reserved) >= npu::rt::IpcSignal::kKeyLength);
        std::memset(handle->reserved, 0, sizeof(handle->reserved));
        std::memcpy(handle->reserved, key.data(), key.size());
        return Error::Ok();
    });
}

aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event) {
    return RunApi("aclrtIpcOpenEventHandle", [&] {
        NPU_ACL_CHECK(event != nullptr, "event is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        const std::string key(handle.reserved,
                              strnlen(handle.reserved, npu::rt::IpcSignal::kKeyLength));
        NPU_RT_CHECK(key.size() == npu::rt::IpcSignal::kKeyLength,
                     "handle is not a handle of aclrtIpcGetEventHandle");
        return Event::Open(*ctx, key, event);
    });
}
