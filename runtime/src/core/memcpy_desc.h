// SPDX-License-Identifier: MIT
// Memory-copy descriptors (aclrtSetMemcpyDesc, aclrtMemcpyAsyncWithDesc):
// a record in device memory naming a device-to-device copy, which the
// engine reads when the copy runs (NPU_OP_COPY_INDIRECT), so the caller
// may rewrite it after the copy is queued.
#ifndef NPU_RT_CORE_MEMCPY_DESC_H
#define NPU_RT_CORE_MEMCPY_DESC_H

#include <cstddef>

#include "core/error.h"

namespace npu::rt {

class Context;
class Stream;

// Bytes of a descriptor (struct npu_copy_ind), what aclrtGetMemcpyDescSize
// reports (the size of the A2/A3 class, which the emulated SoC is).
size_t MemcpyDescSize();

// Writes the record (src, dst, count) into desc, device memory, and waits
// for the write. The caller checked the operands.
Error WriteMemcpyDesc(const Context &ctx, void *desc, const void *src, void *dst, size_t count);

// Queues on s the copy that desc (device memory of s's device) describes
// when it runs. The engine checks the record then like any copy's
// operands: a bad record fails that task, never touches other memory.
Error IssueMemcpyDesc(Stream &s, void *desc);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MEMCPY_DESC_H
