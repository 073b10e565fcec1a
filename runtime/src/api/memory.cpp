// SPDX-License-Identifier: MIT
// The aclrtMalloc family (with aclrtMallocForTaskScheduler) and aclrtFree
//.
#include <cstdint>
#include <optional>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/device_memory.h"
#include "core/managed_memory.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::DeviceManager;
using npu::rt::Error;
using npu::rt::MallocApi;
using npu::rt::RunApi;
using npu::rt::ThreadState;

namespace {

uint32_t PolicyBits(const aclrtMemMallocPolicy &policy) {
    return static_cast<uint32_t>(npu::rt::EnumValue(policy));
}

// aclrtMalloc, aclrtMallocAlign32 and aclrtMallocCached share their checks.
Error MallocCommon(MallocApi api, void **devPtr, size_t size, uint32_t policy) {
    NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL (size %zu, policy 0x%x)", size, policy);
    NPU_ACL_CHECK(size != 0, "size is 0 (policy 0x%x)", policy);
    NPU_ACL_CHECK(size <= SIZE_MAX - 64, "size %zu is too large (size + 64 overflows)", size);
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    auto req = npu::rt::TranslateMalloc(api, size, policy);
    return npu::rt::AllocateDeviceMemory(*ctx, size, req, devPtr);
}

// The attributes of aclrtMallocWithCfg: only RSV (ignored), MODULE_ID (a
// diagnostic tag) and DEVICE_ID (must name the current device) are allowed
// for device memory; a repeated type: the last one wins.
Error CheckMallocAttributes(const Context &ctx, const aclrtMallocConfig &cfg) {
    std::optional<uint32_t> device_id;
    for (size_t i = 0; i < cfg.numAttrs; ++i) {
        const aclrtMallocAttribute &a = cfg.attrs[i];
        switch (npu::rt::EnumValue(a.attr)) {
            case ACL_RT_MEM_ATTR_RSV:
            case ACL_RT_MEM_ATTR_MODULE_ID:
                break;
            case ACL_RT_MEM_ATTR_DEVICE_ID:
                device_id = a.value.deviceId;
                break;
            default:
                return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                     "cfg->attrs[%zu].attr %d is not allowed for device memory", i,
                                     npu::rt::EnumValue(a.attr));
        }
    }
    if (device_id) {
        uint32_t phys = 0;
        Error e = DeviceManager::Get().ToPhysical(static_cast<int32_t>(*device_id), &phys);
        if (!e.ok() || phys != ctx.session().physical_id()) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "ACL_RT_MEM_ATTR_DEVICE_ID %u is not the current device %d",
                                 *device_id, ctx.user_device_id());
        }
    }
    return Error::Ok();
}

// aclrtMallocWithCfg and aclrtMallocForTaskScheduler.
Error MallocWithCfg(void **devPtr, size_t size, uint32_t bits, aclrtMallocConfig *cfg) {
    NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL (size %zu, policy 0x%x)", size, bits);
    NPU_ACL_CHECK(cfg == nullptr || cfg->numAttrs == 0 || cfg->attrs != nullptr,
                  "cfg->attrs is NULL but cfg->numAttrs is %zu",
                  cfg != nullptr ? cfg->numAttrs : 0);
    NPU_ACL_CHECK(size != 0, "size is 0 (policy 0x%x)", bits);
    NPU_ACL_CHECK(size <= SIZE_MAX - 64, "size %zu is too large (rounding overflows)", size);
    NPU_RT_CHECK(cfg == nullptr || cfg->attrs != nullptr,
                 "cfg is not NULL but cfg->attrs is NULL (numAttrs 0)");
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    if (cfg != nullptr)
        NPU_RETURN_IF_ERROR(CheckMallocAttributes(*ctx, *cfg));
    auto req = npu::rt::TranslateMalloc(MallocApi::kMallocWithCfg, size, bits);
    return npu::rt::AllocateDeviceMemory(*ctx, size, req, devPtr);
}

// aclrtFree frees device memory and managed memory (aclrtMemAllocManaged).
Error FreeDeviceOrManaged(void *devPtr) {
    if (npu::rt::ManagedMemory::Get().Lookup(devPtr, 0, nullptr))
        return npu::rt::ManagedMemory::Get().Free(devPtr);
    return npu::rt::FreeDeviceMemory(devPtr);
}

}  // namespace

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return RunApi("aclrtMalloc", [&] {
        return MallocCommon(MallocApi::kMalloc, devPtr, size, PolicyBits(policy));
    });
}

aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return RunApi("aclrtMallocAlign32", [&] {
        return MallocCommon(MallocApi::kMallocAlign32, devPtr, size, PolicyBits(policy));
    });
}

aclError aclrtMallocCached(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return RunApi("aclrtMallocCached", [&] {
        return MallocCommon(MallocApi::kMallocCached, devPtr, size, PolicyBits(policy));
    });
}

aclError aclrtMallocWithCfg(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                            aclrtMallocConfig *cfg) {
    return RunApi("aclrtMallocWithCfg",
                  [&] { return MallocWithCfg(devPtr, size, PolicyBits(policy), cfg); });
}

// Device memory for the task scheduler of graph mode: the same memory and
// the same checks as aclrtMallocWithCfg.
aclError aclrtMallocForTaskScheduler(void **devPtr, size_t size, aclrtMemMallocPolicy policy,
                                     aclrtMallocConfig *cfg) {
    return RunApi("aclrtMallocForTaskScheduler",
                  [&] { return MallocWithCfg(devPtr, size, PolicyBits(policy), cfg); });
}

aclError aclrtFree(void *devPtr) {
    return RunApi("aclrtFree", [&] {
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL");
        return FreeDeviceOrManaged(devPtr);
    });
}

aclError aclrtFreeWithDevSync(void *devPtr) {
    return RunApi("aclrtFreeWithDevSync", [&] {
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL");
        // As aclrtFreeHostWithDevSync: the device-wide synchronisation is
        // aclrtSynchronizeDevice of the current device; without a context
        // (aclrtFree needs none) this thread has nothing to wait for.
        if (ThreadState::CurrentContext()) {
            aclError sync = aclrtSynchronizeDevice();
            if (sync != ACL_SUCCESS)
                return Error::Format(sync, "synchronising the device before the free failed");
        }
        return FreeDeviceOrManaged(devPtr);
    });
}
