// SPDX-License-Identifier: MIT
/*
 * npuHalQueue: one ring of a device, fed by one stream.
 *
 * The ring lives in a memfd mapped shared (the daemon duplicates the fd
 * with pidfd_getfd, the kmod pins the pages). user_data of every SQE is the
 * queue's sequence number, so completion is a single number: the ring runs
 * its descriptors in order and posts their CQEs in order, so the highest
 * user_data reaped is the sequence number everything up to which is done.
 *
 * Flow control: at most sq_entries descriptors are outstanding (submitted
 * and not yet reaped). A descriptor in the CQ has left the SQ, so this
 * bounds both queues and the CQ (cq_entries >= sq_entries) never overflows.
 *
 * The doorbell follows io_uring's SQPOLL protocol: publish the tail, a full
 * barrier, then look at NPU_RING_NEED_WAKEUP; the engine sets the flag, a
 * full barrier, then looks at the tail once more before it sleeps. Either
 * the engine sees the new tail or the submitter sees the flag.
 *
 * Through npud a doorbell or a completion wait in the driver is a FUSE
 * round trip (tens of microseconds). So where the device offers it
 * (NPU_FEATURE_FUTEX_DOORBELL) and the device is not in this process, the
 * ring is created with NPU_RING_CREATE_FUTEX: while the header shows
 * NPU_RING_FUTEX the doorbell is a bump and FUTEX_WAKE of sq_doorbell, and
 * a completion wait spins, then sleeps on cq_futex (counted in
 * cq_waiters) for up to kFutexPhase; only a wait longer than that blocks
 * in the driver (RING_ENTER), where it can be interrupted and where a
 * ring that failed tells why. The synchronous calls (RunChunk) take the
 * same path, so an aclrtMemcpy through npud is no FUSE request in the
 * common case. NPU_FUTEX=0 turns the futex doorbell off.
 */
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <utility>
#include <vector>

#include <climits>
#include <cstdlib>

#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

#include "hal_device.h"
#include "hal_internal.h"
#include "base/singleton.h"
#include "hal_trace.h"

