// SPDX-License-Identifier: MIT
#include "core/memcpy_desc.h"

#include "core/copy_plan.h"
#include "core/stream.h"

namespace npu::rt {

size_t MemcpyDescSize() {
    return sizeof(struct npu_copy_ind);
}

Error WriteMemcpyDesc(const Context &ctx, void *desc, const void *src, void *dst, size_t count) {
    struct npu_copy_ind rec = {};
    rec.src = reinterpret_cast<uint64_t>(src);
    rec.dst = reinterpret_cast<uint64_t>(dst);
    rec.len = count;
    return CopyNow(ctx, desc, &rec, sizeof(rec));
}

Error IssueMemcpyDesc(Stream &s, void *desc) {
    struct npu_sqe sqe = {};
    sqe.opcode = NPU_OP_COPY_INDIRECT;
    sqe.dir = NPU_DIR_D2D;
    sqe.src = reinterpret_cast<uint64_t>(desc);
    return s.Submit(&sqe, 1, nullptr);
}

Error IssueMemcpyWithOffset(Stream &s, void *const *dst_slot, size_t dst_off,
                            const void *const *src_slot, size_t src_off, size_t count) {
    struct npu_sqe sqe = {};
    sqe.opcode = NPU_OP_COPY_DEREF;
    sqe.dir = NPU_DIR_D2D;
    sqe.dst = reinterpret_cast<uint64_t>(dst_slot);
    sqe.src = reinterpret_cast<uint64_t>(src_slot);
    sqe.len = count;
    sqe.dst_off = dst_off;
    sqe.src_off = src_off;
    return s.Submit(&sqe, 1, nullptr);
}

}  // namespace npu::rt
