// SPDX-License-Identifier: MIT
#include "core/exception_callbacks.h"

#include <algorithm>

#include "base/singleton.h"

namespace npu::rt {

ExceptionCallbacks &ExceptionCallbacks::Get() {
    // Never destroyed: streams may be synchronised from static destructors.
    // None in a forked child: they are the parent's set-up of its devices,
    // which the child makes afresh.
    return base::Singleton<ExceptionCallbacks>::Get();
}

void ExceptionCallbacks::SetModuleCallback(aclrtExceptionInfoCallback callback) {
    std::lock_guard<std::mutex> lock(mu_);
    module_ = callback;
    UpdateAnyLocked();
}

void ExceptionCallbacks::Register(aclrtExceptionInfoCallback callback) {
    std::lock_guard<std::mutex> lock(mu_);
    if (std::find(registered_.begin(), registered_.end(), callback) == registered_.end())
        registered_.push_back(callback);
    UpdateAnyLocked();
}

void ExceptionCallbacks::Unregister(aclrtExceptionInfoCallback callback) {
    std::lock_guard<std::mutex> lock(mu_);
    registered_.erase(std::remove(registered_.begin(), registered_.end(), callback),
                      registered_.end());
    UpdateAnyLocked();
}

void ExceptionCallbacks::Report(const rtExceptionInfo &info) {
    if (!any_.load())
        return;
    std::vector<aclrtExceptionInfoCallback> callbacks;
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (module_ != nullptr)
            callbacks.push_back(module_);
        callbacks.insert(callbacks.end(), registered_.begin(), registered_.end());
    }
    // Unlocked: a callback may register or unregister callbacks. Each gets
    // its own copy, so one that writes through the pointer cannot change
    // what the next one reads.
    for (aclrtExceptionInfoCallback cb : callbacks) {
        rtExceptionInfo copy = info;
        cb(&copy);
    }
}

}  // namespace npu::rt
