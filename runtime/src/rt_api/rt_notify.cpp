// SPDX-License-Identifier: MIT
// Notifies: rtNotifyCreate, rtNotifyDestroy, rtNotifyGetAddrOffset.
#include "rt_api/rt_call.h"

using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;

namespace {

// Bytes of one notify's word in the device's notify area.
constexpr uint64_t kNotifyWordBytes = 8;

}  // namespace

rtError_t rtNotifyCreate(int32_t deviceId, rtNotify_t *notify) {
    return RunApi("rtNotifyCreate", [&] {
        NPU_RT_CHECK(notify != nullptr, "notify is NULL");
        int32_t current = -1;
        NPU_RETURN_IF_ERROR(FromAcl(aclrtGetDevice(&current), "aclrtGetDevice"));
        if (deviceId != current) {
            return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID,
                                 "deviceId %d is not the current context's device (%d)", deviceId,
                                 current);
        }
        return FromAcl(aclrtCreateNotify(notify, 0), "aclrtCreateNotify");
    });
}

rtError_t rtNotifyDestroy(rtNotify_t notify) {
    return RunApi("rtNotifyDestroy", [&] {
        NPU_RT_CHECK(notify != nullptr, "notify is NULL");
        return FromAcl(aclrtDestroyNotify(notify), "aclrtDestroyNotify");
    });
}

rtError_t rtNotifyGetAddrOffset(rtNotify_t notify, uint64_t *devAddrOffset) {
    return RunApi("rtNotifyGetAddrOffset", [&] {
        NPU_RT_CHECK(notify != nullptr, "notify is NULL");
        NPU_RT_CHECK(devAddrOffset != nullptr, "devAddrOffset is NULL");
        uint32_t id = 0;
        NPU_RETURN_IF_ERROR(FromAcl(aclrtGetNotifyId(notify, &id), "aclrtGetNotifyId"));
        *devAddrOffset = static_cast<uint64_t>(id) * kNotifyWordBytes;
        return Error::Ok();
    });
}
