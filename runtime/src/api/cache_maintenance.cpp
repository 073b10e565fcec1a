// SPDX-License-Identifier: MIT
// Cache maintenance: aclrtMemFlush, aclrtMemInvalidate,
// aclrtDeviceL2CacheFlush, aclrtCmoAsync and the descriptor form
// (aclrtCmoGetDescSize, aclrtCmoSetDesc, aclrtCmoAsyncWithDesc). The
// emulated device has no cache between its engines and its memory (every
// copy reads and writes the memory itself), so each call checks its
// arguments as upstream does and then has nothing left to do; a descriptor
// is still written, so that what it names can be read back.
#include <cstdint>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

Error CheckRange(void *devPtr, size_t size) {
    NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL (size %zu)", size);
    NPU_ACL_CHECK(size != 0, "size is 0 (devPtr %p)", devPtr);
    return Error::Ok();
}

// cmoType by reference: a C caller may pass any int, which a copy as the
// enum type would read (EnumValue copies the bits instead).
Error CheckCmoType(const aclrtCmoType &cmoType) {
    const int32_t type = npu::rt::EnumValue(cmoType);
    NPU_ACL_CHECK(type >= ACL_RT_CMO_TYPE_PREFETCH && type <= ACL_RT_CMO_TYPE_FLUSH,
                  "cmoType %d is not one of ACL_RT_CMO_TYPE_* (0..3)", type);
    return Error::Ok();
}

// A CMO descriptor (aclrtCmoSetDesc), in device memory the caller
// allocated with the size aclrtCmoGetDescSize gives, 64-byte aligned like
// a memory-copy descriptor.
struct CmoDesc {
    uint64_t src;
    uint64_t size;
    uint64_t reserved[6];
};
static_assert(sizeof(CmoDesc) == 64);
constexpr size_t kCmoDescAlign = 64;

Error CheckCmoDesc(const void *cmoDesc, npu::rt::Operand *out) {
    NPU_RT_CHECK(reinterpret_cast<uintptr_t>(cmoDesc) % kCmoDescAlign == 0,
                 "cmoDesc %p is not 64-byte aligned", cmoDesc);
    return npu::rt::ClassifyDeviceChecked(cmoDesc, sizeof(CmoDesc), "cmoDesc", out);
}

}  // namespace

aclError aclrtMemFlush(void *devPtr, size_t size) {
    return RunApi("aclrtMemFlush", [&] { return CheckRange(devPtr, size); });
}

aclError aclrtMemInvalidate(void *devPtr, size_t size) {
    return RunApi("aclrtMemInvalidate", [&] { return CheckRange(devPtr, size); });
}

aclError aclrtDeviceL2CacheFlush(void *rsv) {
    return RunApi("aclrtDeviceL2CacheFlush", [&] {
        NPU_ACL_CHECK(rsv == nullptr, "rsv %p is reserved and must be NULL", rsv);
        return Error::Ok();
    });
}

// Stream-ordered, but with nothing to do there is nothing to queue: the
// stream and the range are checked, and the call returns.
aclError aclrtCmoAsync(void *src, size_t size, aclrtCmoType cmoType, aclrtStream stream) {
    return RunApi("aclrtCmoAsync", [&] {
        NPU_ACL_CHECK(src != nullptr, "src is NULL (size %zu)", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (src %p)", src);
        NPU_RETURN_IF_ERROR(CheckCmoType(cmoType));
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        npu::rt::Operand op;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(src, size, "src", &op));
        NPU_RT_CHECK(op.dev == &ref->session(),
                     "src %p is memory of device %d, the stream runs on device %d", src,
                     op.dev->user_id(), ref->session().user_id());
        return Error::Ok();
    });
}

aclError aclrtCmoGetDescSize(size_t *size) {
    return RunApi("aclrtCmoGetDescSize", [&] {
        NPU_ACL_CHECK(size != nullptr, "size is NULL");
        *size = sizeof(CmoDesc);
        return Error::Ok();
    });
}

// Writes (src, size) into the descriptor, device memory of src's device,
// and waits for the write, as aclrtSetMemcpyDesc does.
aclError aclrtCmoSetDesc(void *cmoDesc, void *src, size_t size) {
    return RunApi("aclrtCmoSetDesc", [&] {
        NPU_ACL_CHECK(cmoDesc != nullptr, "cmoDesc is NULL");
        NPU_ACL_CHECK(src != nullptr, "src is NULL (size %zu)", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (src %p)", src);
        npu::rt::Operand desc_op, src_op;
        NPU_RETURN_IF_ERROR(CheckCmoDesc(cmoDesc, &desc_op));
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(src, size, "src", &src_op));
        NPU_RT_CHECK(desc_op.dev == src_op.dev,
                     "cmoDesc %p is memory of device %d, src %p of device %d", cmoDesc,
                     desc_op.dev->user_id(), src, src_op.dev->user_id());
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        CmoDesc rec = {};
        rec.src = reinterpret_cast<uint64_t>(src);
        rec.size = size;
        return npu::rt::CopyNow(*ctx, cmoDesc, &rec, sizeof(rec));
    });
}

// Stream-ordered like aclrtCmoAsync, and with as little to do: the
// descriptor and the stream are checked; what the descriptor names was
// checked when it was written.
aclError aclrtCmoAsyncWithDesc(void *cmoDesc, aclrtCmoType cmoType, aclrtStream stream,
                               const void *reserve) {
    return RunApi("aclrtCmoAsyncWithDesc", [&] {
        NPU_ACL_CHECK(cmoDesc != nullptr, "cmoDesc is NULL");
        NPU_RETURN_IF_ERROR(CheckCmoType(cmoType));
        NPU_ACL_CHECK(reserve == nullptr, "reserve %p is reserved and must be NULL", reserve);
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        npu::rt::Operand op;
        NPU_RETURN_IF_ERROR(CheckCmoDesc(cmoDesc, &op));
        NPU_RT_CHECK(op.dev == &ref->session(),
                     "cmoDesc %p is memory of device %d, the stream runs on device %d", cmoDesc,
                     op.dev->user_id(), ref->session().user_id());
        return Error::Ok();
    });
}
