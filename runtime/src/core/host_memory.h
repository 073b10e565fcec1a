// SPDX-License-Identifier: MIT
// HostMemory: the process's pinned host memory, from the pinned pool
// (aclrtMallocHost*) and from aclrtHostRegister*. The copy paths ask it
// whether a host range can go to the engines directly (pinned) or needs the
// synchronous fallback of aclrtMemcpyAsync; aclrtPointerGetAttributes asks it what a
// host pointer is. All functions are thread safe.
#ifndef NPU_RT_CORE_HOST_MEMORY_H
#define NPU_RT_CORE_HOST_MEMORY_H

#include <cstddef>
#include <cstdint>

namespace npu::rt {

struct HostMemoryInfo {
    enum class Kind { kMallocHost, kRegistered };
    Kind kind = Kind::kMallocHost;
    void *base = nullptr;  // start of the whole range ptr lies in
    size_t size = 0;
    // The device address aclrtHostGetDevicePointer returns for base, or
    // nullptr when the range has none.
    void *device_base = nullptr;
};

// Whether [ptr, ptr + len) lies entirely inside one pinned range; fills
// *info (may be null) when it does.
bool LookupHostMemory(const void *ptr, size_t len, HostMemoryInfo *info);

// Whether the engines of physical device phys_id can copy [ptr, ptr + len)
// directly: inside one pinned range that is registered with that device.
bool HostMemoryPinnedFor(const void *ptr, size_t len, uint32_t phys_id);

// Pinned memory for the runtime's own staging (ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE),
// from the same pool, invisible to LookupHostMemory. nullptr when the pool
// is exhausted. Free with FreePinnedStaging once the copy has completed.
void *AllocPinnedStaging(size_t size);
void FreePinnedStaging(void *ptr);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_HOST_MEMORY_H
