// SPDX-License-Identifier: MIT
// aclrtSetDevice, aclrtResetDevice, aclrtResetDeviceForce, aclrtGetDevice,
// aclrtGetDeviceCount (spec §6.1, §7.4 - §7.7).
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/thread_state.h"

using npu::rt::DeviceManager;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::ThreadState;

aclError aclrtSetDevice(int32_t deviceId) {
    return RunApi("aclrtSetDevice", [&] { return DeviceManager::Get().SetDevice(deviceId); });
}

aclError aclrtResetDevice(int32_t deviceId) {
    return RunApi("aclrtResetDevice", [&] { return DeviceManager::Get().ResetDevice(deviceId); });
}

aclError aclrtResetDeviceForce(int32_t deviceId) {
    return RunApi("aclrtResetDeviceForce",
                  [&] { return DeviceManager::Get().ResetDeviceForce(deviceId); });
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
