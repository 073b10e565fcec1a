// SPDX-License-Identifier: MIT
// rtMalloc, rtFree, rtMallocHost, rtFreeHost, rtMemset, rtMemGetInfo.
#include <cstdint>

#include "rt_api/rt_call.h"

using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;

namespace {

constexpr uint32_t kPolicyBits =
    RT_MEMORY_POLICY_HUGE_PAGE_FIRST | RT_MEMORY_POLICY_HUGE_PAGE_ONLY |
    RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY | RT_MEMORY_POLICY_HUGE_PAGE_FIRST_P2P |
    RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P | RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY_P2P |
    RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY | RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY_P2P;

// rtMalloc's type as aclrtMalloc's policy: device memory of any kind the
// device has (it has one, HBM), at most one page policy.
Error PolicyOfType(rtMemType_t type, aclrtMemMallocPolicy *policy) {
    const uint32_t kind = type & ~kPolicyBits;
    if (kind != RT_MEMORY_DEFAULT && kind != RT_MEMORY_HBM && kind != RT_MEMORY_DDR &&
        kind != RT_MEMORY_P2P_HBM && kind != RT_MEMORY_P2P_DDR) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "type 0x%x: memory kind 0x%x is not RT_MEMORY_DEFAULT, _HBM, _DDR, "
                             "_P2P_HBM or _P2P_DDR (host memory is rtMallocHost's)",
                             type, kind);
    }
    switch (type & kPolicyBits) {
        case RT_MEMORY_POLICY_NONE:
        case RT_MEMORY_POLICY_HUGE_PAGE_FIRST:
            *policy = ACL_MEM_MALLOC_HUGE_FIRST;
            return Error::Ok();
        case RT_MEMORY_POLICY_HUGE_PAGE_ONLY:
            *policy = ACL_MEM_MALLOC_HUGE_ONLY;
            return Error::Ok();
        case RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY:
            *policy = ACL_MEM_MALLOC_NORMAL_ONLY;
            return Error::Ok();
        case RT_MEMORY_POLICY_HUGE_PAGE_FIRST_P2P:
            *policy = ACL_MEM_MALLOC_HUGE_FIRST_P2P;
            return Error::Ok();
        case RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P:
            *policy = ACL_MEM_MALLOC_HUGE_ONLY_P2P;
            return Error::Ok();
        case RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY_P2P:
            *policy = ACL_MEM_MALLOC_NORMAL_ONLY_P2P;
            return Error::Ok();
        case RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY:
            *policy = ACL_MEM_MALLOC_HUGE1G_ONLY;
            return Error::Ok();
        case RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY_P2P:
            *policy = ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
            return Error::Ok();
        default:
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "type 0x%x names more than one RT_MEMORY_POLICY_*", type);
    }
}

}  // namespace

rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId) {
    (void)moduleId;
    return RunApi("rtMalloc", [&] {
        NPU_RT_CHECK(devPtr != nullptr, "devPtr is NULL");
        aclrtMemMallocPolicy policy = ACL_MEM_MALLOC_HUGE_FIRST;
        NPU_RETURN_IF_ERROR(PolicyOfType(type, &policy));
        return FromAcl(aclrtMalloc(devPtr, size, policy), "aclrtMalloc");
    });
}

rtError_t rtFree(void *devPtr) {
    return RunApi("rtFree", [&] { return FromAcl(aclrtFree(devPtr), "aclrtFree"); });
}

rtError_t rtMallocHost(void **hostPtr, uint64_t size, const uint16_t moduleId) {
    (void)moduleId;
    return RunApi("rtMallocHost",
                  [&] { return FromAcl(aclrtMallocHost(hostPtr, size), "aclrtMallocHost"); });
}

rtError_t rtFreeHost(void *hostPtr) {
    return RunApi("rtFreeHost", [&] { return FromAcl(aclrtFreeHost(hostPtr), "aclrtFreeHost"); });
}

rtError_t rtMemset(void *devPtr, uint64_t destMax, uint32_t val, uint64_t cnt) {
    return RunApi("rtMemset", [&] {
        NPU_RT_CHECK(val <= 0xff, "val %u is not a byte value", val);
        return FromAcl(aclrtMemset(devPtr, destMax, static_cast<int32_t>(val), cnt), "aclrtMemset");
    });
}

rtError_t rtMemGetInfo(size_t *freeSize, size_t *totalSize) {
    return RunApi("rtMemGetInfo", [&] {
        return FromAcl(aclrtGetMemInfo(ACL_HBM_MEM, freeSize, totalSize), "aclrtGetMemInfo");
    });
}
