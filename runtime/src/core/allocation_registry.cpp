// SPDX-License-Identifier: MIT
#include "core/allocation_registry.h"

namespace npu::rt {

static_assert(static_cast<size_t>(MemoryKind::kVmmReservation) + 1 == 3,
              "AllocationRegistry::kKinds counts the MemoryKinds");

void AllocationRegistry::AddLocked(const Allocation &a) {
    Usage &u = usage_[static_cast<size_t>(a.kind)];
    u.current += a.mapped;
    if (u.current > u.peak)
        u.peak = u.current;
}

void AllocationRegistry::SubtractLocked(const Allocation &a) {
    usage_[static_cast<size_t>(a.kind)].current -= a.mapped;
}

void AllocationRegistry::Insert(const Allocation &a) {
    std::lock_guard<std::mutex> lock(mu_);
    auto [it, inserted] = by_base_.try_emplace(a.base, a);
    if (!inserted) {
        SubtractLocked(it->second);
        it->second = a;
    }
    AddLocked(a);
}

std::optional<Allocation> AllocationRegistry::Remove(uint64_t base) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.find(base);
    if (it == by_base_.end())
        return std::nullopt;
    Allocation a = it->second;
    by_base_.erase(it);
    SubtractLocked(a);
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

AllocationRegistry::Usage AllocationRegistry::UsageOf(MemoryKind kind) const {
    std::lock_guard<std::mutex> lock(mu_);
    return usage_[static_cast<size_t>(kind)];
}

}  // namespace npu::rt
