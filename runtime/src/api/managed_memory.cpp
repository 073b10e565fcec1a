// SPDX-License-Identifier: MIT
// Managed (unified) memory: aclrtMemAllocManaged, aclrtMemManagedAdvise,
// aclrtMemManagedPrefetchAsync and aclrtMemManagedPrefetchBatchAsync. The host and the device share
// one copy of the bytes (core/managed_memory.h), so placement hints and prefetches have nothing to
// move: they are checked and accepted. aclrtFree frees managed memory (api/memory.cpp).
#include <cinttypes>
#include <cstdio>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/device_manager.h"
#include "core/managed_memory.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::ManagedMemory;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// A location a range can be placed at or accessed from: a device by its
// user id, or the host.
Error CheckLocation(const aclrtMemManagedLocation &location, const char *role) {
    const int32_t type = npu::rt::EnumValue(location.type);
    NPU_ACL_CHECK(
        type >= ACL_MEM_LOCATIONTYPE_DEVICE && type <= ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT,
        "%s.type %d is not a location type (ACL_MEM_LOCATIONTYPE_DEVICE .. "
        "_HOST_NUMA_CURRENT)",
        role, type);
    if (type == ACL_MEM_LOCATIONTYPE_DEVICE) {
        uint32_t phys = 0;
        Error e = npu::rt::DeviceManager::Get().ToPhysical(location.id, &phys);
        if (!e.ok()) {
            return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "%s.id %d is not a device id", role,
                                 location.id);
        }
    }
    return Error::Ok();
}

// [ptr, ptr + size) must lie in one managed allocation.
Error CheckManagedRange(const void *ptr, uint64_t size) {
    NPU_RT_CHECK(
        size <= SIZE_MAX && ManagedMemory::Get().Lookup(ptr, static_cast<size_t>(size), nullptr),
        "%p + %" PRIu64 " bytes is not inside one aclrtMemAllocManaged allocation", ptr, size);
    return Error::Ok();
}

}  // namespace

aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag) {
    return RunApi("aclrtMemAllocManaged", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %" PRIu64 ")", size);
        NPU_ACL_CHECK(flag == ACL_RT_MEM_ATTACH_GLOBAL,
                      "flag 0x%x is not ACL_RT_MEM_ATTACH_GLOBAL (1)", flag);
        NPU_RT_CHECK(size != 0, "size is 0");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return ManagedMemory::Get().Allocate(ctx->user_device_id(), size, ptr);
    });
}

aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
                               aclrtMemManagedAdviseType advise, aclrtMemManagedLocation location) {
    return RunApi("aclrtMemManagedAdvise", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %" PRIu64 ")", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        const int32_t a = npu::rt::EnumValue(advise);
        NPU_ACL_CHECK(a >= ACL_MEM_ADVISE_SET_READ_MOSTLY && a <= ACL_MEM_ADVISE_UNSET_ACCESSED_BY,
                      "advise %d is not one of ACL_MEM_ADVISE_* (0..5)", a);
        // Read-mostly and unsetting the preferred location name no location.
        if (a != ACL_MEM_ADVISE_SET_READ_MOSTLY && a != ACL_MEM_ADVISE_UNSET_READ_MOSTLY &&
            a != ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION)
            NPU_RETURN_IF_ERROR(CheckLocation(location, "location"));
        return CheckManagedRange(ptr, size);
    });
}

aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
                                      aclrtMemManagedLocation location, uint32_t flags,
                                      aclrtStream stream) {
    return RunApi("aclrtMemManagedPrefetchAsync", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %zu)", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        NPU_ACL_CHECK(flags == 0, "flags 0x%x is reserved and must be 0", flags);
        NPU_RETURN_IF_ERROR(CheckLocation(location, "location"));
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        // Nothing to migrate: queuing nothing keeps the stream's order.
        return CheckManagedRange(ptr, size);
    });
}

// prefetchLocs[i] is where the ranges from prefetchLocIdxs[i] up to the
// next index go: the indices start at 0 and increase, each below count.
aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
                                           aclrtMemManagedLocation *prefetchLocs,
                                           size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                           uint64_t flags, aclrtStream stream) {
    return RunApi("aclrtMemManagedPrefetchBatchAsync", [&] {
        NPU_ACL_CHECK(ptrs != nullptr, "ptrs is NULL (count %zu)", count);
        NPU_ACL_CHECK(sizes != nullptr, "sizes is NULL (count %zu)", count);
        NPU_ACL_CHECK(count != 0, "count is 0");
        NPU_ACL_CHECK(prefetchLocs != nullptr, "prefetchLocs is NULL");
        NPU_ACL_CHECK(prefetchLocIdxs != nullptr, "prefetchLocIdxs is NULL");
        NPU_ACL_CHECK(numPrefetchLocs != 0 && numPrefetchLocs <= count,
                      "numPrefetchLocs %zu is not in 1..count (%zu)", numPrefetchLocs, count);
        NPU_ACL_CHECK(flags == 0, "flags 0x%" PRIx64 " is reserved and must be 0", flags);
        for (size_t i = 0; i < numPrefetchLocs; ++i) {
            NPU_ACL_CHECK(
                i == 0 ? prefetchLocIdxs[0] == 0
                       : prefetchLocIdxs[i] > prefetchLocIdxs[i - 1] && prefetchLocIdxs[i] < count,
                "prefetchLocIdxs[%zu] = %zu: the indices must start at 0, increase "
                "and stay below count (%zu)",
                i, prefetchLocIdxs[i], count);
            char role[40];
            std::snprintf(role, sizeof(role), "prefetchLocs[%zu]", i);
            NPU_RETURN_IF_ERROR(CheckLocation(prefetchLocs[i], role));
        }
        for (size_t i = 0; i < count; ++i) {
            NPU_ACL_CHECK(ptrs[i] != nullptr, "ptrs[%zu] is NULL", i);
            NPU_ACL_CHECK(sizes[i] != 0, "sizes[%zu] is 0", i);
        }
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        for (size_t i = 0; i < count; ++i)
            NPU_RETURN_IF_ERROR(CheckManagedRange(ptrs[i], sizes[i]));
        return Error::Ok();
    });
}
