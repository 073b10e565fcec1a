// SPDX-License-Identifier: MIT
// The checker's stacks and reports (core/checker.h): a depot of captured
// stacks, and the writer of a finding to stderr, NPU_CHECK_LOG and the
// trace. Used by checker.cpp only, with the checker's lock held.
#ifndef NPU_RT_CORE_CHECKER_REPORT_H
#define NPU_RT_CORE_CHECKER_REPORT_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

namespace npu::rt::check {

// Captured stacks, kept once each: an id is an index (0: none).
class StackDepot {
  public:
    // The calling thread's stack, without the checker's own frames.
    uint32_t Capture();
    // Appends "    #i pc symbol\n" lines for id.
    void Print(uint32_t id, std::string *out) const;

  private:
    static constexpr int kDepth = 24;
    struct Stack {
        int n = 0;
        void *pc[kDepth];
    };
    std::vector<Stack> stacks_{Stack{}};                           // [0] is the empty stack
    std::unordered_map<uint64_t, std::vector<uint32_t>> by_hash_;  // hash -> ids
};

// One side of a finding.
struct Side {
    const char *api = nullptr;     // null: unknown
    const void *stream = nullptr;  // null: the host (a synchronous call)
    bool write = false;
    bool access = true;  // false: a free or a leak, not an access of the bytes
    uint64_t addr = 0, size = 0;
    uint32_t stack = 0;
};

struct Finding {
    const char *kind = "";
    std::string what;
    Side here;
    bool has_other = false;
    Side other;
    // The allocation involved, when there is one.
    uint64_t alloc_base = 0, alloc_size = 0;
    uint32_t alloc_stack = 0, free_stack = 0;
    bool host_memory = false;
};

// Writes f to stderr, to the log (when NPU_CHECK_LOG names one) and to the
// trace.
void Emit(const Finding &f, const StackDepot &depot, FILE *log);

// "0x..." for a stream, "host" for the host.
std::string StreamName(const void *stream);

}  // namespace npu::rt::check

#endif  // NPU_RT_CORE_CHECKER_REPORT_H
