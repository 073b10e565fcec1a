// SPDX-License-Identifier: MIT
// Peer access between devices. aclrtDeviceEnablePeerAccess
// records, device-wide and in one direction, that user device dev may reach
// device peer; the driver link (npuHalPeerEnable: the rings of dev's driver
// context may name device VAs of peer's context) is made lazily, because
// either device may be reset and set again after the enable: a link belongs
// to one pair of open device sessions and dies with either of them. All
// functions are thread safe.
#ifndef NPU_RT_CORE_PEER_ACCESS_H
#define NPU_RT_CORE_PEER_ACCESS_H

#include <cstdint>

#include "core/error.h"

namespace npu::rt {

// Whether aclrtDeviceEnablePeerAccess enabled user device user_dev to reach
// peer_user_dev (and it has not been disabled since). No driver call.
bool PeerAccessEnabled(int32_t user_dev, int32_t peer_user_dev);

// Makes sure the driver link from user_dev's session to peer_user_dev's
// session exists, so a descriptor on a ring of user_dev may name a device VA
// of peer_user_dev. Both devices must be set (open). Does not look at
// PeerAccessEnabled: the caller decides whether the copy is allowed.
// ACL_ERROR_RT_INVALID_DEVICEID when either device is not open, the HAL's
// error when the driver refuses the link.
Error EnsurePeerLink(int32_t user_dev, int32_t peer_user_dev);

// The API's state changes (the argument checks are the caller's):
// EnablePeerAccess records the direction and makes the link now when both
// devices are open; DisablePeerAccess forgets it and drops a live link.
// ACL_ERROR_RT_INVALID_DEVICEID when a device id is not visible.
Error EnablePeerAccess(int32_t user_dev, int32_t peer_user_dev);
Error DisablePeerAccess(int32_t user_dev, int32_t peer_user_dev);

// Whether the two user devices can reach each other (npuHalPeerCapable).
Error CanAccessPeer(int32_t user_dev, int32_t peer_user_dev, bool *can);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_PEER_ACCESS_H
