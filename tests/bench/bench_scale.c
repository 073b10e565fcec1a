// SPDX-License-Identifier: MIT
/*
 * Scale benchmarks: what one operation costs with many live allocations.
 *
 * - malloc_free_4k_1m_live_ratio: aclrtMalloc + aclrtFree of 4 KiB with
 *   `live` 4 KiB allocations alive, over the same with none. Each driver
 *   and runtime lookup on the way is a tree descent, so this stays near 1.
 * - memcpy_4k_1m_live_ratio: a synchronous 4 KiB H2D aclrtMemcpy, same.
 * - memcpy_4k_random_1m_live_ratio: the same copy, each into a random one
 *   of the live allocations (the first touch of each one's memory
 *   included), over copies into the one allocation alive before them.
 *   Device memory that kept refaulting its backing would show here.
 * - memcpy_4k_random_us: the median of those copies into random ones.
 * - memcpy_4k_random_floor_ratio: what the hardware alone does: memcpy of
 *   the same 4 KiB into a random 4 KiB slot of an anonymous mapping as
 *   large as the live set (touched beforehand), over memcpy into one
 *   slot; the cold cache lines and TLB entries that no runtime removes.
 *   The mapping is backed as device memory is (huge pages, populated up
 *   front), so the first touch of each huge page is included as in the
 *   copies; it is made after the live set is freed, so that the run does
 *   not hold both.
 *   memcpy_4k_random_floor_us is its median into random slots.
 * - memcpy_4k_random_vs_floor_ratio: the copy into random ones over the
 *   copy into one plus what the floor adds to a memcpy (random - one):
 *   1 when the stack adds nothing to the hardware's cost of a cold
 *   destination.
 * - first_touch_2m_us: the first 4 KiB copy into each of 16 new 2 MiB
 *   allocations held at once (new memory each), the median.
 * - memcpy_4k_p99_us: the 99th percentile of that copy (none live), to
 *   read beside memcpy_4k_us, the median.
 * - memcpy_4k_p99_ratio: that percentile over the median of the same
 *   copies, so that both come from one sample.
 * - populate_4k_us: the median cost of each of the `live` allocations,
 *   made one after the other (O(log n) each, so the population itself
 *   takes n log n).
 * - scale_live_allocations: `live` (a million; --quick makes fewer).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "acl/acl.h"

#include "bench_report.h"

#define SZ_4K 4096
#define SZ_2M (2UL << 20)
#define FIRST_TOUCH_ALLOCS 16

/* Median of @iters aclrtMalloc + aclrtFree of 4 KiB, or -aclError. */
static double malloc_free(double *t, unsigned int iters)
{
	for (unsigned int i = 0; i < iters; i++) {
		void *p = NULL;
		double t0 = bench_now_us();
		aclError e = aclrtMalloc(&p, SZ_4K, ACL_MEM_MALLOC_NORMAL_ONLY);

		if (e == ACL_SUCCESS)
			e = aclrtFree(p);
		if (e != ACL_SUCCESS)
			return -(double)e;
		t[i] = bench_now_us() - t0;
	}
	return bench_quantile(t, iters, 0.5);
}

/* @iters synchronous 4 KiB H2D copies; their times in @t, or -aclError. */
static double memcpy_4k(double *t, unsigned int iters, void *dev, const void *host)
{
	for (unsigned int i = 0; i < iters; i++) {
		double t0 = bench_now_us();
		aclError e = aclrtMemcpy(dev, SZ_4K, host, SZ_4K, ACL_MEMCPY_HOST_TO_DEVICE);

		if (e != ACL_SUCCESS)
			return -(double)e;
		t[i] = bench_now_us() - t0;
	}
	return 0;
}

/* The xorshift64 sequence of the random copies: a fixed one, so that runs compare. */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * The hardware's floor: an anonymous mapping of @n 4 KiB slots (@len bytes
 * from *@map), backed as the mock kernel backs device memory: 2 MiB
 * aligned, transparent huge pages asked for, populated when made.
 * Returns the first slot, or NULL.
 */
