// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Submission/completion rings.
 *
 * The application provides the ring memory (typically a memfd mapped
 * shared) in the style of io_uring's IORING_SETUP_NO_MMAP: the driver pins
 * the pages and vmaps them for the ring's lifetime, so no backend needs
 * mmap of the device.
 *
 * Everything in the region may be scribbled on by the application at any
 * time. The driver keeps private copies of the fields it owns (sq_head,
 * cq_tail, the counters and flags) and only ever writes them out; it reads
 * sq_tail and cq_head with acquire loads, bounds what they imply, and reads
 * each SQE field exactly once into a private copy before the engine looks
 * at it.
 *
 * Those accesses all go through the accessors below (sq_tail, the SQE
 * slots, the CQEs, the flags word), which bound what the application can
 * make the driver do: an sq_tail more than sq_entries away from the
 * driver's private sq_head is impossible for a correct producer, and the
 * ring fails with -EPROTO (a last CQE says so, NPU_RING_FAILED is set, and
 * every later RING_ENTER returns -EPROTO); it completes nothing more.
 *
 * The pages are pinned, so they cannot go away under the driver; what can
 * still happen is that one fails (a memory error: PageHWPoison(), which is
 * also how the mock kernel reports a client file that failed under npud).
 * The accessors look at the page they touched afterwards and fail the ring
 * with -EFAULT; a failed ring is not touched again. A page flag test per
 * access keeps the fast path cheap, where a fault-guarded copy of every
 * field would not be.
 *
 * The doorbell handshake (io_uring's SQPOLL) lives here too, since it is a
 * protocol on the shared flags word: NPU_RING_NEED_WAKEUP set means that no
 * engine will look at sq_tail again until a RING_ENTER with to_submit. The
 * scheduler clears it when an engine takes the ring
 * (npu_ring_wakeup_clear()) and sets it when none will
 * (npu_ring_wakeup_arm()). Setting it is a Dekker handshake with the
 * producer: the driver sets the flag, a full barrier, then reads sq_tail
 * once more; the producer publishes sq_tail, a full barrier, then reads
 * the flag. One of the two sees the other, so SQEs published while the
 * flag was being set are either run or announced by a doorbell.
 *
 * A ring created with NPU_RING_CREATE_FUTEX (npud) has a second doorbell
 * and a completion wait with no system call to the driver: futex words in
 * the header. The producer bumps sq_doorbell and wakes it where it would
 * have rung RING_ENTER; the scheduler's doorbell thread watches the word
 * (npu_sched.c). A waiter counts itself in cq_waiters and sleeps on
 * cq_futex; npu_ring_wake_waiters() bumps and wakes cq_futex when it
 * wakes cq_wait. The words are the application's to scribble on like the
 * rest: the driver only reads sq_doorbell to notice it moved and
 * cq_waiters as a hint, writes cq_futex from a private counter, and looks
 * at sq_tail afterwards through the accessors as always.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_ring.h"

/* The flags word as the header shows it. */
static u32 npu_ring_hdr_flags(const struct npu_ring *ring)
{
	return ring->flags | (READ_ONCE(ring->db_on) ? NPU_RING_FUTEX : 0);
}

static void npu_ring_release(struct kref *ref)
{
	struct npu_ring *ring = container_of(ref, struct npu_ring, ref);
	struct npu_device *ndev = ring->ctx->ndev;

	mmdrop(ring->mm);
	vunmap(ring->vaddr);
	unpin_user_pages(ring->pages, ring->nr_pages);
	atomic64_sub(ring->nr_pages, &ndev->nr_pinned_pages);
	kvfree(ring->pages);
	mutex_destroy(&ring->submit_lock);
	atomic_dec(&ndev->nr_rings);
	npu_limits_uncharge(ring->ctx->proc, NPU_LIMIT_RING_BYTES, (u64)ring->nr_pages << PAGE_SHIFT);
	npu_limits_uncharge(ring->ctx->proc, NPU_LIMIT_RINGS, 1);
	kfree(ring);
}

/**
 * npu_ring_put() - drop a reference on a ring
 * @ring: the ring; the last reference unpins its memory and frees it
 */
void npu_ring_put(struct npu_ring *ring)
{
	kref_put(&ring->ref, npu_ring_release);
}

static bool npu_ring_entries_valid(u32 sq_entries, u32 cq_entries)
{
	return sq_entries && cq_entries && is_power_of_2(sq_entries) &&
	       is_power_of_2(cq_entries) && cq_entries >= sq_entries &&
	       cq_entries <= NPU_RING_MAX_ENTRIES;
}

/* Pin @nr_pages user pages at @addr, all or nothing. */
static int npu_ring_pin(struct npu_ring *ring, unsigned long addr)
{
	int pinned;

	pinned = pin_user_pages_fast(addr, ring->nr_pages, FOLL_WRITE | FOLL_LONGTERM,
				     ring->pages);
	if (pinned < 0)
		return pinned;
	if (pinned != ring->nr_pages) {
		unpin_user_pages(ring->pages, pinned);
		return -EFAULT;
	}
	return 0;
}

static void npu_ring_init_hdr(struct npu_ring *ring)
{
	struct npu_ring_hdr *hdr = ring->hdr;

	memset(hdr, 0, sizeof(*hdr));
	WRITE_ONCE(hdr->sq_entries, ring->sq_entries);
	WRITE_ONCE(hdr->cq_entries, ring->cq_entries);
	WRITE_ONCE(hdr->sq_mask, ring->sq_entries - 1);
	WRITE_ONCE(hdr->cq_mask, ring->cq_entries - 1);
	/* No engine polls a new ring: the first submission rings the doorbell. */
	WRITE_ONCE(hdr->flags, npu_ring_hdr_flags(ring));
	/* The application may start producing once RING_CREATE returns. */
	smp_wmb();
}

/**
 * npu_ring_alloc() - pin and map a ring region of the caller
 * @ctx: a set-up context
 * @args: NPU_IOCTL_RING_CREATE arguments, flags already checked
 * @out: the new ring, with one reference, NEED_WAKEUP set, and no id yet
 *
 * Return: 0; -EINVAL for bad entry counts, a zero or unaligned address, a
 * region smaller than npu_ring_bytes() or one that wraps; -ENOSPC when the
 * process (or its user) has its limit of rings on the device; -ENOMEM past
 * the limit of ring memory, which is charged before anything is pinned;
 * -EFAULT if the region cannot be pinned; -ENOMEM.
 */
int npu_ring_alloc(struct npu_ctx *ctx, const struct npu_ring_create *args,
		   struct npu_ring **out)
{
	struct npu_device *ndev = ctx->ndev;
	struct npu_ring *ring;
	u64 bytes, end, pinned;
	int ret;

	if (!npu_ring_entries_valid(args->sq_entries, args->cq_entries))
		return -EINVAL;
	bytes = npu_ring_bytes(args->sq_entries, args->cq_entries);
	if (!args->addr || !PAGE_ALIGNED(args->addr) || args->size < bytes ||
	    check_add_overflow(args->addr, args->size, &end))
		return -EINVAL;

	ret = npu_limits_charge(ctx->proc, NPU_LIMIT_RINGS, 1);
	if (ret)
		return ret;
	/* The pages pinned below (npud maps them), charged before any is touched. */
	pinned = (u64)DIV_ROUND_UP(bytes, PAGE_SIZE) << PAGE_SHIFT;
	ret = npu_limits_charge(ctx->proc, NPU_LIMIT_RING_BYTES, pinned);
	if (ret)
		goto err_uncharge;
	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring) {
		ret = -ENOMEM;
		goto err_uncharge_bytes;
	}
	kref_init(&ring->ref);
	ring->ctx = ctx;
	ring->sq_entries = args->sq_entries;
	ring->cq_entries = args->cq_entries;
	ring->flags = NPU_RING_NEED_WAKEUP;
	ring->futex = args->flags & NPU_RING_CREATE_FUTEX;
	INIT_LIST_HEAD(&ring->db_link);
	mutex_init(&ring->submit_lock);
	init_waitqueue_head(&ring->cq_wait);

	ring->nr_pages = DIV_ROUND_UP(bytes, PAGE_SIZE);
	ring->pages = kvmalloc_array(ring->nr_pages, sizeof(*ring->pages), GFP_KERNEL);
	if (!ring->pages) {
		ret = -ENOMEM;
		goto err_free_ring;
	}
	ret = npu_ring_pin(ring, args->addr);
	if (ret)
		goto err_free_pages;
	ring->vaddr = vmap(ring->pages, ring->nr_pages, VM_MAP, PAGE_KERNEL);
	if (!ring->vaddr) {
		ret = -ENOMEM;
		goto err_unpin;
	}
	ring->hdr = ring->vaddr;
	ring->sqes = ring->vaddr + NPU_RING_SQES_OFF;
	ring->cqes = (void *)(ring->sqes + ring->sq_entries);
	npu_ring_init_hdr(ring);
	if (PageHWPoison(ring->pages[0])) {
		ret = -EFAULT;
		goto err_vunmap;
	}
	/* Host operands are addresses of the creator: the engines adopt its mm. */
	ring->mm = current->mm;
	mmgrab(ring->mm);

	atomic_inc(&ndev->nr_rings);
	atomic64_add(ring->nr_pages, &ndev->nr_pinned_pages);
	*out = ring;
	return 0;

err_vunmap:
	vunmap(ring->vaddr);
err_unpin:
	unpin_user_pages(ring->pages, ring->nr_pages);
err_free_pages:
	kvfree(ring->pages);
err_free_ring:
	mutex_destroy(&ring->submit_lock);
	kfree(ring);
err_uncharge_bytes:
	npu_limits_uncharge(ctx->proc, NPU_LIMIT_RING_BYTES, pinned);
err_uncharge:
	npu_limits_uncharge(ctx->proc, NPU_LIMIT_RINGS, 1);
	return ret;
}

