// SPDX-License-Identifier: MIT
/*
 * NPU_TRACE=FILE: a Chrome/Perfetto trace (JSON trace-event format) of the
 * work this process gives the device, written when the process finalises
 * (aclFinalize) and again at exit, so the file always holds everything so
 * far as one valid JSON document.
 *
 * What is recorded, all on the host's CLOCK_MONOTONIC (the engine's clock
 * too, so NPU_OP_TIMESTAMP values line up):
 *   - every descriptor published on a ring, with the time it was queued
 *     (exact: read before the tail is published) and the time the runtime
 *     reaped its completion (observed: an upper bound of when it finished;
 *     the CQE carries no time). One lane per ring, named after its stream.
 *     Where the program read an NPU_OP_TIMESTAMP's value back (an event's
 *     time), that exact engine time places the descriptor and bounds its
 *     neighbours on the ring.
 *   - every acl* call (RunApi) as a slice on the calling thread's lane, and
 *     inside it the HAL's completion waits and doorbells.
 * The driver does not say which engine ran a descriptor, so there are no
 * engine lanes.
 *
 * The trace is base's, under every layer: the API layer times its calls
 * with it, the HAL records its rings, the core names the rings' lanes
 * (hal/hal_trace.h finds a npuHalQueue's lane). What it reads of a descriptor
 * is the driver's ABI (struct npu_sqe of uapi/npu/npu_uapi.h), which base
 * includes as it would any system header.
 *
 * Off, the cost is On(): one relaxed load and a predictable branch per
 * submission, reap and API call. On, every record takes one mutex; the
 * number of records is capped (NPU_TRACE_MAX_EVENTS, default 1000000) and
 * what did not fit is counted in the file's otherData.
 */
#ifndef NPU_RT_BASE_TRACE_H
#define NPU_RT_BASE_TRACE_H

#include <atomic>
#include <cstdint>
#include <string>

namespace npu::base::trace {

// Set by Start() when NPU_TRACE names a file, and for the length of a
// profiling session (SessionBegin..SessionEnd); cleared in a forked child.
inline std::atomic<bool> g_on{false};

inline bool On() {
    return __builtin_expect(g_on.load(std::memory_order_relaxed), 0);
}

// Reads NPU_TRACE once per process (later calls do nothing) and, when it is
// set, turns tracing on and arranges the write at exit.
void Start();

// CLOCK_MONOTONIC in ns.
uint64_t NowNs();

// A slice on the calling thread's lane; name must be a string literal (or
// live as long as the process). lane and seq (0 if none) go to args.
void ThreadSlice(const char *name, uint64_t t0_ns, uint64_t t1_ns, uint32_t lane, uint64_t seq,
                 int64_t result);

// A finding of the checker (NPU_CHECK): an instant event named "npu-check:
// <kind>" (kind a string literal) on the lane of each stream named
// (stream handles; null: none), else on the calling thread's lane.
void Finding(const char *kind, const void *stream, const void *other_stream);

// Writes the file now (aclFinalize). Does nothing when tracing is off or in
// a forked child.
void Flush();

// A profiling session (api/prof.cpp, CANN's aclprofStart/aclprofStop):
// tracing is on from SessionBegin to SessionEnd, which writes what was
// recorded in between to `file` in NPU_TRACE's format, with `meta` (a JSON
// object) as otherData.aclprof. Without NPU_TRACE, what a session recorded
// is dropped once written, so each session's cap counts from zero.
// SessionBegin: false if a session runs already.
bool SessionBegin(const std::string &file, const std::string &meta);
// 0, or the errno of the failed write (ESRCH: no session).
int SessionEnd();

// The program's own events (msproftx) in category `cat` (a string literal),
// on the calling thread's lane, or for MarkEx on `stream`'s lane (a stream
// handle, never dereferenced) when it has one.
// domain: an mstx domain's name, written as the event's args.domain.
void UserMark(const char *cat, const std::string &name, const void *stream,
              const std::string &domain = std::string());
// A nested range of the calling thread (aclprofPush..aclprofPop).
void UserRange(const char *cat, const std::string &name, uint64_t t0_ns, uint64_t t1_ns);
// A range that may overlap others or end on another thread (aclprofRangeStart,
// steps): an async pair with id `id` in the category.
void UserAsyncRange(const char *cat, const std::string &name, uint64_t id, uint64_t t0_ns,
                    uint64_t t1_ns, const std::string &domain = std::string());

}  // namespace npu::base::trace

#endif /* NPU_RT_BASE_TRACE_H */
