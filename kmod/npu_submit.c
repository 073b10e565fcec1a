// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The ring commands: RING_CREATE, RING_DESTROY, RING_ENTER (the doorbell
 * and the completion wait), RING_ABORT and RING_STATS, and the rings of a
 * closing context.
 *
 * This is where a ring (npu_ring.c: its memory and the accessors of what
 * the application shares with the driver) meets the scheduler of the
 * engines (npu_sched.c): a new ring is attached to it, a doorbell kicks
 * it or runs it in the calling thread, a waiter sleeps until enough CQEs
 * are there or the scheduler says the ring went idle, and a ring leaves
 * the engines for good before its last reference goes.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_ring.h"
#include "npu_sched.h"
#include "npu_submit.h"

/* A completion waiter polls the CQ this long before it sleeps. */
#define NPU_SUBMIT_WAIT_SPIN_NS	(10 * NSEC_PER_USEC)

static struct npu_ring *npu_submit_ring_get(struct npu_ctx *ctx, u32 ring_id)
{
	struct npu_ring *ring;

	mutex_lock(&ctx->lock);
	ring = idr_find(&ctx->rings, ring_id);
	if (ring)
		kref_get(&ring->ref);
	mutex_unlock(&ctx->lock);
	return ring;
}

/**
 * npu_submit_create() - NPU_IOCTL_RING_CREATE: register a ring region of the caller
 * @ctx: a set-up context
 * @args: NPU_IOCTL_RING_CREATE arguments, flags already checked; the out
 *	fields are filled on success
 *
 * Return: 0; the errors of npu_ring_alloc(); -ENOMEM or -ENOSPC when no id
 * is left.
 */
int npu_submit_create(struct npu_ctx *ctx, struct npu_ring_create *args)
{
	struct npu_ring *ring;
	int ret, id;

	ret = npu_ring_alloc(ctx, args, &ring);
	if (ret)
		return ret;
	npu_sched_attach(ring);
	/* The futex doorbell, if the device can watch one more (NPU_RING_FUTEX). */
	if (ring->futex)
		npu_sched_futex_attach(ring);

	mutex_lock(&ctx->lock);
	id = idr_alloc(&ctx->rings, ring, 1, 0, GFP_KERNEL);
	mutex_unlock(&ctx->lock);
	if (id < 0) {
		npu_sched_detach(ring);
		npu_ring_put(ring);
		return id;
	}
	ring->id = id;

	args->ring_id = id;
	args->sqes_off = NPU_RING_SQES_OFF;
	args->cqes_off = NPU_RING_SQES_OFF + (u64)args->sq_entries * sizeof(struct npu_sqe);
	return 0;
}

/**
 * npu_submit_destroy() - drop a ring
 * @ctx: a set-up context
 * @ring_id: the id RING_CREATE returned
 *
 * The descriptor an engine is running finishes; the others complete with
 * -ECANCELED.
 *
 * Return: 0 or -ENOENT.
 */
int npu_submit_destroy(struct npu_ctx *ctx, u32 ring_id)
{
	struct npu_ring *ring;

	mutex_lock(&ctx->lock);
	ring = idr_remove(&ctx->rings, ring_id);
	mutex_unlock(&ctx->lock);
	if (!ring)
		return -ENOENT;
	/* New RING_ENTERs can no longer find it; the engines let go of it. */
	npu_sched_detach(ring);
	npu_ring_put(ring);
	return 0;
}

/**
 * npu_submit_release_all() - drop every ring of a closing context
 * @ctx: the context; no ioctl can run on it any more
 */
void npu_submit_release_all(struct npu_ctx *ctx)
{
	struct npu_ring *ring;
	int id = 0;

	for (;;) {
		/* Not under ctx->lock: the engine running the ring may need it. */
		mutex_lock(&ctx->lock);
		ring = idr_get_next(&ctx->rings, &id);
		if (ring)
			idr_remove(&ctx->rings, id);
		mutex_unlock(&ctx->lock);
		if (!ring)
			break;
		npu_sched_detach(ring);
		npu_ring_put(ring);
	}
}

static bool npu_submit_wait_done(struct npu_ring *ring, u32 min_complete)
{
	return npu_ring_cq_ready(ring) >= min_complete || npu_sched_ring_idle(ring);
}

/*
 * Wait until @min_complete CQEs are there, but only while something is in
 * flight: with nothing submitted, nothing will arrive, so return what is
 * there. Spin briefly first: a completion that is microseconds away costs
 * less than a sleep and a cross-CPU wake-up.
 *
 * Any signal ends the wait with -EINTR, with or without a timeout: a wait
 * may never end on its own (a VALUE_WAIT nobody releases), and the caller
 * must be able to run its signal handlers (the runtime just waits again).
 */
