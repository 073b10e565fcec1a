// SPDX-License-Identifier: MIT
// ManagedMemory: the process's managed (unified) memory, from
// aclrtMemAllocManaged. The emulated device shares one copy of the bytes
// with the host: each allocation is pinned pool memory (core/host_pool.h),
// a memfd mapped in this process and registered with every open device, so
// the CPU and the engines read and write the same pages and nothing ever
// migrates. This registry only remembers which pool allocations are managed
// (aclrtPointerGetAttributes reports them as MANAGED; aclrtFree, not
// aclrtFreeHost, frees them). Thread safe.
#ifndef NPU_RT_CORE_MANAGED_MEMORY_H
#define NPU_RT_CORE_MANAGED_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "core/error.h"

namespace npu::rt {

struct ManagedRange {
    uintptr_t base = 0;
    size_t size = 0;           // rounded up to ManagedMemory::kGranularity
    int32_t user_device = -1;  // the current device when it was allocated
};

class ManagedMemory {
  public:
    static constexpr size_t kGranularity = 2u << 20;
    // The documented limit of managed memory per process.
    static constexpr uint64_t kProcessLimit = 3ULL << 40;

    static ManagedMemory &Get();

    // size (> 0) rounded up to kGranularity, for user_device. Past the
    // process limit or when the pinned pool cannot grow:
    // ACL_ERROR_RT_MEMORY_ALLOCATION.
    Error Allocate(int32_t user_device, uint64_t size, void **out);
    // Frees the managed allocation based at ptr. ACL_ERROR_RT_PARAM_INVALID
    // for a pointer inside one that is not its base.
    Error Free(void *ptr);
    // The managed allocation containing [ptr, ptr + len), if any (len 0:
    // just ptr). O(log n) in the number of allocations.
    bool Lookup(const void *ptr, size_t len, ManagedRange *out) const;
    // Bytes of managed memory allocated now.
    uint64_t bytes() const;

  private:
    ManagedMemory() = default;

    // Protects: by_base_, bytes_.
    mutable std::mutex mu_;
    std::map<uintptr_t, ManagedRange> by_base_;
    uint64_t bytes_ = 0;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MANAGED_MEMORY_H
