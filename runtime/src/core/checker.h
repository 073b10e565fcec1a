// SPDX-License-Identifier: MIT
// NPU_CHECK: a checker of what programs do with device memory.
//
// NPU_CHECK is a comma list of memcheck, racecheck, initcheck and
// leakcheck, or all; unset (or empty) means off. The runtime calls the hooks
// below where it allocates, frees, queues and runs descriptors, records and
// waits for events and notifies, and learns that a stream has completed.
// The checker keeps, per allocation, the byte ranges that some copy or fill
// wrote (initcheck) and the recent accesses with the stream and the clock
// of the stream that made them (racecheck). Streams carry vector clocks, as
// ThreadSanitizer's threads do: a stream's clock joins the host's at every
// submission, an event's record captures it and a wait joins it, and the
// host's joins a stream's when it learns that the stream completed (a
// synchronisation, a query that found it done).
//
// Findings go to stderr as a block (npu-check: <kind>: <what>, then the
// stacks), to NPU_CHECK_LOG as one JSON object per line, and to the
// NPU_TRACE timeline. NPU_CHECK_EXITCODE=N makes the process exit with N
// when anything was found.
//
// Off, each hook is behind On(): one relaxed load and a predictable branch.
// On, every hook takes the checker's one lock (docs/runtime-locks.md),
// a leaf: nothing is called with it held but the trace and stdio.
#ifndef NPU_RT_CORE_CHECKER_H
#define NPU_RT_CORE_CHECKER_H

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace npu::rt {

class Stream;
struct RingDesc;

namespace check {

enum Kinds : uint32_t {
    kMemcheck = 1u << 0,
    kRacecheck = 1u << 1,
    kInitcheck = 1u << 2,
    kLeakcheck = 1u << 3,
};

// The kinds NPU_CHECK asked for; set once when the library loads.
inline std::atomic<uint32_t> g_kinds{0};

inline bool On() {
    return __builtin_expect(g_kinds.load(std::memory_order_relaxed) != 0, 0);
}

// The API the calling thread is in (a string literal), for reports;
// returns the one it replaces.
const char *SwapApi(const char *api);

// Device memory [base, base + size) is now allocated (aclrtMalloc*).
// mapped: a VMM mapping or an IPC import, whose bytes another mapping or
// process may have written (never reported uninitialised, never a leak).
void DeviceAllocated(const void *base, size_t size, int32_t device, bool mapped);
// Before aclrtFree(ptr): reports a double or invalid free, or a free of
// memory that queued work still uses.
void DeviceFreeing(const void *ptr);
// A mapping or import at base is gone (aclrtUnmapMem, aclrtIpcMemClose).
void DeviceUnmapped(const void *base);
// Device user_id (-1: every device) was reset: its memory went with it.
void DeviceReset(int32_t user_id);

// Pinned host memory from aclrtMallocHost (registered false) or a range
// registered with aclrtHostRegister (true).
void HostAllocated(const void *base, size_t size, bool registered);
// Before aclrtFreeHost or aclrtHostUnregister of ptr.
void HostFreeing(const void *ptr, bool registered);

// n descriptors were queued on s; the last has sequence number last.
void Submitted(Stream &s, const RingDesc *descs, uint32_t n, uint64_t last);
// n descriptors ran on a synchronous queue, for the host.
void RanNow(const RingDesc *descs, uint32_t n);
// The host learned that s completed everything up to seq.
void Completed(Stream &s, uint64_t seq);
// s is being destroyed (its work done or abandoned).
void StreamGone(Stream &s);
// An event or notify was recorded on s by descriptor seq.
void SignalRecorded(const void *signal, Stream &s, uint64_t seq);
// s waits for the last record of signal (consume: a notify's wait, which
// uses the record up). With no record seen, the work queued on s after it
// is taken to run when the program says, and is not checked against the
// host until the host learns that s completed.
void SignalWaited(const void *signal, Stream &s, bool consume);
// A host function was queued on s.
void HostWorkQueued(Stream &s);
// A call's up-front check refused [ptr, ptr + len) of device memory.
void RangeRefused(const void *ptr, size_t len);
// aclFinalize: reports leaks (leakcheck).
void Finalizing();

}  // namespace check
}  // namespace npu::rt

#endif  // NPU_RT_CORE_CHECKER_H
