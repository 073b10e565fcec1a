// SPDX-License-Identifier: MIT
// Linear device memory: allocate in the current context's device, free from
// any device, and find the allocation that contains an address.
#ifndef NPU_RT_CORE_DEVICE_MEMORY_H
#define NPU_RT_CORE_DEVICE_MEMORY_H

#include <cstddef>
#include <cstdint>

#include "core/context.h"
#include "core/error.h"
#include "core/malloc_policy.h"

namespace npu::rt {

// Allocates req in ctx's device and registers it; requested is the size the
// caller asked for. Out of device memory is ACL_ERROR_RT_MEMORY_ALLOCATION.
Error AllocateDeviceMemory(Context &ctx, size_t requested, const DeviceAllocRequest &req,
                           void **out);

// Frees the allocation whose base is ptr, on whichever device it lives. No
// context is needed. A pointer that is not a live allocation base is
// ACL_ERROR_RT_PARAM_INVALID.
Error FreeDeviceMemory(void *ptr);

// Base and (page-rounded) size of what contains ptr (aclrtMemGetAddressRange):
// a device allocation or import, the VMM mapping at ptr (not the whole
// reservation; 107000 where nothing is mapped), or aclrtMallocHost memory.
Error DeviceAddressRange(const void *ptr, void **base, size_t *size);

// What the driver has mapped at ptr, an address in session's aperture
// (aclrtPointerGetAttributes): an allocation, IPC import or VMM mapping
// gives its page size; a hole or a reservation with nothing mapped there is
// ACL_ERROR_RT_PARAM_INVALID.
Error DeviceMappingPageSize(DeviceSession &session, const void *ptr, uint32_t *page_size);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_DEVICE_MEMORY_H
