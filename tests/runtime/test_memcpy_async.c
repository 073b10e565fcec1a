// SPDX-License-Identifier: MIT
/*
 * Copies and fills on streams: data
 * in every direction, the synchrony rules (pinned and registered host
 * memory queue truly asynchronously, pageable host memory makes the call
 * return only once the copy is done), staged copies
 * (ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: the source may be freed at once), the
 * direction auto-correction, 2-D copies synchronous and asynchronous, and
 * every bad-input row with its exact code.
 *
 * "Truly asynchronous" is checked by queuing the call behind a ValueWait
 * on the same stream: a call that waited for the stream would block, so
 * each such call runs in a helper thread watched by a timeout.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_test.h"

#define N (1u << 20)
#define WATCHDOG_MS 10000

static void *g_word;	/* device word the held streams wait on */

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

/* Holds s on g_word until release(). */
static void hold(aclrtStream s)
{
	uint64_t zero = 0;

	ACL_OK(aclrtMemcpy(g_word, 8, &zero, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtValueWait(g_word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
}

/* A host write: synchronous copies do not wait for streams. */
static void release(void)
{
	uint64_t one = 1;

	ACL_OK(aclrtMemcpy(g_word, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* One aclrtMemcpyAsync / aclrtMemcpy2dAsync call, made by a helper thread. */
struct call {
	void *dst;
	const void *src;
	size_t count;		/* 1-D: bytes; 2-D: width */
	size_t height;		/* 0: 1-D call */
	size_t dpitch, spitch;
	int32_t kind;
	aclrtStream s;
	volatile int done;
	aclError rc;
	pthread_t t;
};

static void *call_thread(void *arg)
{
	struct call *c = arg;

	if (aclrtSetDevice(0) == ACL_SUCCESS) {
		if (c->height == 0)
			c->rc = aclrtMemcpyAsync(c->dst, c->count, c->src, c->count,
						 (aclrtMemcpyKind)c->kind, c->s);
		else
			c->rc = aclrtMemcpy2dAsync(c->dst, c->dpitch, c->src, c->spitch, c->count,
						   c->height, (aclrtMemcpyKind)c->kind, c->s);
		aclrtResetDevice(0);
	}
	__atomic_store_n(&c->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Starts the call; returns whether it returned within ms. */
static int start_call(struct call *c, uint64_t ms)
{
	uint64_t t0 = rt_now_ms();

	c->done = 0;
	c->rc = -1;
	assert_int_equal(pthread_create(&c->t, NULL, call_thread, c), 0);
	while (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) && rt_now_ms() - t0 < ms)
		usleep(1000);
	return __atomic_load_n(&c->done, __ATOMIC_ACQUIRE);
}

static void finish_call(struct call *c)
{
	uint64_t t0 = rt_now_ms();

	while (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE) && rt_now_ms() - t0 < WATCHDOG_MS)
		usleep(1000);
	if (!__atomic_load_n(&c->done, __ATOMIC_ACQUIRE)) {
		print_error("a copy call did not return %d ms after its stream was released\n",
			    WATCHDOG_MS);
		_exit(1);
	}
	pthread_join(c->t, NULL);
}

static void read_dev(void *host, const void *dev, size_t n)
{
	memset(host, 0xEE, n);
	ACL_OK(aclrtMemcpy(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* Every direction from and to pinned memory, and fills, on one stream. */
static void test_async_copies_every_direction(void **state)
{
	uint8_t *pin = NULL, *pin2 = NULL, *back = malloc(N), *want = malloc(N);
	void *d = NULL, *d2 = NULL;
	aclrtStream s = NULL;

	(void)state;
	ACL_OK(aclrtMallocHost((void **)&pin, N));
	ACL_OK(aclrtMallocHost((void **)&pin2, N));
	ACL_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&d2, N, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtCreateStream(&s));
	rt_fill_pattern(pin, N, 1);
	memcpy(want, pin, N);
	memset(pin2, 0, N);
	ACL_OK(aclrtMemcpyAsync(d, N, pin, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ACL_OK(aclrtMemcpyAsync(d2, N, d, N, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	/* A fill in the middle of device memory, then of pinned memory. */
	ACL_OK(aclrtMemsetAsync((uint8_t *)d2 + 100, N, 0x1234C7, 1000, s));
	memset(want + 100, 0xC7, 1000);
	ACL_OK(aclrtMemcpyAsync(pin2, N, d2, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ACL_OK(aclrtMemsetAsync(pin2 + N - 10, 10, 0x5E, 10, s));
	memset(want + N - 10, 0x5E, 10);
	ACL_OK(aclrtSynchronizeStream(s));
	assert_memory_equal(pin2, want, N);
	/* DEFAULT infers each direction; the default stream works too. */
	memset(pin2, 0, N);
	ACL_OK(aclrtMemcpyAsync(d, N, pin, N, ACL_MEMCPY_DEFAULT, NULL));
	ACL_OK(aclrtMemcpyAsync(pin2, N, d, N, ACL_MEMCPY_DEFAULT, NULL));
	ACL_OK(aclrtSynchronizeStream(NULL));
	assert_memory_equal(pin2, pin, N);
	/* A wrong kind for two ACL-known pointers is corrected, not an error. */
	memset(pin2, 0, N);
	ACL_OK(aclrtMemcpyAsync(d2, N, pin, N, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ACL_OK(aclrtMemcpyAsync(pin2, N, d2, N, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ACL_OK(aclrtSynchronizeStream(s));
	assert_memory_equal(pin2, pin, N);
	read_dev(back, d2, N);
	assert_memory_equal(back, pin, N);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(d));
	ACL_OK(aclrtFree(d2));
	ACL_OK(aclrtFreeHost(pin));
	ACL_OK(aclrtFreeHost(pin2));
	free(back);
	free(want);
}

/*
 * pinned and registered memory queue (the call returns while the
 * stream is held, nothing moved yet); pageable memory makes the call wait
 * for the stream and the copy (the data is there when it returns).
 */
static void test_pinned_is_async_pageable_is_sync(void **state)
{
	uint8_t *pin = NULL, *pageable = malloc(N), *back = malloc(N), *reg = NULL;
	void *d = NULL, *alias = NULL;
	aclrtStream s = NULL;
	struct call c;

	(void)state;
	assert_int_equal(posix_memalign((void **)&reg, 4096, N), 0);
	ACL_OK(aclrtMallocHost((void **)&pin, N));
	ACL_OK(aclrtHostRegister(reg, N, ACL_HOST_REGISTER_MAPPED, &alias));
	ACL_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, N, 0, N));
	ACL_OK(aclrtCreateStream(&s));

	/* Pinned H2D: queued. */
	rt_fill_pattern(pin, N, 2);
	hold(s);
	c = (struct call){ .dst = d, .src = pin, .count = N, .kind = ACL_MEMCPY_HOST_TO_DEVICE, .s = s };
	int returned = start_call(&c, WATCHDOG_MS);

	read_dev(back, d, 4096);
	release();
	finish_call(&c);
	assert_true(returned);
	assert_int_equal(c.rc, ACL_SUCCESS);
	assert_int_equal(rt_first_not(back, 4096, 0), 4096);	/* had not run yet */
	ACL_OK(aclrtSynchronizeStream(s));
	read_dev(back, d, N);
	assert_memory_equal(back, pin, N);

	/* Registered D2H: queued as well. */
	memset(reg, 0, N);
	hold(s);
	c = (struct call){ .dst = reg, .src = d, .count = N, .kind = ACL_MEMCPY_DEVICE_TO_HOST, .s = s };
	returned = start_call(&c, WATCHDOG_MS);
	assert_int_equal(rt_first_not(reg, N, 0), N);
	release();
	finish_call(&c);
	assert_true(returned);
	assert_int_equal(c.rc, ACL_SUCCESS);
	ACL_OK(aclrtSynchronizeStream(s));
	assert_memory_equal(reg, pin, N);

	/* Pageable H2D: the call waits for the held stream. */
	rt_fill_pattern(pageable, N, 3);
	hold(s);
	c = (struct call){ .dst = d, .src = pageable, .count = N, .kind = ACL_MEMCPY_HOST_TO_DEVICE, .s = s };
	returned = start_call(&c, 200);
	assert_false(returned);
	release();
	finish_call(&c);
	assert_int_equal(c.rc, ACL_SUCCESS);
	read_dev(back, d, N);	/* no synchronisation: done on return */
	assert_memory_equal(back, pageable, N);

	/* Pageable D2H: the same, the host buffer is filled on return. */
	memset(pageable, 0, N);
	hold(s);
	c = (struct call){ .dst = pageable, .src = d, .count = N, .kind = ACL_MEMCPY_DEFAULT, .s = s };
	returned = start_call(&c, 200);
	assert_false(returned);
	release();
	finish_call(&c);
	assert_int_equal(c.rc, ACL_SUCCESS);
	assert_memory_equal(pageable, back, N);

	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtHostUnregister(reg));
	ACL_OK(aclrtFreeHost(pin));
	ACL_OK(aclrtFree(d));
	free(reg);
	free(pageable);
	free(back);
}

/* ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: queued, and the source is free at once. */
static void test_staged_copy_source_freed_at_once(void **state)
{
	uint8_t *src = malloc(N), *want = malloc(N), *back = malloc(N), *pin = NULL;
	void *d = NULL;
	aclrtStream s = NULL;
	struct call c;

	(void)state;
	ACL_OK(aclrtMalloc(&d, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(d, N, 0, N));
	ACL_OK(aclrtCreateStream(&s));
	rt_fill_pattern(src, N, 4);
	memcpy(want, src, N);
	hold(s);
	c = (struct call){ .dst = d, .src = src, .count = N,
			   .kind = ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, .s = s };
	int returned = start_call(&c, WATCHDOG_MS);

	if (returned) {
		/* Scribble on the source and give it back before the copy runs. */
		memset(src, 0xAB, N);
		free(src);
		src = NULL;
		read_dev(back, d, 4096);
	}
	release();
	finish_call(&c);
	assert_true(returned);	/* queued, not synchronous */
	assert_int_equal(c.rc, ACL_SUCCESS);
	assert_int_equal(rt_first_not(back, 4096, 0), 4096);
	ACL_OK(aclrtSynchronizeStream(s));
	read_dev(back, d, N);
	assert_memory_equal(back, want, N);

	/* Many staged copies in a row: the staging is reclaimed as they complete. */
	for (int i = 0; i < 200; i++) {
		uint8_t *p = malloc(N);

		memset(p, i, N);
		ACL_OK(aclrtMemcpyAsync(d, N, p, N, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s));
		free(p);
	}
	ACL_OK(aclrtSynchronizeStream(s));
	read_dev(back, d, N);
	assert_int_equal(rt_first_not(back, N, 199), N);

	/* From pinned memory, on the default stream. */
	ACL_OK(aclrtMallocHost((void **)&pin, 4096));
	memset(pin, 0x77, 4096);
	ACL_OK(aclrtMemcpyAsync(d, N, pin, 4096, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, NULL));
	memset(pin, 0, 4096);
	ACL_OK(aclrtSynchronizeStream(NULL));
	read_dev(back, d, 4096);
	assert_int_equal(rt_first_not(back, 4096, 0x77), 4096);

	/* Only host to device. */
	assert_int_equal(aclrtMemcpyAsync(pin, 4096, d, 4096, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtMemcpyAsync(d, 4096, (uint8_t *)d + 8192, 4096,
					  ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(want, 4096, pin, 4096, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFreeHost(pin));
	ACL_OK(aclrtFree(d));
	free(src);
	free(want);
	free(back);
}

static void *memcpy_async_no_context(void *arg)
{
	void *d = arg;
	uint8_t host[64] = { 0 };

	assert_int_equal(aclrtMemcpyAsync(d, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
			 ACL_ERROR_RT_CONTEXT_NULL);
	assert_non_null(aclGetRecentErrMsg());
	/* count > destMax comes before the context. */
	assert_int_equal(aclrtMemcpyAsync(d, 32, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
			 ACL_SUCCESS);
	assert_int_equal(aclrtMemsetAsync(d, 64, 0, 64, NULL), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtMemsetAsync(d, 32, 0, 64, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemsetAsync(NULL, 32, 0, 0, NULL), ACL_SUCCESS);
	return NULL;
}

/* The bad-input rows of aclrtMemcpyAsync and aclrtMemsetAsync, in order. */
static void test_memcpy_async_and_memset_async_bad_inputs(void **state)
{
	uint8_t host[128] = { 0 }, host2[128] = { 0 };
	void *d = NULL, *pin = NULL, *pin2 = NULL;
	aclrtStream s = NULL, dead = NULL;

	(void)state;
	ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMallocHost(&pin, 128));
	ACL_OK(aclrtMallocHost(&pin2, 128));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));

	/* count 0 first, whatever else is wrong. */
	ACL_OK(aclrtMemcpyAsync(NULL, 0, NULL, 0, (aclrtMemcpyKind)99, dead));
	ACL_OK(aclrtMemsetAsync(NULL, 0, 0, 0, dead));
	/* ACL layer: NULLs, then the kind. */
	assert_int_equal(aclrtMemcpyAsync(NULL, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_INVALID_PARAM);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtMemcpyAsync(d, 64, NULL, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpyAsync(d, 64, NULL, 64, (aclrtMemcpyKind)9, dead),
			 ACL_ERROR_INVALID_PARAM);
	for (int k = 6; k <= 8; k++)
		assert_int_equal(aclrtMemcpyAsync(d, 64, host, 64, (aclrtMemcpyKind)k, s),
				 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpyAsync(d, 64, host, 64, (aclrtMemcpyKind)-1, s),
			 ACL_ERROR_INVALID_PARAM);
	/* The kind comes before the stream handle. */
	assert_int_equal(aclrtMemcpyAsync(d, 64, host, 64, (aclrtMemcpyKind)7, dead),
			 ACL_ERROR_INVALID_PARAM);
	/* A destroyed stream, before count > destMax. */
	assert_int_equal(aclrtMemcpyAsync(d, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, dead),
			 ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtMemcpyAsync(d, 32, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, dead),
			 ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtMemcpyAsync(d, 32, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "destMax"));
	/* The kind correction with an UNREGISTERED side: kinds that do not fit. */
	assert_int_equal(aclrtMemcpyAsync(d, 64, host, 64, ACL_MEMCPY_DEVICE_TO_HOST, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(d, 64, host, 64, ACL_MEMCPY_HOST_TO_HOST, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(host, 64, d, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(host, 64, pin, 64, ACL_MEMCPY_DEVICE_TO_HOST, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(pin, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpyAsync(pin, 64, host, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Effective host to host: not supported asynchronously. */
	assert_int_equal(aclrtMemcpyAsync(pin, 64, pin2, 64, ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtMemcpyAsync(host2, 64, host, 64, ACL_MEMCPY_DEFAULT, s),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtMemcpyAsync(host2, 64, host, 64, ACL_MEMCPY_HOST_TO_HOST, s),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtMemcpyAsync(host, 64, pin, 64, ACL_MEMCPY_DEFAULT, s),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* ... checked before dst == src. */
	assert_int_equal(aclrtMemcpyAsync(pin, 64, pin, 64, ACL_MEMCPY_DEFAULT, s),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* dst == src on the device: success, no task. */
	ACL_OK(aclrtMemcpyAsync(d, 64, d, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	/* A device range past its allocation: the engine fails the copy. */
	void *base = NULL;
	size_t size = 0;

	ACL_OK(aclrtMemGetAddressRange(d, &base, &size));
	assert_int_not_equal(aclrtMemcpyAsync((uint8_t *)d + size - 64, 128, host, 128,
					      ACL_MEMCPY_HOST_TO_DEVICE, s),
			     ACL_SUCCESS);
	assert_non_null(aclGetRecentErrMsg());

	/* aclrtMemsetAsync. */
	assert_int_equal(aclrtMemsetAsync(NULL, 64, 0, 64, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemsetAsync(NULL, 64, 0, 64, dead), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemsetAsync(d, 64, 0, 64, dead), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtMemsetAsync(d, 32, 0, 64, dead), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtMemsetAsync(d, 32, 0, 64, s), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "maxCount"));
	assert_int_equal(aclrtMemsetAsync(d, 64, 0, 64, (aclrtStream)host),
			 ACL_ERROR_RT_INVALID_HANDLE);

	rt_run_in_thread(memcpy_async_no_context, d);
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFreeHost(pin));
	ACL_OK(aclrtFreeHost(pin2));
	ACL_OK(aclrtFree(d));
}

/* 2-D: rows land at their pitch, the gaps between them are left alone. */
#define W 1000
#define H 64
#define SP 1536		/* host pitch */
#define DP 4096		/* device pitch */

static void check_rows(const uint8_t *got, size_t pitch, const uint8_t *src, size_t spitch,
		       uint8_t gap)
{
	for (size_t r = 0; r < H; r++) {
		assert_memory_equal(got + r * pitch, src + r * spitch, W);
		if (r + 1 < H)
			assert_int_equal(rt_first_not(got + r * pitch + W, pitch - W, gap), pitch - W);
	}
}

static void test_memcpy2d_sync_and_async(void **state)
{
	uint8_t *host = malloc(SP * H), *back = malloc(DP * H), *pin = NULL, *pin2 = NULL;
	void *d = NULL, *d2 = NULL;
	aclrtStream s = NULL;

	(void)state;
	ACL_OK(aclrtMalloc(&d, DP * H, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&d2, DP * H, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMallocHost((void **)&pin, SP * H));
	ACL_OK(aclrtMallocHost((void **)&pin2, SP * H));
	ACL_OK(aclrtCreateStream(&s));

	/* Synchronous H2D and D2H, pageable host memory. */
	rt_fill_pattern(host, SP * H, 5);
	ACL_OK(aclrtMemset(d, DP * H, 0x3C, DP * H));
	ACL_OK(aclrtMemcpy2d(d, DP, host, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE));
	read_dev(back, d, DP * H);
	check_rows(back, DP, host, SP, 0x3C);
	memset(pin2, 0x11, SP * H);
	ACL_OK(aclrtMemcpy2d(pin2, SP, d, DP, W, H, ACL_MEMCPY_DEFAULT));
	check_rows(pin2, SP, host, SP, 0x11);

	/* Asynchronous from pinned memory: H2D, D2D (2-D), D2H. */
	rt_fill_pattern(pin, SP * H, 6);
	ACL_OK(aclrtMemset(d2, DP * H, 0x4D, DP * H));
	memset(pin2, 0x22, SP * H);
	hold(s);
	ACL_OK(aclrtMemcpy2dAsync(d, DP, pin, SP, W, H, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ACL_OK(aclrtMemcpy2dAsync(d2, DP, d, DP, W, H, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	ACL_OK(aclrtMemcpy2dAsync(pin2, SP, d2, DP, W, H, ACL_MEMCPY_DEVICE_TO_HOST, s));
	/* Queued behind the wait: nothing has moved. */
	assert_int_equal(rt_first_not(pin2, SP * H, 0x22), SP * H);
	release();
	ACL_OK(aclrtSynchronizeStream(s));
	check_rows(pin2, SP, pin, SP, 0x22);
	read_dev(back, d2, DP * H);
	check_rows(back, DP, pin, SP, 0x4D);

	/* Asynchronous with pageable memory: done when the call returns. */
	memset(host, 0, SP * H);
	ACL_OK(aclrtMemcpy2dAsync(host, SP, d2, DP, W, H, ACL_MEMCPY_DEFAULT, NULL));
	check_rows(host, SP, pin, SP, 0);

	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(d));
	ACL_OK(aclrtFree(d2));
	ACL_OK(aclrtFreeHost(pin));
	ACL_OK(aclrtFreeHost(pin2));
	free(host);
	free(back);
}

static void *memcpy2d_no_context(void *arg)
{
	void *d = arg;
	uint8_t host[256] = { 0 };

	/* Async with the NULL stream: "no stream", 107000. */
	assert_int_equal(aclrtMemcpy2dAsync(d, 128, host, 128, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtMemcpy2d(d, 128, host, 128, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_CONTEXT_NULL);
	return NULL;
}

/* The bad-input rows of aclrtMemcpy2d and aclrtMemcpy2dAsync, in order. */
static void test_memcpy2d_bad_inputs(void **state)
{
	uint8_t host[4096] = { 0 }, host2[4096] = { 0 };
	void *d = NULL, *d2 = NULL, *pin = NULL, *pin2 = NULL;
	aclrtStream s = NULL, dead = NULL;
	const size_t big_w = 5000001, big_h = 5242881;

	(void)state;
	ACL_OK(aclrtMalloc(&d, 1 << 20, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMalloc(&d2, 1 << 20, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMallocHost(&pin, 4096));
	ACL_OK(aclrtMallocHost(&pin2, 4096));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));

	/* width or height 0: success before anything else. */
	ACL_OK(aclrtMemcpy2d(NULL, 0, NULL, 0, 0, 5, (aclrtMemcpyKind)99));
	ACL_OK(aclrtMemcpy2d(NULL, 0, NULL, 0, 5, 0, (aclrtMemcpyKind)99));
	ACL_OK(aclrtMemcpy2dAsync(NULL, 0, NULL, 0, 0, 5, (aclrtMemcpyKind)99, dead));
	ACL_OK(aclrtMemcpy2dAsync(NULL, 0, NULL, 0, 5, 0, (aclrtMemcpyKind)99, dead));

	for (int async = 0; async < 2; async++) {
#define C2D(dst, dp, src, sp, w, h, k)                                                   \
	(async ? aclrtMemcpy2dAsync(dst, dp, src, sp, w, h, (aclrtMemcpyKind)(k), s)     \
	       : aclrtMemcpy2d(dst, dp, src, sp, w, h, (aclrtMemcpyKind)(k)))
		/* ACL layer: NULLs, width against the pitches (zero pitch too), kind. */
		assert_int_equal(C2D(NULL, 128, host, 128, 64, 2, 1), ACL_ERROR_INVALID_PARAM);
		assert_int_equal(C2D(d, 128, NULL, 128, 64, 2, 1), ACL_ERROR_INVALID_PARAM);
		assert_int_equal(C2D(d, 128, host, 63, 64, 2, 1), ACL_ERROR_INVALID_PARAM);
		assert_int_equal(C2D(d, 63, host, 128, 64, 2, 1), ACL_ERROR_INVALID_PARAM);
		assert_int_equal(C2D(d, 0, host, 0, 64, 2, 1), ACL_ERROR_INVALID_PARAM);
		assert_non_null(strstr(aclGetRecentErrMsg(), "pitch"));
		assert_int_equal(C2D(d, 128, host, 128, 64, 2, ACL_MEMCPY_HOST_TO_HOST),
				 ACL_ERROR_INVALID_PARAM);
		for (int k = 5; k <= 8; k++)
			assert_int_equal(C2D(d, 128, host, 128, 64, 2, k), ACL_ERROR_INVALID_PARAM);
		assert_int_equal(C2D(d, 128, host, 128, 64, 2, -1), ACL_ERROR_INVALID_PARAM);
		/* Width checked against pitch before the limits. */
		assert_int_equal(C2D(d, 128, host, 128, big_w, 2, 1), ACL_ERROR_INVALID_PARAM);
		/* RT layer: the limits (the pointers are not looked at yet). */
		assert_int_equal(C2D(d, 128, host, 128, 64, big_h, 1), ACL_ERROR_RT_PARAM_INVALID);
		assert_non_null(strstr(aclGetRecentErrMsg(), "height"));
		assert_int_equal(C2D(d, big_w, host, big_w, big_w, 1, 1), ACL_ERROR_RT_PARAM_INVALID);
		assert_non_null(strstr(aclGetRecentErrMsg(), "width"));
		/* The kind correction for an UNREGISTERED side. */
		assert_int_equal(C2D(d, 128, host, 128, 64, 2, ACL_MEMCPY_DEVICE_TO_HOST),
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_int_equal(C2D(host, 128, d, 128, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE),
				 ACL_ERROR_RT_PARAM_INVALID);
		/* Effective host to host. */
		assert_int_equal(C2D(pin, 128, pin2, 128, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE),
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_int_equal(C2D(host2, 128, host, 128, 64, 2, ACL_MEMCPY_DEFAULT),
				 ACL_ERROR_RT_PARAM_INVALID);
#undef C2D
	}
	/* Synchronous only: explicit D2D is not supported, DEFAULT resolving to D2D is invalid. */
	assert_int_equal(aclrtMemcpy2d(d, 128, d2, 128, 64, 2, ACL_MEMCPY_DEVICE_TO_DEVICE),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtMemcpy2d(d, 128, pin, 128, 64, 2, ACL_MEMCPY_DEVICE_TO_DEVICE),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtMemcpy2d(d, 128, d2, 128, 64, 2, ACL_MEMCPY_DEFAULT),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Asynchronous: D2D is fine; a destroyed stream is 107017, after the ACL checks. */
	ACL_OK(aclrtMemcpy2dAsync(d, 128, d2, 128, 64, 2, ACL_MEMCPY_DEFAULT, s));
	assert_int_equal(aclrtMemcpy2dAsync(d, 128, host, 128, 64, 2, ACL_MEMCPY_HOST_TO_DEVICE, dead),
			 ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtMemcpy2dAsync(d, 128, host, 128, 64, 2, 0, dead),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpy2dAsync(d, 128, host, 128, 64, big_h, 1, dead),
			 ACL_ERROR_RT_INVALID_HANDLE);
	rt_run_in_thread(memcpy2d_no_context, d);
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFreeHost(pin));
	ACL_OK(aclrtFreeHost(pin2));
	ACL_OK(aclrtFree(d));
	ACL_OK(aclrtFree(d2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_async_copies_every_direction),
		cmocka_unit_test(test_pinned_is_async_pageable_is_sync),
		cmocka_unit_test(test_staged_copy_source_freed_at_once),
		cmocka_unit_test(test_memcpy_async_and_memset_async_bad_inputs),
		cmocka_unit_test(test_memcpy2d_sync_and_async),
		cmocka_unit_test(test_memcpy2d_bad_inputs),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