static char *floor_map(unsigned int n, void **map, size_t *len)
{
	size_t bytes = (size_t)n * SZ_4K;
	char *slots;

	*len = bytes + SZ_2M;
	*map = mmap(NULL, *len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*map == MAP_FAILED)
		return NULL;
	slots = (char *)(((uintptr_t)*map + SZ_2M - 1) & ~(uintptr_t)(SZ_2M - 1));
	madvise(slots, bytes, MADV_HUGEPAGE);
	if (madvise(slots, bytes, MADV_POPULATE_WRITE))
		for (size_t off = 0; off < bytes; off += SZ_4K)
			slots[off] = 1;
	return slots;
}

/*
 * @iters memcpy of 4 KiB from @host into random slots of @map (the same
 * sequence as the copies), their median in *@random; the same into one
 * slot, in *@one.
 */
static void memcpy_4k_floor(double *t, unsigned int iters, char *map, unsigned int n,
			    const void *host, double *random, double *one)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	unsigned int i;

	for (i = 0; i < iters; i++) {
		double t0 = bench_now_us();

		memcpy(map, host, SZ_4K);
		__asm__ __volatile__("" : : "r"(map) : "memory");
		t[i] = bench_now_us() - t0;
	}
	*one = bench_quantile(t, iters, 0.5);
	for (i = 0; i < iters; i++) {
		char *dst = map + (size_t)(next_random(&x) % n) * SZ_4K;
		double t0 = bench_now_us();

		memcpy(dst, host, SZ_4K);
		__asm__ __volatile__("" : : "r"(dst) : "memory");
		t[i] = bench_now_us() - t0;
	}
	*random = bench_quantile(t, iters, 0.5);
}

/* @iters copies into random ones of @ptrs[@n]; their median, or -aclError. */
static double memcpy_4k_random(double *t, unsigned int iters, void **ptrs, unsigned int n,
			       const void *host)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;

	for (unsigned int i = 0; i < iters; i++) {
		double t0;
		aclError e;
		void *dev;

		dev = ptrs[next_random(&x) % n];
		t0 = bench_now_us();
		e = aclrtMemcpy(dev, SZ_4K, host, SZ_4K, ACL_MEMCPY_HOST_TO_DEVICE);
		if (e != ACL_SUCCESS)
			return -(double)e;
		t[i] = bench_now_us() - t0;
	}
	return bench_quantile(t, iters, 0.5);
}

/* The median first 4 KiB copy into new 2 MiB allocations, or -aclError. */
static double first_touch_2m(const void *host)
{
	void *p[FIRST_TOUCH_ALLOCS] = { NULL };
	double t[FIRST_TOUCH_ALLOCS], ret = 0;
	unsigned int i;

	for (i = 0; i < FIRST_TOUCH_ALLOCS && ret == 0; i++) {
		aclError e = aclrtMalloc(&p[i], SZ_2M, ACL_MEM_MALLOC_HUGE_FIRST);
		double t0 = bench_now_us();

		if (e == ACL_SUCCESS)
			e = aclrtMemcpy(p[i], SZ_4K, host, SZ_4K, ACL_MEMCPY_HOST_TO_DEVICE);
		t[i] = bench_now_us() - t0;
		if (e != ACL_SUCCESS)
			ret = -(double)e;
	}
	for (i = 0; i < FIRST_TOUCH_ALLOCS; i++)
		if (p[i])
			aclrtFree(p[i]);
	return ret < 0 ? ret : bench_quantile(t, FIRST_TOUCH_ALLOCS, 0.5);
}

