// SPDX-License-Identifier: MIT
// aclrtMemsetD32 and aclrtMemsetD32Async: fill N 32-bit words (the CANN
// API reference, aclrtMemsetD32). The fill itself is planned in core/copy_plan.h.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_memory.h"
#include "core/host_memory.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::CopyOp;
using npu::rt::CopyRequest;
using npu::rt::Error;
using npu::rt::PtrKind;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// The checks upstream's ACL layer makes before the runtime: the pointer,
// its alignment, the room, and where the pointer lives (as
// aclrtPointerGetAttributes says: only device and ACL host memory can be
// filled). *req gets the fill.
Error CheckTarget(void *ptr, size_t memSize, uint32_t value, size_t N, CopyRequest *req) {
    NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (N %zu)", N);
    NPU_ACL_CHECK(reinterpret_cast<uintptr_t>(ptr) % sizeof(uint32_t) == 0,
                  "ptr %p is not 4-byte aligned", ptr);
    NPU_ACL_CHECK(N <= memSize / sizeof(uint32_t), "memSize %zu is smaller than 4 * N (N %zu)",
                  memSize, N);
    const size_t bytes = N * sizeof(uint32_t);
    req->op = CopyOp::kFill32;
    req->dst = ptr;
    req->value = value;
    req->shape.width = N;
    npu::rt::PointerInfo where;
    npu::rt::LocatePointer(ptr, &where);
    if (where.kind == PtrKind::kDevice) {
        uint32_t page_size = 0;
        NPU_RETURN_IF_ERROR(npu::rt::DeviceMappingPageSize(*where.dev, ptr, &page_size));
        return npu::rt::ClassifyChecked(ptr, bytes, "ptr", &req->d);
    }
    NPU_ACL_CHECK(where.kind != PtrKind::kManaged,
                  "ptr %p is managed memory (aclrtMemAllocManaged), which upstream does not fill",
                  ptr);
    NPU_ACL_CHECK(where.kind == PtrKind::kHost,
                  "ptr %p is neither device memory nor ACL host memory (aclrtMallocHost, "
                  "aclrtHostRegister)",
                  ptr);
    NPU_RT_CHECK(npu::rt::LookupHostMemory(ptr, bytes, nullptr),
                 "%zu bytes at ptr %p run past the end of its host allocation", bytes, ptr);
    req->d.loc = npu::rt::Loc::kHost;
    return Error::Ok();
}

}  // namespace

// Upstream's ACL layer turns a 207000 of the runtime into success; this
// runtime never reports 207000 for a fill, so there is nothing to turn.
aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N) {
    return RunApi("aclrtMemsetD32", [&] {
        if (N == 0)
            return Error::Ok();
        CopyRequest req;
        NPU_RETURN_IF_ERROR(CheckTarget(ptr, memSize, value, N, &req));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        req.wait = true;
        return npu::rt::PlanAndExecute(nullptr, ctx.get(), req);
    });
}

aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
                             aclrtStream stream) {
    return RunApi("aclrtMemsetD32Async", [&] {
        if (N == 0)
            return Error::Ok();
        CopyRequest req;
        NPU_RETURN_IF_ERROR(CheckTarget(ptr, memSize, value, N, &req));
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        return npu::rt::PlanAndExecute(ref.get(), ctx.get(), req);
    });
}
