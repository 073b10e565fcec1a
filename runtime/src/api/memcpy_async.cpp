// SPDX-License-Identifier: MIT
// Copies and fills on streams: aclrtMemcpyAsync and its
// deprecated twin aclrtMemcpyAsyncWithCondition,
// aclrtMemsetAsync, aclrtMemcpy2d and aclrtMemcpy2dAsync.
#include <cstdio>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/model_ri.h"
#include "api/stream_args.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::CopyOp;
using npu::rt::CopyRequest;
using npu::rt::CopyShape;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::Stream;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

constexpr size_t kMax2dWidth = 5000000;
constexpr size_t kMax2dHeight = 5242880;

Error MemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, int32_t k,
                  aclrtStream stream) {
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
    NPU_RT_CHECK(count <= destMax, "count %zu is larger than destMax %zu", count, destMax);
    if (ref) {
        bool recorded = false;
        NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
            *ref.get(), npu::rt::TaskKind::kMemcpy,
            [&] {
                return npu::rt::TaskText("%zu bytes from %p to %p, kind %d", count, src, dst, k);
            },
            [=](StreamRef &r, npu::rt::Context *c) {
                return npu::rt::MemcpyAsyncIn(r, *c, dst, src, count, k);
            },
            &recorded));
        if (recorded)
            return Error::Ok();
    }
    return npu::rt::MemcpyAsync(ref, dst, src, count, k);
}

// The ACL-layer checks shared by both 2-D copies.
Error Check2dArgs(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                  int32_t k) {
    NPU_ACL_CHECK(dst != nullptr, "dst is NULL");
    NPU_ACL_CHECK(src != nullptr, "src is NULL");
    NPU_ACL_CHECK(width <= spitch && width <= dpitch,
                  "width %zu is larger than spitch %zu or dpitch %zu", width, spitch, dpitch);
    NPU_ACL_CHECK(k >= ACL_MEMCPY_HOST_TO_DEVICE && k <= ACL_MEMCPY_DEFAULT,
                  "kind %d is not one of H2D, D2H, D2D, DEFAULT (1..4)", k);
    return Error::Ok();
}

Error Check2dLimits(size_t width, size_t height) {
    NPU_RT_CHECK(height <= kMax2dHeight, "height %zu is over the limit %zu", height, kMax2dHeight);
    NPU_RT_CHECK(width <= kMax2dWidth, "width %zu is over the limit %zu", width, kMax2dWidth);
    return Error::Ok();
}

// A 2-D copy request with its operands classified against own.
void Request2d(void *dst, const void *src, const CopyShape &sh, npu::rt::DeviceSession &own,
               CopyRequest *req) {
    req->dst = dst;
    req->src = src;
    req->shape = sh;
    npu::rt::Classify(dst, (sh.height - 1) * sh.dpitch + sh.width, &own, &req->d);
    npu::rt::Classify(src, (sh.height - 1) * sh.spitch + sh.width, &own, &req->s);
}

}  // namespace

namespace {

// aclrtMemcpyAsync's checks and copy, under the name of the API called.
aclError MemcpyAsyncApi(const char *api, void *dst, size_t destMax, const void *src, size_t count,
                        aclrtMemcpyKind kind, aclrtStream stream) {
    return RunApi(api, [&] {
        if (count == 0)
            return Error::Ok();
        NPU_ACL_CHECK(dst != nullptr, "dst is NULL (count %zu)", count);
        NPU_ACL_CHECK(src != nullptr, "src is NULL (count %zu)", count);
        int32_t k = npu::rt::EnumValue(kind);
        NPU_ACL_CHECK(k >= ACL_MEMCPY_HOST_TO_HOST && k <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE,
                      "kind %d is not a valid copy kind (0..5)", k);
        return MemcpyAsync(dst, destMax, src, count, k, stream);
    });
}

}  // namespace

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count,
                          aclrtMemcpyKind kind, aclrtStream stream) {
    return MemcpyAsyncApi("aclrtMemcpyAsync", dst, destMax, src, count, kind, stream);
}

