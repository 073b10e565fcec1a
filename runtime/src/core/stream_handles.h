// SPDX-License-Identifier: MIT
// HandleTable: the opaque handles behind aclrtStream and aclrtEvent.
//
// A handle is not a pointer: it encodes a slot index, the slot's generation
// and a tag that says which table it belongs to. Looking a handle up checks
// the tag and the generation, so a destroyed handle, a handle of the other
// kind or a random value is simply "not found" (ACL_ERROR_RT_INVALID_HANDLE),
// never a crash; the handles are weak references.
//
// Acquire() pins the object: while pinned, Remove() waits, so an object is
// never deleted under a caller that is using it. Acquire and Release are one
// atomic read-modify-write each on the slot's own word: no lock, no lookup
// structure, nothing shared between different handles.
#ifndef NPU_RT_CORE_STREAM_HANDLES_H
#define NPU_RT_CORE_STREAM_HANDLES_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace npu::rt {

template <typename T>
class HandleTable {
  public:
    // tag: 16 bits that mark this table's handles.
    explicit HandleTable(uint16_t tag) : tag_(tag) {}
    ~HandleTable() {
        for (auto &c : chunks_)
            delete[] c.load(std::memory_order_relaxed);
    }
    HandleTable(const HandleTable &) = delete;
    HandleTable &operator=(const HandleTable &) = delete;

