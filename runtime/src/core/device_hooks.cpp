// SPDX-License-Identifier: MIT
#include "core/device_hooks.h"

#include <algorithm>

namespace npu::rt {

DeviceHooks &DeviceHooks::Get() {
    // Never destroyed: devices may be reset from static destructors.
    static auto *hooks = new DeviceHooks;
    return *hooks;
}

Error DeviceHooks::Register(const std::string &name, aclrtDeviceStateCallback callback,
                            void *args) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it =
        std::find_if(hooks_.begin(), hooks_.end(), [&](const Hook &h) { return h.name == name; });
    if (callback == nullptr) {
        if (it != hooks_.end())
            hooks_.erase(it);
    } else {
        if (it != hooks_.end()) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "a device state callback named \"%s\" is already registered "
                                 "(register NULL under that name first to replace it)",
                                 name.c_str());
        }
        hooks_.push_back(Hook{name, callback, args});
    }
    any_.store(!hooks_.empty(), std::memory_order_release);
    return Error::Ok();
}

void DeviceHooks::Notify(int32_t user_id, aclrtDeviceState state) {
    if (!any_.load(std::memory_order_acquire))
        return;
    std::vector<Hook> hooks;
    {
        std::lock_guard<std::mutex> lock(mu_);
        hooks = hooks_;
    }
    // Unlocked: a hook may register or remove hooks, or use the device.
    for (const Hook &hook : hooks)
        hook.callback(user_id, state, hook.args);
}

}  // namespace npu::rt
