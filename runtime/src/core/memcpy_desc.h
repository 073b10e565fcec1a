// SPDX-License-Identifier: MIT
// Device-to-device copies whose operands the engine reads from device
// memory when the copy runs, so the caller may rewrite them after the copy
// is queued: memory-copy descriptors (aclrtSetMemcpyDesc,
// aclrtMemcpyAsyncWithDesc; NPU_OP_COPY_INDIRECT), a record naming the
// whole copy, and copies with offsets (aclrtMemcpyAsyncWithOffset;
// NPU_OP_COPY_DEREF), two slots holding the base addresses.
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

// Queues on s the copy of count bytes from *src_slot + src_off to
// *dst_slot + dst_off, each slot read when the copy runs. The caller
// checked that both slots are 8-byte aligned device memory of s's device;
// the engine checks the addresses the slots hold then, like any copy's: a
// bad one (or a sum that wraps) fails that task, never touches other
// memory.
Error IssueMemcpyWithOffset(Stream &s, void *const *dst_slot, size_t dst_off,
                            const void *const *src_slot, size_t src_off, size_t count);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MEMCPY_DESC_H
