// SPDX-License-Identifier: MIT
#include "core/allocation_registry.h"

namespace npu::rt {

void AllocationRegistry::Insert(const Allocation &a) {
    std::lock_guard<std::mutex> lock(mu_);
    by_base_[a.base] = a;
}

std::optional<Allocation> AllocationRegistry::Remove(uint64_t base) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.find(base);
    if (it == by_base_.end())
        return std::nullopt;
    Allocation a = it->second;
    by_base_.erase(it);
    return a;
}

std::optional<Allocation> AllocationRegistry::Find(uint64_t addr) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.upper_bound(addr);
    if (it == by_base_.begin())
        return std::nullopt;
    --it;
    const Allocation &a = it->second;
    if (addr - a.base >= a.mapped)
        return std::nullopt;
    return a;
}

size_t AllocationRegistry::size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return by_base_.size();
}

}  // namespace npu::rt
