// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The engines of a device: `engines` kthreads that run its rings.
 *
 * A ring is run by at most one engine at a time (state RUNNING, with the
 * ring's submit_lock held), so its descriptors complete in order; different
 * rings run concurrently on different engines. A submitter that rings and
 * then waits may run its ring itself instead, in the same RUNNING state
 * (npu_sched_enter_inline()), when no engine has it. An engine runs a bounded
 * batch of one ring, then puts it at the back of the run queue if it has
 * more, so every ready ring gets its turn.
 *
 * The doorbell follows io_uring's SQPOLL. A ring an engine ran goes on the
 * poll list with NPU_RING_NEED_WAKEUP clear: one engine at a time (the
 * poller) watches the sq_tail of those rings for `engine_poll_us`, so a
 * producer that keeps the ring busy never needs a system call. When the
 * window passes with nothing new, the poller arms the doorbell of each of
 * them (npu_ring_wakeup_arm(), which holds the handshake with the
 * producer); then the ring sleeps (ASLEEP) and only RING_ENTER with
 * to_submit brings it back. Engines with nothing to do and nothing to
 * poll sleep in their pool (npu_pool_idle()).
 *
 * A ring whose head is a VALUE_WAIT that is false is PARKED. Parked rings
 * go back to the run queue, to evaluate their condition again, whenever an
 * engine has written device memory of this device (the pool's event count
 * moved) and at least every NPU_SCHED_PARK_JIFFIES, so a wait released by
 * another ring, another device or the host is seen without a doorbell, and
 * a parked ring never holds up an engine.
 *
 * A producer that streams descriptors faster than they complete, with
 * nobody reaping the completions (NPU_SCHED_COALESCE_CQES or more wait in
 * the CQ), would otherwise meet the engine one descriptor at a time: each
 * batch of one moves sq_tail, the SQE and the CQ tail between the two CPUs,
 * and the scheduling around a batch costs more than a small copy. Such a
 * ring is left alone for `engine_coalesce_us` after its batch went idle
 * (poll_after), as a NIC moderates its interrupts, and the engine then runs
 * what gathered in batches. Nothing waits on it meanwhile: a waiter that
 * enters the driver, a doorbell and a submitter that runs its ring itself
 * take it at once, and with fewer completions waiting (a thread reaps
 * them as they come) no pause is made.
 *
 * The engines are the workers of the device's pool (npu_pool.c), and this
 * file is their body (npu_sched_thread()). A worker first helps with the
 * chunks of a large copy another engine split (npu_job.c), then runs rings.
 *
 * Rings created with NPU_RING_CREATE_FUTEX (where the host offers futexes:
 * npud) have a second doorbell: the word sq_doorbell of their header. One
 * doorbell thread per device sleeps on the words of all of them at once
 * (futex_waitv, at most NPU_SCHED_DB_MAX rings, NPU_SCHED_DB_PER_CTX of
 * one context and db_per_proc of one process; a ring past that keeps
 * RING_ENTER only), plus a word of its own that moves when the set does.
 * A ring whose word moved, or that woke the thread, is looked at once:
 * with SQEs pending it is kicked exactly as RING_ENTER with to_submit
 * would; with nothing pending the wake was for nothing, and a ring that
 * keeps doing that (past NPU_SCHED_DB_BUDGET, which grows back by one per
 * NPU_SCHED_DB_REFILL_NS) loses the futex doorbell for good: NPU_RING_FUTEX
 * is cleared and RING_ENTER is its only doorbell. So a client that floods
 * wakes costs the daemon at most one look at its ring per wake, a bounded
 * number of times, and a client that only spins on its words costs
 * nothing: the daemon sleeps in the kernel.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_engine.h"
#include "npu_job.h"
#include "npu_pool.h"
#include "npu_ring.h"
#include "npu_sched.h"

static unsigned int engines = 2;
module_param(engines, uint, 0444);
MODULE_PARM_DESC(engines, "Copy engines (kthreads) per device (1..8, default 2)");

static unsigned int engine_poll_us = 100;
module_param(engine_poll_us, uint, 0444);
MODULE_PARM_DESC(engine_poll_us,
		 "How long an idle engine polls rings before they need a doorbell (us, 0..10000, default 100)");

static unsigned int db_per_proc = 32;
module_param(db_per_proc, uint, 0444);
MODULE_PARM_DESC(db_per_proc,
		 "Rings of one process whose futex doorbell the device's doorbell thread watches (npud only; default 32, of 127)");

static unsigned int engine_coalesce_us = 20;
module_param(engine_coalesce_us, uint, 0444);
MODULE_PARM_DESC(engine_coalesce_us,
		 "How long a ring streamed to with unreaped completions is left to gather descriptors (us, 0..5000, at most engine_poll_us/2, default 20)");

/* Descriptors of one ring an engine runs before it looks at other rings. */
#define NPU_SCHED_BATCH		64
/* Unreaped CQEs from which a ring that went idle is left to gather more. */
#define NPU_SCHED_COALESCE_CQES	16
/* Parked rings are re-checked at least this often (jiffies). */
#define NPU_SCHED_PARK_JIFFIES	1
#define NPU_SCHED_POLL_MAX_US	10000
/* Submitters that may run their rings at once, per device. */
#define NPU_SCHED_INLINE_SLOTS	8
#ifdef NPU_FUTEX_DOORBELL
/* Rings one doorbell thread watches: one word of the wait is its own. */
#define NPU_SCHED_DB_MAX	(MOCK_FUTEX_WAITV_MAX - 1)
#else
#define NPU_SCHED_DB_MAX	0
#endif
/*
 * Rings of one context, and of one process (db_per_proc), the doorbell
 * thread watches: one client cannot take every slot of the device, with
 * one file or many; its further rings keep RING_ENTER as doorbell.
 */
#define NPU_SCHED_DB_PER_CTX	8
/* Wakes that find nothing to do a futex ring may cause in a burst ... */
#define NPU_SCHED_DB_BUDGET	64
/* ... and one more each this often (ns), before it loses the futex doorbell. */
#define NPU_SCHED_DB_REFILL_NS	(1000 * 1000ULL)

struct npu_sched {
	struct npu_device *ndev;
	u64 poll_ns;
	u64 coalesce_ns;	/* 0: no coalescing */
	struct npu_pool pool;	/* the engines */
	struct npu_jobs jobs;	/* large copies the engines share */

	/*
	 * Protects: runq, pollq, parked, poller, parked_gen, park_check,
	 * inline_free, and the scheduling fields of every ring of the device
	 * (sched_link, sstate, rerun, sq_acked, abort_*, poll_after; flags
	 * while the ring is not RUNNING).
	 */
	spinlock_t lock;
	struct list_head runq;		/* QUEUED rings, in the order they became ready */
	struct list_head pollq;		/* POLLED rings */
	struct list_head parked;	/* PARKED rings */
	struct npu_pool_worker *poller;	/* the engine polling pollq, if any */
	s64 parked_gen;			/* pool events at the last re-check of parked */
	unsigned long park_check;	/* jiffies of the next timed re-check */

	/* Staging buffers of rings run by their submitter (npu_sched_enter_inline). */
	void *inline_bounce[NPU_SCHED_INLINE_SLOTS];
	unsigned long inline_free;	/* bitmap of free inline_bounce */
	atomic64_t nr_inline;		/* rings run by their submitter */
	atomic64_t nr_nudged;		/* rings a waiter took out of a gathering pause */

	/*
	 * The futex doorbell thread, started with the device.
	 * db_lock protects: db_rings, nr_db, db_gen, db_stop, db_thread, the db_*
	 * fields of rings, and nr_db of the device's contexts and processes.
	 */
	struct mutex db_lock;
	struct list_head db_rings;	/* rings whose sq_doorbell it watches (db_on) */
	unsigned int nr_db;
	u32 db_gen;			/* moves when a ring leaves db_rings */
	u32 db_ctl;			/* its own futex word: moves when db_rings changes */
	bool db_stop;
	struct task_struct *db_thread;
	atomic64_t nr_db_demoted;	/* rings that lost the futex doorbell */
};

/* New SQEs, or an abort to carry out. */
static bool npu_sched_ring_has_work(struct npu_ring *ring)
{
	return npu_ring_sq_pending(ring) || ring->abort_req != ring->abort_done;
}

static void npu_sched_queue_locked(struct npu_sched *s, struct npu_ring *ring)
{
	lockdep_assert_held(&s->lock);
	list_move_tail(&ring->sched_link, &s->runq);
	WRITE_ONCE(ring->sstate, NPU_RING_QUEUED);
	ring->poll_after = 0;
	/*
	 * A queued ring will be run and will read sq_tail then: it needs no
	 * more doorbells, so a producer that keeps publishing while the
	 * engines are busy elsewhere makes no system call per descriptor.
	 */
	npu_ring_wakeup_clear(ring);
}

/* Wake an engine for queued work unless the poller will see it anyway. */
static void npu_sched_wake_locked(struct npu_sched *s)
{
	lockdep_assert_held(&s->lock);
	if (!s->poller)
		npu_pool_wake(&s->pool);
}

/* Move polled rings with new SQEs, and parked rings due a re-check, to runq. */
static void npu_sched_scan_locked(struct npu_sched *s)
{
	struct npu_ring *ring, *tmp;
	u64 now = 0;
	s64 gen;

	lockdep_assert_held(&s->lock);
	if (s->coalesce_ns && !list_empty(&s->pollq))
		now = ktime_get_ns();
	list_for_each_entry_safe(ring, tmp, &s->pollq, sched_link) {
		/* Not even sq_tail is read while the ring gathers (poll_after 0: never). */
		if (now < ring->poll_after)
			continue;
		if (npu_sched_ring_has_work(ring))
			npu_sched_queue_locked(s, ring);
	}
	if (list_empty(&s->parked))
		return;
	gen = npu_pool_events(&s->pool);
	if (gen == s->parked_gen && time_before(jiffies, s->park_check))
		return;
	list_for_each_entry_safe(ring, tmp, &s->parked, sched_link)
		npu_sched_queue_locked(s, ring);
	WRITE_ONCE(s->parked_gen, gen);
	s->park_check = jiffies + NPU_SCHED_PARK_JIFFIES;
}

/* The poll window is over: the polled rings need a doorbell from now on. */
static void npu_sched_sleep_rings_locked(struct npu_sched *s)
{
	struct npu_ring *ring, *tmp;

	lockdep_assert_held(&s->lock);
	list_for_each_entry_safe(ring, tmp, &s->pollq, sched_link) {
		if (npu_ring_wakeup_arm(ring) || npu_sched_ring_has_work(ring)) {
			npu_sched_queue_locked(s, ring);
		} else {
			list_del_init(&ring->sched_link);
			WRITE_ONCE(ring->sstate, NPU_RING_ASLEEP);
		}
	}
}

/*
 * A doorbell's count: the SQEs published since the previous doorbell, at
 * most @to_submit. As io_uring: a tail far ahead means at most a full SQ.
 */
static u32 npu_sched_ack_locked(struct npu_sched *s, struct npu_ring *ring, u32 to_submit)
{
	s32 avail = npu_ring_sq_tail(ring) - ring->sq_acked;
	u32 n = avail > 0 ? min3(to_submit, (u32)avail, ring->sq_entries) : 0;

	lockdep_assert_held(&s->lock);
	ring->sq_acked += n;
	return n;
}

/* Whether @ring, whose batch just emptied its SQ, is left to gather more. */
static bool npu_sched_coalesce(struct npu_sched *s, struct npu_ring *ring)
{
	return s->coalesce_ns && ring->abort_req == ring->abort_done &&
	       npu_ring_cq_ready(ring) >= NPU_SCHED_COALESCE_CQES;
}

/*
 * A run of @ring (RUNNING) ended with @stop: put it where it belongs now,
 * and wake whoever waits for it. @abort: the run carried out abort
 * @abort_req.
 */
static void npu_sched_settle_locked(struct npu_sched *s, struct npu_ring *ring,
				    enum npu_engine_stop stop, bool abort, u32 abort_req)
{
	lockdep_assert_held(&s->lock);
	ring->poll_after = 0;
	/* Read by npu_sched_abort() waiters without the lock. */
	if (abort)
		WRITE_ONCE(ring->abort_done, abort_req);
	if (ring->detaching ||
	    (npu_ring_failed(ring) && ring->abort_req == ring->abort_done)) {
		/*
		 * Nothing will run on a failed ring again: no list, no
		 * polling. And npu_sched_detach() waits for this run to end:
		 * leave a detaching ring off every list, or an engine that
		 * keeps finding work in it (a tail written far ahead) could
		 * take it back before the detacher ever sees it stopped.
		 */
		WRITE_ONCE(ring->sstate, NPU_RING_ASLEEP);
	} else if (stop == NPU_ENGINE_PARKED && ring->abort_req == ring->abort_done) {
		if (list_empty(&s->parked))
			s->park_check = jiffies + NPU_SCHED_PARK_JIFFIES;
		list_add_tail(&ring->sched_link, &s->parked);
		WRITE_ONCE(ring->sstate, NPU_RING_PARKED);
	} else if (stop == NPU_ENGINE_IDLE && !ring->rerun && npu_sched_coalesce(s, ring)) {
		/* Whether or not more came meanwhile: it gathers. */
		list_add_tail(&ring->sched_link, &s->pollq);
		WRITE_ONCE(ring->sstate, NPU_RING_POLLED);
		ring->poll_after = ktime_get_ns() + s->coalesce_ns;
	} else if (stop != NPU_ENGINE_PARKED && !ring->rerun &&
		   !npu_sched_ring_has_work(ring)) {
		list_add_tail(&ring->sched_link, &s->pollq);
		WRITE_ONCE(ring->sstate, NPU_RING_POLLED);
	} else {
		list_add_tail(&ring->sched_link, &s->runq);
		WRITE_ONCE(ring->sstate, NPU_RING_QUEUED);
	}
	ring->rerun = false;
	/* Under the lock: a detached ring may be freed as soon as we drop it. */
	if (waitqueue_active(&ring->state_wait))
		wake_up_all(&ring->state_wait);
	npu_ring_wake_waiters(ring);
}

static void npu_sched_run_ring(struct npu_pool_worker *w, struct npu_ring *ring,
			       bool abort, u32 abort_req, u32 abort_tail)
{
	struct npu_sched *s = w->pool->data;
	enum npu_engine_stop stop;
	bool wrote = false, used;
	u64 t0;

	used = npu_pool_use_mm(ring->mm);
	mutex_lock(&ring->submit_lock);
	ring->mm_ok = used;
	npu_ring_wakeup_clear(ring);
	t0 = ktime_get_ns();
	stop = npu_engine_run(ring, w->bounce, NPU_SCHED_BATCH, abort, abort_tail, &wrote);
	npu_pool_account(&s->pool, t0);
	ring->mm_ok = false;
	mutex_unlock(&ring->submit_lock);
	npu_pool_unuse_mm(ring->mm, used);
	/* The engines look at parked rings when they next scan: no wake-up. */
	if (wrote)
		npu_pool_note(&s->pool);

	spin_lock(&s->lock);
	npu_sched_settle_locked(s, ring, stop, abort, abort_req);
	spin_unlock(&s->lock);
}

/**
 * npu_sched_enter_inline() - a doorbell whose caller then waits: run it here
 * @ring: the ring
 * @to_submit: the caller's to_submit, > 0
 * @submitted: out on success, as npu_sched_kick() returns it
 *
 * As io_uring completes a request in the submitting task when it can, the
 * thread that rings and then waits runs the ring itself (a batch, from its
 * head, so ring order holds) when no engine runs it or has it queued, no
 * abort is pending, and the thread belongs to the process whose memory the
 * descriptors name (the ring's mm; in npud, the worker serving that
 * process's call). That saves waking an engine and being woken by it.
 * What is left afterwards (more than a batch, a doorbell that came
 * meanwhile, a VALUE_WAIT that is false) goes to the engines as usual; a
 * large copy is still split over idle engines.
 *
 * Return: true if the ring ran here; false if nothing was done, and the
 * caller rings the doorbell with npu_sched_kick().
 */
bool npu_sched_enter_inline(struct npu_ring *ring, u32 to_submit, u32 *submitted)
{
	struct npu_sched *s = ring->ctx->ndev->sched;
	enum npu_engine_stop stop;
	bool wrote = false;
	u64 t0;
	unsigned int slot;

	if (!current->mm || current->mm != ring->mm)
		return false;
	spin_lock(&s->lock);
	if (ring->detaching || ring->abort_req != ring->abort_done || !s->inline_free ||
	    (ring->sstate != NPU_RING_ASLEEP && ring->sstate != NPU_RING_POLLED)) {
		spin_unlock(&s->lock);
		return false;
	}
	slot = __ffs(s->inline_free);
	s->inline_free &= ~BIT(slot);
	*submitted = npu_sched_ack_locked(s, ring, to_submit);
	list_del_init(&ring->sched_link);
	WRITE_ONCE(ring->sstate, NPU_RING_RUNNING);
	spin_unlock(&s->lock);

	mutex_lock(&ring->submit_lock);
	ring->mm_ok = true;
	t0 = ktime_get_ns();
	stop = npu_engine_run(ring, s->inline_bounce[slot], NPU_SCHED_BATCH, false, 0, &wrote);
	npu_pool_account(&s->pool, t0);
	ring->mm_ok = false;
	mutex_unlock(&ring->submit_lock);
	atomic64_inc(&s->nr_inline);
	if (wrote)
		npu_pool_note(&s->pool);

	spin_lock(&s->lock);
	s->inline_free |= BIT(slot);
	/*
	 * Parked rings of the device look at their conditions again (the
	 * pool's events moved): an engine must be awake to do it.
	 */
	if (wrote && !list_empty(&s->parked))
		npu_pool_wake(&s->pool);
	/*
	 * No engine is polling this ring for us: unless it goes to the
	 * engines now, the next submission needs a doorbell. What the
	 * handshake finds published meanwhile, settling sees as work.
	 */
	npu_ring_wakeup_arm(ring);
	npu_sched_settle_locked(s, ring, stop, false, 0);
	if (ring->sstate == NPU_RING_POLLED) {
		list_del_init(&ring->sched_link);
		WRITE_ONCE(ring->sstate, NPU_RING_ASLEEP);
	} else if (ring->sstate != NPU_RING_ASLEEP) {
		/* Queued or parked: the engines take over. */
		if (ring->sstate == NPU_RING_QUEUED)
			npu_sched_queue_locked(s, ring);
		npu_pool_wake(&s->pool);
	}
	spin_unlock(&s->lock);
	return true;
}

/*
 * Between two looks of the poller at its rings. In the kernel the
 * scheduler takes the CPU from a polling kthread when a task woken there
 * needs it. Under the mock kernel (npud) the engines are threads of a
 * process, and a client that waits for the ring the poller watches may
 * be runnable on this very CPU (a busy machine puts them together), where
 * it would wait for the whole poll window: let it run.
 */
static void npu_sched_poll_pause(void)
{
#ifdef NPU_FUTEX_DOORBELL
	schedule();	/* TASK_RUNNING: a yield */
#else
	cond_resched();
#endif
}

/* For an idle engine: whether there is something to run. */
static bool npu_sched_has_work(void *data)
{
	struct npu_sched *s = data;

	return !list_empty(&s->runq) || npu_job_pending(&s->jobs) ||
	       (!list_empty(&s->parked) &&
		npu_pool_events(&s->pool) != READ_ONCE(s->parked_gen));
}

/* The body of an engine: chunks of shared copies first, then rings. */
static int npu_sched_thread(struct npu_pool_worker *w)
{
	struct npu_sched *s = w->pool->data;
	u64 poll_end = 0;

	while (!kthread_should_stop()) {
		struct npu_ring *ring;
		long timeout;
		u64 now;
		int i;

		if (npu_job_pending(&s->jobs)) {
			/* A poller that helps is no poller: wakers must not count on it. */
			spin_lock(&s->lock);
			if (s->poller == w)
				s->poller = NULL;
			spin_unlock(&s->lock);
			if (npu_job_help(&s->jobs, w->bounce)) {
				poll_end = 0;
				continue;
			}
		}

		spin_lock(&s->lock);
		npu_sched_scan_locked(s);
		ring = list_first_entry_or_null(&s->runq, struct npu_ring, sched_link);
		if (ring) {
			bool abort = ring->abort_req != ring->abort_done;
			u32 abort_req = ring->abort_req, abort_tail = ring->abort_tail;

			list_del_init(&ring->sched_link);
			WRITE_ONCE(ring->sstate, NPU_RING_RUNNING);
			if (s->poller == w)
				s->poller = NULL;
			spin_unlock(&s->lock);
			npu_sched_run_ring(w, ring, abort, abort_req, abort_tail);
			poll_end = 0;
			continue;
		}

		if (!list_empty(&s->pollq) && (!s->poller || s->poller == w)) {
			now = ktime_get_ns();
			if (!poll_end)
				poll_end = now + s->poll_ns;
			if (now < poll_end) {
				s->poller = w;
				spin_unlock(&s->lock);
				for (i = 0; i < 32; i++)
					cpu_relax();
				npu_sched_poll_pause();
				continue;
			}
			npu_sched_sleep_rings_locked(s);
			s->poller = NULL;
			spin_unlock(&s->lock);
			poll_end = 0;
			continue;
		}

		/*
		 * Nothing to run and nothing to poll (or another engine polls).
		 * A poller whose rings left pollq (kicked, aborted) is no
		 * poller any more: wakers skip the wake-up while one exists.
		 */
		if (s->poller == w)
			s->poller = NULL;
		timeout = list_empty(&s->parked) ? MAX_SCHEDULE_TIMEOUT : NPU_SCHED_PARK_JIFFIES;
		spin_unlock(&s->lock);
		npu_pool_idle(w, npu_sched_has_work, timeout);
		poll_end = 0;
	}
	return 0;
}

/* Wake the doorbell thread to look at db_rings again. Caller holds db_lock. */
static void npu_sched_db_poke_locked(struct npu_sched *s)
{
	lockdep_assert_held(&s->db_lock);
	/* Pairs with the thread's read of db_ctl before it reads the list. */
	smp_store_release(&s->db_ctl, s->db_ctl + 1);
#ifdef NPU_FUTEX_DOORBELL
	mock_futex_wake(&s->db_ctl);
#endif
}

#ifdef NPU_FUTEX_DOORBELL
/*
 * @ring woke too often for nothing: RING_ENTER is its doorbell from now
 * on. Caller holds db_lock; the ring is on db_rings.
 */
static void npu_sched_db_demote_locked(struct npu_sched *s, struct npu_ring *ring)
{
	lockdep_assert_held(&s->db_lock);
	list_del_init(&ring->db_link);
	s->nr_db--;
	ring->ctx->nr_db--;
	ring->ctx->proc->nr_db--;
	s->db_gen++;
	spin_lock(&s->lock);
	WRITE_ONCE(ring->db_on, false);
	/* The flags are the sched lock holder's while no engine runs it. */
	if (ring->sstate != NPU_RING_RUNNING)
		npu_ring_publish_flags(ring);
	spin_unlock(&s->lock);
	atomic64_inc(&s->nr_db_demoted);
	/* A doorbell rung on the word meanwhile must not be lost. */
	npu_sched_kick(ring, 0, false);
}

/*
 * The futex doorbell of @ring moved or woke us: look at its SQ once, as
 * RING_ENTER with to_submit would. Caller holds db_lock.
 */
static void npu_sched_db_check(struct npu_sched *s, struct npu_ring *ring)
{
	u64 now, grow;

	lockdep_assert_held(&s->db_lock);
	atomic64_inc(&ring->st_futex_checks);
	/* The word before sq_tail: the producer moves sq_tail, then the word. */
	smp_mb();
	if (npu_ring_sq_pending(ring)) {
		npu_sched_kick(ring, ring->sq_entries, true);
		return;
	}
	now = ktime_get_ns();
	grow = (now - ring->db_refill_ns) / NPU_SCHED_DB_REFILL_NS;
	if (grow) {
		ring->db_budget = min_t(u64, NPU_SCHED_DB_BUDGET, ring->db_budget + grow);
		ring->db_refill_ns = now;
	}
	if (--ring->db_budget <= 0)
		npu_sched_db_demote_locked(s, ring);
}

/* The doorbell thread: sleeps on the futex doorbells of the device's rings. */
static int npu_sched_db_thread(void *data)
{
	struct npu_sched *s = data;
	struct npu_ring *rings[MOCK_FUTEX_WAITV_MAX];
	u32 *words[MOCK_FUTEX_WAITV_MAX];
	u32 vals[MOCK_FUTEX_WAITV_MAX];

	for (;;) {
		struct npu_ring *ring, *tmp;
		unsigned int n = 1;
		u32 gen;
		int ret;

		/* Before the list: a change after this read wakes the wait below. */
		vals[0] = smp_load_acquire(&s->db_ctl);
		words[0] = &s->db_ctl;
		rings[0] = NULL;
		mutex_lock(&s->db_lock);
		if (s->db_stop) {
			mutex_unlock(&s->db_lock);
			break;
		}
		list_for_each_entry_safe(ring, tmp, &s->db_rings, db_link) {
			u32 v = npu_ring_doorbell_read(ring);

			if (v != ring->db_seen) {
				ring->db_seen = v;
				npu_sched_db_check(s, ring);
				if (!ring->db_on)
					continue;
			}
			rings[n] = ring;
			words[n] = npu_ring_doorbell_word(ring);
			vals[n++] = v;
		}
		gen = s->db_gen;
		mutex_unlock(&s->db_lock);

		ret = mock_futex_waitv(words, vals, n);
		if (ret == -EFAULT || ret == -EINVAL) {
			/* Cannot happen for mapped rings: do not spin on it. */
			msleep(1);
			continue;
		}
		if (ret <= 0)
			continue;	/* our own word, a word that moved, a signal */
		mutex_lock(&s->db_lock);
		/* Unless a ring left meanwhile, rings[ret] is still watched. */
		if (s->db_gen == gen) {
			ring = rings[ret];
			ring->db_seen = npu_ring_doorbell_read(ring);
			npu_sched_db_check(s, ring);
		}
		mutex_unlock(&s->db_lock);
	}
	return 0;
}
#endif

/**
 * npu_sched_futex_attach() - watch the futex doorbell of a new ring
 * @ring: a ring created with NPU_RING_CREATE_FUTEX, attached, not yet
 *	reachable by id
 *
 * Return: true if NPU_RING_FUTEX is now set in its header; false when
 * the device watches NPU_SCHED_DB_MAX rings already, NPU_SCHED_DB_PER_CTX
 * of the ring's context or db_per_proc of its process, or its doorbell
 * thread cannot start: RING_ENTER stays the ring's doorbell.
 */
bool npu_sched_futex_attach(struct npu_ring *ring)
{
	struct npu_sched *s = ring->ctx->ndev->sched;
	bool on = false;

	mutex_lock(&s->db_lock);
	if (s->nr_db >= NPU_SCHED_DB_MAX || ring->ctx->nr_db >= NPU_SCHED_DB_PER_CTX ||
	    ring->ctx->proc->nr_db >= db_per_proc || s->db_stop)
		goto out;
#ifdef NPU_FUTEX_DOORBELL
	if (!s->db_thread) {
		struct task_struct *t = kthread_run(npu_sched_db_thread, s, "npu%u-db",
						     s->ndev->index);

		if (IS_ERR(t))
			goto out;
		s->db_thread = t;
	}
#endif
	ring->db_seen = npu_ring_doorbell_read(ring);
	ring->db_budget = NPU_SCHED_DB_BUDGET;
	ring->db_refill_ns = ktime_get_ns();
	list_add_tail(&ring->db_link, &s->db_rings);
	s->nr_db++;
	ring->ctx->nr_db++;
	ring->ctx->proc->nr_db++;
	/* Nobody else owns the flags of a ring nobody can reach yet. */
	WRITE_ONCE(ring->db_on, true);
	npu_ring_publish_flags(ring);
	npu_sched_db_poke_locked(s);
	on = true;
out:
	mutex_unlock(&s->db_lock);
	return on;
}

/* Stop watching @ring's futex doorbell: nothing looks at it afterwards. */
static void npu_sched_futex_detach(struct npu_ring *ring)
{
	struct npu_sched *s = ring->ctx->ndev->sched;

	if (!ring->futex)
		return;
	mutex_lock(&s->db_lock);
	if (!list_empty(&ring->db_link)) {
		list_del_init(&ring->db_link);
		s->nr_db--;
		ring->ctx->nr_db--;
		ring->ctx->proc->nr_db--;
		s->db_gen++;
		npu_sched_db_poke_locked(s);
	}
	mutex_unlock(&s->db_lock);
}

/**
 * npu_sched_attach() - make a new ring known to its device's engines
 * @ring: the ring, NEED_WAKEUP set in its flags; not yet reachable
 */
void npu_sched_attach(struct npu_ring *ring)
{
	INIT_LIST_HEAD(&ring->sched_link);
	ring->sstate = NPU_RING_ASLEEP;
	ring->rerun = false;
	ring->detaching = false;
	ring->sq_acked = 0;
	ring->abort_req = 0;
	ring->abort_done = 0;
	ring->abort_tail = 0;
	init_waitqueue_head(&ring->state_wait);
}

/**
 * npu_sched_kick() - the doorbell, or a waiter's nudge
 * @ring: the ring
 * @to_submit: the caller's to_submit
 * @doorbell: a RING_ENTER with to_submit > 0 (counted); false for a waiter
 *	that only makes sure a sleeping ring with pending SQEs is run
 *
 * Return: the SQEs published since the previous doorbell, at most
 * @to_submit (0 when not a doorbell).
 */
u32 npu_sched_kick(struct npu_ring *ring, u32 to_submit, bool doorbell)
{
	struct npu_sched *s = ring->ctx->ndev->sched;
	u32 n = 0;

	spin_lock(&s->lock);
	if (doorbell)
		n = npu_sched_ack_locked(s, ring, to_submit);
	/* A ring being detached is never queued again. */
	switch (ring->detaching ? NPU_RING_DEAD : ring->sstate) {
	case NPU_RING_ASLEEP:
		if (!doorbell && !npu_sched_ring_has_work(ring))
			break;
		if (doorbell)
			atomic64_inc(&ring->st_wakeups);
		npu_sched_queue_locked(s, ring);
		npu_sched_wake_locked(s);
		break;
	case NPU_RING_POLLED:
		if (npu_sched_ring_has_work(ring)) {
			/* A waiter does not sit out the pause of a gathering ring. */
			if (!doorbell && ring->poll_after > ktime_get_ns())
				atomic64_inc(&s->nr_nudged);
			npu_sched_queue_locked(s, ring);
			npu_sched_wake_locked(s);
		}
		break;
	case NPU_RING_RUNNING:
		if (doorbell)
			ring->rerun = true;
		break;
	default:
		break;
	}
	spin_unlock(&s->lock);
	return n;
}

static bool npu_sched_abort_done(struct npu_ring *ring, u32 req)
{
	return (s32)(READ_ONCE(ring->abort_done) - req) >= 0;
}

/**
 * npu_sched_abort() - cancel what a ring has published and not started
 * @ring: the ring
 *
 * Returns once an engine has completed those descriptors with -ECANCELED
 * (at most sq_entries of them, plus a held VALUE_WAIT); at once for a
 * failed ring.
 */
void npu_sched_abort(struct npu_ring *ring)
{
	struct npu_sched *s = ring->ctx->ndev->sched;
	u32 req;

	spin_lock(&s->lock);
	/*
	 * A failed ring completes nothing more, and detaching cancels what
	 * is pending itself: nothing to wait for.
	 */
	if (ring->sstate == NPU_RING_DEAD || ring->detaching || npu_ring_failed(ring)) {
		spin_unlock(&s->lock);
		return;
	}
	ring->abort_tail = npu_ring_sq_tail(ring);
	req = ++ring->abort_req;
	switch (ring->sstate) {
	case NPU_RING_ASLEEP:
	case NPU_RING_POLLED:
	case NPU_RING_PARKED:
		npu_sched_queue_locked(s, ring);
		npu_sched_wake_locked(s);
		break;
	default:
		break;
	}
	spin_unlock(&s->lock);
	wait_event(ring->state_wait, npu_sched_abort_done(ring, req));
}

/**
 * npu_sched_detach() - take a ring away from the engines for good
 * @ring: the ring, no longer reachable by new RING_ENTERs
 *
 * Cancels what is pending (-ECANCELED), waits for the descriptor an engine
 * may be running, and leaves the ring DEAD: no engine touches it again.
 */
void npu_sched_detach(struct npu_ring *ring)
{
	struct npu_sched *s = ring->ctx->ndev->sched;

	npu_sched_futex_detach(ring);

	/*
	 * A ring no engine holds or has queued, with nothing published and no
	 * abort pending, has nothing to cancel: retire it here rather than
	 * hand it to an engine and wait, so that closing a file with
	 * thousands of rings costs no cross-thread wake-up per ring.
	 */
	spin_lock(&s->lock);
	if ((ring->sstate == NPU_RING_ASLEEP || ring->sstate == NPU_RING_POLLED) &&
	    !npu_sched_ring_has_work(ring)) {
		list_del_init(&ring->sched_link);
		WRITE_ONCE(ring->sstate, NPU_RING_DEAD);
		npu_ring_wake_waiters(ring);
		spin_unlock(&s->lock);
		return;
	}
	spin_unlock(&s->lock);

	npu_sched_abort(ring);
	spin_lock(&s->lock);
	ring->detaching = true;
	while (ring->sstate == NPU_RING_RUNNING) {
		spin_unlock(&s->lock);
		wait_event(ring->state_wait, READ_ONCE(ring->sstate) != NPU_RING_RUNNING);
		spin_lock(&s->lock);
	}
	list_del_init(&ring->sched_link);
	WRITE_ONCE(ring->sstate, NPU_RING_DEAD);
	/* An abort that queued it meanwhile waits no more: the ring is gone. */
	WRITE_ONCE(ring->abort_done, ring->abort_req);
	if (waitqueue_active(&ring->state_wait))
		wake_up_all(&ring->state_wait);
	spin_unlock(&s->lock);
}

/**
 * npu_sched_ring_idle() - whether a ring has nothing in flight
 * @ring: the ring
 *
 * Return: true when no engine runs or will run it and its SQ is empty, so
 * no CQE will come without a new submission; true for a failed ring.
 */
bool npu_sched_ring_idle(struct npu_ring *ring)
{
	int st = READ_ONCE(ring->sstate);

	if (npu_ring_failed(ring))
		return true;
	if (st == NPU_RING_RUNNING || st == NPU_RING_QUEUED || st == NPU_RING_PARKED)
		return false;
	return !npu_ring_sq_pending(ring);
}

/**
 * npu_sched_inline_runs() - rings run by their submitters so far
 * @ndev: the device
 *
 * Return: how often npu_sched_enter_inline() ran a ring of @ndev.
 */
u64 npu_sched_inline_runs(const struct npu_device *ndev)
{
	return atomic64_read(&ndev->sched->nr_inline);
}

/**
 * npu_sched_stats() - how the engines shared work
 * @ndev: the device
 * @st: out: the counters since load
 */
void npu_sched_stats(const struct npu_device *ndev, struct npu_sched_stats *st)
{
	npu_job_stats(&ndev->sched->jobs, &st->split, &st->helped);
	st->nudged = atomic64_read(&ndev->sched->nr_nudged);
	st->db_demoted = atomic64_read(&ndev->sched->nr_db_demoted);
}

/**
 * npu_sched_busy() - how long the device's engines have worked
 * @ndev: the device
 * @busy_ns: out: time spent running rings and chunks, summed over engines
 *	and submitters that ran their own ring
 * @up_ns: out: time since the engines started
 */
void npu_sched_busy(const struct npu_device *ndev, u64 *busy_ns, u64 *up_ns)
{
	npu_pool_busy(&ndev->sched->pool, busy_ns, up_ns);
}

/**
 * npu_sched_engines() - engines per device
 * @ndev: the device
 *
 * Return: the number of engine kthreads @ndev has.
 */
unsigned int npu_sched_engines(const struct npu_device *ndev)
{
	return npu_pool_workers(&ndev->sched->pool);
}

static void npu_sched_inline_fini(struct npu_sched *s)
{
	unsigned int i;

	for (i = 0; i < NPU_SCHED_INLINE_SLOTS; i++)
		kfree(s->inline_bounce[i]);
}

static int npu_sched_inline_init(struct npu_sched *s)
{
	unsigned int i;

	BUILD_BUG_ON(NPU_SCHED_INLINE_SLOTS > BITS_PER_LONG);
	for (i = 0; i < NPU_SCHED_INLINE_SLOTS; i++) {
		s->inline_bounce[i] = kmalloc(NPU_ENGINE_BOUNCE_SIZE, GFP_KERNEL);
		if (!s->inline_bounce[i]) {
			npu_sched_inline_fini(s);
			return -ENOMEM;
		}
	}
	s->inline_free = GENMASK(NPU_SCHED_INLINE_SLOTS - 1, 0);
	atomic64_set(&s->nr_inline, 0);
	atomic64_set(&s->nr_nudged, 0);
	return 0;
}

/**
 * npu_sched_init() - start the engines of a device
 * @ndev: the device being created
 *
 * Return: 0; -EINVAL for an `engines` or `engine_poll_us` parameter out of
 * range; -ENOMEM or the error of kthread creation.
 */
int npu_sched_init(struct npu_device *ndev)
{
	struct npu_sched *s;
	char name[16];
	int ret;

	if (!engines || engines > NPU_POOL_MAX_WORKERS) {
		pr_err("npu: engines=%u, must be 1..%u\n", engines, NPU_POOL_MAX_WORKERS);
		return -EINVAL;
	}
	if (engine_poll_us > NPU_SCHED_POLL_MAX_US) {
		pr_err("npu: engine_poll_us=%u, must be 0..%u\n", engine_poll_us,
		       NPU_SCHED_POLL_MAX_US);
		return -EINVAL;
	}
	if (engine_coalesce_us > NPU_SCHED_POLL_MAX_US / 2) {
		pr_err("npu: engine_coalesce_us=%u, must be 0..%u\n", engine_coalesce_us,
		       NPU_SCHED_POLL_MAX_US / 2);
		return -EINVAL;
	}
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->ndev = ndev;
	s->poll_ns = (u64)engine_poll_us * NSEC_PER_USEC;
	/* At most half the poll window, or streamed rings would go to sleep. */
	s->coalesce_ns = (u64)min(engine_coalesce_us, engine_poll_us / 2) * NSEC_PER_USEC;
	spin_lock_init(&s->lock);
	INIT_LIST_HEAD(&s->runq);
	INIT_LIST_HEAD(&s->pollq);
	INIT_LIST_HEAD(&s->parked);
	mutex_init(&s->db_lock);
	INIT_LIST_HEAD(&s->db_rings);
	atomic64_set(&s->nr_db_demoted, 0);
	ret = npu_sched_inline_init(s);
	if (ret)
		goto err_free;
	snprintf(name, sizeof(name), "npu%u-eng", ndev->index);
	ret = npu_pool_init(&s->pool, engines, NPU_ENGINE_BOUNCE_SIZE, npu_sched_thread, s, name);
	if (ret)
		goto err_fini_inline;
	npu_jobs_init(&s->jobs, &s->pool);
	ndev->sched = s;
	ndev->pool = &s->pool;
	ndev->jobs = &s->jobs;
	npu_pool_start(&s->pool);
#ifdef NPU_FUTEX_DOORBELL
	/*
	 * The doorbell thread lives as long as the device, so that the
	 * device's threads do not change with what its clients do; should it
	 * fail to start, the first futex ring tries again.
	 */
	s->db_thread = kthread_run(npu_sched_db_thread, s, "npu%u-db", ndev->index);
	if (IS_ERR(s->db_thread))
		s->db_thread = NULL;
#endif
	return 0;

err_fini_inline:
	npu_sched_inline_fini(s);
err_free:
	mutex_destroy(&s->db_lock);
	kfree(s);
	return ret;
}

/**
 * npu_sched_fini() - stop the engines of a device
 * @ndev: the device; every ring is detached
 */
void npu_sched_fini(struct npu_device *ndev)
{
	struct npu_sched *s = ndev->sched;

	if (!s)
		return;
	mutex_lock(&s->db_lock);
	s->db_stop = true;
	npu_sched_db_poke_locked(s);
	mutex_unlock(&s->db_lock);
	if (s->db_thread)
		kthread_stop(s->db_thread);
	WARN_ON(!list_empty(&s->db_rings));
	mutex_destroy(&s->db_lock);
	npu_pool_fini(&s->pool);
	WARN_ON(!list_empty(&s->runq) || !list_empty(&s->pollq) || !list_empty(&s->parked));
	npu_jobs_fini(&s->jobs);
	npu_sched_inline_fini(s);
	ndev->jobs = NULL;
	ndev->pool = NULL;
	ndev->sched = NULL;
	kfree(s);
}
