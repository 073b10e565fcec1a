// SPDX-License-Identifier: MIT
// The checker's shadow of one allocation (core/checker.h): which bytes
// some copy or fill wrote, and the recent accesses to it with the clock of
// the lane (a stream, or the host) that made them.
#ifndef NPU_RT_CORE_CHECKER_SHADOW_H
#define NPU_RT_CORE_CHECKER_SHADOW_H

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace npu::rt::check {

// A vector clock: entry i is the last clock of lane i known to happen
// before. Lane 0 is the host.
class VectorClock {
  public:
    uint64_t Get(uint32_t lane) const { return lane < c_.size() ? c_[lane] : 0; }
    void Set(uint32_t lane, uint64_t v) {
        if (lane >= c_.size())
            c_.resize(lane + 1, 0);
        c_[lane] = v;
    }
    void Join(const VectorClock &o) {
        if (o.c_.size() > c_.size())
            c_.resize(o.c_.size(), 0);
        for (std::size_t i = 0; i < o.c_.size(); ++i)
            c_[i] = c_[i] > o.c_[i] ? c_[i] : o.c_[i];
    }

  private:
    std::vector<uint64_t> c_;
};

// Byte ranges [lo, hi) as offsets, disjoint and not adjacent. O(log n + k)
// for k ranges touched.
class RangeSet {
  public:
    void Add(uint64_t lo, uint64_t hi);
    // The first byte of [lo, hi) not in the set, or hi when all are.
    uint64_t FirstMissing(uint64_t lo, uint64_t hi) const;
    // For each range of the set inside [lo, hi): fn(sub_lo, sub_hi).
    template <typename Fn>
    void ForEach(uint64_t lo, uint64_t hi, Fn &&fn) const {
        auto it = r_.upper_bound(lo);
        if (it != r_.begin())
            --it;
        for (; it != r_.end() && it->first < hi; ++it) {
            const uint64_t a = it->first > lo ? it->first : lo;
            const uint64_t b = it->second < hi ? it->second : hi;
            if (a < b)
                fn(a, b);
        }
    }

  private:
    std::map<uint64_t, uint64_t> r_;  // lo -> hi
};

// One access of a range: by lane at its clock.
struct Access {
    uint64_t lo = 0, hi = 0;  // absolute addresses
    uint32_t lane = 0;
    uint64_t clock = 0;
    bool write = false;
    bool gated = false;  // queued behind an aclrtValueWait: when it runs is not known
    const char *api = nullptr;
    const void *stream = nullptr;  // the stream's handle; null for the host
    uint32_t stack = 0;
};

// The recent accesses of an allocation, oldest first, at most kCap: a ring
// once full, so that dropping the oldest moves nothing. Storage grows with
// use (an allocation touched once keeps one entry).
class AccessRing {
  public:
    static constexpr uint32_t kCap = 16;

    bool empty() const { return n_ == 0; }
    uint32_t size() const { return n_; }
    const Access &operator[](uint32_t i) const { return a_[Slot(i)]; }
    const Access &back() const { return a_[Slot(n_ - 1)]; }
    void clear() {
        a_.clear();
        head_ = n_ = 0;
        box_lo_ = UINT64_MAX;
        box_hi_ = 0;
        any_empty_ = false;
    }
    // Whether an access may overlap [lo, hi) or lie inside it (false: none
    // does). First against the span of all of them; when that is not
    // enough, the span is made exact again and each access looked at.
    bool MayTouch(uint64_t lo, uint64_t hi) {
        if (n_ == 0)
            return false;
        if (!any_empty_ && lo < hi && (hi <= box_lo_ || box_hi_ <= lo))
            return false;
        bool any = false;
        uint64_t blo = UINT64_MAX, bhi = 0;
        for (uint32_t i = 0; i < n_; ++i) {
            const Access &a = a_[Slot(i)];
            any |= (a.lo < hi && lo < a.hi) | (lo <= a.lo && a.hi <= hi);
            blo = a.lo < blo ? a.lo : blo;
            bhi = a.hi > bhi ? a.hi : bhi;
        }
        box_lo_ = blo;
        box_hi_ = bhi;
        return any;
    }
    // Keeps, in order, the accesses for which keep(a) is true.
    template <typename Fn>
    void KeepIf(Fn &&keep) {
        uint32_t w = 0;
        for (uint32_t i = 0; i < n_; ++i) {
            const uint32_t from = Slot(i);
            if (!keep(static_cast<const Access &>(a_[from])))
                continue;
            if (w != i)
                a_[Slot(w)] = a_[from];
            ++w;
        }
        n_ = w;
    }
    // Appends a, dropping the oldest when kCap are kept.
    void Push(const Access &a) {
        box_lo_ = a.lo < box_lo_ ? a.lo : box_lo_;
        box_hi_ = a.hi > box_hi_ ? a.hi : box_hi_;
        any_empty_ = any_empty_ || a.lo >= a.hi;
        if (n_ < a_.size()) {
            a_[Slot(n_)] = a;
            ++n_;
        } else if (a_.size() < kCap) {
            a_.push_back(a);  // not yet wrapped: head_ is 0
            ++n_;
        } else {
            a_[head_] = a;
            head_ = head_ + 1 == kCap ? 0 : head_ + 1;
        }
    }

  private:
    uint32_t Slot(uint32_t i) const {
        const uint32_t j = head_ + i;
        return j >= a_.size() ? j - static_cast<uint32_t>(a_.size()) : j;
    }

    std::vector<Access> a_;
    uint32_t head_ = 0, n_ = 0;
    // [box_lo_, box_hi_) spans every access kept (and maybe more: it
    // shrinks only when MayTouch looks at each); any_empty_: an empty
    // access was kept since the last clear, which the span does not cover.
    uint64_t box_lo_ = UINT64_MAX, box_hi_ = 0;
    bool any_empty_ = false;
};

struct Shadow {
    uint64_t base = 0, size = 0;
    int32_t device = -1;
    bool host = false;        // pinned or registered host memory
    bool registered = false;  // aclrtHostRegister (not aclrtMallocHost)
    bool mapped = false;      // VMM mapping or IPC import
    bool reset = false;       // its device was reset with it allocated
    bool leak_reported = false;
    bool all_written = false;  // init covers every byte
    uint32_t alloc_stack = 0, free_stack = 0;
    RangeSet init;                 // offsets some copy or fill wrote
    AccessRing recent;             // racecheck: the accesses not yet superseded
    std::vector<Access> last_use;  // memcheck: the last access of each lane

    // Offsets [lo, hi) were written.
    void Wrote(uint64_t lo, uint64_t hi) {
        if (all_written)
            return;
        init.Add(lo, hi);
        all_written = init.FirstMissing(0, size) == size;
    }
    // The first offset of [lo, hi) that nothing wrote, or hi.
    uint64_t FirstUnwritten(uint64_t lo, uint64_t hi) const {
        return all_written ? hi : init.FirstMissing(lo, hi);
    }
    void ForgetWrites() {
        init = RangeSet();
        all_written = false;
    }
};

}  // namespace npu::rt::check

#endif  // NPU_RT_CORE_CHECKER_SHADOW_H