void bench_scale(unsigned int iters, unsigned int live, struct bench_report *rep)
{
	double *t = calloc(iters > live ? iters : live, sizeof(*t));
	void **ptrs = calloc(live, sizeof(*ptrs));
	static char host[SZ_4K];
	double mf0, mf1, mc0 = -1, mc1 = -1, p99 = -1, p99_ratio = -1, populate = -1;
	double mr = -1, touch = -1, floor_random = -1, floor_one = -1;
	char *fmap = NULL;
	void *fmap_base = NULL;
	size_t fmap_len = 0;
	void *dev = NULL;
	unsigned int n = 0;
	aclError e;

	if (!t || !ptrs) {
		mf0 = mf1 = -(double)ACL_ERROR_RT_MEMORY_ALLOCATION;
		goto out;
	}
	memset(host, 0x5a, sizeof(host));
	e = aclrtMalloc(&dev, SZ_4K, ACL_MEM_MALLOC_NORMAL_ONLY);
	if (e != ACL_SUCCESS) {
		mf0 = mf1 = -(double)e;
		goto out;
	}
	mf0 = malloc_free(t, iters);
	mc0 = memcpy_4k(t, iters, dev, host);
	if (mc0 == 0) {
		mc0 = bench_quantile(t, iters, 0.5);
		p99 = bench_quantile(t, iters, 0.99);
		p99_ratio = p99 / mc0;
	}

	for (n = 0; n < live; n++) {
		double t0 = bench_now_us();

		e = aclrtMalloc(&ptrs[n], SZ_4K, ACL_MEM_MALLOC_NORMAL_ONLY);
		if (e != ACL_SUCCESS) {
			mf1 = -(double)e;
			goto out;
		}
		t[n] = bench_now_us() - t0;
	}
	populate = bench_quantile(t, live, 0.5);
	/* First: the random copies touch the live set's memory for the first time. */
	mr = live ? memcpy_4k_random(t, iters, ptrs, live, host) : -1;
	mf1 = malloc_free(t, iters);
	mc1 = memcpy_4k(t, iters, dev, host);
	if (mc1 == 0)
		mc1 = bench_quantile(t, iters, 0.5);
	touch = first_touch_2m(host);
out:
	while (n)
		aclrtFree(ptrs[--n]);
	if (dev)
		aclrtFree(dev);
	/* The floor after the live set is gone: only one of them holds memory at a time. */
	if (mr > 0) {
		fmap = floor_map(live, &fmap_base, &fmap_len);
		if (fmap) {
			memcpy_4k_floor(t, iters, fmap, live, host, &floor_random, &floor_one);
			munmap(fmap_base, fmap_len);
		} else {
			floor_random = floor_one = -(double)ACL_ERROR_RT_MEMORY_ALLOCATION;
		}
	}
	free(ptrs);
	free(t);
	bench_report_add(rep, "malloc_free_4k_1m_live_ratio",
			 "malloc+free 4 KiB, many live / none", "ratio",
			 mf0 > 0 && mf1 > 0 ? mf1 / mf0 : (mf0 < 0 ? mf0 : mf1));
	bench_report_add(rep, "memcpy_4k_1m_live_ratio", "memcpy 4 KiB, many live / none",
			 "ratio", mc0 > 0 && mc1 > 0 ? mc1 / mc0 : (mc0 < 0 ? mc0 : mc1));
	bench_report_add(rep, "memcpy_4k_random_1m_live_ratio",
			 "memcpy 4 KiB into a random one of many live / into 1", "ratio",
			 mc0 > 0 && mr > 0 ? mr / mc0 : (mc0 < 0 ? mc0 : mr));
	bench_report_add(rep, "memcpy_4k_random_us", "memcpy 4 KiB into a random one of many live",
			 "us", mr);
	bench_report_add(rep, "memcpy_4k_random_floor_ratio",
			 "plain memcpy 4 KiB into a random slot as large as the live set / into 1",
			 "ratio", floor_one > 0 ? floor_random / floor_one : floor_one);
	bench_report_add(rep, "memcpy_4k_random_floor_us",
			 "plain memcpy 4 KiB into a random slot as large as the live set", "us",
			 floor_random);
	bench_report_add(rep, "memcpy_4k_random_vs_floor_ratio",
			 "memcpy 4 KiB into a random one / (into 1 + the floor's extra time)", "ratio",
			 mc0 > 0 && mr > 0 && floor_one > 0 ?
				 mr / (mc0 + floor_random - floor_one) : -1);
	bench_report_add(rep, "first_touch_2m_us", "first 4 KiB copy into a new 2 MiB", "us",
			 touch);
	bench_report_add(rep, "memcpy_4k_p99_us", "aclrtMemcpy H2D 4 KiB, p99", "us", p99);
	bench_report_add(rep, "memcpy_4k_p99_ratio", "the same p99 / its median", "ratio",
			 p99_ratio);
	bench_report_add(rep, "populate_4k_us", "each of the many live 4 KiB mallocs", "us",
			 populate);
	bench_report_add(rep, "scale_live_allocations", "live allocations of the above",
			 "count", live);
}
