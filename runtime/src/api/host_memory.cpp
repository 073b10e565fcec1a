// SPDX-License-Identifier: MIT
// Pinned host memory and host registration: aclrtMallocHost[WithCfg],
// aclrtFreeHost[WithDevSync] and aclrtHostRegister,
// aclrtHostRegisterV2, aclrtHostGetDevicePointer, aclrtHostUnregister
//.
#include <cstdint>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/host_memory.h"
#include "core/host_pool.h"
#include "core/managed_memory.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::DeviceManager;
using npu::rt::Error;
using npu::rt::HostMemoryInfo;
using npu::rt::HostPool;
using npu::rt::RunApi;
using npu::rt::ThreadState;

namespace {

constexpr uint64_t kHostPage = 4096;
constexpr uint32_t kRegisterTypeBits = ACL_HOST_REGISTER_IOMEMORY | ACL_HOST_REGISTER_READONLY;
constexpr uint64_t kRegisterV2Bits =
    ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY | ACL_HOST_REG_PINNED;

// The attributes of aclrtMallocHostWithCfg: only MODULE_ID (a diagnostic
// tag) and VA_FLAG. VA_FLAG 1 (a registration's device alias equals the
// host address) is what this runtime always does.
Error CheckHostMallocAttributes(const aclrtMallocConfig &cfg) {
    for (size_t i = 0; i < cfg.numAttrs; ++i) {
        const aclrtMallocAttribute &a = cfg.attrs[i];
        switch (npu::rt::EnumValue(a.attr)) {
            case ACL_RT_MEM_ATTR_MODULE_ID:
                break;
            case ACL_RT_MEM_ATTR_VA_FLAG:
                NPU_RT_CHECK(a.value.vaFlag <= 1, "cfg->attrs[%zu]: vaFlag %u is not 0 or 1", i,
                             a.value.vaFlag);
                break;
            default:
                return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                     "cfg->attrs[%zu].attr %d is not allowed for host memory", i,
                                     npu::rt::EnumValue(a.attr));
        }
    }
    return Error::Ok();
}

Error MallocHost(void **ptr, uint64_t size) {
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    if (size > SIZE_MAX) {
        return Error::Format(ACL_ERROR_RT_MEMORY_ALLOCATION, "size %llu is too large",
                             static_cast<unsigned long long>(size));
    }
    return HostPool::Get().Allocate(static_cast<size_t>(size), false, ptr);
}

// aclrtFreeHost's checks: a device or managed pointer is the wrong kind, anything but
// the start of a pool allocation is unknown.
Error FreeHost(void *hostPtr) {
    if (DeviceManager::Get().FindSession(hostPtr, 1)) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%p is device memory (free it with aclrtFree)", hostPtr);
    }
    if (npu::rt::ManagedMemory::Get().Lookup(hostPtr, 0, nullptr)) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%p is managed memory (free it with aclrtFree)", hostPtr);
    }
    return HostPool::Get().Free(hostPtr, false);
}

// aclrtHostRegister* of [ptr, ptr + size): the register APIs' common tail.
Error Register(void *ptr, uint64_t size, bool mapped) {
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    NPU_RT_CHECK(reinterpret_cast<uintptr_t>(ptr) % kHostPage == 0, "ptr %p is not 4 KiB aligned",
                 ptr);
    if (DeviceManager::Get().FindSession(ptr, 1)) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "%p is device memory, not host memory",
                             ptr);
    }
    return HostPool::Get().Register(ptr, size, mapped);
}

}  // namespace

aclError aclrtMallocHost(void **hostPtr, size_t size) {
    return RunApi("aclrtMallocHost", [&] {
        NPU_ACL_CHECK(hostPtr != nullptr, "hostPtr is NULL (size %zu)", size);
        NPU_ACL_CHECK(size != 0, "size is 0");
        return MallocHost(hostPtr, size);
    });
}

aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg) {
    return RunApi("aclrtMallocHostWithCfg", [&] {
        auto n = static_cast<unsigned long long>(size);
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %llu)", n);
        NPU_ACL_CHECK(size != 0, "size is 0");
        if (cfg != nullptr) {
            NPU_RT_CHECK(cfg->attrs != nullptr, "cfg->attrs is NULL (numAttrs %zu)", cfg->numAttrs);
            NPU_RETURN_IF_ERROR(CheckHostMallocAttributes(*cfg));
        }
        return MallocHost(ptr, size);
    });
}

aclError aclrtFreeHost(void *hostPtr) {
    return RunApi("aclrtFreeHost", [&] {
        NPU_ACL_CHECK(hostPtr != nullptr, "hostPtr is NULL");
        return FreeHost(hostPtr);
    });
}

aclError aclrtFreeHostWithDevSync(void *hostPtr) {
    return RunApi("aclrtFreeHostWithDevSync", [&] {
        NPU_ACL_CHECK(hostPtr != nullptr, "hostPtr is NULL");
        // The device-wide synchronisation is the streams' aclrtSynchronizeDevice
        // of the current device; without a context (allowed for FreeHost)
        // there is nothing of this thread's to wait for.
        if (ThreadState::CurrentContext()) {
            aclError sync = aclrtSynchronizeDevice();
            if (sync != ACL_SUCCESS && sync != ACL_ERROR_RT_FEATURE_NOT_SUPPORT) {
                return Error::Format(sync, "synchronising the device before the free failed");
            }
        }
        return FreeHost(hostPtr);
    });
}

aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr) {
    return RunApi("aclrtHostRegister", [&] {
        auto n = static_cast<unsigned long long>(size);
        int32_t t = npu::rt::EnumValue(type);
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %llu)", n);
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL (ptr %p)", ptr);
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        if ((static_cast<uint32_t>(t) & ~kRegisterTypeBits) != 0) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "type 0x%x is not supported",
                                 static_cast<uint32_t>(t));
        }
        NPU_RETURN_IF_ERROR(Register(ptr, size, true));
        *devPtr = ptr;
        return Error::Ok();
    });
}

aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag) {
    return RunApi("aclrtHostRegisterV2", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %llu)",
                      static_cast<unsigned long long>(size));
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        NPU_RT_CHECK(flag != 0 && (flag & ~kRegisterV2Bits) == 0,
                     "flag 0x%x is not an OR of ACL_HOST_REG_MAPPED, _IOMEMORY, _READONLY "
                     "and _PINNED",
                     flag);
        return Register(ptr, size, (flag & ACL_HOST_REG_MAPPED) != 0);
    });
}

aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag) {
    return RunApi("aclrtHostGetDevicePointer", [&] {
        NPU_ACL_CHECK(pHost != nullptr, "pHost is NULL");
        NPU_ACL_CHECK(pDevice != nullptr, "pDevice is NULL (pHost %p)", pHost);
        NPU_ACL_CHECK(flag == 0, "flag 0x%x must be 0", flag);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        HostMemoryInfo info;
        if (!npu::rt::LookupHostMemory(pHost, 1, &info) ||
            info.kind != HostMemoryInfo::Kind::kRegistered || info.device_base == nullptr) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "%p is not host memory registered with ACL_HOST_REG_MAPPED",
                                 pHost);
        }
        auto off = static_cast<char *>(pHost) - static_cast<char *>(info.base);
        *pDevice = static_cast<char *>(info.device_base) + off;
        return Error::Ok();
    });
}

aclError aclrtHostUnregister(void *ptr) {
    return RunApi("aclrtHostUnregister", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return HostPool::Get().Unregister(ptr);
    });
}