/* Whether the page of the ring region that holds @p has failed. */
static bool npu_ring_lost(const struct npu_ring *ring, const void *p)
{
	return PageHWPoison(ring->pages[((const char *)p - (const char *)ring->vaddr) >> PAGE_SHIFT]);
}

/* Publish the CQEs written since the last time (cq_unpub) with one store of cq_tail. */
static void npu_ring_cq_publish(struct npu_ring *ring)
{
	u32 tail = ring->cq_tail + ring->cq_unpub;

	if (!ring->cq_unpub)
		return;
	ring->cq_unpub = 0;
	/* The CQEs are visible before the tail that publishes them. */
	smp_store_release(&ring->hdr->cq_tail, tail);
	WRITE_ONCE(ring->cq_tail, tail);
}

/*
 * Write one CQE, to be published by npu_ring_cq_publish(). Returns the
 * slot, or NULL when the CQ is full (the completion is lost: cq_overflow
 * counts it and NPU_RING_CQ_OVERFLOW is set) or, with @careful, when the
 * slot's page has failed.
 *
 * cq_head is read only once the room seen at the last read is used up
 * (cq_room_end), as io_uring caches its CQ space: a CQ nobody reaps costs
 * no read of the application's line per CQE. An application that moves
 * cq_head back meanwhile can only lose CQEs of its own.
 */
