/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ring scheduler: which engine of a device runs which ring, when.
 */
#ifndef _NPU_SCHED_H
#define _NPU_SCHED_H

#include "npu_internal.h"

struct npu_device;
struct npu_ring;
struct npu_sched;

/*
 * Scheduling state of a ring (npu_ring.sstate), under the device's sched
 * lock. NEED_WAKEUP is set in the ring header exactly while it is ASLEEP
 * (and, transiently, while it is QUEUED after leaving ASLEEP).
 */
enum npu_ring_sstate {
	NPU_RING_ASLEEP,	/* on no list: only a doorbell brings it back */
	NPU_RING_POLLED,	/* on pollq: an engine watches its sq_tail */
	NPU_RING_QUEUED,	/* on runq: the next idle engine runs it */
	NPU_RING_RUNNING,	/* owned by one engine, on no list */
	NPU_RING_PARKED,	/* on parked: its head is a VALUE_WAIT not yet true */
	NPU_RING_DEAD,		/* detached: no engine will look at it again */
};

/* Counters of the engines' scheduling since load (debugfs npu/npuN/engines). */
struct npu_sched_stats {
	u64 split;	/* copies cut into chunks (npu_job_run()) */
	u64 helped;	/* chunks of those run by an engine other than the copy's own */
	u64 nudged;	/* rings a waiter took out of their pause to gather descriptors */
	u64 db_demoted;	/* futex rings that lost the futex doorbell (too many empty wakes) */
};

int npu_sched_init(struct npu_device *ndev);
void npu_sched_fini(struct npu_device *ndev);
unsigned int npu_sched_engines(const struct npu_device *ndev);
void npu_sched_busy(const struct npu_device *ndev, u64 *busy_ns, u64 *up_ns);

void npu_sched_attach(struct npu_ring *ring);
void npu_sched_detach(struct npu_ring *ring);
bool npu_sched_futex_attach(struct npu_ring *ring);
u32 npu_sched_kick(struct npu_ring *ring, u32 to_submit, bool doorbell);
bool npu_sched_enter_inline(struct npu_ring *ring, u32 to_submit, u32 *submitted);
u64 npu_sched_inline_runs(const struct npu_device *ndev);
void npu_sched_stats(const struct npu_device *ndev, struct npu_sched_stats *st);
void npu_sched_abort(struct npu_ring *ring);
bool npu_sched_ring_idle(struct npu_ring *ring);

#endif /* _NPU_SCHED_H */
