// SPDX-License-Identifier: MIT
#include "core/allocation_registry.h"

#include <bit>
#include <new>

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

// The slot where a probe for base starts: a multiplicative (Fibonacci) hash,
// whose high bits mix the bits that differ between page aligned bases.
size_t AllocationRegistry::HomeLocked(uint64_t base) const {
    const int bits = std::countr_zero(index_.size());
    return static_cast<size_t>((base * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

// The slot holding base, or index_.size() if none does. The table is never
// more than half full, so the probe ends at an empty slot.
size_t AllocationRegistry::ProbeLocked(uint64_t base) const {
    if (index_.empty())
        return 0;
    const size_t mask = index_.size() - 1;
    for (size_t i = HomeLocked(base);; i = (i + 1) & mask) {
        if (index_[i].rec == nullptr)
            return index_.size();
        if (index_[i].base == base)
            return i;
    }
}

void AllocationRegistry::IndexPutLocked(uint64_t base, const Allocation *rec) {
    const size_t mask = index_.size() - 1;
    size_t i = HomeLocked(base);
    while (index_[i].rec != nullptr && index_[i].base != base)
        i = (i + 1) & mask;
    index_[i] = Slot{base, rec};
}

// Linear probing's deletion: later slots of the same probe run move back
// into the hole, so that no probe stops early at it.
void AllocationRegistry::IndexEraseLocked(uint64_t base) {
    size_t hole = ProbeLocked(base);
    if (hole >= index_.size())
        return;
    const size_t mask = index_.size() - 1;
    for (size_t j = (hole + 1) & mask; index_[j].rec != nullptr; j = (j + 1) & mask) {
        const size_t home = HomeLocked(index_[j].base);
        // Whether home lies cyclically in (hole, j]: then j stays.
        const bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            index_[hole] = index_[j];
            hole = j;
        }
    }
    index_[hole] = Slot{};
}

// Rehash into slots (a power of two) slots. Throws std::bad_alloc with the
// table unchanged.
void AllocationRegistry::IndexResizeLocked(size_t slots) {
    std::vector<Slot> old(slots);
    old.swap(index_);
    for (const Slot &s : old)
        if (s.rec != nullptr)
            IndexPutLocked(s.base, s.rec);
}

void AllocationRegistry::Insert(const Allocation &a) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.find(a.base);
    if (it != by_base_.end()) {
        SubtractLocked(it->second);
        it->second = a;  // The index points at this record already.
        AddLocked(a);
        return;
    }
    // Make room first: if that throws, nothing has changed.
    if ((by_base_.size() + 1) * 2 > index_.size())
        IndexResizeLocked(index_.empty() ? kMinSlots : index_.size() * 2);
    it = by_base_.emplace(a.base, a).first;
    IndexPutLocked(a.base, &it->second);
    AddLocked(a);
}

std::optional<Allocation> AllocationRegistry::Remove(uint64_t base) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_base_.find(base);
    if (it == by_base_.end())
        return std::nullopt;
    Allocation a = it->second;
    IndexEraseLocked(base);
    by_base_.erase(it);
    SubtractLocked(a);
    if (index_.size() > kMinSlots && by_base_.size() * 8 < index_.size()) {
        try {
            IndexResizeLocked(index_.size() / 2);
        } catch (const std::bad_alloc &) {
            // Keep the larger table: it is still a valid index.
        }
    }
    return a;
}

std::optional<Allocation> AllocationRegistry::Find(uint64_t addr) const {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t slot = ProbeLocked(addr);
    if (slot < index_.size()) {
        const Allocation &a = *index_[slot].rec;
        if (a.mapped == 0)  // contains nothing, not even its base
            return std::nullopt;
        return a;
    }
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
