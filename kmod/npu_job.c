// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Parallel jobs.
 *
 * A thread with a large piece of work (an engine with a large copy) asks
 * npu_job_run() to run it in chunks with its callback. The job goes on the
 * queue whether or not a worker is idle now, and the thread claims chunks
 * itself one at a time; any worker of the pool with nothing better to do
 * takes chunks of a queued job (npu_job_help()), including one that only
 * became idle while the job ran. Were that decided once, at the start, a
 * job that found every worker busy would run alone to its end even when
 * the others came free a moment later: two streams of 32 MiB copies then
 * moved half their bytes on one engine.
 *
 * The job lives on the stack of the thread that asked for it, which waits
 * until every chunk is done: so it returns only when the whole work is
 * done, and the order of what it does around the job holds.
 *
 * The service knows nothing of what a chunk is; it knows the user address
 * space the callback may need (a helper adopts it first) and that the job
 * fails as a whole: once a chunk failed, the chunks not yet started are
 * skipped.
 */
#include "npu_internal.h"
#include "npu_job.h"
#include "npu_pool.h"

/*
 * The chunk of a job: small enough that a worker which comes free late
 * still finds work, and that the workers finish a job close together;
 * large enough that a claim (one lock round) is nothing beside it.
 */
#define NPU_JOB_CHUNK		SZ_2M
/*
 * Chunks of one job at most, larger jobs get larger chunks: a hostile
 * host-to-host length near 2^64 is cut into no more than these, each of
 * which fails at once.
 */
#define NPU_JOB_MAX_CHUNKS	1024

struct npu_job {
	struct list_head link;		/* in jobs->queue while chunks are unclaimed */
	int (*fn)(void *arg, u64 off, u64 len, void *bounce);
	void *arg;			/* fn's; read-only here */
	struct mm_struct *mm;		/* helpers adopt it before fn, or NULL */
	u64 len;			/* bytes of the whole job */
	u64 chunk;			/* bytes per chunk */
	u64 next;			/* first byte not yet claimed; under jobs->lock */
	atomic_t left;			/* chunks not finished */
	atomic_t err;			/* first error, 0 if none */
};

/**
 * npu_jobs_init() - set up the job service of a pool
 * @jobs: the service
 * @pool: whose idle workers run chunks; it calls npu_job_help()
 */
void npu_jobs_init(struct npu_jobs *jobs, struct npu_pool *pool)
{
	jobs->pool = pool;
	spin_lock_init(&jobs->lock);
	INIT_LIST_HEAD(&jobs->queue);
	init_waitqueue_head(&jobs->done_wq);
	atomic64_set(&jobs->nr_split, 0);
	atomic64_set(&jobs->nr_helped, 0);
}

/**
 * npu_jobs_fini() - the job service is no longer used
 * @jobs: the service; no job runs
 */
void npu_jobs_fini(struct npu_jobs *jobs)
{
	WARN_ON(!list_empty(&jobs->queue));
}

/* Claim the next chunk of @job, or of the first queued job if NULL. */
static struct npu_job *npu_job_claim(struct npu_jobs *jobs, struct npu_job *job, u64 *off)
{
	spin_lock(&jobs->lock);
	if (!job)
		job = list_first_entry_or_null(&jobs->queue, struct npu_job, link);
	if (!job || job->next >= job->len) {
		spin_unlock(&jobs->lock);
		return NULL;
	}
	*off = job->next;
	/* Never past len: next + chunk could wrap for a length near 2^64. */
	job->next += min(job->chunk, job->len - job->next);
	if (job->next >= job->len)
		list_del_init(&job->link);
	spin_unlock(&jobs->lock);
	return job;
}

static void npu_job_chunk(struct npu_job *job, u64 off, void *bounce)
{
	u64 n = min(job->chunk, job->len - off);
	int ret;

	/* The job fails as a whole: what is left of it need not run. */
	if (atomic_read(&job->err))
		return;
	ret = job->fn(job->arg, off, n, bounce);
	if (ret)
		atomic_cmpxchg(&job->err, 0, ret);
}

