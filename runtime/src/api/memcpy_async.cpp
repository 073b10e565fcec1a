// SPDX-License-Identifier: MIT
// Copies and fills on streams: aclrtMemcpyAsync and its
// deprecated twin aclrtMemcpyAsyncWithCondition,
// aclrtMemsetAsync, aclrtMemcpy2d and aclrtMemcpy2dAsync.
#include <cstring>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/context.h"
#include "core/device_session.h"
#include "core/host_memory.h"
#include "core/stream.h"
#include "core/copy_plan.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::CopyShape;
using npu::rt::Error;
using npu::rt::Loc;
using npu::rt::Operand;
using npu::rt::RunApi;
using npu::rt::Stream;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

constexpr size_t kMax2dWidth = 5000000;
constexpr size_t kMax2dHeight = 5242880;

// ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: the source is copied into runtime-owned
// pinned staging before the call returns; the staging is freed once the
// descriptor that reads it has completed.
Error StagedCopy(Stream &s, Context &ctx, void *dst, const void *src, size_t count,
                 const Operand &d, const Operand &sr) {
    const CopyShape shape{ count, 1, count, count };
    void *staging = npu::rt::AllocPinnedStaging(count);
    if (staging == nullptr)  // no staging left: copy from src before returning
        return npu::rt::IssueCopy(s, ctx, dst, src, shape, d, sr, true, nullptr);
    std::memcpy(staging, src, count);
    Operand so;
    so.loc = Loc::kHost;
    uint64_t seq = 0;
    Error e = npu::rt::IssueCopy(s, ctx, dst, staging, shape, d, so, false, &seq);
    if (!e.ok() || seq == 0)
        npu::rt::FreePinnedStaging(staging);
    else
        s.DeferFree(seq, staging);
    return e;
}

// Whether both operands lie in the stream's own device, where the copy is
// one D2D descriptor whatever the kind says (but the staged kind).
bool OwnDeviceCopy(Stream &s, void *dst, const void *src, size_t count, int32_t k) {
    const npu::rt::DeviceSession &own = s.session();
    return k != ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE && own.InAperture(dst, count) &&
           own.InAperture(src, count);
}

Error SubmitOwnDeviceCopy(Stream &s, void *dst, const void *src, size_t count) {
    if (dst == src)
        return Error::Ok();
    struct npu_sqe sqe = {};
    sqe.opcode = NPU_OP_COPY;
    sqe.dir = NPU_DIR_D2D;
    sqe.dst = reinterpret_cast<uint64_t>(dst);
    sqe.src = reinterpret_cast<uint64_t>(src);
    sqe.len = count;
    return s.Submit(&sqe, 1, nullptr);
}

Error MemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, int32_t k,
                  aclrtStream stream) {
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
    NPU_RT_CHECK(count <= destMax, "count %zu is larger than destMax %zu", count, destMax);
    // The common case first: a stream of the current context (the pin
    // keeps the context alive, so its identity is all the check needs) and
    // both operands in its device. Any other case, errors included, is
    // decided below with a reference to the context.
    if (ref && ThreadState::IsCurrent(ref->context()) &&
        OwnDeviceCopy(*ref.get(), dst, src, count, k))
        return SubmitOwnDeviceCopy(*ref.get(), dst, src, count);

    std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
    if (!ctx)
        return npu::rt::NoContextError();
    NPU_RETURN_IF_ERROR(npu::rt::UseStream(*ctx, &ref));
    Stream &s = *ref.get();
    npu::rt::DeviceSession &own = s.session();

    if (OwnDeviceCopy(s, dst, src, count, k)) {
        if (dst != src)
            NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        return SubmitOwnDeviceCopy(s, dst, src, count);
    }

    Operand d, sr;
    npu::rt::Classify(dst, count, &own, &d);
    npu::rt::Classify(src, count, &own, &sr);
    const CopyShape shape{ count, 1, count, count };
    if (k == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE) {
        NPU_RT_CHECK(d.loc == Loc::kDevice && sr.loc != Loc::kDevice,
                     "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE needs host src and device dst "
                     "(src %p, dst %p)",
                     src, dst);
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        return StagedCopy(s, *ctx, dst, src, count, d, sr);
    }
    int32_t eff = 0;
    NPU_RETURN_IF_ERROR(npu::rt::ReviseKind(k, sr.loc, d.loc, &eff));
    if (eff == ACL_MEMCPY_HOST_TO_HOST) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "asynchronous host-to-host copies are not supported (src %p, dst %p)",
                             src, dst);
    }
    if (dst == src)
        return Error::Ok();
    NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
    const bool wait = npu::rt::NeedsSyncFallback(eff, sr.loc, d.loc);
    return npu::rt::IssueCopy(s, *ctx, dst, src, shape, d, sr, wait, nullptr);
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

void Classify2d(void *dst, size_t dpitch, const void *src, size_t spitch, const CopyShape &sh,
                npu::rt::DeviceSession &own, Operand *d, Operand *sr) {
    npu::rt::Classify(dst, (sh.height - 1) * dpitch + sh.width, &own, d);
    npu::rt::Classify(src, (sh.height - 1) * spitch + sh.width, &own, sr);
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
    return MemcpyAsyncApi("aclrtMemcpyAsyncWithCondition", dst, destMax, src, count, kind,
                          stream);
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
        auto byte = static_cast<uint8_t>(static_cast<uint32_t>(value));
        return npu::rt::IssueMemset(*ref.get(), *ctx, devPtr, byte, count);
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
        Error err;
        Stream *s = ctx->streams().Internal(&err);
        if (s == nullptr)
            return err;
        const CopyShape shape{ width, height, dpitch, spitch };
        Operand d, sr;
        Classify2d(dst, dpitch, src, spitch, shape, s->session(), &d, &sr);
        int32_t eff = 0;
        NPU_RETURN_IF_ERROR(npu::rt::ReviseKind(k, sr.loc, d.loc, &eff));
        NPU_RT_CHECK(eff == ACL_MEMCPY_HOST_TO_DEVICE || eff == ACL_MEMCPY_DEVICE_TO_HOST,
                     "aclrtMemcpy2d from %p to %p is not host<->device (effective kind %d)", src,
                     dst, eff);
        return npu::rt::IssueCopy(*s, *ctx, dst, src, shape, d, sr, true, nullptr);
    });
}

aclError aclrtMemcpy2dAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                            size_t width, size_t height, aclrtMemcpyKind kind,
                            aclrtStream stream) {
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
        const CopyShape shape{ width, height, dpitch, spitch };
        Operand d, sr;
        Classify2d(dst, dpitch, src, spitch, shape, s.session(), &d, &sr);
        int32_t eff = 0;
        NPU_RETURN_IF_ERROR(npu::rt::ReviseKind(k, sr.loc, d.loc, &eff));
        NPU_RT_CHECK(eff != ACL_MEMCPY_HOST_TO_HOST,
                     "aclrtMemcpy2dAsync from %p to %p is host to host", src, dst);
        if (!ctx)
            return npu::rt::NoContextError();
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        const bool wait = npu::rt::NeedsSyncFallback(eff, sr.loc, d.loc);
        return npu::rt::IssueCopy(s, *ctx, dst, src, shape, d, sr, wait, nullptr);
    });
}
