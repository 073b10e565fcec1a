// SPDX-License-Identifier: MIT
// The guarded copy of this process's own memory, for the runtime's staging
// of small synchronous copies from pageable memory on a device in another
// process (npud): the driver would otherwise read or write that memory
// through /proc/PID/mem, two system calls of the daemon per copy.
#ifndef NPU_HAL_HAL_HOST_COPY_H
#define NPU_HAL_HAL_HOST_COPY_H

#include <cstddef>

namespace npu::hal {

// Copies n bytes; from_host: src is the program's memory that may be bad,
// else dst is. A bad address ends the copy at its first bad page, as a
// driver's user copy does, instead of crashing. Returns the bytes not copied.
size_t HostCopyGuarded(void *dst, const void *src, size_t n, bool from_host);

}  // namespace npu::hal

#endif  // NPU_HAL_HAL_HOST_COPY_H
