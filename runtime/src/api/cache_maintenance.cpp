// SPDX-License-Identifier: MIT
// Cache maintenance: aclrtMemFlush, aclrtMemInvalidate,
// aclrtDeviceL2CacheFlush and aclrtCmoAsync. The emulated device has no
// cache between its engines and its memory (every copy reads and writes
// the memory itself), so each call checks its arguments as upstream does
// and then has nothing left to do.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/copy_plan.h"
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
        const int32_t type = npu::rt::EnumValue(cmoType);
        NPU_ACL_CHECK(type >= ACL_RT_CMO_TYPE_PREFETCH && type <= ACL_RT_CMO_TYPE_FLUSH,
                      "cmoType %d is not one of ACL_RT_CMO_TYPE_* (0..3)", type);
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        npu::rt::Operand op;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyChecked(src, size, "src", &op));
        NPU_RT_CHECK(op.is_device(), "src %p is not device memory", src);
        NPU_RT_CHECK(op.dev == &ref->session(),
                     "src %p is memory of device %d, the stream runs on device %d", src,
                     op.dev->user_id(), ref->session().user_id());
        return Error::Ok();
    });
}
