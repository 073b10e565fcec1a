// SPDX-License-Identifier: MIT
// AllocatorRegistry: the external allocators of acl_rt_allocator.h. It owns
// the descriptors that aclrtAllocatorCreateDesc hands out and the
// per-stream registrations of aclrtAllocatorRegister. The runtime only
// stores them: nothing in it calls the callbacks. Thread safe.
#ifndef NPU_RT_CORE_ALLOCATOR_REGISTRY_H
#define NPU_RT_CORE_ALLOCATOR_REGISTRY_H

#include <memory>
#include <mutex>
#include <unordered_map>

#include "acl/acl_rt_allocator.h"

namespace npu::rt {

// What a descriptor holds; a registration keeps its own copy.
struct AllocatorCallbacks {
    aclrtAllocator allocator = nullptr;
    aclrtAllocatorAllocFunc alloc = nullptr;
    aclrtAllocatorFreeFunc free = nullptr;
    aclrtAllocatorAllocAdviseFunc alloc_advise = nullptr;  // optional
    aclrtAllocatorGetAddrFromBlockFunc get_addr = nullptr;
};

class AllocatorRegistry {
  public:
    static AllocatorRegistry &Get();

    // A new, zeroed descriptor; nullptr when out of memory. Its handle is
    // the address of the runtime's record.
    aclrtAllocatorDesc CreateDesc();
    // Frees desc. False when desc is not a live descriptor of this
    // registry (never created, or destroyed already).
    bool DestroyDesc(aclrtAllocatorDesc desc);
    // Runs update on the contents of desc under the lock. False when desc
    // is not live.
    template <typename Update>
    bool UpdateDesc(aclrtAllocatorDesc desc, Update &&update) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = descs_.find(desc);
        if (it == descs_.end())
            return false;
        update(*it->second);
        return true;
    }

    // Registers a copy of desc's contents for stream, replacing any earlier
    // registration of stream, if check(contents) returns true; the check
    // and the copy happen under one lock, so a concurrent Set* cannot slip
    // in between. False when desc is not live.
    template <typename Check>
    bool Register(void *stream, aclrtAllocatorDesc desc, Check &&check) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = descs_.find(desc);
        if (it == descs_.end())
            return false;
        if (check(*it->second))
            by_stream_[stream] = Registration{desc, *it->second};
        return true;
    }

    // The registration of stream: false when there is none.
    bool Lookup(void *stream, aclrtAllocatorDesc *desc, AllocatorCallbacks *callbacks) const;
    // Removes the registration of stream, if any.
    void Unregister(void *stream);

  private:
    struct Registration {
        aclrtAllocatorDesc desc = nullptr;  // as registered; may be destroyed since
        AllocatorCallbacks callbacks;
    };

    // Lookups are O(1) hash lookups.
    mutable std::mutex mu_;  // Protects: descs_, by_stream_
    std::unordered_map<aclrtAllocatorDesc, std::unique_ptr<AllocatorCallbacks>> descs_;
    std::unordered_map<void *, Registration> by_stream_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_ALLOCATOR_REGISTRY_H
