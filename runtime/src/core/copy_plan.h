// SPDX-License-Identifier: MIT
// Copies and fills, planned in one place: where each operand lives, the
// kind correction of aclrtMemcpyAsync, and the route a copy takes. Every
// copy API goes through here: aclrtMemcpy and aclrtMemset (synchronous:
// the addresses, not the kind, decide the direction), the stream copies
// and fills (one descriptor on the stream's ring when the ring can name
// both operands, else the synchronous path after the stream has drained),
// the batch and 2-D copies, aclrtValueWrite/Wait, aclrtMemsetD32 and the
// copy descriptors. Every byte moves through the HAL; the runtime never
// touches device memory itself.
#ifndef NPU_RT_CORE_COPY_PLAN_H
#define NPU_RT_CORE_COPY_PLAN_H

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

// One operand of a copy or fill.
struct Operand {
    Loc loc = Loc::kUnregistered;
    DeviceSession *dev = nullptr;          // kDevice
    std::shared_ptr<DeviceSession> other;  // holds dev when it is not own
    bool is_device() const { return loc == Loc::kDevice; }
};

// Classifies [ptr, ptr + len): own (may be null; the stream's device) is
// tried first, so the common case costs two compares. Never fails: device
// addresses are validated by the driver when the descriptor runs.
void Classify(const void *ptr, size_t len, DeviceSession *own, Operand *out);
// Classify, for the calls that validate up front: a device address must lie,
// with len bytes, inside one live allocation, else ACL_ERROR_RT_PARAM_INVALID
// naming role.
Error ClassifyChecked(const void *ptr, size_t len, const char *role, Operand *out);
// ClassifyChecked for the calls that take device memory only: anything else
// is ACL_ERROR_RT_PARAM_INVALID too.
Error ClassifyDeviceChecked(const void *ptr, size_t len, const char *role, Operand *out);

// The kind correction of aclrtMemcpyAsync for kinds 0..4: the effective
// kind (ACL_MEMCPY_*), or ACL_ERROR_RT_PARAM_INVALID when the kind is not
// allowed for unregistered operands.
Error ReviseKind(int32_t kind, Loc src, Loc dst, int32_t *effective);
// Whether the effective kind with these operands needs the synchronous
// fallback (a stream copy of unregistered host memory other than H2H/D2D
// returns when the bytes have moved).
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

// The synchronous copy of count bytes, on the engine of the device that
// owns an operand (ctx's device for host to host). A copy between two
// devices needs peer access (aclrtDeviceEnablePeerAccess) in at least one
// direction and runs on the engine of a device that may reach the other;
// without it ACL_ERROR_RT_PARAM_INVALID (on hardware the driver fails the
// copy).
Error CopyNow(const Context &ctx, void *dst, const void *src, size_t count);
// Fills count bytes at ptr (device or host memory) with value, now.
Error FillNow(const Context &ctx, void *ptr, uint8_t value, size_t count);

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

#endif  // NPU_RT_CORE_COPY_PLAN_H
