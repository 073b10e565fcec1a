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

struct Shadow {
    uint64_t base = 0, size = 0;
    int32_t device = -1;
    bool host = false;        // pinned or registered host memory
    bool registered = false;  // aclrtHostRegister (not aclrtMallocHost)
    bool mapped = false;      // VMM mapping or IPC import
    bool reset = false;       // its device was reset with it allocated
    bool leak_reported = false;
    uint32_t alloc_stack = 0, free_stack = 0;
    RangeSet init;                 // offsets some copy or fill wrote
    std::vector<Access> recent;    // racecheck: the accesses not yet superseded
    std::vector<Access> last_use;  // memcheck: the last access of each lane
};

}  // namespace npu::rt::check

#endif  // NPU_RT_CORE_CHECKER_SHADOW_H
