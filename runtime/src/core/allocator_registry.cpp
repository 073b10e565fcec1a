// SPDX-License-Identifier: MIT
#include "core/allocator_registry.h"

#include <new>

#include "base/singleton.h"

namespace npu::rt {

AllocatorRegistry &AllocatorRegistry::Get() {
    // Never destroyed: the C API may be called from static destructors.
    // Empty in a forked child: the parent's descriptors are unknown there
    // and its registrations name the parent's streams.
    return base::Singleton<AllocatorRegistry>::Get();
}

aclrtAllocatorDesc AllocatorRegistry::CreateDesc() {
    std::unique_ptr<AllocatorCallbacks> d(new (std::nothrow) AllocatorCallbacks());
    if (!d)
        return nullptr;
    aclrtAllocatorDesc handle = d.get();
    std::lock_guard<std::mutex> lock(mu_);
    descs_.emplace(handle, std::move(d));
    return handle;
}

bool AllocatorRegistry::DestroyDesc(aclrtAllocatorDesc desc) {
    std::unique_ptr<AllocatorCallbacks> doomed;  // freed after the lock is released
    std::lock_guard<std::mutex> lock(mu_);
    auto it = descs_.find(desc);
    if (it == descs_.end())
        return false;
    doomed = std::move(it->second);
    descs_.erase(it);
    return true;
}

bool AllocatorRegistry::Lookup(void *stream, aclrtAllocatorDesc *desc,
                               AllocatorCallbacks *callbacks) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_stream_.find(stream);
    if (it == by_stream_.end())
        return false;
    *desc = it->second.desc;
    *callbacks = it->second.callbacks;
    return true;
}

void AllocatorRegistry::Unregister(void *stream) {
    std::lock_guard<std::mutex> lock(mu_);
    by_stream_.erase(stream);
}

}  // namespace npu::rt
