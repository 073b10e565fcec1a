// SPDX-License-Identifier: MIT
// The checker's shadows (core/checker_shadow.h).
#include "core/checker_shadow.h"

namespace npu::rt::check {

void RangeSet::Add(uint64_t lo, uint64_t hi) {
    if (lo >= hi)
        return;
    auto it = r_.upper_bound(lo);
    if (it != r_.begin()) {
        auto prev = std::prev(it);
        if (prev->second >= lo) {
            if (prev->second >= hi)
                return;
            lo = prev->first;
            it = prev;
        }
    }
    while (it != r_.end() && it->first <= hi) {
        if (it->second > hi)
            hi = it->second;
        it = r_.erase(it);
    }
    r_.emplace(lo, hi);
}

uint64_t RangeSet::FirstMissing(uint64_t lo, uint64_t hi) const {
    auto it = r_.upper_bound(lo);
    if (it == r_.begin())
        return lo;
    --it;
    while (lo < hi) {
        if (it == r_.end() || it->first > lo)
            return lo;
        if (it->second <= lo)
            return lo;
        lo = it->second;
        ++it;
    }
    return hi;
}

}  // namespace npu::rt::check
