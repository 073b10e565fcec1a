// SPDX-License-Identifier: MIT
// The memory type of an address, as aclrtCheckMemType classifies it
// (ACL_RT_MEM_TYPE_* of acl_rt.h).
#ifndef NPU_RT_CORE_MEM_TYPE_H
#define NPU_RT_CORE_MEM_TYPE_H

#include <cstdint>

namespace npu::rt {

// ACL_RT_MEM_TYPE_DEV for an address inside device memory from the
// aclrtMalloc family or an IPC import; ACL_RT_MEM_TYPE_RSVD for an address
// inside a range from aclrtReserveMemAddress (mapped or not); 0 for any
// other address. The emulated device has no DVPP memory
// (ACL_RT_MEM_TYPE_DVPP). O(log n) in the allocations of the device.
uint32_t MemTypeOf(const void *ptr);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MEM_TYPE_H