namespace {

constexpr uint32_t kDefaultEntries = 4096;
// How far ahead of the tail SQE slots are made ready for writing. A slot
// was last read by the engine a lap ago, on another CPU: taking its line
// back costs a cross-CPU round trip, which the full barrier after the tail
// would otherwise wait for on every submission (measured: a third of the
// submitting thread's time for 64-byte copies, half the throughput).
constexpr uint32_t kPrefetchAhead = 16;
// How long a waiter polls the CQ before it blocks in the driver. A cross-CPU
// wake-up costs tens of microseconds on the CI machine, so short waits are
// cheaper spun.
constexpr auto kSpin = std::chrono::microseconds(50);
// A futex ring's waiter spins longer, yielding its CPU now and then: a
// doorbell it rang wakes two threads of npud before the engine runs (the
// doorbell thread, then an engine), a few tens of microseconds each on a
// loaded machine, and a waiter that slept through it is woken as late
// again, by which time the engines have stopped polling the ring (their
// poll window, 100 us) and the next call needs the doorbell too. On a busy
// machine the engine that polls the ring may be runnable on this very CPU:
// the yields let it run the work this thread waits for.
constexpr auto kFutexSpin = std::chrono::microseconds(250);
constexpr auto kSpinYield = std::chrono::microseconds(5);
// On a machine so busy that a yield gives the CPU away to another thread
// for kYieldStall or more (measured beside CPU hogs: some runs took 4 ms a
// synchronous copy, the scheduler's tick), every yield may cost as much: the
// queue stops spinning for kSpinOffNs, and its waits sleep on the futex at
// once, which the scheduler serves promptly. NPU_FUTEX_ADAPT=0 turns this
// off.
//
// Synchronous calls of at most kSyncFutexBytes take the futex way; larger
// ones enter the driver (their copy outweighs a round trip, and a waiter
// blocked there leaves the CPUs to the engines that copy). An earlier
// version also chose between the two ways per call by their recent medians:
// measured with 4 to 16 client processes on two cores, and beside CPU hogs,
// that choice drifted to RING_ENTER and made calls 3 to 8 times slower, so
// it is gone.
constexpr auto kYieldStall = std::chrono::microseconds(500);
constexpr uint64_t kSpinOffNs = 10ULL * 1000 * 1000;
constexpr uint64_t kSyncFutexBytes = 64 * 1024;

// A blocked waiter re-checks at this interval: another thread may reap the
// CQE it waits for, which the driver cannot know.
constexpr uint64_t kWaitSliceNs = 20ULL * 1000 * 1000;

// A futex ring's completion wait sleeps on cq_futex at most this long in
// all (NPU_FUTEX_PHASE_MS, 1..60000 ms, default 10), in slices of
// kFutexSliceNs (a wake-up lost to a race with the driver costs one
// slice), before it blocks in the driver instead.
constexpr uint64_t kFutexPhaseDefaultNs = 10ULL * 1000 * 1000;
constexpr uint64_t kFutexSliceNs = 1000ULL * 1000;

uint64_t FutexPhaseNs() {
    static const uint64_t ns = [] {
        const char *v = std::getenv("NPU_FUTEX_PHASE_MS");
        if (v == nullptr || *v == '\0')
            return kFutexPhaseDefaultNs;
        char *end = nullptr;
        const unsigned long ms = std::strtoul(v, &end, 10);
        if (*end != '\0' || ms < 1 || ms > 60000)
            return kFutexPhaseDefaultNs;
        return static_cast<uint64_t>(ms) * 1000 * 1000;
    }();
    return ns;
}

bool FutexAdapt() {
    static const bool on = [] {
        const char *v = std::getenv("NPU_FUTEX_ADAPT");
        return v == nullptr || std::strcmp(v, "0") != 0;
    }();
    return on;
}

// Shared futexes (no FUTEX_PRIVATE_FLAG): the driver maps the ring too.
void FutexWake(uint32_t *word) {
    (void)::syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

void FutexWait(uint32_t *word, uint32_t val, uint64_t ns) {
    struct timespec ts = {};
    ts.tv_sec = static_cast<time_t>(ns / 1000000000ULL);
    ts.tv_nsec = static_cast<long>(ns % 1000000000ULL);
    (void)::syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, nullptr, 0);
}

// Whether rings ask for the futex doorbell: npud only (a device in this
// process has no system call to save), unless NPU_FUTEX=0.
bool WantFutex(uint64_t features) {
    static const bool env_off = [] {
        const char *v = std::getenv("NPU_FUTEX");
        return v != nullptr && std::strcmp(v, "0") == 0;
    }();
    return !env_off && (features & NPU_FEATURE_FUTEX_DOORBELL) != 0 &&
           !npu::hal::Backend::Get().inproc();
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield" ::: "memory");
#endif
}

// Ask for the cache line at p in exclusive state, ahead of a store to it.
inline void PrefetchForWrite(const void *p) {
#if defined(__x86_64__) || defined(__i386__)
    asm volatile("prefetchw %0" ::"m"(*static_cast<const char *>(p)));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

uint64_t NowNs() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now().time_since_epoch())
                                     .count());
}

}  // namespace

struct npuHalQueue {
    npuHalDevice *dev = nullptr;
    npu::hal::DeviceFile *file = nullptr;
    int fd = -1;
    void *mem = nullptr;
    size_t bytes = 0;
    uint32_t ring_id = 0;
    uint32_t entries = 0;
    // The fork generation that made the queue: in a forked child the ring
    // is not mapped (MADV_DONTFORK) and its locks may be held by threads
    // that do not exist there, so every entry point answers -EBADF first.
    uint32_t generation = npu::hal::ForkGeneration();
    bool stale() const { return generation != npu::hal::ForkGeneration(); }
    // NPU_TRACE's lane for this ring; 0 (and never read again) when
    // tracing is off, so each hot path pays one predictable branch.
    uint32_t trace_lane = 0;

    struct npu_ring_hdr *hdr = nullptr;
    struct npu_sqe *sqes = nullptr;
    struct npu_cqe *cqes = nullptr;
    // Created with NPU_RING_CREATE_FUTEX: completion waits sleep on
    // cq_futex, and the doorbell is sq_doorbell while NPU_RING_FUTEX shows.
    bool futex = false;
    // Until when (NowNs()) a futex ring's waits do not spin: a yield
    // stalled (kYieldStall). Any thread may set it; a hint only.
    std::atomic<uint64_t> spin_off_until{0};
    // RunChunk's choice for small synchronous calls on a futex ring: the
    // recent cost of a call each way and the calls so far. Only RunChunk
    // uses them, whose callers the owner of the queue serialises
    // (npuHalDevice::sync_lock).

    std::mutex submit_lock; /* Protects: sq_tail, the SQE slots, next_seq */
    uint64_t next_seq = 0;
    std::atomic<uint64_t> submitted{0};

