// SPDX-License-Identifier: MIT
/*
 * aclrtMemcpyAsyncWithOffset: dst and src are device slots holding base
 * addresses; the copy reads them when it runs and moves count bytes from
 * *src + srcDataOffset to *dst + dstDataOffset. Slots rewritten after the
 * copy was queued decide it; hostile slot values (host memory, unmapped or
 * foreign device addresses, a base plus offset that wraps) fail the task
 * and write nothing; and every bad-input row of the call.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define N 20000
#define BYTES (1u << 20)
#define SENT 0xEEu
#define INNER ACL_MEMCPY_INNER_DEVICE_TO_DEVICE

static void *g_src, *g_dst, *g_slots;
static void **g_dslot;
static const void **g_sslot;
static uint8_t g_pattern[BYTES], g_back[BYTES];

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	/* 4 KiB pages: the allocations end exactly at BYTES. */
	if (aclrtMalloc(&g_src, BYTES, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtMalloc(&g_dst, BYTES, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtMalloc(&g_slots, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS)
		return -1;
	g_dslot = (void **)g_slots;
	g_sslot = (const void **)((char *)g_slots + 8);
	rt_fill_pattern(g_pattern, BYTES, 23);
	return aclrtMemcpy(g_src, BYTES, g_pattern, BYTES, ACL_MEMCPY_HOST_TO_DEVICE) ==
			       ACL_SUCCESS
		       ? 0
		       : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_src);
	aclrtFree(g_dst);
	aclrtFree(g_slots);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void assert_msg_has(const char *what)
{
	const char *m = aclGetRecentErrMsg();

	assert_non_null(m);
	if (strstr(m, what) == NULL)
		fail_msg("message \"%s\" does not contain \"%s\"", m, what);
}

static void reset_dst(void)
{
	ACL_OK(aclrtMemset(g_dst, BYTES, SENT, BYTES));
}

/* Stores the two base addresses in the slots (a synchronous copy). */
static void write_slots(uint64_t dst_base, uint64_t src_base)
{
	uint64_t v[2] = { dst_base, src_base };

	ACL_OK(aclrtMemcpy(g_slots, sizeof(v), v, sizeof(v), ACL_MEMCPY_HOST_TO_DEVICE));
}

/* g_dst holds SENT except [off, off + n), which holds g_pattern from soff. */
static void check_dst(size_t off, size_t soff, size_t n)
{
	ACL_OK(aclrtMemcpy(g_back, BYTES, g_dst, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(g_back, off, SENT), off);
	assert_memory_equal(g_back + off, g_pattern + soff, n);
	assert_int_equal(rt_first_not(g_back + off + n, BYTES - off - n, SENT), BYTES - off - n);
}

static void check_dst_untouched(void)
{
	ACL_OK(aclrtMemcpy(g_back, BYTES, g_dst, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(g_back, BYTES, SENT), BYTES);
}

static void test_copy_with_offsets(void **state)
{
	aclrtStream s;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	reset_dst();
	write_slots((uintptr_t)g_dst, (uintptr_t)g_src);
	ACL_OK(aclrtMemcpyAsyncWithOffset(g_dslot, N, 100, g_sslot, N, 300, INNER, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(100, 300, N);
	/* Offsets 0, and a copy of one byte. */
	reset_dst();
	ACL_OK(aclrtMemcpyAsyncWithOffset(g_dslot, 1, 0, g_sslot, 1, 0, INNER, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(0, 0, 1);
	/* Bases inside the allocations, offsets to their last bytes. */
	reset_dst();
	write_slots((uintptr_t)g_dst + 4096, (uintptr_t)g_src + 8192);
	ACL_OK(aclrtMemcpyAsyncWithOffset(g_dslot, BYTES, BYTES - 4096 - N, g_sslot, N,
					  BYTES - 8192 - N, INNER, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(BYTES - N, BYTES - N, N);
	ACL_OK(aclrtDestroyStream(s));
}

/* The NULL stream is the current context's default stream. */
static void test_default_stream(void **state)
{
	(void)state;
	reset_dst();
	write_slots((uintptr_t)g_dst, (uintptr_t)g_src);
	ACL_OK(aclrtMemcpyAsyncWithOffset(g_dslot, BYTES, 64, g_sslot, 3 * N, 8, INNER, NULL));
	ACL_OK(aclrtSynchronizeDevice());
	check_dst(64, 8, 3 * N);
}

/*
 * The copy reads the slots when it runs: the stream is held behind a
 * notify wait, the slots are rewritten after the copy is queued, and the
 * copy uses the new bases.
 */
static void test_slots_read_when_the_copy_runs(void **state)
{
	aclrtStream s, other;
	aclrtStreamStatus status = ACL_STREAM_STATUS_COMPLETE;
	aclrtNotify n;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&other));
	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	reset_dst();
	write_slots((uintptr_t)g_dst, (uintptr_t)g_src);
	ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
	ACL_OK(aclrtMemcpyAsyncWithOffset(g_dslot, N, 8, g_sslot, N, 16, INNER, s));
	/* Still held: nothing copied yet. */
	ACL_OK(aclrtStreamQuery(s, &status));
	assert_int_equal(status, ACL_STREAM_STATUS_NOT_READY);
	check_dst_untouched();
	/* Synchronous copies do not wait for the held stream. */
	write_slots((uintptr_t)g_dst + 4096, (uintptr_t)g_src + 64);
	ACL_OK(aclrtRecordNotify(n, other));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(4096 + 8, 64 + 16, N);
	ACL_OK(aclrtDestroyNotify(n));
	ACL_OK(aclrtDestroyStream(other));
	ACL_OK(aclrtDestroyStream(s));
}

/*
 * Hostile slot values: the task fails with the stream's task error, no
 * byte of device or host memory is written, and the stream works on.
 */
static void test_hostile_slots_fail_the_task(void **state)
{
	uint8_t *host = malloc(4096);
	void *pinned, *freed, *dev1 = NULL;
	aclrtStream s;

	(void)state;
	assert_non_null(host);
	memset(host, 0x5C, 4096);
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	memset(pinned, 0x5D, 4096);
	ACL_OK(aclrtMalloc(&freed, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtFree(freed));
	if (rt_device_count() >= 2) {
		ACL_OK(aclrtSetDevice(1));
		ACL_OK(aclrtMalloc(&dev1, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
		ACL_OK(aclrtSetDevice(0));
	}
	ACL_OK(aclrtCreateStream(&s));
	const uint64_t d = (uintptr_t)g_dst, sr = (uintptr_t)g_src;
	const struct {
		const char *what;
		uint64_t dst_base, src_base;
		size_t dst_off, src_off, count;
	} rows[] = {
		{ "dst base is host memory", (uintptr_t)host, sr, 0, 0, 64 },
		{ "dst base is pinned host memory", (uintptr_t)pinned, sr, 0, 0, 64 },
		{ "src base is host memory", d, (uintptr_t)host, 0, 0, 64 },
		{ "dst base unmapped (freed)", (uintptr_t)freed, sr, 0, 0, 64 },
		{ "src base unmapped (freed)", d, (uintptr_t)freed, 0, 0, 64 },
		{ "null bases", 0, 0, 0, 0, 64 },
		{ "count past the allocations' ends", d, sr, 0, 0, 64u << 20 },
		{ "src range past the allocation's end", d, sr, 0, BYTES / 2, 8u << 20 },
		{ "dst offset far past the allocation", d, sr, 1ULL << 40, 0, 64 },
		{ "dst base + offset wraps", d, sr, UINT64_MAX - d + 1, 0, 64 },
		{ "src base + offset wraps", d, sr, 0, UINT64_MAX, 64 },
		{ "dst base on another device", dev1 ? (uintptr_t)dev1 : 1, sr, 0, 0, 64 },
		{ "src base on another device", d, dev1 ? (uintptr_t)dev1 : 1, 0, 0, 64 },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclError rc;

		reset_dst();
		write_slots(rows[i].dst_base, rows[i].src_base);
		ACL_OK(aclrtMemcpyAsyncWithOffset(g_dslot, SIZE_MAX, rows[i].dst_off, g_sslot,
						  rows[i].count, rows[i].src_off, INNER, s));
		rc = aclrtSynchronizeStream(s);
		if (rc != ACL_ERROR_RT_PARAM_INVALID)
			fail_msg("%s: the stream reported %d, expected %d", rows[i].what, rc,
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_msg_has("failed");
		check_dst_untouched();
	}
	assert_int_equal(rt_first_not(host, 4096, 0x5C), 4096);
	assert_int_equal(rt_first_not(pinned, 4096, 0x5D), 4096);
	/* The stream still works. */
	reset_dst();
	write_slots((uintptr_t)g_dst, (uintptr_t)g_src);
	ACL_OK(aclrtMemcpyAsyncWithOffset(g_dslot, 100, 0, g_sslot, 100, 0, INNER, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(0, 0, 100);
	ACL_OK(aclrtDestroyStream(s));
	if (dev1 != NULL) {
		ACL_OK(aclrtFree(dev1));
		ACL_OK(aclrtResetDevice(1));
	}
	ACL_OK(aclrtFreeHost(pinned));
	free(host);
}

static void *copy_without_context(void *arg)
{
	*(aclError *)arg =
		aclrtMemcpyAsyncWithOffset(g_dslot, 64, 0, g_sslot, 64, 0, INNER, NULL);
	return NULL;
}

static void test_bad_input_rows(void **state)
{
	aclrtStream s, dead;
	void *pinned, *freed;
	void *heap = NULL;
	aclError rc = ACL_SUCCESS;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	ACL_OK(aclrtMalloc(&freed, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtFree(freed));
	assert_int_equal(posix_memalign(&heap, 64, 64), 0);
	reset_dst();
	write_slots((uintptr_t)g_dst, (uintptr_t)g_src);
	void **ds = g_dslot;
	const void **ss = g_sslot;
	const struct {
		void **dst;
		size_t dest_max;
		const void **src;
		size_t count;
		int32_t kind;
		aclrtStream stream;
		aclError want;
		const char *msg;
	} rows[] = {
		/* count 0 succeeds before any other check. */
		{ NULL, 0, NULL, 0, 99, dead, ACL_SUCCESS, NULL },
		{ NULL, 64, ss, 64, INNER, s, ACL_ERROR_RT_PARAM_INVALID, "dst (the slot" },
		{ ds, 64, NULL, 64, INNER, s, ACL_ERROR_RT_PARAM_INVALID, "src (the slot" },
		{ ds, 64, ss, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, s, ACL_ERROR_RT_PARAM_INVALID,
		  "kind 3 is not ACL_MEMCPY_INNER_DEVICE_TO_DEVICE" },
		{ ds, 64, ss, 64, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE, s, ACL_ERROR_RT_PARAM_INVALID,
		  "kind 7" },
		{ ds, 64, ss, 64, ACL_MEMCPY_DEFAULT, s, ACL_ERROR_RT_PARAM_INVALID, "kind 4" },
		{ ds, 64, ss, 64, 8, s, ACL_ERROR_RT_PARAM_INVALID, "kind 8" },
		{ ds, 64, ss, 64, -1, s, ACL_ERROR_RT_PARAM_INVALID, "kind -1" },
		{ ds, 63, ss, 64, INNER, s, ACL_ERROR_RT_PARAM_INVALID,
		  "count 64 is larger than destMax 63" },
		{ (void **)((char *)g_slots + 4), 64, ss, 64, INNER, s, ACL_ERROR_RT_PARAM_INVALID,
		  "dst slot 0x" },
		{ ds, 64, (const void **)((char *)g_slots + 12), 64, INNER, s,
		  ACL_ERROR_RT_PARAM_INVALID, "not 8-byte aligned" },
		{ ds, 64, ss, 64, INNER, dead, ACL_ERROR_RT_INVALID_HANDLE, "" },
		{ (void **)heap, 64, ss, 64, INNER, s, ACL_ERROR_RT_PARAM_INVALID,
		  "is not device memory" },
		{ ds, 64, (const void **)pinned, 64, INNER, s, ACL_ERROR_RT_PARAM_INVALID,
		  "src slot 0x" },
		{ (void **)freed, 64, ss, 64, INNER, s, ACL_ERROR_RT_PARAM_INVALID,
		  "nothing is mapped" },
		{ ds, 64, (const void **)freed, 64, INNER, NULL, ACL_ERROR_RT_PARAM_INVALID,
		  "nothing is mapped" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclError got = aclrtMemcpyAsyncWithOffset(rows[i].dst, rows[i].dest_max, 0,
							  rows[i].src, rows[i].count, 0,
							  (aclrtMemcpyKind)rows[i].kind,
							  rows[i].stream);

		if (got != rows[i].want)
			fail_msg("row %zu (%s): %d, expected %d", i,
				 rows[i].msg ? rows[i].msg : "count 0", got, rows[i].want);
		if (rows[i].msg != NULL)
			assert_msg_has(rows[i].msg);
	}
	/* None of them queued a copy. */
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtSynchronizeDevice());
	check_dst_untouched();
	rt_run_in_thread(copy_without_context, &rc);
	assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFreeHost(pinned));
	free(heap);
}

/* Slots in another device's memory: the stream's engine cannot read them. */
static void test_slots_on_another_device(void **state)
{
	void *slots1;
	aclrtStream s;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc(&slots1, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(aclrtMemcpyAsyncWithOffset((void **)slots1, 64, 0, g_sslot, 64, 0, INNER,
						    s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("is memory of device 1, the stream runs on device 0");
	assert_int_equal(aclrtMemcpyAsyncWithOffset(g_dslot, 64, 0, (const void **)slots1, 64, 0,
						    INNER, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("src slot");
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtFree(slots1));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDevice(1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_with_offsets),
		cmocka_unit_test(test_default_stream),
		cmocka_unit_test(test_slots_read_when_the_copy_runs),
		cmocka_unit_test(test_hostile_slots_fail_the_task),
		cmocka_unit_test(test_bad_input_rows),
		cmocka_unit_test(test_slots_on_another_device),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
