// SPDX-License-Identifier: MIT
// HostMemory on top of the pinned pool (core/host_pool.h).
#include "core/host_memory.h"

#include "core/host_pool.h"

namespace npu::rt {

bool LookupHostMemory(const void *ptr, size_t len, HostMemoryInfo *info) {
    return HostPool::Get().Lookup(ptr, len, info);
}

bool HostMemoryPinnedFor(const void *ptr, size_t len, uint32_t phys_id) {
    return HostPool::Get().PinnedFor(ptr, len, phys_id);
}

void *AllocPinnedStaging(size_t size) {
    void *p = nullptr;
    if (!HostPool::Get().Allocate(size ? size : 1, true, &p).ok())
        return nullptr;
    return p;
}

void FreePinnedStaging(void *ptr) {
    if (ptr != nullptr)
        (void)HostPool::Get().Free(ptr, true);
}

}  // namespace npu::rt
