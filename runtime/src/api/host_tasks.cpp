// SPDX-License-Identifier: MIT
// Host work in stream order: aclrtLaunchHostFunc; aclrtSubscribeReport,
// aclrtLaunchCallback, aclrtProcessReport, aclrtUnSubscribeReport; and
// their aliases aclrtSubscribeHostFunc, aclrtProcessHostFunc,
// aclrtUnSubscribeHostFunc (core/host_tasks.h says how they work).
#include <cstdio>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/model_ri.h"
#include "api/stream_args.h"
#include "core/host_tasks.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::HostTaskQueue;
using npu::rt::ReportSubscriptions;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// A stream has two subscribers, independent of each other: the thread
// serving its callbacks (aclrtSubscribeReport, subs = Get()) and the
// thread serving its host functions (aclrtSubscribeHostFunc, HostFuncs()).
Error Subscribe(ReportSubscriptions &subs, uint64_t thread_id, aclrtStream stream) {
    std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::ResolveStream(stream, ctx, &ref));
    return subs.Subscribe(thread_id, *ref.get());
}

Error Unsubscribe(ReportSubscriptions &subs, uint64_t thread_id, aclrtStream stream) {
    std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::ResolveStream(stream, ctx, &ref));
    return subs.Unsubscribe(thread_id, *ref.get());
}

Error Process(ReportSubscriptions &subs, int32_t timeout) {
    NPU_ACL_CHECK(timeout == -1 || timeout > 0, "timeout %d ms: -1 (forever) or more than 0",
                  timeout);
    std::shared_ptr<HostTaskQueue> queue;
    NPU_RETURN_IF_ERROR(subs.OwnQueue(&queue));
    const uint64_t ns = timeout == -1 ? 0 : static_cast<uint64_t>(timeout) * 1000000ULL;
    return queue->RunReady(ns);
}

}  // namespace

aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args) {
    return RunApi("aclrtLaunchHostFunc", [&] {
        NPU_RT_CHECK(fn != nullptr, "fn is NULL");
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::ResolveStream(stream, ctx, &ref));
        if (ReportSubscriptions::Get().Subscribed(*ref.get())) {
            return Error::Format(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 "stream %p takes callbacks (aclrtSubscribeReport); it cannot "
                                 "also run aclrtLaunchHostFunc work",
                                 ref->handle());
        }
        if (!ctx)
            return ThreadState::NoContextError();
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        // Checked again, with the mark set, in one step: a concurrent
        // aclrtSubscribeReport of the stream sees one or the other.
        if (!ReportSubscriptions::Get().ClaimForHostFunc(*ref.get())) {
            return Error::Format(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                 "stream %p takes callbacks (aclrtSubscribeReport); it cannot "
                                 "also run aclrtLaunchHostFunc work",
                                 ref->handle());
        }
        bool recorded = false;
        NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
            *ref.get(), npu::rt::TaskKind::kHostFunc,
            [&] { return npu::rt::TaskText("fn %p, args %p", reinterpret_cast<void *>(fn), args); },
            [fn, args](StreamRef &r, Context *c) {
                if (!ReportSubscriptions::Get().ClaimForHostFunc(*r.get())) {
                    return Error::Format(ACL_ERROR_RT_STREAM_SUBSCRIBE,
                                         "stream %p takes callbacks (aclrtSubscribeReport); it "
                                         "cannot also run aclrtLaunchHostFunc work",
                                         r->handle());
                }
                HostTaskQueue *q = nullptr;
                NPU_RETURN_IF_ERROR(c->host_funcs().Queue(&q));
                return npu::rt::QueueHostTask(*r.get(), fn, args, true, *q);
            },
            &recorded));
        if (recorded)
            return Error::Ok();
        HostTaskQueue *queue = nullptr;
        NPU_RETURN_IF_ERROR(ctx->host_funcs().Queue(&queue));
        return npu::rt::QueueHostTask(*ref.get(), fn, args, true, *queue);
    });
}

aclError aclrtSubscribeReport(uint64_t threadId, aclrtStream stream) {
    return RunApi("aclrtSubscribeReport",
                  [&] { return Subscribe(ReportSubscriptions::Get(), threadId, stream); });
}

aclError aclrtLaunchCallback(aclrtCallback fn, void *userData, aclrtCallbackBlockType blockType,
                             aclrtStream stream) {
    return RunApi("aclrtLaunchCallback", [&] {
        const int32_t block = npu::rt::EnumValue(blockType);
        NPU_ACL_CHECK(block == ACL_CALLBACK_NO_BLOCK || block == ACL_CALLBACK_BLOCK,
                      "blockType %d is neither ACL_CALLBACK_NO_BLOCK nor ACL_CALLBACK_BLOCK",
                      block);
        NPU_RT_CHECK(fn != nullptr, "fn is NULL");
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        std::shared_ptr<HostTaskQueue> queue;
        NPU_RETURN_IF_ERROR(ReportSubscriptions::Get().QueueOf(*ref.get(), &queue));
        return npu::rt::QueueHostTask(*ref.get(), fn, userData, block == ACL_CALLBACK_BLOCK,
                                      *queue);
    });
}

aclError aclrtProcessReport(int32_t timeout) {
    return RunApi("aclrtProcessReport",
                  [&] { return Process(ReportSubscriptions::Get(), timeout); });
}

aclError aclrtUnSubscribeReport(uint64_t threadId, aclrtStream stream) {
    return RunApi("aclrtUnSubscribeReport",
                  [&] { return Unsubscribe(ReportSubscriptions::Get(), threadId, stream); });
}

aclError aclrtSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
    return RunApi("aclrtSubscribeHostFunc", [&] {
        NPU_ACL_CHECK(exeStream != nullptr, "exeStream is NULL");
        return Subscribe(ReportSubscriptions::HostFuncs(), hostFuncThreadId, exeStream);
    });
}

aclError aclrtProcessHostFunc(int32_t timeout) {
    return RunApi("aclrtProcessHostFunc",
                  [&] { return Process(ReportSubscriptions::HostFuncs(), timeout); });
}

aclError aclrtUnSubscribeHostFunc(uint64_t hostFuncThreadId, aclrtStream exeStream) {
    return RunApi("aclrtUnSubscribeHostFunc", [&] {
        NPU_ACL_CHECK(exeStream != nullptr, "exeStream is NULL");
        return Unsubscribe(ReportSubscriptions::HostFuncs(), hostFuncThreadId, exeStream);
    });
}
