// SPDX-License-Identifier: MIT
// Devices and their ids: rtGetDeviceCount, rtSetDevice, rtGetDevice,
// rtDeviceReset, rtGetLogicDevIdByUserDevId, rtGetUserDevIdByLogicDevId,
// rtGetDevicePhyIdByIndex, rtDeviceGetBareTgid.
#include <climits>

#include "rt_api/rt_call.h"

using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;

rtError_t rtGetDeviceCount(int32_t *cnt) {
    return RunApi("rtGetDeviceCount", [&] {
        NPU_RT_CHECK(cnt != nullptr, "cnt is NULL");
        uint32_t n = 0;
        NPU_RETURN_IF_ERROR(FromAcl(aclrtGetDeviceCount(&n), "aclrtGetDeviceCount"));
        *cnt = static_cast<int32_t>(n);
        return Error::Ok();
    });
}

rtError_t rtSetDevice(int32_t devId) {
    return RunApi("rtSetDevice", [&] { return FromAcl(aclrtSetDevice(devId), "aclrtSetDevice"); });
}

rtError_t rtGetDevice(int32_t *devId) {
    return RunApi("rtGetDevice", [&] {
        NPU_RT_CHECK(devId != nullptr, "devId is NULL");
        return FromAcl(aclrtGetDevice(devId), "aclrtGetDevice");
    });
}

rtError_t rtDeviceReset(int32_t devId) {
    return RunApi("rtDeviceReset",
                  [&] { return FromAcl(aclrtResetDevice(devId), "aclrtResetDevice"); });
}

rtError_t rtGetLogicDevIdByUserDevId(const int32_t userDevId, int32_t *const logicDevId) {
    return RunApi("rtGetLogicDevIdByUserDevId", [&] {
        NPU_RT_CHECK(logicDevId != nullptr, "logicDevId is NULL");
        return FromAcl(aclrtGetLogicDevIdByUserDevId(userDevId, logicDevId),
                       "aclrtGetLogicDevIdByUserDevId");
    });
}

rtError_t rtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevId) {
    return RunApi("rtGetUserDevIdByLogicDevId", [&] {
        NPU_RT_CHECK(userDevId != nullptr, "userDevId is NULL");
        return FromAcl(aclrtGetUserDevIdByLogicDevId(logicDevId, userDevId),
                       "aclrtGetUserDevIdByLogicDevId");
    });
}

rtError_t rtGetDevicePhyIdByIndex(uint32_t devIndex, uint32_t *phyId) {
    return RunApi("rtGetDevicePhyIdByIndex", [&] {
        NPU_RT_CHECK(phyId != nullptr, "phyId is NULL");
        if (devIndex > static_cast<uint32_t>(INT32_MAX)) {
            return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "devIndex %u is not a device id",
                                 devIndex);
        }
        int32_t phys = -1;
        NPU_RETURN_IF_ERROR(
            FromAcl(aclrtGetPhyDevIdByLogicDevId(static_cast<int32_t>(devIndex), &phys),
                    "aclrtGetPhyDevIdByLogicDevId"));
        *phyId = static_cast<uint32_t>(phys);
        return Error::Ok();
    });
}

rtError_t rtDeviceGetBareTgid(uint32_t *pid) {
    return RunApi("rtDeviceGetBareTgid", [&] {
        NPU_RT_CHECK(pid != nullptr, "pid is NULL");
        int32_t p = 0;
        NPU_RETURN_IF_ERROR(FromAcl(aclrtDeviceGetBareTgid(&p), "aclrtDeviceGetBareTgid"));
        *pid = static_cast<uint32_t>(p);
        return Error::Ok();
    });
}
