// SPDX-License-Identifier: MIT
/*
 * Batch copies: aclrtMemcpyBatch, aclrtMemcpyBatchAsync and the
 * V2 forms. A batch mixing H2D and D2H under two attributes, data checked;
 * the async batch queued on a held stream; failIndex for each kind of
 * per-copy error (zero size, NULL pointer, failed pointer lookup, location
 * or device not matching the attribute, both sides on one side), with what
 * was or was not copied before it; and every bad-input row in order.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_test.h"

#define NB 8		/* copies in the standard batch */
#define SZ 4096		/* bytes per copy */
#define WATCHDOG_MS 10000

static void *g_word;

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_word, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_word);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static aclrtMemLocation loc(aclrtMemLocationType type, uint32_t id)
{
	aclrtMemLocation l;

	memset(&l, 0, sizeof(l));
	l.type = type;
	l.id = id;
	return l;
}

static aclrtMemcpyBatchAttr attr(aclrtMemLocation dst, aclrtMemLocation src)
{
	aclrtMemcpyBatchAttr a;

	memset(&a, 0, sizeof(a));
	a.dstLoc = dst;
	a.srcLoc = src;
	return a;
}

#define HOST_LOC loc(ACL_MEM_LOCATION_TYPE_HOST, 0)
#define DEV0_LOC loc(ACL_MEM_LOCATION_TYPE_DEVICE, 0)

/*
 * The standard batch: copies 0..3 host -> device (hsrc[i] -> dev[i]),
 * copies 4..7 device -> host (dev2[i] -> hdst[i]); attrs[0] covers 0..3,
 * attrs[1] covers 4..7.
 */
struct batch {
	uint8_t *host;		/* NB * SZ: sources of 0..3, destinations of 4..7 */
	uint8_t *want;		/* what host and dev should hold afterwards */
	void *dev, *dev2;	/* NB * SZ each */
	void *dsts[NB], *srcs[NB];
	size_t sizes[NB], destMaxs[NB];
	aclrtMemcpyBatchAttr attrs[2];
	size_t idx[2];
	int pinned;
};

