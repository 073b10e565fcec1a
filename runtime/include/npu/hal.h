/* SPDX-License-Identifier: MIT */
/*
 * The adapter layer (HAL): C functions that turn runtime requests into
 * driver ioctls and ring submissions. The HAL is the only code that knows
 * which backend it talks to:
 *
 *   NPU_DEVICE=inproc      the driver linked into this process (mock kernel)
 *   NPU_DEVICE=/path/npu0  a device node or FUSE file (kmod, CUSE or npud --fuse);
 *                          device N is the same path with the trailing 0 replaced by N
 *   unset                  /dev/npu0 if it exists, else /run/npu/dev/npu0, else inproc
 *
 * NPU_INPROC_DEVICES (default 1) and NPU_HBM_SIZE (bytes, with an optional
 * K/M/G suffix; default 16G) configure the in-process device.
 *
 * Every function returns 0 or a negative errno from the driver or the
 * system; npuHalErrorToAcl() maps that to the upstream error code. All
 * functions are thread safe.
 */
#ifndef NPU_HAL_H
#define NPU_HAL_H

#include <stddef.h>
#include <stdint.h>

#include "npu/npu_uapi.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct npuHalDevice npuHalDevice;

/* Which backend the process uses: "inproc", or the path of device 0. */
const char *npuHalBackendName(void);
/* True when the backend is the in-process device. */
int npuHalBackendIsInproc(void);
/*
 * Reads a debugfs file of the in-process driver, path relative to the
 * debugfs root (e.g. "npu/npu0/counters", as under /sys/kernel/debug for
 * npu.ko): its statistics, for tests and benchmarks. Returns the bytes
 * read or -errno (-ENOENT before the in-process device is loaded).
 */
long npuHalInprocDebugfsRead(const char *path, char *buf, size_t len);

/*
 * fork(): the HAL's files belong to the process that opened them. The
 * runtime's pthread_atfork handlers call these around every fork. In the
 * child, npuHalForkChild() closes, without any ioctl, every device file,
 * io_uring and ring/pool memory file descriptor the parent's HAL objects
 * hold (npuHalForkTrackFd), and from then on those objects fail every call
 * with -EBADF; the child may open devices afresh. The in-process device is
 * the parent's: a child refuses to open it (-EOPNOTSUPP) once the parent
 * had loaded it.
 */
void npuHalForkPrepare(void);
void npuHalForkParent(void);
void npuHalForkChild(void);
/* True in a child forked after the parent loaded the in-process device. */
int npuHalForkInprocUnusable(void);
/* A descriptor to close in a forked child (untrack it before closing it). */
void npuHalForkTrackFd(int fd);
void npuHalForkUntrackFd(int fd);

/* Number of physical devices the backend offers. */
int npuHalGetDeviceCount(uint32_t *count);

/*
 * Open physical device devId for this process: open the file, reserve the
 * device-VA aperture in this address space and hand it to the driver, and
 * create the ring that synchronous copies use. Each open is one driver
 * context; closing it frees everything the context holds.
 */
int npuHalDeviceOpen(uint32_t devId, npuHalDevice **dev);
void npuHalDeviceClose(npuHalDevice *dev);

/* The device-VA aperture of dev: no host address is ever inside it. */
uint64_t npuHalApertureBase(const npuHalDevice *dev);
uint64_t npuHalApertureSize(const npuHalDevice *dev);
/* True when [addr, addr + size) lies inside dev's aperture. */
int npuHalIsDeviceAddress(const npuHalDevice *dev, const void *addr, size_t size);

int npuHalGetVersion(npuHalDevice *dev, struct npu_version *version);
int npuHalDeviceInfo(npuHalDevice *dev, struct npu_device_info *info);
int npuHalMemInfo(npuHalDevice *dev, struct npu_mem_info *info);

/* policy: NPU_POLICY_*; flags: NPU_MEM_*. */
int npuHalMemAlloc(npuHalDevice *dev, uint64_t size, uint32_t policy, uint32_t flags,
		struct npu_mem_alloc *out);
int npuHalMemFree(npuHalDevice *dev, uint64_t va);
int npuHalMemQuery(npuHalDevice *dev, uint64_t va, struct npu_mem_query *out);

/*
 * The synchronous path: n descriptors that the caller built (the runtime's
 * copy planner), submitted in order on the device's own queue with one
 * doorbell and waited for. Host operands are addresses in this process,
 * device operands device VAs of dev. Returns the first descriptor error
 * (0 or -errno); every descriptor runs whatever an earlier one returned.
 */
int npuHalDeviceRun(npuHalDevice *dev, const struct npu_sqe *sqes, uint32_t n);
/*
 * Driver-side statistics of the ring npuHalDeviceRun uses (as
 * npuHalQueueStats): how many of the synchronous calls needed a call into
 * the driver (doorbells, waits) and how many a futex doorbell.
 */
