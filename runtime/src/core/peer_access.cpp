// SPDX-License-Identifier: MIT
#include "core/peer_access.h"

#include <cerrno>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "base/singleton.h"
#include "core/device_manager.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

using Pair = std::pair<int32_t, int32_t>;  // (user device, peer user device)

// A driver link between two open sessions; stale once either is gone (the
// driver dropped it when the file closed).
struct Link {
    std::weak_ptr<DeviceSession> dev;
    std::weak_ptr<DeviceSession> peer;
};

struct PeerState {
    std::mutex mu;  // Protects: enabled, links
    // What aclrtDeviceEnablePeerAccess enabled, and the driver links made
    // for it.
    std::set<Pair> enabled;
    std::map<Pair, Link> links;
};

// Never destroyed, like DeviceManager; empty in a forked child.
PeerState &State() {
    return base::Singleton<PeerState>::Get();
}

bool LinkLive(const Link &l, const std::shared_ptr<DeviceSession> &dev,
              const std::shared_ptr<DeviceSession> &peer) {
    return l.dev.lock() == dev && l.peer.lock() == peer;
}

// Caller holds State().mu.
Error EnsureLinkLocked(PeerState &st, int32_t user_dev, int32_t peer_user_dev,
                       const std::shared_ptr<DeviceSession> &dev,
                       const std::shared_ptr<DeviceSession> &peer) {
    Pair key(user_dev, peer_user_dev);
    auto it = st.links.find(key);
    if (it != st.links.end() && LinkLive(it->second, dev, peer))
        return Error::Ok();
    int err = npuHalPeerEnable(dev->hal(), peer->hal());
    if (err != 0 && err != -EEXIST) {
        return Error::FromHal(err, "the driver refused peer access from device %d to device %d",
                              user_dev, peer_user_dev);
    }
    st.links[key] = Link{dev, peer};
    return Error::Ok();
}

Error CheckVisible(int32_t user_dev) {
    uint32_t phys = 0;
    return DeviceManager::Get().ToPhysical(user_dev, &phys);
}

}  // namespace

bool PeerAccessEnabled(int32_t user_dev, int32_t peer_user_dev) {
    PeerState &st = State();
    std::lock_guard<std::mutex> lock(st.mu);
    return st.enabled.count(Pair(user_dev, peer_user_dev)) != 0;
}

Error EnsurePeerLink(int32_t user_dev, int32_t peer_user_dev) {
    std::shared_ptr<DeviceSession> dev = DeviceManager::Get().SessionOf(user_dev);
    std::shared_ptr<DeviceSession> peer = DeviceManager::Get().SessionOf(peer_user_dev);
    if (!dev || !peer) {
        return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID,
                             "peer link from device %d to device %d: device %d is not set",
                             user_dev, peer_user_dev, !dev ? user_dev : peer_user_dev);
    }
    if (dev == peer) {
        return Error::Format(ACL_ERROR_INVALID_PARAM, "device %d cannot be its own peer", user_dev);
    }
    PeerState &st = State();
    std::lock_guard<std::mutex> lock(st.mu);
    return EnsureLinkLocked(st, user_dev, peer_user_dev, dev, peer);
}

Error EnablePeerAccess(int32_t user_dev, int32_t peer_user_dev) {
    NPU_RETURN_IF_ERROR(CheckVisible(user_dev));
    NPU_RETURN_IF_ERROR(CheckVisible(peer_user_dev));
    std::shared_ptr<DeviceSession> dev = DeviceManager::Get().SessionOf(user_dev);
    std::shared_ptr<DeviceSession> peer = DeviceManager::Get().SessionOf(peer_user_dev);
    PeerState &st = State();
    std::lock_guard<std::mutex> lock(st.mu);
    // The link now when both devices are open, else when a copy needs it.
    if (dev && peer)
        NPU_RETURN_IF_ERROR(EnsureLinkLocked(st, user_dev, peer_user_dev, dev, peer));
    st.enabled.insert(Pair(user_dev, peer_user_dev));
    return Error::Ok();
}

Error DisablePeerAccess(int32_t user_dev, int32_t peer_user_dev) {
    NPU_RETURN_IF_ERROR(CheckVisible(user_dev));
    NPU_RETURN_IF_ERROR(CheckVisible(peer_user_dev));
    PeerState &st = State();
    std::lock_guard<std::mutex> lock(st.mu);
    Pair key(user_dev, peer_user_dev);
    st.enabled.erase(key);
    auto it = st.links.find(key);
    if (it == st.links.end())
        return Error::Ok();
    std::shared_ptr<DeviceSession> dev = it->second.dev.lock();
    std::shared_ptr<DeviceSession> peer = it->second.peer.lock();
    st.links.erase(it);
    if (dev && peer) {
        int err = npuHalPeerDisable(dev->hal(), peer->hal());
        // -ENOENT: the peer's file closed and took the link with it.
        if (err != 0 && err != -ENOENT) {
            return Error::FromHal(err, "cannot drop peer access from device %d to device %d",
                                  user_dev, peer_user_dev);
        }
    }
    return Error::Ok();
}

Error CanAccessPeer(int32_t user_dev, int32_t peer_user_dev, bool *can) {
    NPU_RETURN_IF_ERROR(CheckVisible(user_dev));
    NPU_RETURN_IF_ERROR(CheckVisible(peer_user_dev));
    *can = false;
    if (user_dev == peer_user_dev)
        return Error::Ok();
    std::shared_ptr<DeviceSession> dev = DeviceManager::Get().SessionOf(user_dev);
    std::shared_ptr<DeviceSession> peer = DeviceManager::Get().SessionOf(peer_user_dev);
    if (dev && peer) {
        *can = npuHalPeerCapable(dev->hal(), peer->hal()) != 0;
        return Error::Ok();
    }
    // The devices of one backend are one driver instance: any two of them
    // reach each other.
    *can = true;
    return Error::Ok();
}

}  // namespace npu::rt