static struct npu_cqe *npu_ring_cqe_write(struct npu_ring *ring, u64 user_data, s32 res,
					  u32 flags, bool careful)
{
	struct npu_ring_hdr *hdr = ring->hdr;
	u32 tail = ring->cq_tail + ring->cq_unpub;
	struct npu_cqe *c;

	if (tail == ring->cq_room_end) {
		/* Pairs with the application's release store of cq_head. */
		u32 head = smp_load_acquire(&hdr->cq_head);

		if (tail - head >= ring->cq_entries) {
			ring->cq_overflow++;
			ring->flags |= NPU_RING_CQ_OVERFLOW;
			WRITE_ONCE(hdr->flags, npu_ring_hdr_flags(ring));
			/* Who sees the count sees the flag. */
			smp_store_release(&hdr->cq_overflow, ring->cq_overflow);
			return NULL;
		}
		ring->cq_room_end = head + ring->cq_entries;
	}
	c = &ring->cqes[tail & (ring->cq_entries - 1)];
	if (careful && npu_ring_lost(ring, c))
		return NULL;
	WRITE_ONCE(c->user_data, user_data);
	WRITE_ONCE(c->res, res);
	WRITE_ONCE(c->flags, flags);
	ring->cq_unpub++;
	return c;
}

/*
 * Fail the ring for good with @err: it completes nothing more and every
 * later RING_ENTER returns @err. A last CQE (user_data 0, res @err, flag
 * NPU_CQE_RING_FAILED) tells the application, if the CQ has room and its
 * memory still works. Caller holds submit_lock and runs the ring.
 */
