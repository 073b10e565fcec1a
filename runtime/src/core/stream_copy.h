// SPDX-License-Identifier: MIT
// Copies and fills queued on a stream: where each operand lives (spec §6.2),
// the kind correction of spec §11.2, and the route a copy takes: one
// descriptor on the stream's ring when the ring can name both operands,
// else the synchronous path after the stream has drained.
#ifndef NPU_RT_CORE_STREAM_COPY_H
#define NPU_RT_CORE_STREAM_COPY_H

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/error.h"

namespace npu::rt {

class Context;
class DeviceSession;
class Stream;

enum class Loc {
    kDevice,        // inside a device aperture
    kHost,          // ACL host memory (aclrtMallocHost, aclrtHostRegister)
    kUnregistered,  // any other host memory
};

struct Operand {
    Loc loc = Loc::kUnregistered;
    DeviceSession *dev = nullptr;          // kDevice
    std::shared_ptr<DeviceSession> other;  // holds dev when it is not own
};

// Classifies [ptr, ptr + len): own (the stream's device) is tried first,
// so the common case costs two compares. Never fails: device addresses are
// validated by the driver when the descriptor runs.
void ClassifyForStream(const void *ptr, size_t len, DeviceSession &own, Operand *out);

// Spec §11.2 for kinds 0..4: the effective kind (ACL_MEMCPY_*), or
// ACL_ERROR_RT_PARAM_INVALID when the kind is not allowed for
// unregistered operands.
Error ReviseKind(int32_t kind, Loc src, Loc dst, int32_t *effective);
// Whether the effective kind with these operands needs the synchronous
// fallback of spec §6.4.
inline bool NeedsSyncFallback(int32_t effective, Loc src, Loc dst) {
    const bool unreg = src == Loc::kUnregistered || dst == Loc::kUnregistered;
    return unreg && effective != 0 /* H2H */ && effective != 3 /* D2D */;
}

// A rectangle of height rows of width bytes; 1-D copies have height 1.
struct CopyShape {
    size_t width = 0;
    size_t height = 1;
    size_t dpitch = 0;
    size_t spitch = 0;
};

// Issues the copy on s. wait: return only when it is done (and report the
// stream's first task error). *seq (may be null) gets the descriptor's
// sequence number when the copy went onto the ring and is still queued,
// else 0.
Error IssueCopy(Stream &s, Context &ctx, void *dst, const void *src, const CopyShape &shape,
                const Operand &d, const Operand &sr, bool wait, uint64_t *seq);

// Fills count bytes at ptr on s (device memory on the ring; host memory on
// the ring too, waiting for it when it is unregistered).
Error IssueMemset(Stream &s, Context &ctx, void *ptr, uint8_t value, size_t count);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_STREAM_COPY_H
