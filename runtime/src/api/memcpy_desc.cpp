// SPDX-License-Identifier: MIT
// Copies whose operands are read from device memory when they run:
// memory-copy descriptors (aclrtGetMemcpyDescSize, aclrtSetMemcpyDesc,
// aclrtMemcpyAsyncWithDesc) and copies with offsets
// (aclrtMemcpyAsyncWithOffset), after the CANN API reference of each. Only
// ACL_MEMCPY_INNER_DEVICE_TO_DEVICE copies have them, as upstream.
#include <cstdint>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/copy_plan.h"
#include "core/device_memory.h"
#include "core/device_session.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::DeviceSession;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

constexpr size_t kDescAlign = 64;
constexpr uint64_t kMaxCount = 4ULL << 30;

Error CheckKindRange(int32_t k) {
    NPU_ACL_CHECK(k >= ACL_MEMCPY_HOST_TO_HOST && k <= ACL_MEMCPY_INNER_DEVICE_TO_DEVICE + 1,
                  "kind %d is not a copy kind (0..7)", k);
    return Error::Ok();
}

Error CheckInnerKind(int32_t k) {
    if (k != ACL_MEMCPY_INNER_DEVICE_TO_DEVICE) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "kind %d has no copy descriptors (only "
                             "ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, 6)",
                             k);
    }
    return Error::Ok();
}

// Drivers before ABI 1.5 have no descriptor engine, as upstream's chips
// without one.
Error CheckDescEngine(const DeviceSession &s) {
    if (!s.has_copy_indirect()) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "the driver of device %d has no copy-descriptor engine (it needs "
                             "ABI 1.5)",
                             s.user_id());
    }
    return Error::Ok();
}

// Drivers before ABI 1.7 cannot read a copy's base addresses from device
// memory, as upstream's chips without the feature.
Error CheckDerefEngine(const DeviceSession &s) {
    if (!s.has_copy_deref()) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "the driver of device %d cannot run copies with offsets (it needs "
                             "ABI 1.7)",
                             s.user_id());
    }
    return Error::Ok();
}

// The device whose memory ptr is, as aclrtPointerGetAttributes sees it:
// an address with nothing mapped is 107000, host memory of any kind too.
// (The slots of copies with offsets are 8-byte aligned: the byte at ptr
// says where all of them live.)
Error DeviceOf(const void *ptr, const char *role, std::shared_ptr<DeviceSession> *out) {
    npu::rt::PointerInfo where;
    npu::rt::LocatePointer(ptr, &where);
    NPU_RT_CHECK(where.kind == npu::rt::PtrKind::kDevice, "%s %p is not device memory", role, ptr);
    uint32_t page_size = 0;
    NPU_RETURN_IF_ERROR(npu::rt::DeviceMappingPageSize(*where.dev, ptr, &page_size));
    *out = std::move(where.dev);
    return Error::Ok();
}

}  // namespace

aclError aclrtGetMemcpyDescSize(aclrtMemcpyKind kind, size_t *descSize) {
    return RunApi("aclrtGetMemcpyDescSize", [&] {
        const int32_t k = npu::rt::EnumValue(kind);
        NPU_ACL_CHECK(descSize != nullptr, "descSize is NULL (kind %d)", k);
        NPU_RETURN_IF_ERROR(CheckKindRange(k));
        NPU_RETURN_IF_ERROR(CheckInnerKind(k));
        *descSize = npu::rt::MemcpyDescSize();
        return Error::Ok();
    });
}

aclError aclrtSetMemcpyDesc(void *desc, aclrtMemcpyKind kind, void *srcAddr, void *dstAddr,
                            size_t count, void *config) {
    return RunApi("aclrtSetMemcpyDesc", [&] {
        const int32_t k = npu::rt::EnumValue(kind);
        NPU_ACL_CHECK(desc != nullptr, "desc is NULL");
        NPU_RETURN_IF_ERROR(CheckKindRange(k));
        NPU_ACL_CHECK(srcAddr != nullptr, "srcAddr is NULL");
        NPU_ACL_CHECK(dstAddr != nullptr, "dstAddr is NULL");
        NPU_ACL_CHECK(count != 0, "count is 0");
        NPU_ACL_CHECK(config == nullptr, "config %p is reserved and must be NULL", config);
        NPU_RETURN_IF_ERROR(CheckInnerKind(k));
        NPU_RT_CHECK(count <= kMaxCount, "count %zu is over 4 GiB", count);
        NPU_RT_CHECK(reinterpret_cast<uintptr_t>(desc) % kDescAlign == 0,
                     "desc %p is not 64-byte aligned", desc);
        std::shared_ptr<DeviceSession> d, s, t;
        NPU_RETURN_IF_ERROR(DeviceOf(desc, "desc", &d));
        NPU_RETURN_IF_ERROR(CheckDescEngine(*d));
        NPU_RETURN_IF_ERROR(DeviceOf(srcAddr, "srcAddr", &s));
        NPU_RETURN_IF_ERROR(DeviceOf(dstAddr, "dstAddr", &t));
        NPU_RT_CHECK(s == t,
                     "srcAddr %p (device %d) and dstAddr %p (device %d) are not memory of "
                     "the same device",
                     srcAddr, s->user_id(), dstAddr, t->user_id());
        // The engine of the copy's device reads the record in its own memory.
        NPU_RT_CHECK(d == s, "desc %p is memory of device %d, the copy's memory is on device %d",
                     desc, d->user_id(), s->user_id());
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return npu::rt::WriteMemcpyDesc(*ctx, desc, srcAddr, dstAddr, count);
    });
}

