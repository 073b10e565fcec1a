// SPDX-License-Identifier: MIT
// Streams: rtStreamCreate, rtStreamDestroy, rtStreamSynchronize, their
// queue ids (rtStreamGetSqid, rtStreamGetCqid) and rtGetTaskIdAndStreamID.
#include "api/stream_args.h"
#include "core/stream.h"
#include "rt_api/rt_call.h"

using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;
using npu::rt::StreamRef;

namespace {

// The id of a stream (NULL: the current context's default stream); each
// stream has its own submission and completion queue, with that number.
Error StreamQueueId(const rtStream_t stm, uint32_t *id) {
    std::shared_ptr<npu::rt::Context> ctx;
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stm, &ctx, &ref));
    *id = static_cast<uint32_t>(ref->id());
    return Error::Ok();
}

}  // namespace

rtError_t rtStreamCreate(rtStream_t *stm, int32_t priority) {
    return RunApi("rtStreamCreate", [&] {
        NPU_RT_CHECK(stm != nullptr, "stm is NULL");
        NPU_RT_CHECK(priority >= 0, "priority %d is negative", priority);
        return FromAcl(aclrtCreateStreamWithConfig(stm, static_cast<uint32_t>(priority), 0),
                       "aclrtCreateStreamWithConfig");
    });
}

rtError_t rtStreamDestroy(rtStream_t stm) {
    return RunApi("rtStreamDestroy",
                  [&] { return FromAcl(aclrtDestroyStream(stm), "aclrtDestroyStream"); });
}

rtError_t rtStreamSynchronize(rtStream_t stm) {
    return RunApi("rtStreamSynchronize",
                  [&] { return FromAcl(aclrtSynchronizeStream(stm), "aclrtSynchronizeStream"); });
}

rtError_t rtStreamGetSqid(const rtStream_t stm, uint32_t *sqId) {
    return RunApi("rtStreamGetSqid", [&] {
        NPU_RT_CHECK(sqId != nullptr, "sqId is NULL");
        return StreamQueueId(stm, sqId);
    });
}

rtError_t rtStreamGetCqid(const rtStream_t stm, uint32_t *cqId, uint32_t *logicCqId) {
    return RunApi("rtStreamGetCqid", [&] {
        NPU_RT_CHECK(cqId != nullptr, "cqId is NULL");
        NPU_RT_CHECK(logicCqId != nullptr, "logicCqId is NULL");
        uint32_t id = 0;
        NPU_RETURN_IF_ERROR(StreamQueueId(stm, &id));
        *cqId = id;
        *logicCqId = id;
        return Error::Ok();
    });
}

rtError_t rtGetTaskIdAndStreamID(uint32_t *taskId, uint32_t *streamId) {
    return RunApi("rtGetTaskIdAndStreamID", [&] {
        NPU_RT_CHECK(taskId != nullptr, "taskId is NULL");
        NPU_RT_CHECK(streamId != nullptr, "streamId is NULL");
        *taskId = npu::rt::ThreadLastTaskId();
        *streamId = npu::rt::ThreadLastTaskStreamId();
        return Error::Ok();
    });
}