// Deprecated upstream; the same contract as aclrtMemcpyAsync.
aclError aclrtMemcpyAsyncWithCondition(void *dst, size_t destMax, const void *src, size_t count,
                                       aclrtMemcpyKind kind, aclrtStream stream) {
    return MemcpyAsyncApi("aclrtMemcpyAsyncWithCondition", dst, destMax, src, count, kind, stream);
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count,
                          aclrtStream stream) {
    return RunApi("aclrtMemsetAsync", [&] {
        if (count == 0)
            return Error::Ok();
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL (count %zu)", count);
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
        NPU_RT_CHECK(count <= maxCount, "count %zu is larger than maxCount %zu", count, maxCount);
        if (!ctx)
            return npu::rt::NoContextError();
        NPU_RETURN_IF_ERROR(npu::rt::UseStream(*ctx, &ref));
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        CopyRequest req;
        req.op = CopyOp::kFill;
        req.dst = devPtr;
        req.value = static_cast<uint8_t>(static_cast<uint32_t>(value));
        req.shape.width = count;
        bool recorded = false;
        NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
            *ref.get(), npu::rt::TaskKind::kMemset,
            [&] {
                return npu::rt::TaskText("%zu bytes of 0x%02x at %p", count,
                                         static_cast<unsigned>(req.value), devPtr);
            },
            [req](StreamRef &r, Context *c) { return npu::rt::PlanAndExecute(r.get(), c, req); },
            &recorded));
        if (recorded)
            return Error::Ok();
        return npu::rt::PlanAndExecute(ref.get(), ctx.get(), req);
    });
}

aclError aclrtMemcpy2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                       size_t height, aclrtMemcpyKind kind) {
    return RunApi("aclrtMemcpy2d", [&] {
        if (width == 0 || height == 0)
            return Error::Ok();
        int32_t k = npu::rt::EnumValue(kind);
        NPU_RETURN_IF_ERROR(Check2dArgs(dst, dpitch, src, spitch, width, k));
        NPU_RETURN_IF_ERROR(Check2dLimits(width, height));
        if (k == ACL_MEMCPY_DEVICE_TO_DEVICE) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "aclrtMemcpy2d supports host<->device copies only, not D2D");
        }
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        NPU_RETURN_IF_ERROR(npu::rt::CheckCaptureMode(ctx.get(), "aclrtMemcpy2d"));
        CopyRequest req;
        Request2d(dst, src, CopyShape{width, height, dpitch, spitch}, ctx->session(), &req);
        int32_t eff = 0;
        NPU_RETURN_IF_ERROR(npu::rt::ReviseKind(k, req.s.loc, req.d.loc, &eff));
        NPU_RT_CHECK(eff == ACL_MEMCPY_HOST_TO_DEVICE || eff == ACL_MEMCPY_DEVICE_TO_HOST,
                     "aclrtMemcpy2d from %p to %p is not host<->device (effective kind %d)", src,
                     dst, eff);
        return npu::rt::PlanAndExecute(nullptr, ctx.get(), req);
    });
}

aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                            size_t height, aclrtMemcpyKind kind, aclrtStream stream) {
    return RunApi("aclrtMemcpy2dAsync", [&] {
        if (width == 0 || height == 0)
            return Error::Ok();
        int32_t k = npu::rt::EnumValue(kind);
        NPU_RETURN_IF_ERROR(Check2dArgs(dst, dpitch, src, spitch, width, k));
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
        // Upstream looks up the "current stream", which is NULL without a
        // context: a parameter error, not 107002.
        NPU_RT_CHECK(ref || ctx, "no stream: stream is NULL and there is no current context");
        NPU_RETURN_IF_ERROR(Check2dLimits(width, height));
        if (!ref)
            NPU_RETURN_IF_ERROR(npu::rt::UseStream(*ctx, &ref));
        Stream &s = *ref.get();
        CopyRequest req;
        Request2d(dst, src, CopyShape{width, height, dpitch, spitch}, s.session(), &req);
        int32_t eff = 0;
        NPU_RETURN_IF_ERROR(npu::rt::ReviseKind(k, req.s.loc, req.d.loc, &eff));
        NPU_RT_CHECK(eff != ACL_MEMCPY_HOST_TO_HOST,
                     "aclrtMemcpy2dAsync from %p to %p is host to host", src, dst);
        if (!ctx)
            return npu::rt::NoContextError();
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        req.wait = npu::rt::NeedsSyncFallback(eff, req.s.loc, req.d.loc);
        return npu::rt::PlanAndExecute(&s, ctx.get(), req);
    });
}
