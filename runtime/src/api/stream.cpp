// SPDX-License-Identifier: MIT
// Streams and aclrtSynchronizeDevice (docs/ and the README name the
// CANN behaviour they follow).
#include <chrono>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/device_manager.h"
#include "core/context.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::DeviceManager;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

Error CheckOwnContext(const StreamRef &ref, const std::shared_ptr<Context> &ctx) {
    if (!ctx)
        return npu::rt::NoContextError();
    return npu::rt::CheckStreamContext(ref, *ctx);
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
        return ctx->streams().Create(0, 0, stream);
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
        NPU_RETURN_IF_ERROR(npu::rt::ResolveStream(stream, ctx, &ref));
        if (!ref->host_executed())
            return Error::Ok();  // its work is the device's (ACL_STREAM_PERSISTENT etc.)
        return ref->Synchronize();
    });
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
    return RunApi("aclrtStreamQuery", [&] {
        NPU_ACL_CHECK(status != nullptr, "status is NULL");
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::ResolveStream(stream, ctx, &ref));
        *status = !ref->host_executed() || ref->Idle() ? ACL_STREAM_STATUS_COMPLETE
                                                       : ACL_STREAM_STATUS_NOT_READY;
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
        NPU_RETURN_IF_ERROR(npu::rt::ResolveStream(stream, ctx, &ref));
        ref->set_failure_mode(mode);
        return Error::Ok();
    });
}

namespace {

// aclrtSynchronizeDevice[WithTimeout]: the streams of every context of the
// current context's device. timeout_ns 0: no limit; else the limit for all.
Error SynchronizeDevice(const Context &current, uint64_t timeout_ns) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(timeout_ns);
    Error first;
    for (const auto &ctx : DeviceManager::Get().ContextsOf(current.user_device_id())) {
        uint64_t left = 0;
        if (timeout_ns != 0) {
            const auto now = std::chrono::steady_clock::now();
            // Past the deadline: one more look, then the timeout.
            left = now < deadline ? static_cast<uint64_t>((deadline - now).count()) : 1;
        }
        Error e = ctx->streams().SynchronizeAll(left);
        if (e.code() == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT)
            return e;
        if (!e.ok() && first.ok())
            first = e;
    }
    return first;
}

// The timeout argument of the *WithTimeout calls in nanoseconds (0: none).
// Upstream rejects < -1 before anything else and 0 after the handle checks.
uint64_t TimeoutNs(int32_t timeout_ms) {
    return timeout_ms == -1 ? 0 : static_cast<uint64_t>(timeout_ms) * 1000000ULL;
}

}  // namespace

aclError aclrtSynchronizeDevice(void) {
    return RunApi("aclrtSynchronizeDevice", [&] {
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return SynchronizeDevice(*ctx, 0);
    });
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
    return RunApi("aclrtSynchronizeStreamWithTimeout", [&] {
        NPU_RT_CHECK(timeout >= -1, "timeout %d ms: -1 (forever) or more than 0", timeout);
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::ResolveStream(stream, ctx, &ref));
        NPU_RT_CHECK(timeout != 0, "timeout 0 ms: -1 (forever) or more than 0");
        if (!ref->host_executed())
            return Error::Ok();
        return ref->Synchronize(TimeoutNs(timeout));
    });
}

aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout) {
    return RunApi("aclrtSynchronizeDeviceWithTimeout", [&] {
        NPU_RT_CHECK(timeout >= -1, "timeout %d ms: -1 (forever) or more than 0", timeout);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        NPU_RT_CHECK(timeout != 0, "timeout 0 ms: -1 (forever) or more than 0");
        return SynchronizeDevice(*ctx, TimeoutNs(timeout));
    });
}
