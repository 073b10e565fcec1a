// SPDX-License-Identifier: MIT
// AllocationRegistry: the live allocations of one address range owner
// (a device session now; host memory later), keyed by base address, so that
// any address can be mapped back to the allocation that contains it.
#ifndef NPU_RT_CORE_ALLOCATION_REGISTRY_H
#define NPU_RT_CORE_ALLOCATION_REGISTRY_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

namespace npu::rt {

enum class MemoryKind {
    kDevice,          // device memory from aclrtMalloc* (lives in a device aperture)
    kIpcImport,       // memory of another process, from aclrtIpcMemImportByKey
    kVmmReservation,  // a range from aclrtReserveMemAddress; the driver knows what is mapped
};

struct Allocation {
    uint64_t base = 0;
    uint64_t requested = 0;    // size the caller asked for
    uint64_t reserved = 0;     // size handed to the driver (rounding and pad)
    uint64_t mapped = 0;       // size the driver mapped (page rounded)
    uint32_t page_size = 0;    // bytes
    uint32_t npu_flags = 0;    // NPU_MEM_*
    int32_t user_device = -1;  // user device id (kDevice)
    MemoryKind kind = MemoryKind::kDevice;

    // A record of what the driver mapped at base for kind on user_device.
    static Allocation Of(MemoryKind kind, int32_t user_device, uint64_t base, uint64_t requested,
                         uint64_t reserved, uint64_t mapped, uint32_t page_size) {
        Allocation a;
        a.base = base;
        a.requested = requested;
        a.reserved = reserved;
        a.mapped = mapped;
        a.page_size = page_size;
        a.user_device = user_device;
        a.kind = kind;
        return a;
    }

    bool Contains(uint64_t addr, uint64_t len) const {
        return addr >= base && addr - base <= mapped && len <= mapped - (addr - base);
    }
};

// Thread safe.
//
// Two structures over the same records: an ordered map by base, which finds
// the allocation containing any address in O(log n), and in front of it an
// open-addressing hash table from each base to its record in the map, so
// that an address that is an allocation's base (what programs pass most
// often) costs one probe instead of a descent of the map: near O(1) and two
// or three cache lines however many allocations are live. Any other address
// misses in the table and takes the map's O(log n) path. The table keeps
// between 1/8 and 1/2 of its slots in use (16 bytes each), so it costs 32 to
// 128 bytes per live allocation beside the map's node.
//
// It grows and shrinks incrementally, so that no single call pays for
// rehashing a million entries: a resize allocates the new table and keeps
// the old one beside it; every later Insert and Remove moves the next
// kMigrateSlots slots of the old table over, and lookups probe the new
// table, then the old one, until the old one is drained. Slots of the old
// table that were moved or removed become tombstones, which its probes step
// over, so its probe runs stay whole while it drains.
class AllocationRegistry {
  public:
    // Adds a; its base must not be registered yet.
    void Insert(const Allocation &a);
    // Removes and returns the allocation whose base is exactly base.
    std::optional<Allocation> Remove(uint64_t base);
    // The allocation containing addr (base <= addr < base + mapped).
    std::optional<Allocation> Find(uint64_t addr) const;
    size_t size() const;

    // Bytes mapped (Allocation::mapped) by the live allocations of kind,
    // and the most they reached since the registry was made. O(1): kept up
    // to date by Insert and Remove.
    struct Usage {
        uint64_t current = 0;
        uint64_t peak = 0;
    };
    Usage UsageOf(MemoryKind kind) const;

  private:
    // A slot of the index: a base and its record in by_base_ (map nodes do
    // not move), or rec == nullptr when empty.
    struct Slot {
        uint64_t base = 0;
        const Allocation *rec = nullptr;
    };
    static constexpr size_t kMinSlots = 16;
    // Old slots moved per Insert or Remove while a resize drains. Enough
    // that the old table is empty before the new one can need a resize of
    // its own: a shrink leaves the new table a quarter full, and it shrinks
    // again after 1/16 of the old table's slots in removals.
    static constexpr size_t kMigrateSlots = 32;

    mutable std::mutex mu_;                   // Protects: by_base_, index_, usage_
    std::map<uint64_t, Allocation> by_base_;  // Protected by mu_.
    std::vector<Slot> index_;                 // Protected by mu_; by base, linear probing.
    std::vector<Slot> draining_;              // Protected by mu_; the table before a resize.
    size_t drained_ = 0;                      // Protected by mu_; draining_'s slots moved so far.
    static constexpr size_t kKinds = 3;
    std::array<Usage, kKinds> usage_{};  // Protected by mu_; by MemoryKind.

    void AddLocked(const Allocation &a);
    void SubtractLocked(const Allocation &a);
    static size_t Home(const std::vector<Slot> &table, uint64_t base);
    static size_t Probe(const std::vector<Slot> &table, uint64_t base);
    static void Put(std::vector<Slot> &table, uint64_t base, const Allocation *rec);
    static void Erase(std::vector<Slot> &table, size_t hole);
    const Allocation *IndexFindLocked(uint64_t base) const;
    void IndexPutLocked(uint64_t base, const Allocation *rec);
    void IndexEraseLocked(uint64_t base);
    void IndexResizeLocked(size_t slots);
    void IndexDrainLocked(size_t slots);
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_ALLOCATION_REGISTRY_H