int npuHalDeviceRunStats(npuHalDevice *dev, struct npu_ring_stats *out);

/* NPU_IOCTL_NOP round trip: the backend's ioctl floor. */
int npuHalNop(npuHalDevice *dev);

/* ---------------------------------------------------------------------- */
/* Queues, host memory and peers                                           */
/* ---------------------------------------------------------------------- */

/*
 * A queue is one ring of dev, owned by one stream: descriptors execute in
 * submission order; different queues run concurrently on the device's
 * engines. Each descriptor gets a sequence number (1, 2, ... per queue);
 * the HAL writes it into user_data, so callers leave user_data alone.
 * All queue functions are thread safe. In a forked child a queue of the
 * parent fails every call with -EBADF (npuHalQueueCompleted returns what had
 * completed at the fork) and npuHalQueueDestroy leaves it alone.
 */
typedef struct npuHalQueue npuHalQueue;

/* entries: a power of two in [1, NPU_RING_MAX_ENTRIES]; 0 picks the default. */
int npuHalQueueCreate(npuHalDevice *dev, uint32_t entries, npuHalQueue **out);
/* Waits for every submitted descriptor, then destroys the ring. */
void npuHalQueueDestroy(npuHalQueue *q);
/*
 * Append n descriptors, in order, and make sure an engine will run them
 * (the doorbell only when the engine asked for it with NEED_WAKEUP). Blocks
 * while the ring is full. *last_seq (may be NULL) gets the sequence number
 * of the last one.
 */
int npuHalQueueSubmit(npuHalQueue *q, const struct npu_sqe *sqes, uint32_t n, uint64_t *last_seq);
/* Sequence number up to which everything has completed; never blocks. */
uint64_t npuHalQueueCompleted(npuHalQueue *q);
/* Sequence number of the last descriptor submitted (0 if none). */
uint64_t npuHalQueueSubmitted(npuHalQueue *q);
/*
 * Wait until descriptor seq (and so every older one) has completed: spin
 * briefly, then block. timeout_ns 0 waits forever. Returns 0 or -ETIME.
 */
int npuHalQueueWait(npuHalQueue *q, uint64_t seq, uint64_t timeout_ns);
/*
 * The first descriptor error since the last take: returns its res (a
 * negative errno) and its sequence number in *seq (may be NULL), and
 * clears it with the later ones; 0 when none failed.
 */
int npuHalQueueTakeError(npuHalQueue *q, uint64_t *seq);
/*
 * Every descriptor error since the last take, in completion order (so the
 * first is the one npuHalQueueTakeError reports): copies up to max of them to
 * out, clears them all and returns how many failed. A queue keeps the
 * first HAL_QUEUE_MAX_ERRORS of a stretch; the count goes on past them.
 */
#define HAL_QUEUE_MAX_ERRORS 64
struct npuHalQueueError {
	uint64_t seq;	/* sequence number of the failed descriptor */
	int res;	/* its result, a negative errno */
};
uint32_t npuHalQueueTakeErrors(npuHalQueue *q, struct npuHalQueueError *out, uint32_t max);
/*
 * Cancel every descriptor submitted so far that has not started (a
 * VALUE_WAIT holding the queue included); returns once they have completed
 * with -ECANCELED, which npuHalQueueTakeError does not report. A submitter
 * blocked for room meanwhile gets it; what is submitted after the call
 * runs as usual. For aclrtDestroyStreamForce and aclrtStreamAbort.
 */
int npuHalQueueAbort(npuHalQueue *q);
/* Driver-side statistics of the queue's ring. */
int npuHalQueueStats(npuHalQueue *q, struct npu_ring_stats *out);
/*
 * The sum of npuHalQueueStats over every live queue of this process, the
 * runtime's streams included (ring_id 0): what benchmarks difference to
 * count the system calls of a stretch of stream work.
 */
int npuHalQueueStatsTotal(struct npu_ring_stats *out);

/*
 * Register [ptr, ptr + size) of this process with dev so the engines copy
 * it directly (pinned). fd is a memfd backing the range at offset fd_off,
 * or -1 for anonymous memory. Page aligned. Unregister takes the same ptr.
 */
int npuHalHostRegister(npuHalDevice *dev, void *ptr, uint64_t size, int fd, uint64_t fd_off);
int npuHalHostUnregister(npuHalDevice *dev, void *ptr);

/*
 * Let descriptors of dev's queues name device VAs of peer (both opened by
 * this process on the same driver instance), and stop it again.
 */
int npuHalPeerEnable(npuHalDevice *dev, npuHalDevice *peer);
int npuHalPeerDisable(npuHalDevice *dev, npuHalDevice *peer);
/* 1 if dev and peer can reach each other (same driver instance), else 0. */
int npuHalPeerCapable(npuHalDevice *dev, npuHalDevice *peer);