static void npu_ring_fail(struct npu_ring *ring, int err)
{
	lockdep_assert_held(&ring->submit_lock);
	if (ring->err)
		return;
	if (!npu_ring_lost(ring, ring->hdr)) {
		npu_ring_cqe_write(ring, 0, err, NPU_CQE_RING_FAILED, true);
		npu_ring_cq_publish(ring);
		ring->flags |= NPU_RING_FAILED;
		WRITE_ONCE(ring->hdr->flags, npu_ring_hdr_flags(ring));
	}
	/* Read locklessly by RING_ENTER, waiters and the scheduler. */
	WRITE_ONCE(ring->err, err);
	npu_ring_wake_waiters(ring);
}

/**
 * npu_ring_sq_ready() - SQEs the application has published and the driver
 *	not yet consumed
 * @ring: the ring; caller holds submit_lock and runs it
 *
 * An sq_tail more than sq_entries away from the driver's sq_head (ahead or
 * behind) fails the ring with -EPROTO; a failed header page fails it with
 * -EFAULT.
 *
 * Return: at most sq_entries; 0 once the ring has failed.
 */
u32 npu_ring_sq_ready(struct npu_ring *ring)
{
	u32 tail, n;

	lockdep_assert_held(&ring->submit_lock);
	if (unlikely(ring->err))
		return 0;
	/* Pairs with the application's release store of sq_tail. */
	tail = smp_load_acquire(&ring->hdr->sq_tail);
	if (unlikely(npu_ring_lost(ring, ring->hdr))) {
		npu_ring_fail(ring, -EFAULT);
		return 0;
	}
	n = tail - ring->sq_head;
	if (unlikely(n > ring->sq_entries)) {
		npu_ring_fail(ring, -EPROTO);
		return 0;
	}
	return n;
}

/**
 * npu_ring_read_sqe() - consume the next SQE into private memory
 * @ring: the ring; caller holds submit_lock and saw npu_ring_sq_ready() > 0
 * @sqe: out: the private copy; every field is read exactly once
 *
 * The slot is handed back to the application (sq_head) right away: the
 * engine only ever looks at the copy.
 *
 * Return: true; false if the slot's memory failed (the ring has failed
 * with -EFAULT and @sqe must not be used).
 */
bool npu_ring_read_sqe(struct npu_ring *ring, struct npu_sqe *sqe)
{
	const struct npu_sqe *s = &ring->sqes[ring->sq_head & (ring->sq_entries - 1)];

	lockdep_assert_held(&ring->submit_lock);
	if (unlikely(ring->err))
		return false;
	sqe->opcode = READ_ONCE(s->opcode);
	sqe->flags = READ_ONCE(s->flags);
	sqe->dir = READ_ONCE(s->dir);
	sqe->rsvd0 = READ_ONCE(s->rsvd0);
	sqe->rsvd1 = READ_ONCE(s->rsvd1);
	sqe->user_data = READ_ONCE(s->user_data);
	sqe->dst = READ_ONCE(s->dst);
	sqe->src = READ_ONCE(s->src);
	sqe->len = READ_ONCE(s->len);
	sqe->value = READ_ONCE(s->value);
	sqe->dpitch = READ_ONCE(s->dpitch);
	sqe->spitch = READ_ONCE(s->spitch);
	sqe->cond = READ_ONCE(s->cond);
	sqe->rsvd2 = READ_ONCE(s->rsvd2);
	if (unlikely(npu_ring_lost(ring, s))) {
		npu_ring_fail(ring, -EFAULT);
		return false;
	}
	/* Read without submit_lock by npu_sched_ring_idle() and the scheduler. */
	WRITE_ONCE(ring->sq_head, ring->sq_head + 1);
	/* Our reads of the slot are done before the application may reuse it. */
	smp_store_release(&ring->hdr->sq_head, ring->sq_head);
	return true;
}