    std::mutex reap_lock; /* Protects: cq_head, errors, nerrors, last_res */
    std::atomic<uint64_t> completed{0};
    /* The task errors since the last take: the first HAL_QUEUE_MAX_ERRORS
     * kept (a fixed array: Reap never allocates), nerrors counting all. */
    struct npuHalQueueError errors[HAL_QUEUE_MAX_ERRORS] = {};
    uint32_t nerrors = 0;
    int last_res = 0; /* result of descriptor `completed` */

    ~npuHalQueue() {
        if (mem != nullptr)
            ::munmap(mem, bytes);
        if (fd >= 0) {
            npuHalForkUntrackFd(fd);
            ::close(fd);
        }
    }

    int Create(uint32_t n);
    void Reap(bool try_only = false);
    int Enter(uint32_t to_submit, uint32_t min_complete, uint64_t timeout_ns);
    int WaitSeq(uint64_t seq, uint64_t timeout_ns);
    int WaitSeqUntraced(uint64_t seq, uint64_t timeout_ns);
    int FutexWaitSeq(uint64_t seq, uint64_t start, uint64_t timeout_ns);
    int Doorbell(uint32_t pending);
    int SubmitChunk(const struct npu_sqe *in, uint32_t n, bool doorbell = true,
                    uint64_t *last_seq = nullptr);
    int RunChunk(const struct npu_sqe *in, uint32_t n);
    int Run(const struct npu_sqe *in, uint32_t n);
};

