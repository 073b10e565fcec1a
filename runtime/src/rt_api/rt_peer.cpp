// SPDX-License-Identifier: MIT
// Peer access between two given devices: rtEnableP2P, rtDisableP2P,
// rtGetP2PStatus, rtDeviceCanAccessPeer.
#include <climits>

#include "core/peer_access.h"
#include "rt_api/rt_call.h"

using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;

namespace {

// The user ids of devIdDes (a logical id) and of the device whose physical
// id is phyIdSrc; they must differ.
Error Pair(uint32_t devIdDes, uint32_t phyIdSrc, int32_t *des, int32_t *src) {
    if (devIdDes > static_cast<uint32_t>(INT32_MAX) ||
        phyIdSrc > static_cast<uint32_t>(INT32_MAX)) {
        return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "device ids %u and %u are not ids",
                             devIdDes, phyIdSrc);
    }
    NPU_RETURN_IF_ERROR(FromAcl(aclrtGetUserDevIdByLogicDevId(static_cast<int32_t>(devIdDes), des),
                                "aclrtGetUserDevIdByLogicDevId"));
    NPU_RETURN_IF_ERROR(FromAcl(aclrtGetUserDevIdByPhyDevId(static_cast<int32_t>(phyIdSrc), src),
                                "aclrtGetUserDevIdByPhyDevId"));
    NPU_RT_CHECK(*des != *src, "devIdDes %u and phyIdSrc %u are the same device", devIdDes,
                 phyIdSrc);
    return Error::Ok();
}

}  // namespace

rtError_t rtEnableP2P(uint32_t devIdDes, uint32_t phyIdSrc, uint32_t flag) {
    return RunApi("rtEnableP2P", [&] {
        NPU_RT_CHECK(flag == 0, "flag 0x%x must be 0", flag);
        int32_t des = -1;
        int32_t src = -1;
        NPU_RETURN_IF_ERROR(Pair(devIdDes, phyIdSrc, &des, &src));
        return npu::rt::EnablePeerAccess(des, src);
    });
}

rtError_t rtDisableP2P(uint32_t devIdDes, uint32_t phyIdSrc) {
    return RunApi("rtDisableP2P", [&] {
        int32_t des = -1;
        int32_t src = -1;
        NPU_RETURN_IF_ERROR(Pair(devIdDes, phyIdSrc, &des, &src));
        return npu::rt::DisablePeerAccess(des, src);
    });
}

rtError_t rtGetP2PStatus(uint32_t devIdDes, uint32_t phyIdSrc, uint32_t *status) {
    return RunApi("rtGetP2PStatus", [&] {
        NPU_RT_CHECK(status != nullptr, "status is NULL");
        int32_t des = -1;
        int32_t src = -1;
        NPU_RETURN_IF_ERROR(Pair(devIdDes, phyIdSrc, &des, &src));
        *status = npu::rt::PeerAccessEnabled(des, src) ? 1 : 0;
        return Error::Ok();
    });
}

rtError_t rtDeviceCanAccessPeer(int32_t *canAccessPeer, uint32_t devId, uint32_t peerDevice) {
    return RunApi("rtDeviceCanAccessPeer", [&] {
        NPU_RT_CHECK(canAccessPeer != nullptr, "canAccessPeer is NULL");
        if (devId > static_cast<uint32_t>(INT32_MAX) ||
            peerDevice > static_cast<uint32_t>(INT32_MAX)) {
            return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "device ids %u and %u are not ids",
                                 devId, peerDevice);
        }
        return FromAcl(aclrtDeviceCanAccessPeer(canAccessPeer, static_cast<int32_t>(devId),
                                                static_cast<int32_t>(peerDevice)),
                       "aclrtDeviceCanAccessPeer");
    });
}
