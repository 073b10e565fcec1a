// SPDX-License-Identifier: MIT
// Contexts: aclrtCreateContext, aclrtDestroyContext, aclrtSetCurrentContext,
// aclrtGetCurrentContext, aclrtCtxGetCurrentDefaultStream,
// aclrtGetPrimaryCtxState (core/context.h says what a context is).
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::DeviceManager;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::ThreadState;

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
    return RunApi("aclrtCreateContext", [&] {
        NPU_ACL_CHECK(context != nullptr, "context is NULL");
        return DeviceManager::Get().CreateContext(deviceId, context);
    });
}

aclError aclrtDestroyContext(aclrtContext context) {
    return RunApi("aclrtDestroyContext", [&] {
        NPU_ACL_CHECK(context != nullptr, "context is NULL");
        return DeviceManager::Get().DestroyContext(context);
    });
}

aclError aclrtSetCurrentContext(aclrtContext context) {
    return RunApi("aclrtSetCurrentContext", [&] {
        NPU_ACL_CHECK(context != nullptr, "context is NULL");
        std::shared_ptr<Context> ctx = DeviceManager::Get().FindContext(context);
        NPU_RT_CHECK(ctx != nullptr,
                     "context %p is not a live context (destroyed, its device reset, or not a "
                     "context)",
                     context);
        ThreadState::SetCurrentContext(ctx);
        return Error::Ok();
    });
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
    return RunApi("aclrtGetCurrentContext", [&] {
        NPU_ACL_CHECK(context != nullptr, "context is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        *context = ctx->handle();
        return Error::Ok();
    });
}

aclError aclrtCtxGetCurrentDefaultStream(aclrtStream *stream) {
    return RunApi("aclrtCtxGetCurrentDefaultStream", [&] {
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        Error err;
        npu::rt::Stream *s = ctx->streams().Default(&err);
        NPU_RETURN_IF_ERROR(err);
        *stream = s->handle();
        return Error::Ok();
    });
}

aclError aclrtGetPrimaryCtxState(int32_t deviceId, uint32_t *flags, int32_t *active) {
    return RunApi("aclrtGetPrimaryCtxState", [&] {
        NPU_ACL_CHECK(active != nullptr, "active is NULL");
        NPU_ACL_CHECK(flags == nullptr, "flags is reserved and must be NULL");
        bool on = false;
        NPU_RETURN_IF_ERROR(DeviceManager::Get().PrimaryActive(deviceId, &on));
        *active = on ? 1 : 0;
        return Error::Ok();
    });
}
