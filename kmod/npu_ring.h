/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Submission/completion rings in memory the application provides.
 */
#ifndef _NPU_RING_H
#define _NPU_RING_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_mem.h"

struct npu_ctx;

/*
 * The futex doorbell (NPU_RING_CREATE_FUTEX) needs futexes in ring memory,
 * which only the mock kernel offers a driver (mockdev/futex.h): npud and
 * the in-process device have it, the kernel module does not.
 */
#ifdef NPU_FUTEX_DOORBELL
#include <mockdev/futex.h>
#define NPU_RING_FUTEX_FEATURES \
	(mock_futex_waitv_supported() ? NPU_FEATURE_FUTEX_DOORBELL : 0)
#else
#define NPU_RING_FUTEX_FEATURES	0
#endif

struct npu_ring {
	struct kref ref;	/* the context's id, plus each RING_ENTER in progress */
	struct npu_ctx *ctx;	/* owner; outlives every ioctl on its file */
	struct mm_struct *mm;	/* the creator's address space (mmgrab): host operands */
	u32 id;
	u32 sq_entries;
	u32 cq_entries;

	/* The pinned region: header, SQEs, CQEs; shared with the application. */
	struct page **pages;
	unsigned int nr_pages;
	void *vaddr;
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqes;
	struct npu_cqe *cqes;

	/*
	 * Held by the engine that runs the ring (state RUNNING), so at most one
	 * engine executes its descriptors at a time and they complete in order.
	 */
	struct mutex submit_lock; /* Protects: sq_head, cq_unpub, cq_room_end, cq_overflow, held, has_held, mm_ok; cq_tail writes */
	u32 sq_head;		/* private copies of the driver-written fields */
	u32 cq_tail;		/* published; read locklessly by waiters (READ_ONCE) */
	u32 cq_unpub;		/* CQEs written after cq_tail, not yet published */
	u32 cq_room_end;	/* the CQ has room up to here, as of the last read of cq_head */
	u32 cq_overflow;
	/*
	 * Written by whoever owns the ring: the engine running it, or the
	 * sched lock holder while it is not RUNNING (NEED_WAKEUP).
	 */
	u32 flags;
	/*
	 * 0, or why the ring failed (-EPROTO: an impossible sq_tail; -EFAULT:
	 * its memory failed). Set once, by the engine running it (submit_lock
	 * held); read locklessly. A failed ring completes nothing more.
	 */
	int err;
	bool mm_ok;		/* the engine has adopted mm for this batch */
	bool has_held;		/* held is a VALUE_WAIT consumed but not yet true */
	struct npu_sqe held;
	/* Translations in ctx kept for the rest of a batch; under submit_lock. */
	struct npu_mem_xlate xlate;

	/* Scheduling; all under the device's sched lock. */
	struct list_head sched_link;	/* in the runq, pollq or parked list of sstate */
	int sstate;		/* enum npu_ring_sstate */
	bool rerun;		/* a doorbell came while it was RUNNING */
	bool detaching;		/* npu_sched_detach() runs: never queue it again */
	u32 sq_acked;		/* sq_tail as far as doorbells acknowledged it */
	u32 abort_req;		/* aborts asked for ... */
	u32 abort_done;		/* ... and carried out by an engine */
	u32 abort_tail;		/* the SQEs before it fail with -ECANCELED */
	u64 poll_after;		/* POLLED: not looked at before this (ktime ns), 0: now */
	wait_queue_head_t state_wait;	/* woken when it leaves RUNNING or an abort is done */

	/*
	 * NPU_IOCTL_RING_STATS counters. st_sqes has one writer, the runner
	 * of the ring (submit_lock held), so it is counted with a plain add
	 * (npu_engine_count_sqe()); readers still see whole values.
	 */
	atomic64_t st_sqes;
	atomic64_t st_doorbells;
	atomic64_t st_waits;
	atomic64_t st_wakeups;

	wait_queue_head_t cq_wait;	/* completion waiters: woken on CQEs and when the ring goes idle */

	/*
	 * The futex doorbell. futex: created with NPU_RING_CREATE_FUTEX, so
	 * sleepers on cq_futex are woken with cq_wait's; set before the ring
	 * is reachable. db_on: the doorbell thread watches sq_doorbell
	 * (NPU_RING_FUTEX in the header); cleared once, under the sched
	 * lock, read by whoever publishes the flags.
	 */
	bool futex;
	bool db_on;
	atomic_t cq_futex_seq;		/* the last value written to cq_futex */
	atomic64_t st_futex_checks;
	/* The doorbell thread's; under its lock (npu_sched.c). */
	struct list_head db_link;
	u32 db_seen;			/* sq_doorbell as last looked at */
	int db_budget;			/* wakes with nothing to do it still takes */
	u64 db_refill_ns;		/* when the budget last grew */
};

int npu_ring_alloc(struct npu_ctx *ctx, const struct npu_ring_create *args,
		   struct npu_ring **out);
void npu_ring_put(struct npu_ring *ring);

/*
 * Every access of the driver to the ring's shared memory goes through
 * these (io_uring style), so the checks on memory the application controls
 * live in one place.
 */
u32 npu_ring_sq_ready(struct npu_ring *ring);
bool npu_ring_read_sqe(struct npu_ring *ring, struct npu_sqe *sqe);
void npu_ring_post_cqe(struct npu_ring *ring, u64 user_data, s32 res);
void npu_ring_fill_cqe(struct npu_ring *ring, u64 user_data, s32 res);
void npu_ring_commit_cqes(struct npu_ring *ring);
u32 npu_ring_sq_tail(struct npu_ring *ring);
bool npu_ring_sq_pending(struct npu_ring *ring);
u32 npu_ring_cq_ready(struct npu_ring *ring);
void npu_ring_publish_flags(struct npu_ring *ring);
void npu_ring_wake_waiters(struct npu_ring *ring);

/* The futex doorbell's words (NPU_RING_CREATE_FUTEX). */
u32 npu_ring_doorbell_read(struct npu_ring *ring);
u32 *npu_ring_doorbell_word(struct npu_ring *ring);

/* The doorbell handshake with the producer (NPU_RING_NEED_WAKEUP). */
void npu_ring_wakeup_clear(struct npu_ring *ring);
bool npu_ring_wakeup_arm(struct npu_ring *ring);

/* Why the ring failed (-errno), or 0 while it works. */
static inline int npu_ring_failed(const struct npu_ring *ring)
{
	return READ_ONCE(ring->err);
}

#endif /* _NPU_RING_H */
