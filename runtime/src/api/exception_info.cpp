// SPDX-License-Identifier: MIT
// Exception information: the callbacks told about failed device tasks and
// the getters of the aclrtExceptionInfo they receive. When and in which
// thread the callbacks run: core/exception_callbacks.h.
#include <cstdint>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/exception_callbacks.h"

using npu::rt::Error;
using npu::rt::ExceptionCallbacks;
using npu::rt::RunApi;

namespace {

// A getter's field, or 0xFFFFFFFF ("no information") for a NULL info,
// with a message for aclGetRecentErrMsg as the ACL layer logs one.
template <typename Field>
uint32_t Get(const char *api, const aclrtExceptionInfo *info, Field field) {
    if (info != nullptr)
        return field(*info);
    RunApi(api, [] { return Error::Format(ACL_ERROR_INVALID_PARAM, "info is NULL"); });
    return UINT32_MAX;
}

}  // namespace

aclError aclrtSetExceptionInfoCallback(aclrtExceptionInfoCallback callback) {
    return RunApi("aclrtSetExceptionInfoCallback", [&] {
        ExceptionCallbacks::Get().SetModuleCallback(callback);
        return Error::Ok();
    });
}

aclError aclrtExceptionInfoCallbackRegister(aclrtExceptionInfoCallback callback) {
    return RunApi("aclrtExceptionInfoCallbackRegister", [&] {
        // Upstream's ACL layer answers with the runtime's code here.
        NPU_RT_CHECK(callback != nullptr, "callback is NULL");
        ExceptionCallbacks::Get().Register(callback);
        return Error::Ok();
    });
}

aclError aclrtExceptionInfoCallbackUnregister(aclrtExceptionInfoCallback callback) {
    return RunApi("aclrtExceptionInfoCallbackUnregister", [&] {
        NPU_RT_CHECK(callback != nullptr, "callback is NULL");
        ExceptionCallbacks::Get().Unregister(callback);
        return Error::Ok();
    });
}

uint32_t aclrtGetTaskIdFromExceptionInfo(const aclrtExceptionInfo *info) {
    return Get("aclrtGetTaskIdFromExceptionInfo", info,
               [](const aclrtExceptionInfo &i) { return i.task_id; });
}

uint32_t aclrtGetStreamIdFromExceptionInfo(const aclrtExceptionInfo *info) {
    return Get("aclrtGetStreamIdFromExceptionInfo", info,
               [](const aclrtExceptionInfo &i) { return i.stream_id; });
}

uint32_t aclrtGetThreadIdFromExceptionInfo(const aclrtExceptionInfo *info) {
    return Get("aclrtGetThreadIdFromExceptionInfo", info,
               [](const aclrtExceptionInfo &i) { return i.thread_id; });
}

uint32_t aclrtGetDeviceIdFromExceptionInfo(const aclrtExceptionInfo *info) {
    return Get("aclrtGetDeviceIdFromExceptionInfo", info,
               [](const aclrtExceptionInfo &i) { return i.device_id; });
}

uint32_t aclrtGetErrorCodeFromExceptionInfo(const aclrtExceptionInfo *info) {
    return Get("aclrtGetErrorCodeFromExceptionInfo", info,
               [](const aclrtExceptionInfo &i) { return i.error_code; });
}
