// SPDX-License-Identifier: MIT
// aclrtDeviceCanAccessPeer, aclrtDeviceEnablePeerAccess,
// aclrtDeviceDisablePeerAccess and aclrtMemP2PMap.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/copy_plan.h"
#include "core/device_manager.h"
#include "core/device_session.h"
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
    NPU_ACL_CHECK(peerDeviceId != *current, "peerDeviceId %d is the current device", peerDeviceId);
    return Error::Ok();
}

}  // namespace

aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
    return RunApi("aclrtDeviceCanAccessPeer", [&] {
        NPU_ACL_CHECK(deviceId != peerDeviceId, "deviceId and peerDeviceId are both %d", deviceId);
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

// Every device of the emulated host addresses every other's memory in one
// address space, so there is no mapping to make for dstDevId: the range
// and the pair are checked. Copies by dstDevId's streams still follow
// aclrtDeviceEnablePeerAccess, as any peer copy.
aclError aclrtMemP2PMap(void *devPtr, size_t size, int32_t dstDevId, uint64_t flags) {
    return RunApi("aclrtMemP2PMap", [&] {
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL");
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(flags == 0, "flags 0x%llx is reserved and must be 0",
                      static_cast<unsigned long long>(flags));
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(npu::rt::DeviceManager::Get().ToPhysical(dstDevId, &phys));
        npu::rt::Operand op;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(devPtr, size, "devPtr", &op));
        const int32_t owner = op.dev->user_id();
        if (owner == dstDevId)
            return Error::Ok();
        bool can = false;
        NPU_RETURN_IF_ERROR(npu::rt::CanAccessPeer(dstDevId, owner, &can));
        if (!can) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "device %d cannot reach the memory of device %d", dstDevId, owner);
        }
        return Error::Ok();
    });
}
