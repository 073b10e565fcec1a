// SPDX-License-Identifier: MIT
// aclrtMemsetD32 and aclrtMemsetD32Async: fill N 32-bit words (the CANN
// API reference, aclrtMemsetD32). The fill itself is core/fill32.h.
#include <cstring>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/device_manager.h"
#include "core/device_memory.h"
#include "core/device_session.h"
#include "core/fill32.h"
#include "core/host_memory.h"
#include "core/managed_memory.h"
#include "core/copy_plan.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::DeviceSession;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::Stream;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// The checks upstream's ACL layer makes before the runtime: the pointer,
// its alignment, the room, and where the pointer lives (as
// aclrtPointerGetAttributes says: only device and ACL host memory can be
// filled). *device gets the session of device memory, null for host memory.
Error CheckTarget(void *ptr, size_t memSize, size_t N, std::shared_ptr<DeviceSession> *device) {
    NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (N %zu)", N);
    NPU_ACL_CHECK(reinterpret_cast<uintptr_t>(ptr) % sizeof(uint32_t) == 0,
                  "ptr %p is not 4-byte aligned", ptr);
    NPU_ACL_CHECK(N <= memSize / sizeof(uint32_t), "memSize %zu is smaller than 4 * N (N %zu)",
                  memSize, N);
    const size_t bytes = N * sizeof(uint32_t);
    if (std::shared_ptr<DeviceSession> s = npu::rt::DeviceManager::Get().FindSession(ptr, 1)) {
        uint32_t page_size = 0;
        NPU_RETURN_IF_ERROR(npu::rt::DeviceMappingPageSize(*s, ptr, &page_size));
        npu::rt::Operand op;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyChecked(ptr, bytes, "ptr", &op));
        *device = std::move(s);
        return Error::Ok();
    }
    NPU_ACL_CHECK(!npu::rt::ManagedMemory::Get().Lookup(ptr, 0, nullptr),
                  "ptr %p is managed memory (aclrtMemAllocManaged), which upstream does not fill",
                  ptr);
    NPU_ACL_CHECK(npu::rt::LookupHostMemory(ptr, 1, nullptr),
                  "ptr %p is neither device memory nor ACL host memory (aclrtMallocHost, "
                  "aclrtHostRegister)",
                  ptr);
    NPU_RT_CHECK(npu::rt::LookupHostMemory(ptr, bytes, nullptr),
                 "%zu bytes at ptr %p run past the end of its host allocation", bytes, ptr);
    device->reset();
    return Error::Ok();
}

// Fills on s: device memory of s's device, or host memory, on the ring
// when the device's engines can reach it, else on the CPU once s has
// drained (host memory that the backend could not pin).
Error Fill(Stream &s, void *ptr, uint32_t value, size_t N, const DeviceSession *device, bool wait) {
    DeviceSession &own = s.session();
    if (device != nullptr) {
        NPU_RT_CHECK(device == &own, "ptr %p is memory of device %d, the stream runs on device %d",
                     ptr, device->user_id(), own.user_id());
        return npu::rt::IssueFill32(s, ptr, value, N, true, wait);
    }
    if (npu::rt::HostMemoryPinnedFor(ptr, N * sizeof(uint32_t), own.physical_id()))
        return npu::rt::IssueFill32(s, ptr, value, N, false, wait);
    NPU_RETURN_IF_ERROR(s.Synchronize());
    auto *words = static_cast<char *>(ptr);
    for (size_t i = 0; i < N; ++i)
        std::memcpy(words + i * sizeof(uint32_t), &value, sizeof(value));
    return Error::Ok();
}

}  // namespace

// Upstream's ACL layer turns a 207000 of the runtime into success; this
// runtime never reports 207000 for a fill, so there is nothing to turn.
aclError aclrtMemsetD32(void *ptr, size_t memSize, uint32_t value, size_t N) {
    return RunApi("aclrtMemsetD32", [&] {
        if (N == 0)
            return Error::Ok();
        std::shared_ptr<DeviceSession> device;
        NPU_RETURN_IF_ERROR(CheckTarget(ptr, memSize, N, &device));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        Error err;
        Stream *s = ctx->streams().Internal(&err);
        if (s == nullptr)
            return err;
        return Fill(*s, ptr, value, N, device.get(), true);
    });
}

aclError aclrtMemsetD32Async(void *ptr, size_t memSize, uint32_t value, size_t N,
                             aclrtStream stream) {
    return RunApi("aclrtMemsetD32Async", [&] {
        if (N == 0)
            return Error::Ok();
        std::shared_ptr<DeviceSession> device;
        NPU_RETURN_IF_ERROR(CheckTarget(ptr, memSize, N, &device));
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        return Fill(*ref.get(), ptr, value, N, device.get(), false);
    });
}
