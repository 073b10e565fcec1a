// SPDX-License-Identifier: MIT
// Payloads of the TDT channels and queues in device memory (tdt_payload.h).
#include "core/tdt_payload.h"

#include <cstdint>

#include "acl/acl.h"
#include "core/copy_plan.h"
#include "core/device_manager.h"
#include "core/device_memory.h"
#include "core/malloc_policy.h"

namespace npu::rt {

namespace {

// A context of device, which keeps its session open while held.
Error ContextOf(int32_t device, std::shared_ptr<Context> *out) {
    auto contexts = DeviceManager::Get().ContextsOf(device);
    if (contexts.empty())
        return Error::Format(ACL_ERROR_RT_CONTEXT_NULL,
                             "device %d has no context (aclrtSetDevice was not called for it, "
                             "or it was reset)",
                             device);
    *out = std::move(contexts.front());
    return Error::Ok();
}

}  // namespace

Error TdtStorePayload(int32_t device, const void *host, size_t size, TdtPayload *out) {
    *out = TdtPayload{};
    out->device = device;
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ContextOf(device, &ctx));
    out->session = ctx->session_ptr();
    if (size == 0)
        return Error::Ok();
    // As aclrtMalloc: the driver's rounding must not overflow.
    if (size > SIZE_MAX - 64)
        return Error::Format(ACL_ERROR_INVALID_PARAM, "size %zu is too large", size);
    const auto req = TranslateMalloc(MallocApi::kMalloc, size, ACL_MEM_MALLOC_HUGE_FIRST);
    void *dev = nullptr;
    NPU_RETURN_IF_ERROR(AllocateDeviceMemory(*ctx, size, req, &dev));
    Error e = CopyNow(*ctx, dev, host, size);
    if (!e.ok()) {
        (void)FreeDeviceMemory(dev);
        return e;
    }
    out->dev_ptr = dev;
    out->size = size;
    return Error::Ok();
}

Error TdtLoadPayload(const TdtPayload &p, void *host) {
    if (p.size == 0)
        return Error::Ok();
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ContextOf(p.device, &ctx));
    if (ctx->session_ptr() != p.session.lock())
        return Error::Format(ACL_ERROR_FAILURE,
                             "device %d was reset after the data was sent: its copy on the "
                             "device is gone",
                             p.device);
    return CopyNow(*ctx, host, p.dev_ptr, p.size);
}

void TdtReleasePayload(TdtPayload *p) {
    if (p->dev_ptr != nullptr) {
        // The context, while held, keeps the session (and so the memory)
        // from going away between the check and the free.
        auto contexts = DeviceManager::Get().ContextsOf(p->device);
        const auto session = p->session.lock();
        if (!contexts.empty() && session != nullptr && contexts.front()->session_ptr() == session)
            (void)FreeDeviceMemory(p->dev_ptr);
    }
    *p = TdtPayload{};
}

}  // namespace npu::rt