static int npu_submit_wait(struct npu_ring *ring, u32 min_complete, u64 timeout_ns)
{
	u64 spin_end = ktime_get_ns() + min_t(u64, NPU_SUBMIT_WAIT_SPIN_NS, timeout_ns ?: U64_MAX);
	long ret;

	do {
		cpu_relax();
		if (npu_submit_wait_done(ring, min_complete))
			return 0;
	} while (ktime_get_ns() < spin_end);
	atomic64_inc(&ring->st_waits);

	if (!timeout_ns) {
		ret = wait_event_interruptible(ring->cq_wait,
					       npu_submit_wait_done(ring, min_complete));
		return ret ? -EINTR : 0;
	}
	ret = wait_event_interruptible_timeout(ring->cq_wait,
					       npu_submit_wait_done(ring, min_complete),
					       max_t(long, nsecs_to_jiffies(timeout_ns), 1));
	if (ret < 0)
		return -EINTR;
	return ret ? 0 : -ETIME;
}

/**
 * npu_submit_enter() - the doorbell: wake an engine, optionally wait for CQEs
 * @ctx: a set-up context
 * @args: NPU_IOCTL_RING_ENTER arguments, flags and pad already checked
 *
 * With to_submit, makes sure an engine runs the ring and returns at once;
 * the engines execute the SQEs asynchronously. Also the body of the
 * io_uring command form of the doorbell.
 *
 * Return: 0; -ENOENT for an unknown ring; -EINVAL if min_complete can never
 * be reached; -ETIME when timeout_ns passes; -EINTR on a signal; the
 * ring's error once it has failed (-EPROTO for an impossible sq_tail,
 * -EFAULT when its memory failed).
 */
int npu_submit_enter(struct npu_ctx *ctx, struct npu_ring_enter *args)
{
	bool wait = args->flags & NPU_ENTER_GETEVENTS;
	struct npu_ring *ring;
	u32 submitted = 0;
	int ret = 0;

	ring = npu_submit_ring_get(ctx, args->ring_id);
	if (!ring)
		return -ENOENT;
	if (wait && args->min_complete > ring->cq_entries) {
		ret = -EINVAL;
		goto out_put;
	}
	ret = npu_ring_failed(ring);
	if (ret)
		goto out_put;

	if (args->to_submit) {
		atomic64_inc(&ring->st_doorbells);
		/* A submitter that waits runs its ring itself when it can. */
		if (!wait || !args->min_complete ||
		    !npu_sched_enter_inline(ring, args->to_submit, &submitted))
			submitted = npu_sched_kick(ring, args->to_submit, true);
	}
	if (wait && !npu_submit_wait_done(ring, args->min_complete)) {
		/* SQEs published without a doorbell to a sleeping ring still run. */
		npu_sched_kick(ring, 0, false);
		ret = npu_submit_wait(ring, args->min_complete, args->timeout_ns);
	}
	/* It failed meanwhile: what it completed before is in the CQ. */
	if (!ret)
		ret = npu_ring_failed(ring);
	args->submitted = submitted;
out_put:
	npu_ring_put(ring);
	return ret;
}

/**
 * npu_submit_abort() - NPU_IOCTL_RING_ABORT
 * @ctx: a set-up context
 * @args: the ring, pad already checked
 *
 * Return: 0 once what the ring had published is cancelled; -ENOENT.
 */
int npu_submit_abort(struct npu_ctx *ctx, struct npu_ring_abort *args)
{
	struct npu_ring *ring = npu_submit_ring_get(ctx, args->ring_id);

	if (!ring)
		return -ENOENT;
	npu_sched_abort(ring);
	npu_ring_put(ring);
	return 0;
}

/**
 * npu_submit_stats() - NPU_IOCTL_RING_STATS
 * @ctx: a set-up context
 * @args: ring_id in, the counters out
 *
 * Return: 0 or -ENOENT.
 */
int npu_submit_stats(struct npu_ctx *ctx, struct npu_ring_stats *args)
{
	struct npu_ring *ring = npu_submit_ring_get(ctx, args->ring_id);

	if (!ring)
		return -ENOENT;
	args->sqes = atomic64_read(&ring->st_sqes);
	args->doorbells = atomic64_read(&ring->st_doorbells);
	args->waits = atomic64_read(&ring->st_waits);
	args->wakeups = atomic64_read(&ring->st_wakeups);
	args->futex_checks = atomic64_read(&ring->st_futex_checks);
	memset(args->rsvd, 0, sizeof(args->rsvd));
	npu_ring_put(ring);
	return 0;
}