    // Takes obj and returns its handle, or nullptr when every slot is used.
    void *Insert(std::unique_ptr<T> obj) {
        uint32_t idx = 0;
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (!free_.empty()) {
                idx = free_.back();
                free_.pop_back();
            } else {
                if (next_ == kMaxSlots)
                    return nullptr;
                idx = next_;
                Slot *&chunk_ptr = chunk_cache_[idx / kChunk];
                if (chunk_ptr == nullptr) {
                    chunk_ptr = new Slot[kChunk];
                    chunks_[idx / kChunk].store(chunk_ptr, std::memory_order_release);
                }
                ++next_;
            }
        }
        Slot &s = SlotOf(idx);
        const uint64_t gen = s.state.load(std::memory_order_relaxed) >> kGenShift;
        s.obj = obj.release();
        s.state.store((gen << kGenShift) | kAlive, std::memory_order_release);
        return Encode(idx, gen);
    }

    // Pins and returns the object of handle h, or nullptr when h is not a
    // live handle of this table. Every non-null result needs a Release(h).
    T *Acquire(const void *h) {
        uint32_t idx = 0;
        uint64_t gen = 0;
        Slot *s = Transition(h, &idx, &gen, [](uint64_t st) { return st + 1; });
        return s != nullptr ? s->obj : nullptr;
    }

    // The slot index of a handle this table made (live or not): unique
    // among live handles, below 2^17.
    static uint32_t SlotIndex(const void *h) {
        return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(h) & ((1u << kIndexBits) - 1));
    }

    // Drops a pin taken by Acquire(h).
    void Release(const void *h) {
        uint32_t idx = 0;
        uint64_t gen = 0;
        Decode(h, &idx, &gen);
        SlotOf(idx).state.fetch_sub(1, std::memory_order_release);
    }

    // Makes h invalid, waits until nobody pins it and hands the object back;
    // nullptr when h is not live (then nothing changes). The caller must not
    // hold a pin on h itself.
    std::unique_ptr<T> Remove(const void *h) {
        uint32_t idx = 0;
        uint64_t gen = 0;
        Slot *live = Transition(h, &idx, &gen, [](uint64_t st) { return st & ~kAlive; });
        if (live == nullptr)
            return nullptr;
        Slot &s = *live;
        // No new pins now; wait for the ones in flight. A pin can be held
        // across a long wait (a synchronize in another thread), so after a
        // few rounds of yielding this sleeps instead of burning a core.
        for (unsigned spins = 0; (s.state.load(std::memory_order_acquire) & kRefMask) != 0;
             ++spins) {
            if (spins < 64)
                std::this_thread::yield();
            else
                std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
        std::unique_ptr<T> obj(s.obj);
        s.obj = nullptr;
        s.state.store(((gen + 1) & kGenMask) << kGenShift, std::memory_order_release);
        std::lock_guard<std::mutex> lock(mu_);
        free_.push_back(idx);
        return obj;
    }

  private:
    static constexpr uint32_t kIndexBits = 20;
    static constexpr uint32_t kMaxSlots = 1u << 17;
    static constexpr uint32_t kChunk = 1024;
    static constexpr uint32_t kGenBits = 28;
    static constexpr uint64_t kGenMask = (1ULL << kGenBits) - 1;
    // state: generation in the top bits, alive, then the pin count.
    static constexpr uint32_t kGenShift = 32;
    static constexpr uint64_t kAlive = 1ULL << 31;
    static constexpr uint64_t kRefMask = kAlive - 1;

    struct Slot {
        std::atomic<uint64_t> state{0};
        T *obj = nullptr;  // valid while alive; written before state publishes it
    };

    void *Encode(uint32_t idx, uint64_t gen) const {
        uint64_t v = (static_cast<uint64_t>(tag_) << 48) | (gen << kIndexBits) | idx;
        return reinterpret_cast<void *>(static_cast<uintptr_t>(v));
    }
    // The slot of live handle h after moving its state from st to next(st)
    // atomically, or nullptr (and no change) when h is not live.
    template <typename Next>
    Slot *Transition(const void *h, uint32_t *idx, uint64_t *gen, Next next) {
        if (!Decode(h, idx, gen))
            return nullptr;
        Slot *chunk = chunks_[*idx / kChunk].load(std::memory_order_acquire);
        if (chunk == nullptr)
            return nullptr;
        Slot &s = chunk[*idx % kChunk];
        uint64_t st = s.state.load(std::memory_order_acquire);
        do {
            if ((st >> kGenShift) != *gen || (st & kAlive) == 0)
                return nullptr;
        } while (!s.state.compare_exchange_weak(st, next(st), std::memory_order_acq_rel,
                                                std::memory_order_acquire));
        return &s;
    }

    bool Decode(const void *h, uint32_t *idx, uint64_t *gen) const {
        const uint64_t v = reinterpret_cast<uintptr_t>(h);
        if ((v >> 48) != tag_)
            return false;
        *idx = static_cast<uint32_t>(v & ((1u << kIndexBits) - 1));
        *gen = (v >> kIndexBits) & kGenMask;
        return *idx < kMaxSlots;
    }
    Slot &SlotOf(uint32_t idx) {
        return chunks_[idx / kChunk].load(std::memory_order_acquire)[idx % kChunk];
    }

    const uint16_t tag_;
    std::atomic<Slot *> chunks_[kMaxSlots / kChunk] = {};  // chunks never move or go away
    // free_: the free slot indices; next_: the next never-used index;
    // chunk_cache_: the chunk pointers as allocated.
    std::mutex mu_;  // Protects: free_, next_, chunk_cache_
    std::vector<uint32_t> free_;
    uint32_t next_ = 0;
    Slot *chunk_cache_[kMaxSlots / kChunk] = {};
};

// The process-wide table of one handle kind, for base::Singleton (which
// makes its instances with `new T()`): a forked child gets an empty one,
// and the parent's handles are unknown there.
template <typename T, uint16_t kTag>
class TaggedHandleTable : public HandleTable<T> {
  public:
    TaggedHandleTable() : HandleTable<T>(kTag) {}
};

// A pin on one live handle of a table, for the duration of a call.
template <typename T>
class Pinned {
  public:
    Pinned() = default;
    ~Pinned() { Reset(); }
    Pinned(const Pinned &) = delete;
    Pinned &operator=(const Pinned &) = delete;

    // Pins handle h of table; false (and nothing pinned) when h is not live.
    bool Acquire(HandleTable<T> &table, const void *h) {
        Reset();
        obj_ = table.Acquire(h);
        if (obj_ == nullptr)
            return false;
        table_ = &table;
        handle_ = h;
        return true;
    }
    void Reset() {
        if (table_ != nullptr)
            table_->Release(handle_);
        table_ = nullptr;
        obj_ = nullptr;
    }
    T *get() const { return obj_; }
    T *operator->() const { return obj_; }

  private:
    HandleTable<T> *table_ = nullptr;
    const void *handle_ = nullptr;
    T *obj_ = nullptr;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_STREAM_HANDLES_H
