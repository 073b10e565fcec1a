// Placeholder until the pinned pool lands: nothing is pinned, so every host
// range takes the synchronous path, and staging is plain heap memory.
#include "core/host_memory.h"

#include <cstdlib>

namespace npu::rt {

bool LookupHostMemory(const void *, size_t, HostMemoryInfo *) { return false; }

bool HostMemoryPinnedFor(const void *, size_t, uint32_t) { return false; }

void *AllocPinnedStaging(size_t size) { return std::malloc(size ? size : 1); }

void FreePinnedStaging(void *ptr) { std::free(ptr); }

}  // namespace npu::rt
