// SPDX-License-Identifier: MIT
#include "core/device_memory.h"

#include <cerrno>
#include <cinttypes>

#include "core/checker.h"
#include "core/device_manager.h"
#include "core/host_memory.h"
#include "npu/hal.h"

namespace npu::rt {

Error AllocateDeviceMemory(Context &ctx, size_t requested, const DeviceAllocRequest &req,
                           void **out) {
    DeviceSession &session = ctx.session();
    struct npu_mem_alloc result = {};
    int err = npuHalMemAlloc(session.hal(), req.size, req.policy, req.flags, &result);
    if (err == -ENOMEM) {
        return Error::FromHal(err,
                              "device %d cannot provide %" PRIu64
                              " bytes (policy %u): the device is full or the process reached "
                              "its device memory limit",
                              session.user_id(), req.size, req.policy);
    }
    if (err == -ENOSPC) {
        return Error::FromHal(err,
                              "the process reached its limit of allocations on device %d "
                              "(npu-smi shows use and limits)",
                              session.user_id());
    }
    if (err != 0) {
        return Error::FromHal(err, "allocating %" PRIu64 " bytes on device %d failed", req.size,
                              session.user_id());
    }
    Allocation a = Allocation::Of(MemoryKind::kDevice, session.user_id(), result.va, requested,
                                  req.size, result.mapped_size, result.page_size);
    a.npu_flags = req.flags;
    session.allocations().Insert(a);
    if (check::On())
        check::DeviceAllocated(reinterpret_cast<void *>(static_cast<uintptr_t>(result.va)),
                               requested, session.user_id(), false);
    *out = reinterpret_cast<void *>(static_cast<uintptr_t>(result.va));
    return Error::Ok();
}

Error FreeDeviceMemory(void *ptr) {
    if (check::On())
        check::DeviceFreeing(ptr);
    std::shared_ptr<DeviceSession> session = DeviceManager::Get().FindSession(ptr, 1);
    if (!session) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "devPtr %p is not device memory of any set device", ptr);
    }
    uint64_t base = reinterpret_cast<uintptr_t>(ptr);
    std::optional<Allocation> found = session->allocations().Find(base);
    if (found && found->kind != MemoryKind::kDevice) {
        return Error::Format(
            ACL_ERROR_RT_PARAM_INVALID, "devPtr %p is %s, not aclrtMalloc memory (use %s)", ptr,
            found->kind == MemoryKind::kIpcImport ? "an IPC import" : "a VMM address",
            found->kind == MemoryKind::kIpcImport ? "aclrtIpcMemClose" : "aclrtUnmapMem");
    }
    if (!session->allocations().Remove(base)) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "devPtr %p is not the base of a live allocation on device %d "
                             "(interior pointer or double free)",
                             ptr, session->user_id());
    }
    int err = npuHalMemFree(session->hal(), base);
    if (err != 0)
        return Error::FromHal(err, "freeing devPtr %p on device %d", ptr, session->user_id());
    return Error::Ok();
}

Error DeviceAddressRange(const void *ptr, void **base, size_t *size) {
    std::shared_ptr<DeviceSession> session = DeviceManager::Get().FindSession(ptr, 1);
    std::optional<Allocation> a;
    if (session)
        a = session->allocations().Find(reinterpret_cast<uintptr_t>(ptr));
    if (a && a->kind == MemoryKind::kVmmReservation) {
        // The range is the mapping at ptr, which only the driver knows.
        struct npu_mem_query q = {};
        int err = npuHalMemQuery(session->hal(), reinterpret_cast<uintptr_t>(ptr), &q);
        if (err != 0) {
            return Error::FromHal(err, "cannot query address %p of device %d", ptr,
                                  session->user_id());
        }
        if (q.kind != NPU_MAPPING_VMM) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "ptr %p is reserved (aclrtReserveMemAddress) but nothing is "
                                 "mapped there",
                                 ptr);
        }
        *base = reinterpret_cast<void *>(static_cast<uintptr_t>(q.base));
        *size = static_cast<size_t>(q.size);
        return Error::Ok();
    }
    if (a) {
        *base = reinterpret_cast<void *>(static_cast<uintptr_t>(a->base));
        *size = static_cast<size_t>(a->mapped);
        return Error::Ok();
    }
    HostMemoryInfo host;
    if (!session && LookupHostMemory(ptr, 1, &host) &&
        host.kind == HostMemoryInfo::Kind::kMallocHost) {
        constexpr size_t kPage = 4096;
        *base = host.base;
        *size = (host.size + kPage - 1) & ~(kPage - 1);
        return Error::Ok();
    }
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                         "ptr %p is not inside a live device allocation, a mapped VMM range or "
                         "aclrtMallocHost memory",
                         ptr);
}

Error DeviceMappingPageSize(DeviceSession &session, const void *ptr, uint32_t *page_size) {
    struct npu_mem_query q = {};
    int err = npuHalMemQuery(session.hal(), reinterpret_cast<uint64_t>(ptr), &q);
    if (err != 0)
        return Error::FromHal(err, "cannot query address %p of device %d", ptr, session.user_id());
    // The driver answers for any address: NONE (a hole of the aperture, e.g.
    // freed memory) and RESERVED (a VMM reservation with nothing mapped
    // there) are addresses it cannot classify.
    if (q.kind == NPU_MAPPING_NONE || q.kind == NPU_MAPPING_RESERVED || q.page_size == 0) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%p is an address of device %d that nothing is mapped at%s", ptr,
                             session.user_id(),
                             q.kind == NPU_MAPPING_RESERVED ? " (reserved, not mapped)" : "");
    }
    *page_size = q.page_size;
    return Error::Ok();
}

}  // namespace npu::rt
