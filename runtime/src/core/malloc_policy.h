// SPDX-License-Identifier: MIT
// How the aclrtMalloc family turns (size, policy) into a driver request:
// aclrtMalloc (exact-match policies, 32-byte rounding plus a 32-byte pad) and
// aclrtMallocWithCfg (OR-combined policies, no pad).
#ifndef NPU_RT_CORE_MALLOC_POLICY_H
#define NPU_RT_CORE_MALLOC_POLICY_H

#include <cstddef>
#include <cstdint>

namespace npu::rt {

enum class MallocApi { kMalloc, kMallocAlign32, kMallocCached, kMallocWithCfg };

struct DeviceAllocRequest {
    uint64_t size = 0;    // bytes asked of the driver
    uint32_t policy = 0;  // NPU_POLICY_*
    uint32_t flags = 0;   // NPU_MEM_*
};

// The driver request for api(size, policy). size must be > 0 and small
// enough that the rounding cannot overflow (callers check it first).
DeviceAllocRequest TranslateMalloc(MallocApi api, size_t size, uint32_t policy);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MALLOC_POLICY_H
