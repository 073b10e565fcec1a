// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The worker kthreads of a device.
 *
 * A pool starts nr_workers kthreads that all run the same function, which
 * returns when kthread_should_stop(). It knows nothing of what they do:
 * the ring scheduler (npu_sched.c) is their body and the job service
 * (npu_job.c) hands them chunks. What the pool does own is what every
 * worker needs whatever its work:
 *
 * - a staging buffer per worker (host-to-host copies go through it);
 * - idling: a worker with nothing to do sleeps in npu_pool_idle() until its
 *   caller's condition holds, and whoever makes work calls
 *   npu_pool_wake(). The two use a Dekker handshake (the idle count, a full
 *   barrier, the condition; the work, a full barrier, the idle count), so
 *   no lock is shared between the pool and the code that makes work;
 * - an event count that idle workers may watch (npu_pool_signal(): device
 *   memory was written, so a VALUE_WAIT may have become true);
 * - the busy time its users report, for the utilisation query;
 * - adopting the user address space a piece of work names
 *   (kthread_use_mm()).
 */
#include "npu_internal.h"
#include "npu_pool.h"

static int npu_pool_thread(void *data)
{
	struct npu_pool_worker *w = data;

	return w->pool->fn(w);
}

static void npu_pool_stop(struct npu_pool *pool, unsigned int n)
{
	while (n--) {
		kthread_stop(pool->workers[n].task);
		kfree(pool->workers[n].bounce);
	}
}

/**
 * npu_pool_init() - create the workers of a pool, not yet running
 * @pool: the pool, zeroed
 * @nr_workers: 1..NPU_POOL_MAX_WORKERS
 * @bounce_size: bytes of each worker's staging buffer
 * @fn: what each worker runs; returns once kthread_should_stop()
 * @data: stored in @pool for @fn
 * @name: the workers are called @name and their index
 *
 * npu_pool_start() lets them run, so that @fn may look at state its owner
 * sets up after this call.
 *
 * Return: 0, -EINVAL for a bad @nr_workers, -ENOMEM or the error of
 * kthread creation.
 */
int npu_pool_init(struct npu_pool *pool, unsigned int nr_workers, size_t bounce_size,
		  int (*fn)(struct npu_pool_worker *w), void *data, const char *name)
{
	unsigned int i;
	int ret;

	if (!nr_workers || nr_workers > NPU_POOL_MAX_WORKERS)
		return -EINVAL;
	pool->nr_workers = nr_workers;
	pool->fn = fn;
	pool->data = data;
	atomic_set(&pool->nr_idle, 0);
	init_waitqueue_head(&pool->wq);
	atomic64_set(&pool->events, 0);
	atomic64_set(&pool->busy_ns, 0);
	pool->start_ns = ktime_get_ns();

	for (i = 0; i < nr_workers; i++) {
		struct npu_pool_worker *w = &pool->workers[i];

		w->pool = pool;
		w->index = i;
		w->bounce = kmalloc(bounce_size, GFP_KERNEL);
		if (!w->bounce) {
			ret = -ENOMEM;
			goto err_stop;
		}
		w->task = kthread_create(npu_pool_thread, w, "%s%u", name, i);
		if (IS_ERR(w->task)) {
			ret = PTR_ERR(w->task);
			kfree(w->bounce);
			goto err_stop;
		}
	}
	return 0;

err_stop:
	npu_pool_stop(pool, i);
	return ret;
}

/**
 * npu_pool_start() - let the workers of a pool run
 * @pool: a pool npu_pool_init() created
 */
void npu_pool_start(struct npu_pool *pool)
{
	unsigned int i;

	for (i = 0; i < pool->nr_workers; i++)
		wake_up_process(pool->workers[i].task);
}

/**
 * npu_pool_fini() - stop the workers of a pool and free their buffers
 * @pool: the pool; waits for each worker's function to return
 */
void npu_pool_fini(struct npu_pool *pool)
{
	npu_pool_stop(pool, pool->nr_workers);
}

/**
 * npu_pool_idle() - a worker with nothing to do sleeps
 * @w: the worker
 * @ready: true when there is work for it again; called without any lock
 * @timeout: in jiffies, or MAX_SCHEDULE_TIMEOUT
 *
 * Returns when @ready, on kthread_stop(), after @timeout, or spuriously.
 */
void npu_pool_idle(struct npu_pool_worker *w, bool (*ready)(void *data), long timeout)
{
	struct npu_pool *pool = w->pool;

	atomic_inc(&pool->nr_idle);
	/* Pairs with the barrier in npu_pool_wake(): one of the two sees the other. */
	smp_mb__after_atomic();
	wait_event_interruptible_timeout(pool->wq, ready(pool->data) || kthread_should_stop(),
					 timeout);
	atomic_dec(&pool->nr_idle);
}

/**
 * npu_pool_wake() - there is new work: wake the idle workers, if any
 * @pool: the pool; the caller has made the work visible to @ready of
 *	npu_pool_idle()
 */
void npu_pool_wake(struct npu_pool *pool)
{
	/* The work is visible before we look for idle workers. */
	smp_mb();
	if (atomic_read(&pool->nr_idle))
		wake_up(&pool->wq);
}

/**
 * npu_pool_signal() - count an event idle workers may wait for, and wake them
 * @pool: the pool
 */
void npu_pool_signal(struct npu_pool *pool)
{
	/* Fully ordered: the count moves before we look for idle workers. */
	atomic64_inc_return(&pool->events);
	if (atomic_read(&pool->nr_idle))
		wake_up(&pool->wq);
}

/**
 * npu_pool_account() - add work that started at @t0 to the pool's busy time
 * @pool: the pool
 * @t0: ktime_get_ns() when the work started
 */
void npu_pool_account(struct npu_pool *pool, u64 t0)
{
	atomic64_add(ktime_get_ns() - t0, &pool->busy_ns);
}

/**
 * npu_pool_busy() - how long the pool has worked
 * @pool: the pool
 * @busy_ns: out: the time npu_pool_account() counted
 * @up_ns: out: time since the pool was created
 */
void npu_pool_busy(const struct npu_pool *pool, u64 *busy_ns, u64 *up_ns)
{
	*busy_ns = atomic64_read(&pool->busy_ns);
	*up_ns = ktime_get_ns() - pool->start_ns;
}

/**
 * npu_pool_use_mm() - adopt a user address space for a piece of work
 * @mm: the address space, possibly NULL or exiting
 *
 * Return: true if adopted (pair with npu_pool_unuse_mm()); false if @mm is
 * gone, and user addresses in it cannot be reached.
 */
bool npu_pool_use_mm(struct mm_struct *mm)
{
	if (!mm || !mmget_not_zero(mm))
		return false;
	kthread_use_mm(mm);
	return true;
}

/**
 * npu_pool_unuse_mm() - leave an address space npu_pool_use_mm() adopted
 * @mm: the address space
 * @used: what npu_pool_use_mm() returned; nothing is done when false
 */
void npu_pool_unuse_mm(struct mm_struct *mm, bool used)
{
	if (!used)
		return;
	kthread_unuse_mm(mm);
	/*
	 * Ours may be the last user of a process that exited meanwhile: its
	 * exit_mmap() must not run here, where the context's teardown (the
	 * mmu notifier) would wait for this very worker to leave its ring.
	 */
	mmput_async(mm);
}