/* ---------------------------------------------------------------------- */
/* Sharing: IPC keys, physical memory, shareable handles                  */
/* ---------------------------------------------------------------------- */

/*
 * Everything below is per driver context (per npuHalDevice): VAs, physical
 * handles and the exports a context made belong to it, and closing the
 * device releases them. Keys are NPU_IPC_KEY_LEN characters, no NUL.
 */

/* The caller's TGID as the driver sees it: what whitelists hold. */
int npuHalGetBareTgid(int32_t *tgid);

/* IPC: export the first size bytes of the allocation at va (flags: NPU_SHARE_*). */
int npuHalIpcExport(npuHalDevice *dev, uint64_t va, uint64_t size, uint32_t flags,
		 char key[NPU_IPC_KEY_LEN]);
int npuHalIpcSetPid(npuHalDevice *dev, const char key[NPU_IPC_KEY_LEN], const int32_t *pids,
		 uint32_t count);
int npuHalIpcImport(npuHalDevice *dev, const char key[NPU_IPC_KEY_LEN], struct npu_ipc_import *out);
int npuHalIpcUnimport(npuHalDevice *dev, uint64_t va);
int npuHalIpcDestroy(npuHalDevice *dev, const char key[NPU_IPC_KEY_LEN]);

/* Physical memory: page_class NPU_CLASS_*, flags NPU_MEM_P2P and NPU_MEM_HOST. */
int npuHalPhysAlloc(npuHalDevice *dev, uint64_t size, uint32_t page_class, uint32_t flags,
		 uint32_t *handle);
int npuHalPhysFree(npuHalDevice *dev, uint32_t handle);
int npuHalPhysRetain(npuHalDevice *dev, uint64_t va, uint32_t *handle);
int npuHalPhysInfo(npuHalDevice *dev, uint32_t handle, struct npu_phys_info *out);
/* A handle of dev for the memory behind handle peer_handle of peer (same process). */
int npuHalPhysPeer(npuHalDevice *dev, npuHalDevice *peer, uint32_t peer_handle, uint32_t *handle);

/* Reservations and mappings; want_va 0 lets the driver choose. */
int npuHalVmmReserve(npuHalDevice *dev, uint64_t size, uint64_t want_va, uint32_t flags, uint64_t *va);
int npuHalVmmRelease(npuHalDevice *dev, uint64_t va);
int npuHalVmmMap(npuHalDevice *dev, uint64_t va, uint64_t size, uint32_t handle, uint32_t flags);
int npuHalVmmUnmap(npuHalDevice *dev, uint64_t va);
int npuHalVmmSetAccess(npuHalDevice *dev, uint64_t va, uint64_t size, uint32_t loc_type,
		    uint32_t loc_id, uint32_t access);
int npuHalVmmGetAccess(npuHalDevice *dev, uint64_t va, uint32_t loc_type, uint32_t loc_id,
		    uint32_t *access);

/* Shareable handles of physical memory (flags: NPU_SHARE_*). */
int npuHalShareExport(npuHalDevice *dev, uint32_t handle, uint32_t flags, uint64_t *share);
int npuHalShareSetPid(npuHalDevice *dev, uint64_t share, const int32_t *pids, uint32_t count);
int npuHalShareImport(npuHalDevice *dev, uint64_t share, struct npu_share_import *out);

/*
 * npu-smi: up to count records into buf; *total is how many exist (retry
 * with a bigger buffer when it is larger than count).
 */
int npuHalSmiProcs(npuHalDevice *dev, struct npu_smi_proc *buf, uint32_t count, uint32_t *total);
int npuHalSmiShares(npuHalDevice *dev, struct npu_smi_share *buf, uint32_t count, uint32_t *total);
int npuHalSmiUsers(npuHalDevice *dev, struct npu_smi_user *buf, uint32_t count, uint32_t *total);

/*
 * Map a negative errno to the upstream code, as DESIGN.md gives it: the
 * default rows of the runtime's one errno table (EINVAL/EFAULT/ESRCH ->
 * 107000, ENOMEM/ENOSPC -> 207001, EOPNOTSUPP -> 207000, EPERM/EACCES ->
 * 207006, ENOENT/EBADF -> 107017, EPROTO -> 507001, anything else ->
 * 507899). Every HAL function returns 0 or -errno; the caller's context
 * decides where a different code is due.
 */
int npuHalErrorToAcl(int err);

/*
 * Record message as the calling thread's newest failure text, which
 * aclGetRecentErrMsg() returns (and clears). For libraries built on this
 * one, such as libascend_hal.so, whose functions return codes of their own
 * but whose refusals must still explain themselves.
 */
void npuHalRecordErrorMessage(const char *message);

#ifdef __cplusplus
}
#endif

#endif /* NPU_HAL_H */