aclError aclrtMemcpyAsyncWithDesc(void *desc, aclrtMemcpyKind kind, aclrtStream stream) {
    return RunApi("aclrtMemcpyAsyncWithDesc", [&] {
        const int32_t k = npu::rt::EnumValue(kind);
        NPU_ACL_CHECK(desc != nullptr, "desc is NULL");
        NPU_RETURN_IF_ERROR(CheckKindRange(k));
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL (the default stream is not allowed)");
        NPU_RETURN_IF_ERROR(CheckInnerKind(k));
        std::shared_ptr<DeviceSession> d;
        NPU_RETURN_IF_ERROR(DeviceOf(desc, "desc", &d));
        NPU_RETURN_IF_ERROR(CheckDescEngine(*d));
        NPU_RT_CHECK(reinterpret_cast<uintptr_t>(desc) % kDescAlign == 0,
                     "desc %p is not 64-byte aligned", desc);
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
        if (!ctx)
            return npu::rt::NoContextError();
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        NPU_RT_CHECK(d.get() == &ref->session(),
                     "desc %p is memory of device %d, the stream runs on device %d", desc,
                     d->user_id(), ref->session().user_id());
        npu::rt::CopyRequest req;
        req.op = npu::rt::CopyOp::kCopyIndirect;
        req.src = desc;
        return npu::rt::PlanAndExecute(ref.get(), ctx.get(), req);
    });
}

// dst and src are the device addresses of two 8-byte slots holding base
// addresses; the copy reads them when it runs. Only count is bounded by
// destMax: the offsets move the bases, whose ranges the engine checks.
aclError aclrtMemcpyAsyncWithOffset(void **dst, size_t destMax, size_t dstDataOffset,
                                    const void **src, size_t count, size_t srcDataOffset,
                                    aclrtMemcpyKind kind, aclrtStream stream) {
    return RunApi("aclrtMemcpyAsyncWithOffset", [&] {
        if (count == 0)
            return Error::Ok();
        const int32_t k = npu::rt::EnumValue(kind);
        NPU_RT_CHECK(dst != nullptr, "dst (the slot of the destination's base address) is NULL");
        NPU_RT_CHECK(src != nullptr, "src (the slot of the source's base address) is NULL");
        NPU_RT_CHECK(k == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE,
                     "kind %d is not ACL_MEMCPY_INNER_DEVICE_TO_DEVICE (6), the only kind of "
                     "copies with offsets",
                     k);
        NPU_RT_CHECK(count <= destMax, "count %zu is larger than destMax %zu", count, destMax);
        NPU_RT_CHECK(reinterpret_cast<uintptr_t>(dst) % sizeof(uint64_t) == 0,
                     "dst slot %p is not 8-byte aligned", static_cast<void *>(dst));
        NPU_RT_CHECK(reinterpret_cast<uintptr_t>(src) % sizeof(uint64_t) == 0,
                     "src slot %p is not 8-byte aligned", static_cast<const void *>(src));
        std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
        if (!ctx)
            return npu::rt::NoContextError();
        NPU_RETURN_IF_ERROR(npu::rt::UseStream(*ctx, &ref));
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        DeviceSession &own = ref->session();
        NPU_RETURN_IF_ERROR(CheckDerefEngine(own));
        std::shared_ptr<DeviceSession> d, s;
        NPU_RETURN_IF_ERROR(DeviceOf(dst, "dst slot", &d));
        NPU_RETURN_IF_ERROR(DeviceOf(src, "src slot", &s));
        // The engine of the stream's device reads the slots in its own memory.
        NPU_RT_CHECK(d.get() == &own,
                     "dst slot %p is memory of device %d, the stream runs on device %d",
                     static_cast<void *>(dst), d->user_id(), own.user_id());
        NPU_RT_CHECK(s.get() == &own,
                     "src slot %p is memory of device %d, the stream runs on device %d",
                     static_cast<const void *>(src), s->user_id(), own.user_id());
        npu::rt::CopyRequest req;
        req.op = npu::rt::CopyOp::kCopyDeref;
        req.dst = static_cast<void *>(dst);
        req.src = static_cast<const void *>(src);
        req.shape.width = count;
        req.dst_off = dstDataOffset;
        req.src_off = srcDataOffset;
        return npu::rt::PlanAndExecute(ref.get(), ctx.get(), req);
    });
}
