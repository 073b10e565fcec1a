// SPDX-License-Identifier: MIT
#include "core/malloc_policy.h"

#include "acl/acl_rt.h"
#include "npu/npu_uapi.h"

namespace npu::rt {
namespace {

constexpr uint64_t kAlign = 32;
constexpr uint64_t kTailPad = 32;  // upstream's AICoreSpec.padding_size
constexpr uint64_t kOneMiB = 1ULL << 20;
constexpr uint64_t kTwoMiB = 2ULL << 20;

uint64_t AlignUp(uint64_t v, uint64_t a) {
    return (v + a - 1) & ~(a - 1);
}

struct PagePolicy {
    uint32_t policy;
    bool p2p;
};

// The eight page policies; false for anything else.
bool LookupPagePolicy(uint32_t acl_policy, PagePolicy *out) {
    switch (acl_policy) {
        case ACL_MEM_MALLOC_HUGE_FIRST:
            *out = {NPU_POLICY_HUGE_FIRST, false};
            return true;
        case ACL_MEM_MALLOC_HUGE_ONLY:
            *out = {NPU_POLICY_HUGE_ONLY, false};
            return true;
        case ACL_MEM_MALLOC_NORMAL_ONLY:
            *out = {NPU_POLICY_NORMAL_ONLY, false};
            return true;
        case ACL_MEM_MALLOC_HUGE_FIRST_P2P:
            *out = {NPU_POLICY_HUGE_FIRST, true};
            return true;
        case ACL_MEM_MALLOC_HUGE_ONLY_P2P:
            *out = {NPU_POLICY_HUGE_ONLY, true};
            return true;
        case ACL_MEM_MALLOC_NORMAL_ONLY_P2P:
            *out = {NPU_POLICY_NORMAL_ONLY, true};
            return true;
        case ACL_MEM_MALLOC_HUGE1G_ONLY:
            *out = {NPU_POLICY_HUGE1G_ONLY, false};
            return true;
        case ACL_MEM_MALLOC_HUGE1G_ONLY_P2P:
            *out = {NPU_POLICY_HUGE1G_ONLY, true};
            return true;
        default:
            return false;
    }
}

// Upstream's default for unrecognised policies: huge pages from 2 MiB up,
// normal pages below.
PagePolicy DefaultPolicy(size_t size) {
    uint32_t policy = size >= kTwoMiB ? NPU_POLICY_HUGE_FIRST : NPU_POLICY_NORMAL_ONLY;
    return {policy, false};
}

}  // namespace

DeviceAllocRequest TranslateMalloc(MallocApi api, size_t size, uint32_t policy) {
    PagePolicy page;
    bool recognised = false;
    switch (api) {
        case MallocApi::kMalloc:
        case MallocApi::kMallocAlign32:
            recognised = LookupPagePolicy(policy, &page);
            break;
        case MallocApi::kMallocCached:
            // Only the four plain page policies are mapped; P2P ones are not.
            recognised = LookupPagePolicy(policy, &page) && !page.p2p;
            break;
        case MallocApi::kMallocWithCfg:
            recognised = LookupPagePolicy(policy & 0xFFu, &page);
            break;
    }
    if (!recognised)
        page = DefaultPolicy(size);
    // HUGE_FIRST gives huge pages to requests over 1 MiB: decide on the size
    // the caller asked for, before the tail pad below pushes 1 MiB over.
    if (page.policy == NPU_POLICY_HUGE_FIRST && size <= kOneMiB)
        page.policy = NPU_POLICY_NORMAL_ONLY;

    DeviceAllocRequest req;
    req.policy = page.policy;
    req.flags = page.p2p ? NPU_MEM_P2P : 0;
    // The bandwidth bits (0xFF00) have no effect: all device memory is HBM.
    if (api == MallocApi::kMallocWithCfg && (policy & ACL_MEM_ACCESS_USER_SPACE_READONLY) != 0)
        req.flags |= NPU_MEM_READONLY;

    req.size = AlignUp(size, kAlign);
    bool padded = api == MallocApi::kMalloc || api == MallocApi::kMallocCached;
    if (padded && page.policy != NPU_POLICY_HUGE1G_ONLY)
        req.size += kTailPad;
    return req;
}

}  // namespace npu::rt