/**
 * npu_ring_post_cqe() - complete a descriptor
 * @ring: the ring; caller holds submit_lock
 * @user_data: the SQE's user_data
 * @res: 0 or -errno
 *
 * If the CQ is full the completion is lost: cq_overflow counts it and
 * NPU_RING_CQ_OVERFLOW is set. A failed ring takes no more completions.
 */
void npu_ring_post_cqe(struct npu_ring *ring, u64 user_data, s32 res)
{
	npu_ring_fill_cqe(ring, user_data, res);
	npu_ring_commit_cqes(ring);
}

/**
 * npu_ring_fill_cqe() - complete a descriptor, to be published later
 * @ring: the ring; caller holds submit_lock
 * @user_data: the SQE's user_data
 * @res: 0 or -errno
 *
 * As npu_ring_post_cqe(), but the CQE is published (cq_tail) and its
 * waiters woken by the next npu_ring_commit_cqes() or npu_ring_post_cqe():
 * the engine commits once after a run of quick descriptors (before a slow
 * one, and when its batch ends), instead of one store to the
 * application's cq_tail line and one full barrier per CQE.
 */
void npu_ring_fill_cqe(struct npu_ring *ring, u64 user_data, s32 res)
{
	struct npu_cqe *c;

	lockdep_assert_held(&ring->submit_lock);
	if (unlikely(ring->err))
		return;
	c = npu_ring_cqe_write(ring, user_data, res, 0, false);
	if (unlikely(npu_ring_lost(ring, ring->hdr) || (c && npu_ring_lost(ring, c))))
		npu_ring_fail(ring, -EFAULT);
}

/**
 * npu_ring_sq_tail() - the application's sq_tail, as it is now
 * @ring: the ring; any context
 *
 * For the scheduler's decisions only: the engine that runs the ring checks
 * the value again (npu_ring_sq_ready()).
 *
 * Return: sq_tail, acquire-loaded (pairs with the application's release).
 */
u32 npu_ring_sq_tail(struct npu_ring *ring)
{
	return smp_load_acquire(&ring->hdr->sq_tail);
}

/**
 * npu_ring_sq_pending() - whether an engine has something to do on the SQ
 * @ring: the ring; any context
 *
 * Return: false once the ring has failed; else true when sq_tail differs
 * from the driver's sq_head (an impossible tail included: the engine then
 * fails the ring).
 */
bool npu_ring_sq_pending(struct npu_ring *ring)
{
	if (npu_ring_failed(ring))
		return false;
	return npu_ring_sq_tail(ring) != READ_ONCE(ring->sq_head);
}

/**
 * npu_ring_publish_flags() - write the driver's flags word to the header
 * @ring: the ring; the caller owns its flags (the engine running it, or the
 *	sched lock holder while it is not RUNNING)
 */
void npu_ring_publish_flags(struct npu_ring *ring)
{
	if (!npu_ring_lost(ring, ring->hdr))
		WRITE_ONCE(ring->hdr->flags, npu_ring_hdr_flags(ring));
}

/**
 * npu_ring_wakeup_clear() - the ring needs no doorbell: an engine will look at it
 * @ring: the ring; the caller owns its flags
 *
 * The producer's next submission makes no system call.
 */
void npu_ring_wakeup_clear(struct npu_ring *ring)
{
	if (ring->flags & NPU_RING_NEED_WAKEUP) {
		ring->flags &= ~NPU_RING_NEED_WAKEUP;
		npu_ring_publish_flags(ring);
	}
}

