// SPDX-License-Identifier: MIT
// aclrtDeviceCanAccessPeer, aclrtDeviceEnablePeerAccess and
// aclrtDeviceDisablePeerAccess.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/peer_access.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::ThreadState;

namespace {

// Steps 2-4 of the enable/disable check order: a current device, a peer
// other than it, a visible peer.
Error CheckPeerOfCurrent(int32_t peerDeviceId, int32_t *current) {
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    *current = ctx->user_device_id();
    NPU_ACL_CHECK(peerDeviceId != *current, "peerDeviceId %d is the current device",
                  peerDeviceId);
    return Error::Ok();
}

}  // namespace

aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
    return RunApi("aclrtDeviceCanAccessPeer", [&] {
        NPU_ACL_CHECK(deviceId != peerDeviceId, "deviceId and peerDeviceId are both %d",
                      deviceId);
        bool can = false;
        // Invalid ids: ACL_ERROR_RT_INVALID_DEVICEID, before the NULL check.
        NPU_RETURN_IF_ERROR(npu::rt::CanAccessPeer(deviceId, peerDeviceId, &can));
        NPU_RT_CHECK(canAccessPeer != nullptr, "canAccessPeer is NULL");
        *canAccessPeer = can ? 1 : 0;
        return Error::Ok();
    });
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
    return RunApi("aclrtDeviceEnablePeerAccess", [&] {
        if (flags != 0) {
            return Error::Format(ACL_ERROR_FEATURE_UNSUPPORTED, "flags 0x%x must be 0", flags);
        }
        int32_t current = -1;
        NPU_RETURN_IF_ERROR(CheckPeerOfCurrent(peerDeviceId, &current));
        return npu::rt::EnablePeerAccess(current, peerDeviceId);
    });
}

aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId) {
    return RunApi("aclrtDeviceDisablePeerAccess", [&] {
        int32_t current = -1;
        NPU_RETURN_IF_ERROR(CheckPeerOfCurrent(peerDeviceId, &current));
        return npu::rt::DisablePeerAccess(current, peerDeviceId);
    });
}
