/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Parallel jobs: a piece of work cut into chunks that idle workers of the
 * pool run beside the thread that asked for it.
 */
#ifndef _NPU_JOB_H
#define _NPU_JOB_H

#include "npu_internal.h"

struct npu_pool;

struct npu_jobs {
	struct npu_pool *pool;		/* whose idle workers help */
	spinlock_t lock;		/* Protects: queue, and next of every queued job */
	struct list_head queue;		/* jobs with chunks left to claim */
	wait_queue_head_t done_wq;	/* threads waiting for the chunks of their job */
	atomic64_t nr_split;		/* jobs cut into chunks */
	atomic64_t nr_helped;		/* chunks run by a worker for another's job */
};

void npu_jobs_init(struct npu_jobs *jobs, struct npu_pool *pool);
void npu_jobs_fini(struct npu_jobs *jobs);

int npu_job_run(struct npu_jobs *jobs, u64 len,
		int (*fn)(void *arg, u64 off, u64 len, void *bounce), void *arg,
		struct mm_struct *mm, void *bounce);
bool npu_job_help(struct npu_jobs *jobs, void *bounce);
void npu_job_stats(struct npu_jobs *jobs, u64 *split, u64 *helped);

/**
 * npu_job_pending() - whether a job has chunks nobody has claimed
 * @jobs: the service; read without its lock, for an idle worker's check
 *
 * Return: true if npu_job_help() may find a chunk.
 */
static inline bool npu_job_pending(struct npu_jobs *jobs)
{
	return !list_empty(&jobs->queue);
}

#endif /* _NPU_JOB_H */
