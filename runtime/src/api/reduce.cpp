// SPDX-License-Identifier: MIT
// aclrtReduceAsync: an SDMA copy that reduces into its destination,
// dst[i] = kind(dst[i], src[i]), queued on a stream (NPU_OP_REDUCE, run by
// the device's copy engines: kmod/npu_reduce.c has the arithmetic).
#include <cstdio>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/reduce_internal.h"
#include "core/model_ri.h"
#include "api/stream_args.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/stream.h"
#include "core/thread_state.h"
#include "npu/npu_uapi.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace npu::rt {

int32_t ReduceElementType(int32_t type) {
    switch (type) {
        case ACL_FLOAT:
            return NPU_REDUCE_F32;
        case ACL_FLOAT16:
            return NPU_REDUCE_F16;
        case ACL_BF16:
            return NPU_REDUCE_BF16;
        case ACL_INT8:
            return NPU_REDUCE_S8;
        case ACL_INT16:
            return NPU_REDUCE_S16;
        case ACL_INT32:
            return NPU_REDUCE_S32;
        case ACL_INT4:
        case ACL_UINT8:
        case ACL_UINT16:
        case ACL_UINT32:
            return -2;
        default:
            return -1;
    }
}

uint32_t ReduceElementSize(int32_t dtype) {
    return dtype == NPU_REDUCE_F32 || dtype == NPU_REDUCE_S32 ? 4 : dtype == NPU_REDUCE_S8 ? 1 : 2;
}

Error CheckReduceDriver(StreamRef &ref) {
    if (!ref->session().has_reduce()) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "the driver of device %d predates reductions (NPU_OP_REDUCE, ABI "
                             "1.9): load the module of this release",
                             ref->session().user_id());
    }
    return Error::Ok();
}

Error QueueReduce(StreamRef &ref, Context *ctx, void *dst, const void *src, uint64_t count,
                  uint32_t op, int32_t dtype) {
    NPU_RETURN_IF_ERROR(CheckReduceDriver(ref));
    const uint32_t size = ReduceElementSize(dtype);
    NPU_RT_CHECK(count % size == 0, "count %llu is not a whole number of %u-byte elements",
                 static_cast<unsigned long long>(count), size);
    NPU_RT_CHECK(reinterpret_cast<uintptr_t>(dst) % size == 0 &&
                     reinterpret_cast<uintptr_t>(src) % size == 0,
                 "dst %p and src %p must be aligned to the %u-byte element", dst, src, size);
    CopyRequest req;
    NPU_RETURN_IF_ERROR(ClassifyDeviceChecked(dst, count, "dst", &req.d));
    NPU_RETURN_IF_ERROR(ClassifyDeviceChecked(src, count, "src", &req.s));
    NPU_RT_CHECK(req.d.dev == &ref->session(),
                 "dst %p is memory of device %d, the stream runs on device %d", dst,
                 req.d.dev->user_id(), ref->session().user_id());
    req.op = CopyOp::kReduce;
    req.dst = dst;
    req.src = src;
    req.shape.width = count;
    req.value = NPU_REDUCE_VALUE(op, dtype);
    return PlanAndExecute(ref.get(), ctx, req);
}

}  // namespace npu::rt

namespace {

// Upstream's limit for a sum (MAX_MEMCPY_SIZE_OF_D2D).
constexpr uint64_t kMaxSumBytes = 4ULL << 30;

Error ReduceAsync(void *dst, const void *src, uint64_t count, int32_t kind, int32_t type,
                  aclrtStream stream, void *reserve) {
    // The acl layer's checks, then the runtime's, in upstream's order.
    NPU_ACL_CHECK(dst != nullptr, "dst is NULL");
    NPU_ACL_CHECK(src != nullptr, "src is NULL");
    NPU_ACL_CHECK(reserve == nullptr, "reserve is a reserved parameter and must be NULL");
    const int32_t dtype = npu::rt::ReduceElementType(type);
    NPU_ACL_CHECK(dtype != -1, "type %d is not a data type aclrtReduceAsync takes", type);
    NPU_RT_CHECK(count != 0, "count is 0");
    NPU_RT_CHECK(
        kind >= ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM && kind <= ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL,
        "kind %d is not one of ACL_RT_MEMCPY_SDMA_AUTOMATIC_* (10..13)", kind);
    NPU_RT_CHECK(kind != ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM || count <= kMaxSumBytes,
                 "count %llu is above the 4 GiB a sum may cover",
                 static_cast<unsigned long long>(count));
    std::shared_ptr<Context> ctx;
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
    NPU_RETURN_IF_ERROR(npu::rt::CheckReduceDriver(ref));
    if (kind == ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "this device's copy engine does not reduce with "
                             "ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL (13); SUM, MAX and MIN it does");
    }
    if (dtype < 0) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "this device's copy engine does not reduce elements of type %d; it "
                             "does ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_INT16 and "
                             "ACL_INT32",
                             type);
    }
    const auto op = static_cast<uint32_t>(kind - ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM);
    bool recorded = false;
    NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
        *ref.get(), npu::rt::TaskKind::kReduce,
        [&] {
            return npu::rt::TaskText("kind %d of %llu bytes from %p into %p", kind,
                                     static_cast<unsigned long long>(count), src, dst);
        },
        [=](StreamRef &r, Context *c) {
            return npu::rt::QueueReduce(r, c, dst, src, count, op, dtype);
        },
        &recorded));
    if (recorded)
        return Error::Ok();
    return npu::rt::QueueReduce(ref, ctx.get(), dst, src, count, op, dtype);
}

}  // namespace

aclError aclrtReduceAsync(void *dst, const void *src, uint64_t count, aclrtReduceKind kind,
                          aclDataType type, aclrtStream stream, void *reserve) {
    return RunApi("aclrtReduceAsync", [&] {
        return ReduceAsync(dst, src, count, npu::rt::EnumValue(kind), npu::rt::EnumValue(type),
                           stream, reserve);
    });
}
