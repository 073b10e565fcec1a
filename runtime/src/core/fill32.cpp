// SPDX-License-Identifier: MIT
#include "core/fill32.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/host_memory.h"
#include "core/stream.h"

namespace npu::rt {
namespace {

// Bytes of pattern staged in pinned host memory: the first copy.
constexpr size_t kSeedBytes = 4096;

}  // namespace

// A word of four equal bytes is one byte fill. Any other word is built in
// place, without a new descriptor type: one copy puts up to kSeedBytes of
// the pattern (staged in pinned host memory) at ptr, then copies from the
// filled prefix double it, [0, k) -> [k, 2k), until the range is full. The
// ring runs its descriptors in order and no copy overlaps itself, so each
// copy reads bytes the previous ones wrote: 1 + log2(4n / kSeedBytes)
// descriptors, and no staging larger than kSeedBytes.
Error IssueFill32(Stream &s, void *ptr, uint32_t value, size_t n, bool device, bool wait) {
    const size_t bytes = n * sizeof(uint32_t);
    const auto dst = reinterpret_cast<uint64_t>(ptr);
    std::vector<struct npu_sqe> sqes;
    const auto b0 = static_cast<uint8_t>(value);
    if (value == b0 * 0x01010101u) {
        struct npu_sqe sqe = {};
        sqe.opcode = NPU_OP_MEMSET;
        sqe.dir = device ? NPU_DIR_H2D : NPU_DIR_H2H;
        sqe.dst = dst;
        sqe.len = bytes;
        sqe.value = b0;
        if (wait)
            return s.SubmitAndWait(&sqe, 1);
        return s.Submit(&sqe, 1, nullptr);
    }

    const size_t seed = std::min(bytes, kSeedBytes);
    void *staging = AllocPinnedStaging(seed);
    if (staging == nullptr) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION,
                             "no pinned host memory left for the %zu-byte fill pattern", seed);
    }
    for (size_t i = 0; i < seed / sizeof(uint32_t); ++i)
        std::memcpy(static_cast<char *>(staging) + i * sizeof(uint32_t), &value, sizeof(value));

    struct npu_sqe seed_sqe = {};
    seed_sqe.opcode = NPU_OP_COPY;
    seed_sqe.dir = device ? NPU_DIR_H2D : NPU_DIR_H2H;
    seed_sqe.dst = dst;
    seed_sqe.src = reinterpret_cast<uint64_t>(staging);
    seed_sqe.len = seed;
    sqes.push_back(seed_sqe);
    for (size_t done = seed; done < bytes;) {
        const size_t len = std::min(done, bytes - done);
        struct npu_sqe sqe = {};
        sqe.opcode = NPU_OP_COPY;
        sqe.dir = device ? NPU_DIR_D2D : NPU_DIR_H2H;
        sqe.dst = dst + done;
        sqe.src = dst;
        sqe.len = len;
        sqes.push_back(sqe);
        done += len;
    }
    const auto count = static_cast<uint32_t>(sqes.size());
    if (wait) {
        Error e = s.SubmitAndWait(sqes.data(), count);
        FreePinnedStaging(staging);
        return e;
    }
    uint64_t seq = 0;
    Error e = s.Submit(sqes.data(), count, &seq);
    if (!e.ok() || seq == 0)
        FreePinnedStaging(staging);
    else
        s.DeferFree(seq, staging);
    return e;
}

}  // namespace npu::rt
