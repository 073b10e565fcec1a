/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The worker kthreads of a device: started and stopped together, each with
 * a staging buffer of its own, idle on one wait queue.
 */
#ifndef _NPU_POOL_H
#define _NPU_POOL_H

#include "npu_internal.h"

#define NPU_POOL_MAX_WORKERS	8

struct npu_pool;

struct npu_pool_worker {
	struct npu_pool *pool;
	struct task_struct *task;
	void *bounce;		/* the pool's bounce_size bytes, this worker's own */
	unsigned int index;
};

struct npu_pool {
	unsigned int nr_workers;
	int (*fn)(struct npu_pool_worker *w);	/* the body of every worker */
	void *data;				/* fn's, for all workers */
	atomic_t nr_idle;		/* workers in npu_pool_idle() */
	wait_queue_head_t wq;		/* idle workers */
	/* Events idle workers may wait for (npu_pool_signal()); only ever grows. */
	atomic64_t events;
	atomic64_t busy_ns;		/* time the pool's users reported as work */
	u64 start_ns;			/* when the workers started */
	struct npu_pool_worker workers[NPU_POOL_MAX_WORKERS];
};

int npu_pool_init(struct npu_pool *pool, unsigned int nr_workers, size_t bounce_size,
		  int (*fn)(struct npu_pool_worker *w), void *data, const char *name);
void npu_pool_start(struct npu_pool *pool);
void npu_pool_fini(struct npu_pool *pool);

void npu_pool_idle(struct npu_pool_worker *w, bool (*ready)(void *data), long timeout);
void npu_pool_wake(struct npu_pool *pool);
void npu_pool_signal(struct npu_pool *pool);
void npu_pool_account(struct npu_pool *pool, u64 t0);
void npu_pool_busy(const struct npu_pool *pool, u64 *busy_ns, u64 *up_ns);

bool npu_pool_use_mm(struct mm_struct *mm);
void npu_pool_unuse_mm(struct mm_struct *mm, bool used);

/**
 * npu_pool_events() - the pool's event count
 * @pool: the pool
 *
 * Return: how often npu_pool_signal() ran; a waiter compares it with a
 * value it saw before.
 */
static inline s64 npu_pool_events(struct npu_pool *pool)
{
	return atomic64_read(&pool->events);
}

/**
 * npu_pool_note() - count an event, without waking anybody
 * @pool: the pool; its workers will see the count when they next look
 */
static inline void npu_pool_note(struct npu_pool *pool)
{
	atomic64_inc(&pool->events);
}

/**
 * npu_pool_workers() - the size of a pool
 * @pool: the pool
 *
 * Return: its number of workers.
 */
static inline unsigned int npu_pool_workers(const struct npu_pool *pool)
{
	return pool->nr_workers;
}

#endif /* _NPU_POOL_H */
