// SPDX-License-Identifier: MIT
// Contexts: aclrtCreateContext, aclrtDestroyContext, aclrtSetCurrentContext,
// aclrtGetCurrentContext (core/context.h says what a context is).
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
