// SPDX-License-Identifier: MIT
// aclrtSetDevice, aclrtResetDevice, aclrtResetDeviceForce, aclrtGetDevice,
// aclrtGetDeviceCount, aclrtRegDeviceStateCallback, aclrtDeviceTaskAbort and
// aclrtSetDeviceTaskAbortCallback.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/context.h"
#include "core/device_manager.h"
#include "core/state_hooks.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::DeviceHooks;
using npu::rt::DeviceManager;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::TaskAbortHooks;
using npu::rt::ThreadState;

namespace {

// Runs call between the PRE and POST hooks of aclrtRegDeviceStateCallback
// (core/state_hooks.h): none for an invalid id, no POST after a failure.
template <typename Call>
Error WithDeviceHooks(int32_t deviceId, aclrtDeviceState pre, aclrtDeviceState post, Call call) {
    uint32_t phys = 0;
    const bool valid = DeviceManager::Get().ToPhysical(deviceId, &phys).ok();
    if (valid)
        DeviceHooks::Get().Notify(deviceId, pre);
    NPU_RETURN_IF_ERROR(call());
    if (valid)
        DeviceHooks::Get().Notify(deviceId, post);
    return Error::Ok();
}

}  // namespace

aclError aclrtSetDevice(int32_t deviceId) {
    return RunApi("aclrtSetDevice", [&] {
        return WithDeviceHooks(deviceId, ACL_RT_DEVICE_STATE_SET_PRE, ACL_RT_DEVICE_STATE_SET_POST,
                               [&] { return DeviceManager::Get().SetDevice(deviceId); });
    });
}

aclError aclrtResetDevice(int32_t deviceId) {
    return RunApi("aclrtResetDevice", [&] {
        return WithDeviceHooks(deviceId, ACL_RT_DEVICE_STATE_RESET_PRE,
                               ACL_RT_DEVICE_STATE_RESET_POST,
                               [&] { return DeviceManager::Get().ResetDevice(deviceId); });
    });
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
    return RunApi("aclrtResetDeviceForce", [&] {
        return WithDeviceHooks(deviceId, ACL_RT_DEVICE_STATE_RESET_PRE,
                               ACL_RT_DEVICE_STATE_RESET_POST,
                               [&] { return DeviceManager::Get().ResetDeviceForce(deviceId); });
    });
}

aclError aclrtRegDeviceStateCallback(const char *regName, aclrtDeviceStateCallback callback,
                                     void *args) {
    return RunApi("aclrtRegDeviceStateCallback", [&] {
        NPU_ACL_CHECK(regName != nullptr, "regName is NULL");
        return DeviceHooks::Get().Register(regName, callback, args);
    });
}

aclError aclrtSetDeviceTaskAbortCallback(const char *regName, aclrtDeviceTaskAbortCallback callback,
                                         void *args) {
    return RunApi("aclrtSetDeviceTaskAbortCallback", [&] {
        NPU_ACL_CHECK(regName != nullptr, "regName is NULL");
        return TaskAbortHooks::Get().Register(regName, callback, args);
    });
}

// Every stream of every context of the device in this process, as
// aclrtStreamAbort each: the tasks queued and not started are dropped,
// and the call returns once the engines have finished the ones running
// (a copy in flight completes; the emulated engines cannot cut one short,
// so timeout is only passed on to the callbacks). A device this process
// never opened has nothing to abort.
aclError aclrtDeviceTaskAbort(int32_t deviceId, uint32_t timeout) {
    return RunApi("aclrtDeviceTaskAbort", [&] {
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(DeviceManager::Get().ToPhysical(deviceId, &phys));
        TaskAbortHooks::Get().Notify(deviceId, ACL_RT_DEVICE_TASK_ABORT_PRE, timeout);
        Error first;
        for (const std::shared_ptr<npu::rt::Context> &ctx :
             DeviceManager::Get().ContextsOf(deviceId)) {
            Error e = ctx->streams().AbortAll();
            if (!e.ok() && first.ok())
                first = e;
        }
        NPU_RETURN_IF_ERROR(first);
        TaskAbortHooks::Get().Notify(deviceId, ACL_RT_DEVICE_TASK_ABORT_POST, timeout);
        return Error::Ok();
    });
}

aclError aclrtGetDevice(int32_t *deviceId) {
    return RunApi("aclrtGetDevice", [&] {
        NPU_ACL_CHECK(deviceId != nullptr, "deviceId is NULL");
        std::shared_ptr<npu::rt::Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        *deviceId = ctx->user_device_id();
        return Error::Ok();
    });
}

aclError aclrtGetDeviceCount(uint32_t *count) {
    return RunApi("aclrtGetDeviceCount", [&] {
        NPU_ACL_CHECK(count != nullptr, "count is NULL");
        return DeviceManager::Get().DeviceCount(count);
    });
}
