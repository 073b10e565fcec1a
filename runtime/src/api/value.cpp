// SPDX-License-Identifier: MIT
// Stream memory operations: aclrtValueWrite and aclrtValueWait.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/context.h"
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

Error ValueOp(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream, bool wait) {
    NPU_ACL_CHECK(devAddr != nullptr, "devAddr is NULL");
    std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
    if (wait)
        NPU_RT_CHECK(flag < 4, "flag %u is not one of ACL_STREAM_WAIT_VALUE_* (0..3)", flag);
    else
        NPU_RT_CHECK(flag == 0, "flag %u is reserved and must be 0", flag);
    npu::rt::Operand op;
    NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(devAddr, sizeof(uint64_t), "devAddr", &op));
    // The engines store and load whole aligned words (emulator choice).
    NPU_RT_CHECK(reinterpret_cast<uintptr_t>(devAddr) % 8 == 0, "devAddr %p is not 8-byte aligned",
                 devAddr);
    if (!ctx)
        return npu::rt::NoContextError();
    NPU_RETURN_IF_ERROR(npu::rt::UseStream(*ctx, &ref));
    NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
    NPU_RT_CHECK(op.dev == &ref->session(),
                 "devAddr %p is memory of device %d, the stream runs on device %d", devAddr,
                 op.dev->user_id(), ref->session().user_id());
    npu::rt::CopyRequest req;
    req.op = wait ? npu::rt::CopyOp::kValueWait : npu::rt::CopyOp::kValueWrite;
    req.dst = devAddr;
    req.value = value;
    req.cond = wait ? flag : 0;
    return npu::rt::PlanAndExecute(ref.get(), ctx.get(), req);
}

}  // namespace

aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
    return RunApi("aclrtValueWrite", [&] { return ValueOp(devAddr, value, flag, stream, false); });
}

aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream) {
    return RunApi("aclrtValueWait", [&] { return ValueOp(devAddr, value, flag, stream, true); });
}
