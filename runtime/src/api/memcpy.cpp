// SPDX-License-Identifier: MIT
// aclrtMemcpy and aclrtMemset, the synchronous copies.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/copy_plan.h"
#include "core/model_ri.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::ThreadState;

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count,
                     aclrtMemcpyKind kind) {
    return RunApi("aclrtMemcpy", [&] {
        if (count == 0)
            return Error::Ok();
        NPU_ACL_CHECK(dst != nullptr, "dst is NULL (count %zu)", count);
        NPU_ACL_CHECK(src != nullptr, "src is NULL (count %zu)", count);
        // Kinds 6 and 7 are for the descriptor APIs only.
        int32_t k = npu::rt::EnumValue(kind);
        NPU_ACL_CHECK(k >= ACL_MEMCPY_HOST_TO_HOST && k <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
                      "kind %d is not a valid copy kind (0..5)", k);
        NPU_RT_CHECK(destMax != 0, "destMax is 0 (count %zu)", count);
        NPU_RT_CHECK(count <= destMax, "count %zu is larger than destMax %zu", count, destMax);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        NPU_RETURN_IF_ERROR(npu::rt::CheckCaptureMode(ctx.get(), "aclrtMemcpy"));
        // As upstream, the synchronous copy takes its direction from the
        // addresses; kind is only validated.
        return npu::rt::CopyNow(*ctx, dst, src, count);
    });
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    return RunApi("aclrtMemset", [&] {
        if (count == 0)
            return Error::Ok();
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL (count %zu)", count);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        NPU_RETURN_IF_ERROR(npu::rt::CheckCaptureMode(ctx.get(), "aclrtMemset"));
        NPU_RT_CHECK(count <= maxCount, "count %zu is larger than maxCount %zu", count, maxCount);
        // int32 -> uint32 -> uint8: the low byte.
        auto byte = static_cast<uint8_t>(static_cast<uint32_t>(value));
        return npu::rt::FillNow(*ctx, devPtr, byte, count);
    });
}
