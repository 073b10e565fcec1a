// SPDX-License-Identifier: MIT
#include "core/stream_hooks.h"

#include <algorithm>

namespace npu::rt {

StreamHooks &StreamHooks::Get() {
    // Never destroyed: streams may be destroyed from static destructors.
    static auto *hooks = new StreamHooks;
    return *hooks;
}

Error StreamHooks::Register(const std::string &name, aclrtStreamStateCallback callback,
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
                                 "a stream state callback named \"%s\" is already registered "
                                 "(register NULL under that name first to replace it)",
                                 name.c_str());
        }
        hooks_.push_back(Hook{name, callback, args});
    }
    any_.store(!hooks_.empty(), std::memory_order_release);
    return Error::Ok();
}

void StreamHooks::Notify(void *h, aclrtStreamState state) {
    if (!any_.load(std::memory_order_acquire))
        return;
    std::vector<Hook> hooks;
    {
        std::lock_guard<std::mutex> lock(mu_);
        hooks = hooks_;
    }
    // Unlocked: a hook may register or remove hooks, or use the stream.
    for (const Hook &hook : hooks)
        hook.callback(h, state, hook.args);
}

}  // namespace npu::rt
