// SPDX-License-Identifier: MIT
// The copy planner: the one place that turns a copy, fill or value
// operation into descriptors. Every copy API goes through here: aclrtMemcpy
// and aclrtMemset, the stream copies and fills, the batch and 2-D copies,
// aclrtMemsetD32[Async], the copy descriptors (aclrtMemcpyAsyncWithDesc,
// aclrtMemcpyAsyncWithOffset), aclrtValueWrite/Wait, and the words of
// events, notifies and host tasks.
//
// Plan(request) classifies the operands once and picks a route:
//   kRing  descriptors on the stream's ring, returning when they are queued;
//   kSync  the stream drained (when there is one), then the descriptors on
//          the synchronous queue of one device, returning when they ran;
//   kHost  the stream drained, then the CPU (a word fill of host memory that
//          no engine can reach).
// Execute(plan) runs it. There is one synchronous path: the device's
// synchronous queue (npuHalDeviceRun). Every byte of device memory moves
// through a descriptor; the runtime never touches device memory itself.
//
// Descriptors are RingDesc: the 64 bytes of the ring's ABI descriptor, made
// and read only by copy_plan.cpp (and handed through Stream::Submit to the
// HAL).
#ifndef NPU_RT_CORE_COPY_PLAN_H
#define NPU_RT_CORE_COPY_PLAN_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/error.h"

struct npu_sqe;

namespace npu::rt {

class Context;
class DeviceSession;
class Stream;
class StreamRef;

// One ring descriptor, opaque outside the planner.
struct RingDesc {
    alignas(8) unsigned char raw[64];
};

// ---------------------------------------------------------------------
// Operands

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

// Where a pointer lives, as aclrtPointerGetAttributes reports it: the first
// of device memory (any device's aperture), managed memory, ACL host memory
// (pinned: aclrtMallocHost, or registered: aclrtHostRegister), else
// unregistered (pageable) host memory.
enum class PtrKind { kDevice, kManaged, kHost, kUnregistered };
struct PointerInfo {
    PtrKind kind = PtrKind::kUnregistered;
    std::shared_ptr<DeviceSession> dev;  // kDevice
    int32_t managed_device = 0;          // kManaged: the device it was made for
};
// Looks at the byte at ptr only.
void LocatePointer(const void *ptr, PointerInfo *out);

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

// ---------------------------------------------------------------------
// Requests and plans

// A rectangle of height rows of width bytes; 1-D copies have height 1.
struct CopyShape {
    size_t width = 0;
    size_t height = 1;
    size_t dpitch = 0;
    size_t spitch = 0;
};

enum class CopyOp : uint8_t {
    kCopy,          // shape bytes from src to dst (d, s: the operands)
    kStagedCopy,    // kCopy from a pinned copy of src made now (HOST_TO_BUF_TO_DEVICE)
    kFill,          // shape.width bytes at dst with the byte value
    kFill32,        // shape.width 32-bit words at dst with value (memory checked by the caller)
    kValueWrite,    // the 64-bit word at dst := value
    kValueWait,     // until the word at dst meets value under cond (ACL_STREAM_WAIT_VALUE_*)
    kCopyIndirect,  // the copy that the record at src (device memory) names when it runs
    kCopyDeref,     // shape.width bytes from *src + src_off to *dst + dst_off, read when it runs
    kReduce,        // shape.width bytes of elements: dst[i] = op(dst[i], src[i]); value is
                    // NPU_REDUCE_VALUE(op, type) (device memory, checked by the caller)
};

struct CopyRequest {
    CopyOp op = CopyOp::kCopy;
    void *dst = nullptr;
    const void *src = nullptr;
    CopyShape shape;
    uint64_t value = 0;
    uint32_t cond = 0;
    size_t dst_off = 0, src_off = 0;
    Operand d, s;  // kCopy, kStagedCopy: classified (Classify*)
    // kCopy, kFill, kFill32: return only once the bytes have moved (a
    // stream's synchronous fallback).
    bool wait = false;
};

enum class Route : uint8_t { kNone, kRing, kSync, kHost };

class CopyPlan {
  public:
    CopyPlan() = default;
    ~CopyPlan();
    CopyPlan(const CopyPlan &) = delete;
    CopyPlan &operator=(const CopyPlan &) = delete;

    Route route() const { return route_; }
    uint32_t size() const { return n_; }
    const RingDesc *descs() const { return n_ <= kInline ? inline_ : more_.data(); }

  private:
    friend class Planner;
    static constexpr uint32_t kInline = 2;

    RingDesc *Grow(uint32_t n);  // room for n descriptors, n_ = n

