// SPDX-License-Identifier: MIT
// ManagedMemory: the process's managed (unified) memory, from
// aclrtMemAllocManaged. The emulated device shares one copy of the bytes
// with the host: each allocation is pinned pool memory (core/host_pool.h),
// a memfd mapped in this process and registered with every open device, so
// the CPU and the engines read and write the same pages and nothing ever
// migrates. This registry remembers which pool allocations are managed
// (aclrtPointerGetAttributes reports them as MANAGED; aclrtFree, not
// aclrtFreeHost, frees them) and what was advised about their bytes
// (core/managed_advice.h). Thread safe.
#ifndef NPU_RT_CORE_MANAGED_MEMORY_H
#define NPU_RT_CORE_MANAGED_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <utility>

#include "base/singleton.h"
#include "core/error.h"
#include "core/managed_advice.h"

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
    // Calls change on the advice of [ptr, ptr + len), with the registry
    // locked (change must not call back into it). ACL_ERROR_RT_PARAM_INVALID
    // unless the range lies in one managed allocation.
    Error Advise(const void *ptr, size_t len, const std::function<void(RangeAdvice &)> &change);
    // The distinct advice records of [ptr, ptr + len) (ManagedAdvice::Collect);
    // the same error as Advise.
    Error Advice(const void *ptr, size_t len, std::vector<RangeAdvice> *out) const;
    // Bytes of managed memory allocated now.
    uint64_t bytes() const;

  private:
    friend class base::Singleton<ManagedMemory>;
    ManagedMemory() = default;

    struct Allocation {
        ManagedRange range;
        ManagedAdvice advice;
    };
    // The allocation holding [addr, addr + len), or nullptr. Caller holds mu_.
    const Allocation *Find(uintptr_t addr, size_t len) const;
    Allocation *Find(uintptr_t addr, size_t len) {
        return const_cast<Allocation *>(std::as_const(*this).Find(addr, len));
    }
    static Error NotManaged(const void *ptr, size_t len);

    // by_base_: the allocations and their advice.
    mutable std::mutex mu_;  // Protects: by_base_, bytes_
    std::map<uintptr_t, Allocation> by_base_;
    uint64_t bytes_ = 0;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MANAGED_MEMORY_H
