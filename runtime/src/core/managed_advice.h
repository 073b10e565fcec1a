// SPDX-License-Identifier: MIT
// ManagedAdvice: what aclrtMemManagedAdvise and the managed prefetches
// said about the bytes of one aclrtMemAllocManaged allocation, for
// aclrtMemManagedGetAttr. The bytes never move (core/managed_memory.h), so
// this is all the placement state there is: it is recorded and reported,
// as CUDA's cudaMemAdvise and cudaMemRangeGetAttribute do.
//
// An interval map over the allocation: each entry holds the advice of the
// bytes from its offset to the next entry's. Neighbours with equal advice
// are merged, so the map grows only with ranges that differ. Not thread
// safe: ManagedMemory holds it under its lock.
#ifndef NPU_RT_CORE_MANAGED_ADVICE_H
#define NPU_RT_CORE_MANAGED_ADVICE_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "acl/acl_rt.h"

namespace npu::rt {

// A location as aclrtMemManagedLocation gives it; type
// ACL_MEM_LOCATIONTYPE_INVALID: none.
struct ManagedLocation {
    int32_t type = ACL_MEM_LOCATIONTYPE_INVALID;
    int32_t id = 0;
    bool operator==(const ManagedLocation &) const = default;
};

struct RangeAdvice {
    bool read_mostly = false;
    ManagedLocation preferred;
    // Set with ACL_MEM_ADVISE_SET_ACCESSED_BY, sorted, no repeats.
    std::vector<ManagedLocation> accessed_by;
    // Where the last aclrtMemManagedPrefetchAsync queued for these bytes
    // asked them to go (queued, not necessarily run, as in CUDA).
    ManagedLocation last_prefetch;
    bool operator==(const RangeAdvice &) const = default;
};

class ManagedAdvice {
  public:
    explicit ManagedAdvice(size_t size);

    // Calls change(advice) on the advice of every byte of [off, off + len),
    // which lies within the allocation.
    template <typename Change>
    void Apply(size_t off, size_t len, Change change) {
        auto first = Split(off);
        auto last = Split(off + len);
        for (auto it = first; it != last; ++it)
            change(it->second);
        Merge(off, off + len);
    }

    // The distinct advice records of the bytes of [off, off + len), in
    // address order (one when the whole range was advised alike).
    std::vector<RangeAdvice> Collect(size_t off, size_t len) const;

  private:
    using Map = std::map<size_t, RangeAdvice>;
    // Makes off the start of an entry (off == size_: the end) and returns it.
    Map::iterator Split(size_t off);
    // Merges equal neighbours among the entries around [lo, hi].
    void Merge(size_t lo, size_t hi);

    size_t size_;
    Map by_offset_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MANAGED_ADVICE_H