    Route route_ = Route::kNone;
    DeviceSession *engine_ = nullptr;      // kSync: whose synchronous queue
    std::shared_ptr<DeviceSession> hold_;  // engine_, when it is not the caller's device
    uint32_t n_ = 0;
    RingDesc inline_[kInline];
    std::vector<RingDesc> more_;  // n_ > kInline
    void *staging_ = nullptr;     // pinned staging, freed once the descriptors ran
    void *host_dst_ = nullptr;    // kHost: n32_ words of word32_ at host_dst_
    size_t n32_ = 0;
    uint32_t word32_ = 0;
};

// Plans req on s (may be null: a synchronous call of ctx, which must then
// be non-null; the operands are then validated, as aclrtMemcpy does).
// Checks that only the planner can make (peer access, engine features,
// room for staging) fail here, before anything runs.
Error Plan(Stream *s, const Context *ctx, const CopyRequest &req, CopyPlan *out);
// Runs plan on s (the stream it was planned for; null when it was). seq
// (may be null) gets the sequence number of the last descriptor when the
// plan went onto the ring, else 0.
Error Execute(Stream *s, CopyPlan &plan, uint64_t *seq = nullptr);
// Plan, then Execute.
Error PlanAndExecute(Stream *s, const Context *ctx, const CopyRequest &req);

// aclrtMemcpyAsync once the API checked its arguments (dst, src non-null,
// count > 0 and within destMax, kind 0..5) and pinned a non-null stream
// into ref (ref empty: the current context's default stream). The fast
// path first: a stream of the current context with both operands in its
// device is one D2D descriptor whatever the kind says (but
// HOST_TO_BUF_TO_DEVICE), with no allocation and no lock of its own.
// Otherwise the kind correction, then the plan: on the ring, or (pageable
// host memory) the stream drained and the synchronous path.
Error MemcpyAsync(StreamRef &ref, void *dst, const void *src, size_t count, int32_t kind);
// The same on ref's stream (not null) in ctx, whichever context the
// calling thread has (a model's execution queues its copies so).
Error MemcpyAsyncIn(StreamRef &ref, Context &ctx, void *dst, const void *src, size_t count,
                    int32_t kind);

// The synchronous copy of count bytes, on the engine of the device that
// owns an operand (ctx's device for host to host). A copy between two
// devices needs peer access (aclrtDeviceEnablePeerAccess) in at least one
// direction and runs on the engine of a device that may reach the other;
// without it ACL_ERROR_RT_PARAM_INVALID (on hardware the driver fails the
// copy).
Error CopyNow(const Context &ctx, void *dst, const void *src, size_t count);
// Fills count bytes at ptr (device or host memory) with value, now.
Error FillNow(const Context &ctx, void *ptr, uint8_t value, size_t count);

// The synchronous batch of host<->device copies (aclrtMemcpyBatch), each
// validated by the caller: one operand is device memory, whose engine
// moves it; the copies of one device go in one run.
struct BatchCopy {
    void *dst;
    const void *src;
    size_t size;
    const Operand *d, *s;
};
Error CopyBatchNow(const BatchCopy *copies, size_t n);

// Word reads and writes of the runtime's own device words (event slots,
// IPC signals) on engine's synchronous queue: 0 or -errno. Host operands
// are this process's memory, device operands engine's addresses.
int RunCopy(DeviceSession &engine, void *dst, const void *src, size_t count);
int RunFill(DeviceSession &engine, void *dst, uint8_t value, size_t count);

// Bytes of a memory-copy descriptor record (what aclrtGetMemcpyDescSize
// reports: the size of the A2/A3 class, which the emulated SoC is).
size_t MemcpyDescSize();
// Writes the record (src, dst, count) into desc, device memory, and waits
// for the write. The caller checked the operands.
Error WriteMemcpyDesc(const Context &ctx, void *desc, const void *src, void *dst, size_t count);

// ---------------------------------------------------------------------
// Descriptors of the runtime's own words, for Stream::Submit or a npuHalQueue

// The word at addr := value.
RingDesc ValueWriteDesc(uint64_t addr, uint64_t value);
// Until the word at addr meets value under cond (NPU_WAIT_*).
RingDesc ValueWaitDesc(uint64_t addr, uint64_t value, uint32_t cond);
// The engine's clock into the word at addr.
RingDesc TimestampDesc(uint64_t addr);
// What a npuHalQueue takes: the descriptors as the ring's ABI type.
inline const ::npu_sqe *RingSqes(const RingDesc *descs) {
    return reinterpret_cast<const ::npu_sqe *>(descs);
}

}  // namespace npu::rt

#endif  // NPU_RT_CORE_COPY_PLAN_H