static void batch_init(struct batch *b, int pinned)
{
	memset(b, 0, sizeof(*b));
	b->pinned = pinned;
	if (pinned)
		ACL_OK(aclrtMallocHost((void **)&b->host, NB * SZ));
	else
		b->host = malloc(NB * SZ);
	b->want = malloc(NB * SZ);
	assert_non_null(b->host);
	assert_non_null(b->want);
	ACL_OK(aclrtMalloc(&b->dev, NB * SZ, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b->dev2, NB * SZ, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemset(b->dev, NB * SZ, 0, NB * SZ));
	/* dev2 holds the D2H sources. */
	rt_fill_pattern(b->want, NB * SZ, 31);
	ACL_OK(aclrtMemcpy(b->dev2, NB * SZ, b->want, NB * SZ, ACL_MEMCPY_HOST_TO_DEVICE));
	rt_fill_pattern(b->host, NB * SZ, 32);
	memset(b->host + 4 * SZ, 0, 4 * SZ);
	/* want: host = H2D sources then dev2's D2H halves; dev = host's H2D halves. */
	memcpy(b->want, b->host, 4 * SZ);
	for (int i = 0; i < NB; i++) {
		b->sizes[i] = SZ;
		b->destMaxs[i] = SZ;
		if (i < 4) {
			b->dsts[i] = (uint8_t *)b->dev + i * SZ;
			b->srcs[i] = b->host + i * SZ;
		} else {
			b->dsts[i] = b->host + i * SZ;
			b->srcs[i] = (uint8_t *)b->dev2 + i * SZ;
		}
	}
	b->attrs[0] = attr(DEV0_LOC, HOST_LOC);
	b->attrs[1] = attr(HOST_LOC, DEV0_LOC);
	b->idx[0] = 0;
	b->idx[1] = 4;
}

static void batch_fini(struct batch *b)
{
	ACL_OK(aclrtFree(b->dev));
	ACL_OK(aclrtFree(b->dev2));
	if (b->pinned)
		ACL_OK(aclrtFreeHost(b->host));
	else
		free(b->host);
	free(b->want);
}

/* Whether copy i has happened. */
static int batch_done(struct batch *b, int i)
{
	uint8_t back[SZ];
	uint8_t want_d2h[SZ];

	if (i < 4) {
		ACL_OK(aclrtMemcpy(back, SZ, (uint8_t *)b->dev + i * SZ, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
		return memcmp(back, b->host + i * SZ, SZ) == 0;
	}
	ACL_OK(aclrtMemcpy(want_d2h, SZ, (uint8_t *)b->dev2 + i * SZ, SZ, ACL_MEMCPY_DEVICE_TO_HOST));
	return memcmp(b->host + i * SZ, want_d2h, SZ) == 0;
}

static void expect_all_done(struct batch *b)
{
	for (int i = 0; i < NB; i++)
		assert_true(batch_done(b, i));
}

static void expect_none_done(struct batch *b)
{
	for (int i = 0; i < NB; i++)
		assert_false(batch_done(b, i));
}

static aclError run_sync(struct batch *b, size_t *fi)
{
	return aclrtMemcpyBatch(b->dsts, b->destMaxs, b->srcs, b->sizes, NB, b->attrs, b->idx, 2, fi);
}

static aclError run_async(struct batch *b, size_t *fi, aclrtStream s)
{
	return aclrtMemcpyBatchAsync(b->dsts, b->destMaxs, b->srcs, b->sizes, NB, b->attrs, b->idx,
				     2, fi, s);
}

static void test_mixed_batch_sync(void **state)
{
	struct batch b;
	size_t fi = 7;

	(void)state;
	for (int pinned = 0; pinned < 2; pinned++) {
		batch_init(&b, pinned);
		expect_none_done(&b);
		ACL_OK(run_sync(&b, &fi));
		assert_int_equal(fi, SIZE_MAX);
		expect_all_done(&b);
		batch_fini(&b);
	}
	/* V2, and HOST_NUMA counting as HOST. */
	batch_init(&b, 0);
	b.attrs[0].srcLoc = loc(ACL_MEM_LOCATION_TYPE_HOST_NUMA, 0);
	b.attrs[1].dstLoc = loc(ACL_MEM_LOCATION_TYPE_HOST_NUMA, 0);
	ACL_OK(aclrtMemcpyBatchV2(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, b.idx, 2));
	expect_all_done(&b);
	batch_fini(&b);
	/* One attribute per copy; zero-size copies are skipped in the sync form. */
	batch_init(&b, 0);
	aclrtMemcpyBatchAttr per[NB];
	size_t idx[NB];

	for (int i = 0; i < NB; i++) {
		per[i] = b.attrs[i < 4 ? 0 : 1];
		idx[i] = (size_t)i;
	}
	b.sizes[3] = 0;
	ACL_OK(aclrtMemcpyBatch(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, per, idx, NB, &fi));
	assert_int_equal(fi, SIZE_MAX);
	for (int i = 0; i < NB; i++)
		assert_int_equal(batch_done(&b, i), i != 3);
	batch_fini(&b);
}

struct async_call {
	struct batch *b;
	aclrtStream s;
	size_t fi;
	volatile int done;
	aclError rc;
};

static void *async_thread(void *arg)
{
	struct async_call *c = arg;

	if (aclrtSetDevice(0) == ACL_SUCCESS) {
		c->rc = run_async(c->b, &c->fi, c->s);
		aclrtResetDevice(0);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_mixed_batch_async(void **state)
{
	struct batch b;
	struct async_call c = { 0 };
	aclrtStream s = NULL;
	uint64_t zero = 0, one = 1, t0;
	pthread_t t;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	/* Pinned: queued behind a ValueWait, the call returns at once. */
	batch_init(&b, 1);
	ACL_OK(aclrtMemcpy(g_word, 8, &zero, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtValueWait(g_word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
	c.b = &b;
	c.s = s;
	c.fi = 5;
	c.rc = -1;
	assert_int_equal(pthread_create(&t, NULL, async_thread, &c), 0);
	t0 = rt_now_ms();
	while (!__atomic_load_n(&c.done, __ATOMIC_ACQUIRE) && rt_now_ms() - t0 < WATCHDOG_MS)
		usleep(1000);
	const int returned = __atomic_load_n(&c.done, __ATOMIC_ACQUIRE);

	if (returned)
		expect_none_done(&b);
	ACL_OK(aclrtMemcpy(g_word, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	pthread_join(t, NULL);
	assert_true(returned);
	assert_int_equal(c.rc, ACL_SUCCESS);
	assert_int_equal(c.fi, SIZE_MAX);
	ACL_OK(aclrtSynchronizeStream(s));
	expect_all_done(&b);
	batch_fini(&b);

	/* Pageable: done when the call returns (synchronous fallback). */
	batch_init(&b, 0);
	ACL_OK(run_async(&b, &c.fi, s));
	expect_all_done(&b);
	batch_fini(&b);

	/* V2 on the default stream. */
	batch_init(&b, 1);
	ACL_OK(aclrtMemcpyBatchAsyncV2(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, b.idx, 2,
				       NULL));
	ACL_OK(aclrtSynchronizeStream(NULL));
	expect_all_done(&b);
	batch_fini(&b);

	/* No 4096 limit for the async form. */
	enum { M = 5000 };
	void **dsts = calloc(M, sizeof(void *)), **srcs = calloc(M, sizeof(void *));
	size_t *sizes = calloc(M, sizeof(size_t));
	uint8_t *pin = NULL, *back = malloc(M * 16);
	void *dev = NULL;
	aclrtMemcpyBatchAttr a = attr(DEV0_LOC, HOST_LOC);
	size_t zero_idx = 0;

	ACL_OK(aclrtMallocHost((void **)&pin, M * 16));
	ACL_OK(aclrtMalloc(&dev, M * 16, ACL_MEM_MALLOC_HUGE_FIRST));
	rt_fill_pattern(pin, M * 16, 33);
	for (int i = 0; i < M; i++) {
		dsts[i] = (uint8_t *)dev + (size_t)i * 16;
		srcs[i] = pin + (size_t)i * 16;
		sizes[i] = 16;
	}
	ACL_OK(aclrtMemcpyBatchAsync(dsts, sizes, srcs, sizes, M, &a, &zero_idx, 1, &c.fi, s));
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtMemcpy(back, M * 16, dev, M * 16, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(back, pin, M * 16);
	/* ... but the sync form has it. */
	c.fi = 3;
	assert_int_equal(aclrtMemcpyBatch(dsts, sizes, srcs, sizes, M, &a, &zero_idx, 1, &c.fi),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(c.fi, SIZE_MAX);
	assert_non_null(strstr(aclGetRecentErrMsg(), "4096"));
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtFreeHost(pin));
	free(back);
	free(dsts);
	free(srcs);
	free(sizes);
	ACL_OK(aclrtDestroyStream(s));
}

/* A per-copy error at index 5 of the standard batch; how to make it. */
enum per_copy_error {
	E_SIZE_ZERO,		/* async only */
	E_NULL_DST,
	E_NULL_SRC,
	E_LOOKUP_FAILS,		/* a device address nothing is allocated at */
	E_PAST_ALLOCATION,	/* a device range running past its allocation */
	E_LOC_MISMATCH,		/* attribute says HOST, the pointer is device memory */
	E_DEVICE_MISMATCH,	/* attribute names device 1, the pointer is on device 0 */
	E_SAME_SIDE_HOST,	/* host to host */
	E_SAME_SIDE_DEVICE,	/* device to device */
	E_COUNT
};

static void make_error(struct batch *b, enum per_copy_error e, aclrtMemcpyBatchAttr *attrs,
		       size_t *idx, size_t *n_attrs, void *freed)
{
	const int i = 5;	/* a D2H copy: dev2 -> host */

	memcpy(attrs, b->attrs, sizeof(b->attrs));
	memcpy(idx, b->idx, sizeof(b->idx));
	*n_attrs = 2;
	switch (e) {
	case E_SIZE_ZERO:
		b->sizes[i] = 0;
		break;
	case E_NULL_DST:
		b->dsts[i] = NULL;
		break;
	case E_NULL_SRC:
		b->srcs[i] = NULL;
		break;
	case E_LOOKUP_FAILS:
		b->srcs[i] = freed;
		break;
	case E_PAST_ALLOCATION: {
		void *base = NULL;
		size_t size = 0;

		ACL_OK(aclrtMemGetAddressRange(b->dev2, &base, &size));
		b->srcs[i] = (uint8_t *)b->dev2 + size - 16;
		break;
	}
	case E_LOC_MISMATCH:
		/* Copy 5 gets its own attribute claiming a host source. */
		attrs[2] = attr(HOST_LOC, HOST_LOC);
		idx[2] = 5;
		attrs[3] = b->attrs[1];
		idx[3] = 6;
		*n_attrs = 4;
		break;
	case E_DEVICE_MISMATCH:
		attrs[2] = attr(HOST_LOC, loc(ACL_MEM_LOCATION_TYPE_DEVICE, 1));
		idx[2] = 5;
		attrs[3] = b->attrs[1];
		idx[3] = 6;
		*n_attrs = 4;
		break;
	case E_SAME_SIDE_HOST:
		b->srcs[i] = b->host;	/* host -> host; attribute HOST for both */
		attrs[2] = attr(HOST_LOC, HOST_LOC);
		idx[2] = 5;
		attrs[3] = b->attrs[1];
		idx[3] = 6;
		*n_attrs = 4;
		break;
	case E_SAME_SIDE_DEVICE:
		b->dsts[i] = b->dev;	/* device -> device; attribute DEVICE for both */
		attrs[2] = attr(DEV0_LOC, DEV0_LOC);
		idx[2] = 5;
		attrs[3] = b->attrs[1];
		idx[3] = 6;
		*n_attrs = 4;
		break;
	default:
		break;
	}
}

static void test_fail_index_for_each_per_copy_error(void **state)
{
	void *freed = NULL;
	aclrtStream s = NULL;

	(void)state;
	ACL_OK(aclrtMalloc(&freed, 1 << 20, ACL_MEM_MALLOC_HUGE_ONLY));
	ACL_OK(aclrtFree(freed));
	ACL_OK(aclrtCreateStream(&s));
	for (int async = 0; async < 2; async++) {
		for (int e = 0; e < E_COUNT; e++) {
			struct batch b;
			aclrtMemcpyBatchAttr attrs[4];
			size_t idx[4], n_attrs = 0, fi = 1234;
			aclError rc;

			if (e == E_SIZE_ZERO && !async)
				continue;	/* the sync form skips zero sizes */
			/* Pinned, so that the async copies before the error are queued. */
			batch_init(&b, 1);
			make_error(&b, (enum per_copy_error)e, attrs, idx, &n_attrs, freed);
			if (async)
				rc = aclrtMemcpyBatchAsync(b.dsts, b.destMaxs, b.srcs, b.sizes, NB,
							   attrs, idx, n_attrs, &fi, s);
			else
				rc = aclrtMemcpyBatch(b.dsts, b.destMaxs, b.srcs, b.sizes, NB,
						      attrs, idx, n_attrs, &fi);
			if (rc != ACL_ERROR_RT_PARAM_INVALID || fi != 5)
				fail_msg("%s batch, error kind %d: rc %d, failIndex %zu (%s)",
					 async ? "async" : "sync", e, rc, fi,
					 aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "no message");
			assert_non_null(aclGetRecentErrMsg());
			ACL_OK(aclrtSynchronizeStream(s));
			/* Async: issued one at a time, 0..4 are done; sync: nothing is. */
			for (int i = 0; i < NB; i++) {
				if (i == 5)
					continue;
				assert_int_equal(batch_done(&b, i), async && i < 5);
			}
			batch_fini(&b);
		}
	}
	ACL_OK(aclrtDestroyStream(s));
}

static void *async_no_context(void *arg)
{
	struct batch *b = arg;
	size_t fi = 9;

	assert_int_equal(run_async(b, &fi, NULL), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(fi, SIZE_MAX);
	/* The attribute checks come first. */
	assert_int_equal(aclrtMemcpyBatchAsync(b->dsts, b->destMaxs, b->srcs, b->sizes, NB,
					       b->attrs, b->idx, 0, &fi, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	return NULL;
}

/* The bad-input rows in order, for both forms. */
static void test_bad_inputs(void **state)
{
	struct batch b;
	aclrtStream s = NULL, dead = NULL;
	size_t fi, zeros[NB] = { 0 };
	size_t bad_idx[2];

	(void)state;
	batch_init(&b, 1);
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	for (int async = 0; async < 2; async++) {
		aclrtStream st = async ? dead : NULL;	/* the dead stream is only looked at late */
#define BATCH(d, dm, sr, sz, n, at, ix, na, f)                                               \
	(async ? aclrtMemcpyBatchAsync(d, dm, sr, sz, n, at, ix, na, f, st)                   \
	       : aclrtMemcpyBatch(d, dm, sr, sz, n, at, ix, na, f))
		/* failIndex NULL, before everything. */
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, NULL, 0, NULL, NULL, 0, NULL),
				 ACL_ERROR_INVALID_PARAM);
		assert_non_null(strstr(aclGetRecentErrMsg(), "failIndex"));
		fi = 1;
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, NULL, NB, b.attrs, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(fi, SIZE_MAX);
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, 0, b.attrs, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		/* All sizes 0: success, whatever follows. */
		fi = 1;
		ACL_OK(BATCH(NULL, NULL, NULL, zeros, NB, NULL, NULL, 0, &fi));
		assert_int_equal(fi, SIZE_MAX);
		/* The other arrays. */
		assert_int_equal(BATCH(NULL, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(BATCH(b.dsts, NULL, b.srcs, b.sizes, NB, b.attrs, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(BATCH(b.dsts, b.destMaxs, NULL, b.sizes, NB, b.attrs, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, NULL, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, NULL, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		/* destMaxs[i] < sizes[i], at the ACL layer: no failIndex. */
		b.destMaxs[6] = SZ - 1;
		fi = 1;
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		assert_int_equal(fi, SIZE_MAX);
		b.destMaxs[6] = SZ;
		/* Reserved bytes of an attribute. */
		b.attrs[1].rsv[15] = 1;
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, b.idx, 2, &fi),
				 ACL_ERROR_INVALID_PARAM);
		assert_non_null(strstr(aclGetRecentErrMsg(), "rsv"));
		b.attrs[1].rsv[15] = 0;
		if (async) {
			/* The stream handle, before the attribute indexes. */
			assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, b.idx,
					       0, &fi),
					 ACL_ERROR_RT_INVALID_HANDLE);
			st = s;
		}
		/* numAttrs and attrsIndexes (RT layer, no failIndex). */
		fi = 1;
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, b.idx, 0, &fi),
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_int_equal(fi, SIZE_MAX);
		{
			aclrtMemcpyBatchAttr many[NB + 1];
			size_t many_idx[NB + 1];

			for (int k = 0; k <= NB; k++) {
				many[k] = b.attrs[0];
				many_idx[k] = (size_t)k;
			}
			assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, many, many_idx,
					       NB + 1, &fi),
					 ACL_ERROR_RT_PARAM_INVALID);
		}
		bad_idx[0] = 1;
		bad_idx[1] = 4;
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, bad_idx, 2, &fi),
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_non_null(strstr(aclGetRecentErrMsg(), "attrsIndexes[0]"));
		bad_idx[0] = 0;
		bad_idx[1] = 0;
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, bad_idx, 2, &fi),
				 ACL_ERROR_RT_PARAM_INVALID);
		bad_idx[1] = NB;
		assert_int_equal(BATCH(b.dsts, b.destMaxs, b.srcs, b.sizes, NB, b.attrs, bad_idx, 2, &fi),
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_int_equal(fi, SIZE_MAX);
#undef BATCH
	}
	expect_none_done(&b);
	rt_run_in_thread(async_no_context, &b);

	/* A stream of another context, found while queuing copy 0. */
	if (rt_device_count() >= 2) {
		aclrtStream s1 = NULL;

		ACL_OK(aclrtSetDevice(1));
		ACL_OK(aclrtCreateStream(&s1));
		ACL_OK(aclrtSetDevice(0));
		fi = 1;
		assert_int_equal(run_async(&b, &fi, s1), ACL_ERROR_RT_STREAM_CONTEXT);
		assert_int_equal(fi, SIZE_MAX);
		ACL_OK(aclrtSetDevice(1));
		ACL_OK(aclrtDestroyStream(s1));
		ACL_OK(aclrtResetDevice(1));
		ACL_OK(aclrtResetDevice(1));
		ACL_OK(aclrtSetDevice(0));
		ACL_OK(aclrtResetDevice(0));
	}
	expect_none_done(&b);
	ACL_OK(aclrtDestroyStream(s));
	batch_fini(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mixed_batch_sync),
		cmocka_unit_test(test_mixed_batch_async),
		cmocka_unit_test(test_fail_index_for_each_per_copy_error),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
