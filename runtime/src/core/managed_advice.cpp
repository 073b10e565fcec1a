// SPDX-License-Identifier: MIT
#include "core/managed_advice.h"

#include <iterator>

namespace npu::rt {

ManagedAdvice::ManagedAdvice(size_t size) : size_(size) {
    by_offset_.emplace(0, RangeAdvice{});
}

ManagedAdvice::Map::iterator ManagedAdvice::Split(size_t off) {
    if (off >= size_)
        return by_offset_.end();
    auto next = by_offset_.upper_bound(off);
    auto at = std::prev(next);  // the entry at offset 0 always exists
    if (at->first == off)
        return at;
    return by_offset_.emplace_hint(next, off, at->second);
}

void ManagedAdvice::Merge(size_t lo, size_t hi) {
    auto it = by_offset_.upper_bound(lo);
    if (it != by_offset_.begin())
        --it;
    if (it != by_offset_.begin())
        --it;
    while (it != by_offset_.end() && it->first <= hi) {
        auto next = std::next(it);
        if (next != by_offset_.end() && next->second == it->second)
            by_offset_.erase(next);
        else
            it = next;
    }
}

std::vector<RangeAdvice> ManagedAdvice::Collect(size_t off, size_t len) const {
    std::vector<RangeAdvice> out;
    auto it = std::prev(by_offset_.upper_bound(off));
    for (; it != by_offset_.end() && it->first < off + len; ++it)
        out.push_back(it->second);
    return out;
}

}  // namespace npu::rt
