// SPDX-License-Identifier: MIT
/*
 * Asynchronous copies on streams:
 *   async_small_copies_per_s   64-byte D2D aclrtMemcpyAsync on one stream:
 *                              submit a run of them, synchronize; copies
 *                              completed per second, median over the runs
 *   spsc_ring_floor_per_s      the ceiling of one stream on this machine
 *                              (bench_spsc.c), one run of it after each
 *                              timed run of the above, median
 *   async_small_vs_spsc_ratio  each run's copies per second over the floor
 *                              run right after it, median: the machine
 *                              changes speed between runs, and the two
 *                              halves of a ratio must see the same speed
 *   syscalls_per_async_op      doorbells + blocking waits (the ring
 *                              statistics of every queue of the process,
 *                              npuHalQueueStatsTotal) per copy, over the
 *                              timed runs of the measurement above
 *   pinned_h2d_64m_ratio       one 64 MiB H2D aclrtMemcpyAsync from
 *                              aclrtMallocHost memory, submit to
 *                              synchronize, against memcpy of the same
 *                              64 MiB by one thread
 *   multistream_h2d_64m_ratio  the same 64 MiB as two halves on two
 *                              streams, against the same memcpy
 *   multistream_vs_one_64m_ratio
 *                              one stream's time for the 64 MiB over two
 *                              streams' time, round by round (each round
 *                              times both), median: above 1 when two
 *                              streams finish first
 *   memcpy_split_64m_ratio     two threads each memcpy one half, against
 *                              the same memcpy: what the machine's memory
 *                              allows two engines at most
 * The memcpy baseline is timed in the same loop as the copies, run by run.
 * Every copied byte is read back and compared at the end.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "npu/hal.h"

#include "bench_report.h"

#define ASYNC_SIZE_64M (64UL << 20)
#define ASYNC_SMALL 64UL
/* Small copies cycle through this many distinct 64-byte slots. */
#define ASYNC_SLOTS 4096UL
#define ASYNC_MAX_RUNS 1024

struct async_bufs {
	aclrtStream s1;
	aclrtStream s2;
	void *dev_a;		/* 64 MiB */
	void *dev_b;		/* 64 MiB */
	unsigned char *pinned;	/* 64 MiB, aclrtMallocHost */
	unsigned char *host;	/* 64 MiB, malloc: memcpy target and read-back */
};

