// SPDX-License-Identifier: MIT
#include "core/allocation_registry.h"

#include <algorithm>
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

namespace {
// A slot of a draining table that was moved or removed points here: not
// empty, so that probes of that table go on past it, and no record.
const Allocation kTombstoneRecord{};
const Allocation *const kTombstone = &kTombstoneRecord;
}  // namespace

// The slot where a probe for base starts: a multiplicative (Fibonacci) hash,
// whose high bits mix the bits that differ between page aligned bases.
size_t AllocationRegistry::Home(const std::vector<Slot> &table, uint64_t base) {
    const int bits = std::countr_zero(table.size());
    return static_cast<size_t>((base * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

// The slot of table holding base, or table.size() if none does. A table is
// never more than half full (tombstones included), so the probe ends at an
// empty slot.
size_t AllocationRegistry::Probe(const std::vector<Slot> &table, uint64_t base) {
    if (table.empty())
        return 0;
    const size_t mask = table.size() - 1;
    for (size_t i = Home(table, base);; i = (i + 1) & mask) {
        if (table[i].rec == nullptr)
            return table.size();
        if (table[i].rec != kTombstone && table[i].base == base)
            return i;
    }
}

void AllocationRegistry::Put(std::vector<Slot> &table, uint64_t base, const Allocation *rec) {
    const size_t mask = table.size() - 1;
    size_t i = Home(table, base);
    while (table[i].rec != nullptr && table[i].base != base)
        i = (i + 1) & mask;
    table[i] = Slot{base, rec};
}

// Linear probing's deletion, for the live table (which has no tombstones):
// later slots of the same probe run move back into the hole, so that no
// probe stops early at it.
void AllocationRegistry::Erase(std::vector<Slot> &table, size_t hole) {
    const size_t mask = table.size() - 1;
    for (size_t j = (hole + 1) & mask; table[j].rec != nullptr; j = (j + 1) & mask) {
        const size_t home = Home(table, table[j].base);
        // Whether home lies cyclically in (hole, j]: then j stays.
        const bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!stays) {
            table[hole] = table[j];
            hole = j;
        }
    }
    table[hole] = Slot{};
}

const Allocation *AllocationRegistry::IndexFindLocked(uint64_t base) const {
    size_t slot = Probe(index_, base);
    if (slot < index_.size())
        return index_[slot].rec;
    slot = Probe(draining_, base);
    if (slot < draining_.size())
        return draining_[slot].rec;
    return nullptr;
}

void AllocationRegistry::IndexPutLocked(uint64_t base, const Allocation *rec) {
    Put(index_, base, rec);
}

void AllocationRegistry::IndexEraseLocked(uint64_t base) {
    size_t slot = Probe(index_, base);
    if (slot < index_.size()) {
        Erase(index_, slot);
        return;
    }
    slot = Probe(draining_, base);
    if (slot < draining_.size())
        draining_[slot].rec = kTombstone;
}

// Move up to slots more slots of the draining table into the live one;
// free it once it is all moved. A moved entry leaves a tombstone and an
// empty slot stays empty, so every probe of the draining table walks the
// same run as before.
void AllocationRegistry::IndexDrainLocked(size_t slots) {
    if (draining_.empty())
        return;
    const size_t end = std::min(draining_.size(), drained_ + slots);
    for (; drained_ < end; drained_++) {
        Slot &s = draining_[drained_];
        if (s.rec == nullptr)
            continue;
        if (s.rec != kTombstone)
            Put(index_, s.base, s.rec);
        s.rec = kTombstone;
    }
    if (drained_ == draining_.size()) {
        std::vector<Slot>().swap(draining_);
        drained_ = 0;
    }
}

// Start moving into a new table of slots (a power of two) slots. One still
// draining is finished first (only a burst of removals right after a
// shrink gets here with one). Throws std::bad_alloc with the index
// unchanged.
void AllocationRegistry::IndexResizeLocked(size_t slots) {
    std::vector<Slot> fresh(slots);
    IndexDrainLocked(draining_.size());
    draining_.swap(index_);
    index_.swap(fresh);
    drained_ = 0;
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
    IndexDrainLocked(kMigrateSlots);
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
    IndexDrainLocked(kMigrateSlots);
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
    if (const Allocation *rec = IndexFindLocked(addr)) {
        if (rec->mapped == 0)  // contains nothing, not even its base
            return std::nullopt;
        return *rec;
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