/**
 * npu_ring_wakeup_arm() - no engine will look at the ring: ask for a doorbell
 * @ring: the ring; the caller owns its flags
 *
 * Sets NEED_WAKEUP, then looks at sq_tail once more: the producer
 * publishes sq_tail, a full barrier, then reads the flag, so one of the
 * two sees the other (io_uring's SQPOLL handshake).
 *
 * Return: true if SQEs were published that the producer may have
 * published without a doorbell: the caller must not let the ring sleep.
 */
bool npu_ring_wakeup_arm(struct npu_ring *ring)
{
	if (!(ring->flags & NPU_RING_NEED_WAKEUP)) {
		ring->flags |= NPU_RING_NEED_WAKEUP;
		npu_ring_publish_flags(ring);
	}
	/* Pairs with the producer's barrier between sq_tail and flags. */
	smp_mb();
	return npu_ring_sq_pending(ring);
}

/**
 * npu_ring_commit_cqes() - publish the CQEs filled so far and wake their waiters
 * @ring: the ring; caller holds submit_lock
 */
void npu_ring_commit_cqes(struct npu_ring *ring)
{
	lockdep_assert_held(&ring->submit_lock);
	npu_ring_cq_publish(ring);
	npu_ring_wake_waiters(ring);
}

/*
 * Wake the sleepers on cq_futex, if the application says there are any.
 * The waiter counts itself in cq_waiters, then reads cq_futex and cq_tail;
 * we published cq_tail, then (full barrier) read cq_waiters: one of the
 * two sees the other. A hostile count costs a futex wake per call, no more.
 */
static void npu_ring_futex_wake(struct npu_ring *ring)
{
	struct npu_ring_hdr *hdr = ring->hdr;

	smp_mb();
	if (!READ_ONCE(hdr->cq_waiters) || npu_ring_lost(ring, hdr))
		return;
	WRITE_ONCE(hdr->cq_futex, (u32)atomic_inc_return(&ring->cq_futex_seq));
#ifdef NPU_FUTEX_DOORBELL
	mock_futex_wake(&hdr->cq_futex);
#endif
}

/**
 * npu_ring_wake_waiters() - wake completion waiters, if there are any
 * @ring: the ring; CQEs were posted or it went idle
 */
void npu_ring_wake_waiters(struct npu_ring *ring)
{
	/* Full barrier: pairs with the waiter's between queueing and its check. */
	if (wq_has_sleeper(&ring->cq_wait))
		wake_up_all(&ring->cq_wait);
	if (ring->futex)
		npu_ring_futex_wake(ring);
}

/**
 * npu_ring_doorbell_read() - the futex doorbell word, as it is now
 * @ring: the ring; any context
 *
 * The value means nothing but whether it moved since the last read; the
 * caller then looks at sq_tail (npu_ring_sq_pending()).
 *
 * Return: sq_doorbell, or 0 once the header page failed.
 */
u32 npu_ring_doorbell_read(struct npu_ring *ring)
{
	u32 v = READ_ONCE(ring->hdr->sq_doorbell);

	return npu_ring_lost(ring, ring->hdr) ? 0 : v;
}

/**
 * npu_ring_doorbell_word() - where the futex doorbell word is, to sleep on
 * @ring: the ring
 *
 * Only for the futex call, which reads the word itself (and fails rather
 * than faults); every other access goes through npu_ring_doorbell_read().
 *
 * Return: the address of sq_doorbell.
 */
u32 *npu_ring_doorbell_word(struct npu_ring *ring)
{
	return &ring->hdr->sq_doorbell;
}

/**
 * npu_ring_cq_ready() - CQEs posted and not yet reaped by the application
 * @ring: the ring; any context
 *
 * Return: cq_tail - cq_head, bounded by the CQ size (cq_head is the
 * application's to write).
 */
u32 npu_ring_cq_ready(struct npu_ring *ring)
{
	u32 head = smp_load_acquire(&ring->hdr->cq_head);

	return min(READ_ONCE(ring->cq_tail) - head, ring->cq_entries);
}