static double async_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double async_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void async_clobber(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void async_fill(unsigned char *p, size_t size, uint64_t seed)
{
	uint64_t *w = (uint64_t *)p;

	for (size_t i = 0; i < size / sizeof(*w); i++)
		w[i] = (seed + i) * 0x9e3779b97f4a7c15ULL;
}

/* 0 when the device range reads back as want, else -1 (with a message). */
static int async_verify(struct async_bufs *b, const void *dev, const unsigned char *want,
			size_t size, const char *what)
{
	aclError e = aclrtMemcpy(b->host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST);

	if (e) {
		fprintf(stderr, "npu-bench: %s: read-back failed: %d\n", what, (int)e);
		return -1;
	}
	if (memcmp(b->host, want, size)) {
		fprintf(stderr, "npu-bench: %s: data read back differs\n", what);
		return -1;
	}
	return 0;
}

/* What bench_small() measures; each gets -aclError on failure. */
struct async_small {
	double rate;		/* copies per second */
	double calls;		/* system calls per copy */
	double floor;		/* bench_spsc_once() per second */
	double vs_floor;	/* rate over floor, run by run */
};

/*
 * The small-copy rate with the floor measured in turn, and the system
 * calls per copy from the ring statistics.
 */
static void bench_small(struct async_bufs *b, unsigned int runs, unsigned int ops,
			struct async_small *out)
{
	static double t[ASYNC_MAX_RUNS], f[ASYNC_MAX_RUNS], q[ASYNC_MAX_RUNS];
	unsigned char *dev_a = b->dev_a, *dev_b = b->dev_b;
	struct npu_ring_stats st0, st1;
	aclError e = ACL_SUCCESS;
	unsigned int r, i;
	int err;

	/* Source pattern in dev_a, dev_b zeroed; the pattern's copy is b->pinned. */
	async_fill(b->pinned, ASYNC_SLOTS * ASYNC_SMALL, 7);
	e = aclrtMemcpy(dev_a, ASYNC_SLOTS * ASYNC_SMALL, b->pinned, ASYNC_SLOTS * ASYNC_SMALL,
			ACL_MEMCPY_HOST_TO_DEVICE);
	if (!e)
		e = aclrtMemset(dev_b, ASYNC_SLOTS * ASYNC_SMALL, 0, ASYNC_SLOTS * ASYNC_SMALL);
	/* Run 0 warms up (and is not counted), runs 1..runs are timed. */
	for (r = 0; !e && r <= runs; r++) {
		double t0;

		if (r == 1) {
			err = npuHalQueueStatsTotal(&st0);
			if (err) {
				fprintf(stderr, "npu-bench: npuHalQueueStatsTotal: %s\n",
					strerror(-err));
				e = ACL_ERROR_INTERNAL_ERROR;
				break;
			}
		}
		t0 = async_now();
		for (i = 0; !e && i < ops; i++) {
			size_t off = (i % ASYNC_SLOTS) * ASYNC_SMALL;

			e = aclrtMemcpyAsync(dev_b + off, ASYNC_SMALL, dev_a + off, ASYNC_SMALL,
					     ACL_MEMCPY_DEVICE_TO_DEVICE, b->s1);
		}
		if (!e)
			e = aclrtSynchronizeStream(b->s1);
		if (r > 0) {
			t[r - 1] = async_now() - t0;
			f[r - 1] = bench_spsc_once(ops);
			if (f[r - 1] <= 0)
				e = ACL_ERROR_INTERNAL_ERROR;
			else
				q[r - 1] = (double)ops / t[r - 1] / f[r - 1];
		}
	}
	if (!e) {
		err = npuHalQueueStatsTotal(&st1);
		if (err) {
			fprintf(stderr, "npu-bench: npuHalQueueStatsTotal: %s\n", strerror(-err));
			e = ACL_ERROR_INTERNAL_ERROR;
		}
	}
	if (e) {
		fprintf(stderr, "npu-bench: small async copies: %d (%s)\n", (int)e,
			aclGetRecentErrMsg());
		out->rate = out->calls = out->floor = out->vs_floor = -(double)e;
		return;
	}
	if (async_verify(b, dev_b, b->pinned, ASYNC_SLOTS * ASYNC_SMALL, "64 B async D2D")) {
		out->rate = out->calls = out->floor = out->vs_floor =
			-(double)ACL_ERROR_INTERNAL_ERROR;
		return;
	}
	if (st1.sqes - st0.sqes < (uint64_t)runs * ops) {
		fprintf(stderr, "npu-bench: ring statistics counted %llu descriptors for %llu copies\n",
			(unsigned long long)(st1.sqes - st0.sqes),
			(unsigned long long)runs * ops);
		out->rate = out->calls = out->floor = out->vs_floor =
			-(double)ACL_ERROR_INTERNAL_ERROR;
		return;
	}
	out->rate = (double)ops / async_median(t, runs);
	out->calls = (double)((st1.doorbells - st0.doorbells) + (st1.waits - st0.waits)) /
		     ((double)runs * ops);
	out->floor = async_median(f, runs);
	out->vs_floor = async_median(q, runs);
}

/*
 * 64 MiB H2D from pinned memory on one stream, and as two halves on two
 * streams, each against a memcpy timed in the same run.
 */
struct async_half {
	unsigned char *dst;
	const unsigned char *src;
	size_t len;
};

static void *async_memcpy_half(void *p)
{
	struct async_half *h = p;

	memcpy(h->dst, h->src, h->len);
	return NULL;
}

/* Seconds for two threads to memcpy one half of src each; negative on failure. */
static double async_memcpy_split(unsigned char *dst, const unsigned char *src, size_t len)
{
	struct async_half h = { dst + len / 2, src + len / 2, len - len / 2 };
	double t0 = async_now();
	pthread_t t;

	if (pthread_create(&t, NULL, async_memcpy_half, &h))
		return -1;
	memcpy(dst, src, len / 2);
	pthread_join(t, NULL);
	return async_now() - t0;
}

/* The results of bench_pinned(); a failure puts -aclError in each. */
struct async_pinned {
	double one, two, two_vs_one, split, base_gbps;
};

static void async_pinned_failed(struct async_pinned *out, aclError e)
{
	out->one = out->two = out->two_vs_one = out->split = out->base_gbps = -(double)e;
}

static void bench_pinned(struct async_bufs *b, unsigned int runs, struct async_pinned *out)
{
	static double mc[ASYNC_MAX_RUNS], t1[ASYNC_MAX_RUNS], t2[ASYNC_MAX_RUNS];
	static double ms[ASYNC_MAX_RUNS], pair[ASYNC_MAX_RUNS];
	const size_t half = ASYNC_SIZE_64M / 2;
	unsigned char *dev_a = b->dev_a, *dev_b = b->dev_b;
	aclError e = ACL_SUCCESS;
	double base;
	unsigned int r;

	async_fill(b->pinned, ASYNC_SIZE_64M, 11);
	memset(b->host, 0, ASYNC_SIZE_64M);
	/* Run 0 warms up (device frames, pinned pool mapping) and is not counted. */
	for (r = 0; !e && r <= runs; r++) {
		double t0 = async_now(), tm, ta, tb, ts;

		memcpy(b->host, b->pinned, ASYNC_SIZE_64M);
		async_clobber(b->host);
		tm = async_now() - t0;
		ts = async_memcpy_split(b->host, b->pinned, ASYNC_SIZE_64M);
		async_clobber(b->host);
		if (ts < 0)
			e = ACL_ERROR_INTERNAL_ERROR;

		t0 = async_now();
		e = aclrtMemcpyAsync(dev_a, ASYNC_SIZE_64M, b->pinned, ASYNC_SIZE_64M,
				     ACL_MEMCPY_HOST_TO_DEVICE, b->s1);
		if (!e)
			e = aclrtSynchronizeStream(b->s1);
		ta = async_now() - t0;

		t0 = async_now();
		if (!e)
			e = aclrtMemcpyAsync(dev_b, half, b->pinned, half,
					     ACL_MEMCPY_HOST_TO_DEVICE, b->s1);
		if (!e)
			e = aclrtMemcpyAsync(dev_b + half, half, b->pinned + half, half,
					     ACL_MEMCPY_HOST_TO_DEVICE, b->s2);
		if (!e)
			e = aclrtSynchronizeStream(b->s1);
		if (!e)
			e = aclrtSynchronizeStream(b->s2);
		tb = async_now() - t0;
		if (r > 0) {
			mc[r - 1] = tm;
			t1[r - 1] = ta;
			t2[r - 1] = tb;
			ms[r - 1] = ts;
			pair[r - 1] = ta / tb;
		}
	}
	if (e) {
		fprintf(stderr, "npu-bench: 64 MiB pinned async H2D: %d (%s)\n", (int)e,
			aclGetRecentErrMsg());
		async_pinned_failed(out, e);
		return;
	}
	if (async_verify(b, dev_a, b->pinned, ASYNC_SIZE_64M, "64 MiB pinned async H2D") ||
	    async_verify(b, dev_b, b->pinned, ASYNC_SIZE_64M, "64 MiB pinned H2D, two streams")) {
		async_pinned_failed(out, ACL_ERROR_INTERNAL_ERROR);
		return;
	}
	base = async_median(mc, runs);
	out->base_gbps = (double)ASYNC_SIZE_64M / base / 1e9;
	out->one = base / async_median(t1, runs);
	out->two = base / async_median(t2, runs);
	out->two_vs_one = async_median(pair, runs);
	out->split = base / async_median(ms, runs);
}

void bench_async(unsigned int runs, unsigned int ops, struct bench_report *rep)
{
	struct async_bufs b = { 0 };
	struct async_small small;
	struct async_pinned pinned;
	aclError e;

	if (runs > ASYNC_MAX_RUNS)
		runs = ASYNC_MAX_RUNS;
	if (runs == 0)
		runs = 1;
	if (ops < ASYNC_SLOTS)
		ops = ASYNC_SLOTS;
	b.host = malloc(ASYNC_SIZE_64M);
	e = b.host ? ACL_SUCCESS : ACL_ERROR_BAD_ALLOC;
	if (!e)
		e = aclrtMallocHost((void **)&b.pinned, ASYNC_SIZE_64M);
	if (!e)
		e = aclrtMalloc(&b.dev_a, ASYNC_SIZE_64M, ACL_MEM_MALLOC_HUGE_FIRST);
	if (!e)
		e = aclrtMalloc(&b.dev_b, ASYNC_SIZE_64M, ACL_MEM_MALLOC_HUGE_FIRST);
	if (!e)
		e = aclrtCreateStream(&b.s1);
	if (!e)
		e = aclrtCreateStream(&b.s2);
	if (e) {
		fprintf(stderr, "npu-bench: async setup: %d (%s)\n", (int)e, aclGetRecentErrMsg());
		small.rate = small.calls = small.floor = small.vs_floor = -(double)e;
		async_pinned_failed(&pinned, e);
	} else {
		bench_small(&b, runs, ops, &small);
		bench_pinned(&b, runs, &pinned);
	}
	bench_report_add(rep, "async_small_copies_per_s", "aclrtMemcpyAsync D2D 64 B, one stream",
			 "/s", small.rate);
	bench_report_add(rep, "syscalls_per_async_op", "system calls per async copy", "calls",
			 small.calls);
	bench_report_add(rep, "spsc_ring_floor_per_s", "two threads, 64 B descriptors + copies",
			 "/s", small.floor);
	bench_report_add(rep, "async_small_vs_spsc_ratio", "async small copies vs that floor",
			 "ratio", small.vs_floor);
	bench_report_add(rep, "pinned_h2d_64m_ratio", "async H2D 64 MiB pinned vs memcpy",
			 "ratio", pinned.one);
	bench_report_add(rep, "multistream_h2d_64m_ratio", "two streams H2D 64 MiB vs memcpy",
			 "ratio", pinned.two);
	bench_report_add(rep, "multistream_vs_one_64m_ratio",
			 "one stream's 64 MiB time over two streams'", "ratio", pinned.two_vs_one);
	bench_report_add(rep, "memcpy_split_64m_ratio", "two threads memcpy 64 MiB vs one",
			 "ratio", pinned.split);
	bench_report_add(rep, "async_memcpy_64m_gbps", "memcpy 64 MiB from pinned (baseline)",
			 "GB/s", pinned.base_gbps);
	if (b.s2)
		aclrtDestroyStream(b.s2);
	if (b.s1)
		aclrtDestroyStream(b.s1);
	if (b.dev_b)
		aclrtFree(b.dev_b);
	if (b.dev_a)
		aclrtFree(b.dev_a);
	if (b.pinned)
		aclrtFreeHost(b.pinned);
	free(b.host);
}
