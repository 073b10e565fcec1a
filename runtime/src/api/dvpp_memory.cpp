// SPDX-License-Identifier: MIT
// acldvppMalloc and acldvppFree: device memory for media buffers, with
// upstream's size rounding, over the same allocator as aclrtMalloc.
#include <cstddef>
#include <cstdint>

#include "acl/acl.h"
#include "acl/ops/acl_dvpp.h"
#include "api/api_boundary.h"

using npu::rt::Error;
using npu::rt::RunApi;

namespace {

// Media buffers: a multiple of 32 bytes, and 32 more.
constexpr size_t kDvppAlign = 32;

}  // namespace

aclError acldvppMalloc(void **devPtr, size_t size) {
    return RunApi("acldvppMalloc", [&] {
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL");
        NPU_ACL_CHECK(size <= SIZE_MAX - 2 * kDvppAlign,
                      "size %zu is too large (rounded up to 32 bytes and 32 more, it overflows)",
                      size);
        const size_t aligned = (size + 2 * kDvppAlign - 1) / kDvppAlign * kDvppAlign;
        aclError rc = aclrtMalloc(devPtr, aligned, ACL_MEM_MALLOC_HUGE_FIRST);
        if (rc != ACL_SUCCESS)
            return Error(rc, "allocating " + std::to_string(aligned) + " bytes failed");
        return Error::Ok();
    });
}

aclError acldvppFree(void *devPtr) {
    return RunApi("acldvppFree", [&] {
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL");
        aclError rc = aclrtFree(devPtr);
        if (rc != ACL_SUCCESS)
            return Error(rc, "freeing it failed");
        return Error::Ok();
    });
}
