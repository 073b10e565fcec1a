// SPDX-License-Identifier: MIT
// Streams (spec §8.1 - §8.3, §8.10) and aclrtSynchronizeDevice (§7.7).
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/context.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// The stream a call works on: stream, or the default stream when it is
// NULL. ctx is the caller's current context (may be null).
Error ResolveStream(aclrtStream stream, const std::shared_ptr<Context> &ctx, StreamRef *ref) {
    if (stream != nullptr)
        return npu::rt::AcquireStream(stream, ref);
    if (!ctx) {
        return Error(ACL_ERROR_RT_CONTEXT_NULL,
                     "no current context in this thread (call aclrtSetDevice first)");
    }
    return npu::rt::DefaultStream(*ctx, ref);
}

Error CheckOwnContext(const StreamRef &ref, const std::shared_ptr<Context> &ctx) {
    if (!ctx) {
        return Error(ACL_ERROR_RT_CONTEXT_NULL,
                     "no current context in this thread (call aclrtSetDevice first)");
    }
    if (ref->context() != ctx.get()) {
        return Error::Format(ACL_ERROR_RT_STREAM_CONTEXT,
                             "stream %p belongs to device %d's context, not the current one "
                             "(device %d)",
                             ref->handle(), ref->session().user_id(), ctx->user_device_id());
    }
    return Error::Ok();
}

Error DestroyStream(aclrtStream stream, bool force) {
    NPU_ACL_CHECK(stream != nullptr, "stream is NULL (the default stream cannot be destroyed)");
    std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
    {
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireStream(stream, &ref));
        NPU_RETURN_IF_ERROR(CheckOwnContext(ref, ctx));
    }
    return ctx->streams().Destroy(stream, force);
}

}  // namespace

aclError aclrtCreateStream(aclrtStream *stream) {
    return RunApi("aclrtCreateStream", [&] {
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return ctx->streams().Create(0, stream);
    });
}

aclError aclrtDestroyStream(aclrtStream stream) {
    return RunApi("aclrtDestroyStream", [&] { return DestroyStream(stream, false); });
}

aclError aclrtDestroyStreamForce(aclrtStream stream) {
    return RunApi("aclrtDestroyStreamForce", [&] { return DestroyStream(stream, true); });
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    return RunApi("aclrtSynchronizeStream", [&] {
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, ctx, &ref));
        return ref->Synchronize();
    });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
    return RunApi("aclrtStreamQuery", [&] {
        NPU_ACL_CHECK(status != nullptr, "status is NULL");
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, ctx, &ref));
        *status = ref->Idle() ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
        return Error::Ok();
    });
}

aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode) {
    return RunApi("aclrtSetStreamFailureMode", [&] {
        NPU_ACL_CHECK(mode == ACL_CONTINUE_ON_FAILURE || mode == ACL_STOP_ON_FAILURE,
                      "mode %llu is neither ACL_CONTINUE_ON_FAILURE nor ACL_STOP_ON_FAILURE",
                      static_cast<unsigned long long>(mode));
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, ctx, &ref));
        ref->set_failure_mode(mode);
        return Error::Ok();
    });
}

aclError aclrtSynchronizeDevice(void) {
    return RunApi("aclrtSynchronizeDevice", [&] {
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return ctx->streams().SynchronizeAll();
    });
}

namespace {

// The timeout argument of the *WithTimeout calls in nanoseconds (0: none).
// Upstream rejects < -1 before anything else and 0 after the handle checks.
uint64_t TimeoutNs(int32_t timeout_ms) {
    return timeout_ms == -1 ? 0 : static_cast<uint64_t>(timeout_ms) * 1000000ULL;
}

}  // namespace

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
    return RunApi("aclrtSynchronizeStreamWithTimeout", [&] {
        NPU_RT_CHECK(timeout >= -1, "timeout %d ms: -1 (forever) or more than 0", timeout);
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(ResolveStream(stream, ctx, &ref));
        NPU_RT_CHECK(timeout != 0, "timeout 0 ms: -1 (forever) or more than 0");
        return ref->Synchronize(TimeoutNs(timeout));
    });
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
    return RunApi("aclrtSynchronizeDeviceWithTimeout", [&] {
        NPU_RT_CHECK(timeout >= -1, "timeout %d ms: -1 (forever) or more than 0", timeout);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        NPU_RT_CHECK(timeout != 0, "timeout 0 ms: -1 (forever) or more than 0");
        return ctx->streams().SynchronizeAll(TimeoutNs(timeout));
    });
}