int npuHalQueue::Create(uint32_t n) {
    const uint64_t page = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
    bytes = static_cast<size_t>((npu_ring_bytes(n, n) + page - 1) & ~(page - 1));
    fd = ::memfd_create("npu-queue", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -errno;
    // Sealed against shrinking: npud maps only memory that cannot be truncated away.
    if (::ftruncate(fd, static_cast<off_t>(bytes)) < 0 ||
        ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0)
        return -errno;
    void *p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        return -errno;
    mem = p;
    // The queue is this process's: a forked child gets no mapping of it.
    if (::madvise(p, bytes, MADV_DONTFORK) < 0)
        return -errno;
    npuHalForkTrackFd(fd);

    struct npu_ring_create rc = {};
    rc.addr = reinterpret_cast<uint64_t>(p);
    rc.size = bytes;
    rc.sq_entries = n;
    rc.cq_entries = n;
    if (WantFutex(npu::hal::DeviceFeatures(dev)))
        rc.flags = NPU_RING_CREATE_FUTEX;
    int ret = file->Ioctl(NPU_IOCTL_RING_CREATE, &rc);
    if (ret == -EINVAL && rc.flags != 0) {
        // A driver that does not know the flag: the doorbell is RING_ENTER.
        rc.flags = 0;
        ret = file->Ioctl(NPU_IOCTL_RING_CREATE, &rc);
    }
    if (ret < 0)
        return ret;
    futex = rc.flags != 0;
    if (rc.sqes_off != NPU_RING_SQES_OFF ||
        rc.cqes_off != NPU_RING_SQES_OFF + n * sizeof(struct npu_sqe)) {
        struct npu_ring_destroy rd = {};
        rd.ring_id = rc.ring_id;
        file->Ioctl(NPU_IOCTL_RING_DESTROY, &rd);
        return -EPROTO;
    }
    ring_id = rc.ring_id;
    entries = n;
    hdr = static_cast<struct npu_ring_hdr *>(p);
    sqes = reinterpret_cast<struct npu_sqe *>(static_cast<char *>(p) + rc.sqes_off);
    cqes = reinterpret_cast<struct npu_cqe *>(static_cast<char *>(p) + rc.cqes_off);
    return 0;
}

// Consume every CQE there: advance completed, keep the first error.
// With try_only, a reap already running elsewhere is left to finish alone.
void npuHalQueue::Reap(bool try_only) {
    std::unique_lock<std::mutex> guard(reap_lock, std::defer_lock);
    if (try_only) {
        if (!guard.try_lock())
            return;
    } else {
        guard.lock();
    }
    uint32_t head = hdr->cq_head;  // only we write it
    const uint32_t tail = __atomic_load_n(&hdr->cq_tail, __ATOMIC_ACQUIRE);
    if (head == tail)
        return;
    uint64_t done = completed.load(std::memory_order_relaxed);
    const uint64_t limit = submitted.load(std::memory_order_acquire);
    // The CQE has no time: what the trace gets is when we saw it.
    const uint64_t seen = trace_lane != 0 ? npu::base::trace::NowNs() : 0;
    for (; head != tail; head++) {
        const struct npu_cqe &c = cqes[head & (entries - 1)];
        const uint64_t seq = c.user_data;
        // The ring is ours alone; anything else would be a driver bug.
        if (seq <= done || seq > limit)
            continue;
        done = seq;
        last_res = c.res;
        // A failure keeps its result in the trace; the rest are
        // recorded together below, under one lock.
        if (seen != 0 && c.res != 0)
            npu::base::trace::Completed(trace_lane, seq, c.res, seen);
        // A cancellation (npuHalQueueAbort, RING_DESTROY) is not a task error.
        if (c.res != 0 && c.res != -ECANCELED) {
            if (nerrors < HAL_QUEUE_MAX_ERRORS)
                errors[nerrors] = npuHalQueueError{seq, c.res};
            if (nerrors != UINT32_MAX)
                nerrors++;
        }
    }
    __atomic_store_n(&hdr->cq_head, head, __ATOMIC_RELEASE);
    completed.store(done, std::memory_order_release);
    if (seen != 0)
        npu::base::trace::Completed(trace_lane, done, 0, seen);
}

int npuHalQueue::Enter(uint32_t to_submit, uint32_t min_complete, uint64_t timeout_ns) {
    struct npu_ring_enter re = {};
    re.ring_id = ring_id;
    re.to_submit = to_submit;
    re.min_complete = min_complete;
    re.flags = min_complete ? NPU_ENTER_GETEVENTS : 0;
    re.timeout_ns = timeout_ns;
    if (trace_lane == 0)
        return file->RingEnter(&re);
    const uint64_t t0 = npu::base::trace::NowNs();
    const int ret = file->RingEnter(&re);
    npu::base::trace::ThreadSlice(min_complete ? "driver wait" : "doorbell", t0,
                                  npu::base::trace::NowNs(), trace_lane, 0, ret);
    return ret;
}

int npuHalQueue::WaitSeq(uint64_t seq, uint64_t timeout_ns) {
    if (completed.load(std::memory_order_acquire) >= seq)
        return 0;
    if (trace_lane == 0)
        return WaitSeqUntraced(seq, timeout_ns);
    const uint64_t t0 = npu::base::trace::NowNs();
    const int ret = WaitSeqUntraced(seq, timeout_ns);
    npu::base::trace::ThreadSlice("wait", t0, npu::base::trace::NowNs(), trace_lane, seq, ret);
    return ret;
}

// The doorbell for pending (> 0) published SQEs of a ring whose engine
// sleeps: the futex word while the driver watches it, else RING_ENTER.
int npuHalQueue::Doorbell(uint32_t pending) {
    if (futex && (__atomic_load_n(&hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_FUTEX)) {
        // After sq_tail (the driver reads the word, then sq_tail).
        __atomic_fetch_add(&hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
        FutexWake(&hdr->sq_doorbell);
        return 0;
    }
    return Enter(std::min(pending, entries), 0, 0);
}

// A futex ring's completion wait, for up to kFutexPhaseNs since start: 0
// once seq is done, -ETIME when timeout_ns (0: none) passed since start,
// -EAGAIN when the phase is over or the ring failed (the caller waits in
// the driver, which says why), or the doorbell's error.
int npuHalQueue::FutexWaitSeq(uint64_t seq, uint64_t start, uint64_t timeout_ns) {
    for (;;) {
        Reap();
        if (completed.load(std::memory_order_acquire) >= seq)
            return 0;
        const uint32_t flags = __atomic_load_n(&hdr->flags, __ATOMIC_ACQUIRE);
        if (flags & NPU_RING_FAILED)
            return -EAGAIN;
        const uint64_t spent = NowNs() - start;
        if (timeout_ns && spent >= timeout_ns)
            return -ETIME;
        if (spent >= FutexPhaseNs())
            return -EAGAIN;
        uint64_t slice = kFutexSliceNs;
        if (timeout_ns)
            slice = std::min(slice, timeout_ns - spent);
        // Our work may still be in the SQ of a ring whose engine sleeps
        // (a submitter that raced with its sleep): ring again.
        if (flags & NPU_RING_NEED_WAKEUP) {
            const uint32_t pending = __atomic_load_n(&hdr->sq_tail, __ATOMIC_ACQUIRE) -
                                     __atomic_load_n(&hdr->sq_head, __ATOMIC_ACQUIRE);
            if (pending != 0) {
                const int ret = Doorbell(pending);
                if (ret < 0 && ret != -EAGAIN && ret != -EINTR)
                    return ret;
            }
        }
        // Counted, then cq_futex, then cq_tail; the driver publishes
        // cq_tail, then reads the count: one of us sees the other.
        __atomic_fetch_add(&hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
        const uint32_t val = __atomic_load_n(&hdr->cq_futex, __ATOMIC_SEQ_CST);
        Reap();
        if (completed.load(std::memory_order_acquire) < seq)
            FutexWait(&hdr->cq_futex, val, slice);
        __atomic_fetch_sub(&hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
    }
}

int npuHalQueue::WaitSeqUntraced(uint64_t seq, uint64_t timeout_ns) {
    const uint64_t start = NowNs();
    auto now = std::chrono::steady_clock::now();
    auto spin_end = now + (futex ? kFutexSpin : kSpin);
    if (futex && start < spin_off_until.load(std::memory_order_relaxed))
        spin_end = now;
    // A futex ring's waiter yields at once: when the engine that is to run
    // its work polls on this same CPU (a busy machine puts them together),
    // spinning first only delays it (measured with everything on one CPU:
    // 7.0-8.5 us a 4 KiB copy against 12-19 us); elsewhere it costs a
    // system call that returns at once.
    auto yield_at = now;
    do {
        Reap();
        if (completed.load(std::memory_order_acquire) >= seq)
            return 0;
        CpuRelax();
        now = std::chrono::steady_clock::now();
        // The engine that runs a futex ring is a thread of npud, which may
        // wait for this very CPU: let it have it now and then.
        if (futex && now >= yield_at) {
            std::this_thread::yield();
            const auto back = std::chrono::steady_clock::now();
            if (back - now >= kYieldStall && FutexAdapt()) {
                spin_off_until.store(NowNs() + kSpinOffNs, std::memory_order_relaxed);
                break;
            }
            now = back;
            yield_at = now + kSpinYield;
        }
    } while (now < spin_end);

    if (futex) {
        const int ret = FutexWaitSeq(seq, start, timeout_ns);
        if (ret != -EAGAIN)
            return ret;
    }

    unsigned declined = 0;
    for (;;) {
        Reap();
        const uint64_t done = completed.load(std::memory_order_acquire);
        if (done >= seq)
            return 0;
        uint64_t slice = kWaitSliceNs;
        if (timeout_ns) {
            const uint64_t spent = NowNs() - start;
            if (spent >= timeout_ns)
                return -ETIME;
            slice = std::min(slice, timeout_ns - spent);
        }
        // CQEs still needed; the unreaped ones count, so this is what
        // the CQ must hold when ours is there.
        const uint64_t need = std::min<uint64_t>(seq - done, entries);
        // Ring the doorbell too when the engine sleeps with our work
        // still in the SQ (a submitter that raced with its sleep).
        uint32_t to_submit = 0;
        if (__atomic_load_n(&hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_NEED_WAKEUP)
            to_submit = __atomic_load_n(&hdr->sq_tail, __ATOMIC_ACQUIRE) -
                        __atomic_load_n(&hdr->sq_head, __ATOMIC_ACQUIRE);
        int ret = Enter(std::min(to_submit, entries), static_cast<uint32_t>(need), slice);
        // -ETIME: the slice ended; -EINTR: a signal handler ran.
        if (ret == -EAGAIN)
            npu::hal::WaitRetryPause(&declined);
        else if (ret < 0 && ret != -ETIME && ret != -EINTR)
            return ret;
    }
}

// Publish n <= entries descriptors, waiting for room first, and ring the
// doorbell if the engine sleeps (unless !doorbell: the caller enters the
// driver itself). *last_seq (may be null) gets the last one's number.
int npuHalQueue::SubmitChunk(const struct npu_sqe *in, uint32_t n, bool doorbell,
                             uint64_t *last_seq) {
    std::unique_lock<std::mutex> guard(submit_lock);
    // Tracing: look at the CQ on every submission too, so that a
    // completion is observed no later than the stream's next submission.
    if (trace_lane != 0)
        Reap(true);
    // Room: outstanding + n <= entries.
    if (next_seq + n - completed.load(std::memory_order_acquire) > entries) {
        Reap();
        if (next_seq + n - completed.load(std::memory_order_acquire) > entries) {
            int ret = WaitSeq(next_seq + n - entries, 0);
            if (ret < 0)
                return ret;
        }
    }
    // sq_tail is next_seq mod 2^32 (both start at 0 and move together):
    // no load from the line the engine polls.
    uint32_t tail = static_cast<uint32_t>(next_seq);
    const uint32_t mask = entries - 1;
    for (uint32_t i = 0; i < n; i++) {
        struct npu_sqe *s = &sqes[(tail + i) & mask];
        std::memcpy(s, &in[i], sizeof(*s));
        s->user_data = next_seq + 1 + i;
        PrefetchForWrite(&sqes[(tail + i + kPrefetchAhead) & mask]);
    }
    // Recorded before the tail is published: the queueing time is exact
    // and the completion cannot be reaped before the record exists.
    if (trace_lane != 0)
        npu::base::trace::Queued(trace_lane, next_seq + 1, in, n, npu::base::trace::NowNs());
    next_seq += n;
    submitted.store(next_seq, std::memory_order_release);
    if (last_seq != nullptr)
        *last_seq = next_seq;
    // Store-then-load against the engine's flags-then-sq_tail (Dekker):
    // a sequentially consistent store and load, which the C++ model orders
    // against the driver's side, a full fence (smp_mb()) between its store
    // of NEED_WAKEUP and its last look at sq_tail. No fence of our own:
    // the store is already a full barrier (xchg on x86; stlr then ldar on
    // arm64), and a second one cost 3 ns per submission.
    __atomic_store_n(&hdr->sq_tail, tail + n, __ATOMIC_SEQ_CST);
    if (!doorbell || !(__atomic_load_n(&hdr->flags, __ATOMIC_SEQ_CST) & NPU_RING_NEED_WAKEUP))
        return 0;
    const uint32_t pending = tail + n - __atomic_load_n(&hdr->sq_head, __ATOMIC_ACQUIRE);
    guard.unlock();
    if (pending == 0)
        return 0;
    const int ret = Doorbell(pending);
    // A doorbell may have run the ring in this thread: its completions
    // are there now, so the trace sees them at their time.
    if (trace_lane != 0)
        Reap(true);
    return ret;
}

// Runs n (<= entries) descriptors and waits for the last: submits them
// without the doorbell and enters the driver to wait (so an engine-less
// ring runs them inline, one system call). Returns the first task error
// of the n, else the result of the last (0, or -ECANCELED). Callers are
// serialised by the owner of the queue (npuHalDevice): ours are then the
// newest descriptors, and the errors recorded are ours.
int npuHalQueue::RunChunk(const struct npu_sqe *in, uint32_t n) {
    uint64_t seq = 0;
    // A ring whose futex doorbell the driver watches runs with no call
    // into it: the doorbell (when its engines sleep) is the futex word,
    // and the wait on the CQ spins, then sleeps on cq_futex. The engine
    // that runs the ring then polls it for a while, so the next
    // synchronous call finds it awake and costs no wake-up at all. Other
    // rings, and calls of more than kSyncFutexBytes, are run in the
    // daemon's worker by one RING_ENTER below.
    bool by_futex = futex && (__atomic_load_n(&hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_FUTEX);
    // Only small calls: a larger one takes long enough for a round trip
    // not to matter, and its waiter, blocked in the driver, leaves the
    // CPUs to the engines that copy (spinning beside them made copies of
    // megabytes slower on two cores).
    uint64_t bytes = 0;
    for (uint32_t i = 0; by_futex && i < n; i++)
        bytes += in[i].len;
    by_futex = by_futex && bytes <= kSyncFutexBytes;
    int ret = SubmitChunk(in, n, by_futex, &seq);
    if (ret < 0)
        return ret;
    if (by_futex) {
        // Falls back to a wait in the driver itself after the futex phase.
        ret = WaitSeq(seq, 0);
        if (ret < 0)
            return ret;
    }
    unsigned declined = 0;
    for (;;) {
        Reap();
        const uint64_t done = completed.load(std::memory_order_acquire);
        if (done >= seq)
            break;
        const uint32_t to_submit = __atomic_load_n(&hdr->sq_tail, __ATOMIC_ACQUIRE) -
                                   __atomic_load_n(&hdr->sq_head, __ATOMIC_ACQUIRE);
        const uint64_t need = std::min<uint64_t>(seq - done, entries);
        ret = Enter(std::min(to_submit, entries), static_cast<uint32_t>(need), kWaitSliceNs);
        // -ETIME: the slice ended (a long copy); -EINTR: a signal
        // handler ran; -EAGAIN: npud declined to wait. Wait again.
        if (ret == -EAGAIN)
            npu::hal::WaitRetryPause(&declined);
        else if (ret < 0 && ret != -ETIME && ret != -EINTR)
            return ret;
    }
    std::lock_guard<std::mutex> guard(reap_lock);
    // The error record is used only here on this queue: take and clear it.
    const int res = nerrors != 0 ? errors[0].res : last_res;
    nerrors = 0;
    return res;
}

// Runs n descriptors in chunks of at most entries, every chunk even after
// a failed one (as one submission of all n would): the first error, a task
// error before a cancellation, else 0.
int npuHalQueue::Run(const struct npu_sqe *in, uint32_t n) {
    int first = 0;
    for (uint32_t i = 0; i < n;) {
        const uint32_t k = std::min(n - i, entries);
        const int ret = RunChunk(in + i, k);
        i += k;
        if (ret != 0 && (first == 0 || (first == -ECANCELED && ret != -ECANCELED)))
            first = ret;
    }
    return first;
}

namespace {

// Every live queue of the process, for npuHalQueueStatsTotal. Only queue
// creation and destruction take the lock, never the submit path.
struct QueueRegistry {
    std::mutex mu; /* Protects: queues */
    std::vector<npuHalQueue *> queues;
};

// Never destroyed (queues may outlive statics); a forked child starts with
// no queue (base/singleton.h), the parent's are leaked.
QueueRegistry &Registry() {
    return npu::base::Singleton<QueueRegistry>::Get();
}

void RegisterQueue(npuHalQueue *q) {
    QueueRegistry &r = Registry();
    std::lock_guard<std::mutex> guard(r.mu);
    r.queues.push_back(q);
}

void UnregisterQueue(npuHalQueue *q) {
    QueueRegistry &r = Registry();
    std::lock_guard<std::mutex> guard(r.mu);
    auto it = std::find(r.queues.begin(), r.queues.end(), q);
    if (it != r.queues.end())
        r.queues.erase(it);
}

}  // namespace

void npu::hal::trace::NameQueue(npuHalQueue *q, const std::string &name) {
    if (q != nullptr)
        npu::base::trace::SetLaneName(q->trace_lane, name);
}

void npu::hal::trace::EngineTimestamp(npuHalQueue *q, uint64_t seq, uint64_t ns) {
    if (q != nullptr)
        npu::base::trace::EngineTime(q->trace_lane, seq, ns);
}

// A queue that npuHalQueueStatsTotal does not count (the HAL's own
// synchronous queue); otherwise npuHalQueueCreate.
int npu::hal::QueueCreateUnlisted(npuHalDevice *dev, uint32_t entries, npuHalQueue **out) {
    if (dev == nullptr || out == nullptr)
        return -EINVAL;
    if (entries == 0)
        entries = kDefaultEntries;
    if (entries > NPU_RING_MAX_ENTRIES || (entries & (entries - 1)) != 0)
        return -EINVAL;
    npu::base::trace::Start();
    std::unique_ptr<npuHalQueue> q(new (std::nothrow) npuHalQueue);
    if (!q)
        return -ENOMEM;
    q->dev = dev;
    q->file = npu::hal::DeviceFileOf(dev);
    int ret = q->Create(entries);
    if (ret < 0)
        return ret;
    q->trace_lane = npu::base::trace::LaneOpen(npu::hal::DeviceIndex(dev), q->ring_id);
    *out = q.release();
    return 0;
}

int npu::hal::QueueRun(npuHalQueue *q, const struct npu_sqe *sqes, uint32_t n) {
    if (q->stale())
        return -EBADF;
    return q->Run(sqes, n);
}

extern "C" {

int npuHalQueueCreate(npuHalDevice *dev, uint32_t entries, npuHalQueue **out) {
    int ret = npu::hal::QueueCreateUnlisted(dev, entries, out);
    if (ret == 0)
        RegisterQueue(*out);
    return ret;
}

void npuHalQueueDestroy(npuHalQueue *q) {
    // A parent's queue in a forked child is left alone (leaked): its
    // memory is not mapped here, and whatever the child maps at that
    // address later is not ours to unmap.
    if (q == nullptr || q->stale())
        return;
    UnregisterQueue(q);
    if (q->entries != 0) {
        q->WaitSeq(q->submitted.load(std::memory_order_acquire), 0);
        npu::base::trace::LaneClose(q->trace_lane);
        struct npu_ring_destroy rd = {};
        rd.ring_id = q->ring_id;
        q->file->Ioctl(NPU_IOCTL_RING_DESTROY, &rd);
    }
    delete q;
}

// Cancels every descriptor published so far that has not started (a
// VALUE_WAIT holding the queue included) and returns once they have
// completed (with -ECANCELED, which Reap does not record as an error), so
// a following npuHalQueueDestroy does not wait for them. Descriptors
// published afterwards run as usual.
//
// Not under submit_lock: a submitter waiting for room in a ring that a
// VALUE_WAIT holds keeps that lock, and only the abort gives it room. The
// wait is for the descriptors up to the tail read before the ioctl, all
// of which the driver cancels or has started; a later one may be another
// VALUE_WAIT, which the caller did not ask to wait for.
int npuHalQueueAbort(npuHalQueue *q) {
    if (q == nullptr)
        return -EINVAL;
    if (q->stale())
        return -EBADF;
    // submitted moves before sq_tail (SubmitChunk), so sub is at least the
    // sequence number of the tail, and at most a ring ahead of it.
    const uint32_t tail = __atomic_load_n(&q->hdr->sq_tail, __ATOMIC_ACQUIRE);
    const uint64_t sub = q->submitted.load(std::memory_order_acquire);
    const uint64_t published = sub - static_cast<uint32_t>(static_cast<uint32_t>(sub) - tail);
    struct npu_ring_abort ra = {};
    ra.ring_id = q->ring_id;
    int ret = q->file->Ioctl(NPU_IOCTL_RING_ABORT, &ra);
    if (ret < 0)
        return ret;
    return q->WaitSeq(published, 0);
}

int npuHalQueueSubmit(npuHalQueue *q, const struct npu_sqe *sqes, uint32_t n, uint64_t *last_seq) {
    if (q == nullptr || (n != 0 && sqes == nullptr))
        return -EINVAL;
    if (q->stale())
        return -EBADF;
    uint64_t last = 0;
    while (n != 0) {
        const uint32_t chunk = std::min(n, q->entries);
        int ret = q->SubmitChunk(sqes, chunk);
        if (ret < 0)
            return ret;
        sqes += chunk;
        n -= chunk;
        last = q->submitted.load(std::memory_order_acquire);
    }
    if (last_seq != nullptr)
        *last_seq = last ? last : q->submitted.load(std::memory_order_acquire);
    return 0;
}

uint64_t npuHalQueueCompleted(npuHalQueue *q) {
    if (q->stale())
        return q->completed.load(std::memory_order_acquire);
    q->Reap(true);
    return q->completed.load(std::memory_order_acquire);
}

uint64_t npuHalQueueSubmitted(npuHalQueue *q) {
    return q->submitted.load(std::memory_order_acquire);
}

int npuHalQueueWait(npuHalQueue *q, uint64_t seq, uint64_t timeout_ns) {
    if (q == nullptr || seq > q->submitted.load(std::memory_order_acquire))
        return -EINVAL;
    if (q->stale())
        return -EBADF;
    return q->WaitSeq(seq, timeout_ns);
}

int npuHalQueueTakeError(npuHalQueue *q, uint64_t *seq) {
    if (q->stale()) {
        if (seq != nullptr)
            *seq = 0;
        return -EBADF;
    }
    struct npuHalQueueError first = {};
    if (npuHalQueueTakeErrors(q, &first, 1) == 0)
        return 0;
    if (seq != nullptr)
        *seq = first.seq;
    return first.res;
}

uint32_t npuHalQueueTakeErrors(npuHalQueue *q, struct npuHalQueueError *out, uint32_t max) {
    if (q->stale())
        return 0;
    q->Reap();
    std::lock_guard<std::mutex> guard(q->reap_lock);
    const uint32_t n = q->nerrors;
    const uint32_t kept = std::min<uint32_t>(n, HAL_QUEUE_MAX_ERRORS);
    for (uint32_t i = 0; i < kept && i < max; i++)
        out[i] = q->errors[i];
    q->nerrors = 0;
    return n;
}

int npuHalQueueStats(npuHalQueue *q, struct npu_ring_stats *out) {
    if (q == nullptr || out == nullptr)
        return -EINVAL;
    if (q->stale())
        return -EBADF;
    struct npu_ring_stats st = {};
    st.ring_id = q->ring_id;
    int ret = q->file->Ioctl(NPU_IOCTL_RING_STATS, &st);
    if (ret < 0)
        return ret;
    *out = st;
    return 0;
}

int npuHalQueueStatsTotal(struct npu_ring_stats *out) {
    if (out == nullptr)
        return -EINVAL;
    struct npu_ring_stats sum = {};
    QueueRegistry &r = Registry();
    std::lock_guard<std::mutex> guard(r.mu);
    for (npuHalQueue *q : r.queues) {
        struct npu_ring_stats st = {};
        int ret = npuHalQueueStats(q, &st);
        if (ret < 0)
            return ret;
        sum.sqes += st.sqes;
        sum.doorbells += st.doorbells;
        sum.waits += st.waits;
        sum.wakeups += st.wakeups;
        sum.futex_checks += st.futex_checks;
    }
    *out = sum;
    return 0;
}

}  // extern "C"
