// SPDX-License-Identifier: MIT
// 32-bit pattern fills (aclrtMemsetD32[Async]) on a stream's ring. The
// engines fill with a byte (NPU_OP_MEMSET), so a word whose four bytes
// differ is built from copies instead; see fill32.cpp.
#ifndef NPU_RT_CORE_FILL32_H
#define NPU_RT_CORE_FILL32_H

#include <cstddef>
#include <cstdint>

#include "core/error.h"

namespace npu::rt {

class Stream;

// Queues on s the fill of n (> 0) 32-bit words at ptr with value. ptr is
// device memory of s's device (device true) or pinned host memory, 4-byte
// aligned, and [ptr, ptr + 4n) lies inside one allocation (the caller
// checked). wait: return once the fill is done, with the stream's first
// task error.
Error IssueFill32(Stream &s, void *ptr, uint32_t value, size_t n, bool device, bool wait);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_FILL32_H