/**
 * npu_job_run() - run a large piece of work in chunks other workers may take
 * @jobs: the service of the pool whose workers may help
 * @len: bytes of the work
 * @fn: runs one chunk; called by this thread and by helpers, concurrently
 * @arg: for @fn; must stay valid until this returns
 * @mm: user address space a helper adopts before @fn (the caller has it
 *	already), or NULL if @fn reaches no user memory
 * @bounce: the caller's staging buffer, for its own chunks
 *
 * Return: 0 or the first error of @fn; -EAGAIN for work of fewer than two
 * chunks (the caller then runs it alone).
 */
int npu_job_run(struct npu_jobs *jobs, u64 len,
		int (*fn)(void *arg, u64 off, u64 len, void *bounce), void *arg,
		struct mm_struct *mm, void *bounce)
{
	struct npu_job job;
	u64 off;

	if (len / NPU_JOB_CHUNK < 2)
		return -EAGAIN;
	job.fn = fn;
	job.arg = arg;
	job.mm = mm;
	job.len = len;
	/*
	 * Divisions rounded up without adding to len: a host-to-host length
	 * near 2^64 would wrap, and a wrong chunk count would leave this
	 * thread waiting for chunks that never come.
	 */
	job.chunk = max_t(u64, NPU_JOB_CHUNK,
			  round_up(len / NPU_JOB_MAX_CHUNKS + 1, (u64)SZ_64K));
	job.next = 0;
	atomic_set(&job.left, (int)(len / job.chunk + !!(len % job.chunk)));
	atomic_set(&job.err, 0);
	atomic64_inc(&jobs->nr_split);

	spin_lock(&jobs->lock);
	list_add_tail(&job.link, &jobs->queue);
	spin_unlock(&jobs->lock);
	npu_pool_wake(jobs->pool);
	while (npu_job_claim(jobs, &job, &off)) {
		npu_job_chunk(&job, off, bounce);
		atomic_dec(&job.left);
	}
	/*
	 * Acquire: pairs with the helpers' fully ordered decrements, so their
	 * last reads of job (and of *arg) happen before job leaves the stack.
	 */
	wait_event(jobs->done_wq, !atomic_read_acquire(&job.left));
	return atomic_read(&job.err);
}

/**
 * npu_job_help() - run one chunk of a queued job, if there is one
 * @jobs: the service
 * @bounce: the calling worker's staging buffer
 *
 * The job may be gone when this returns.
 *
 * Return: true if a chunk ran; false if no job had one left.
 */
bool npu_job_help(struct npu_jobs *jobs, void *bounce)
{
	struct npu_job *job;
	bool used = false;
	u64 off, t0;

	job = npu_job_claim(jobs, NULL, &off);
	if (!job)
		return false;
	if (job->mm)
		used = npu_pool_use_mm(job->mm);
	t0 = ktime_get_ns();
	if (job->mm && !used)
		atomic_cmpxchg(&job->err, 0, -EFAULT);
	else
		npu_job_chunk(job, off, bounce);
	npu_pool_account(jobs->pool, t0);
	atomic64_inc(&jobs->nr_helped);
	npu_pool_unuse_mm(job->mm, used);
	if (atomic_dec_and_test(&job->left))
		wake_up(&jobs->done_wq);
	return true;
}

/**
 * npu_job_stats() - how the workers shared jobs
 * @jobs: the service
 * @split: out: jobs cut into chunks since init
 * @helped: out: chunks a worker ran for another's job
 */
void npu_job_stats(struct npu_jobs *jobs, u64 *split, u64 *helped)
{
	*split = atomic64_read(&jobs->nr_split);
	*helped = atomic64_read(&jobs->nr_helped);
}
