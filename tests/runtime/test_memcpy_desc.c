// SPDX-License-Identifier: MIT
/*
 * Memory-copy descriptors: aclrtGetMemcpyDescSize, aclrtSetMemcpyDesc and
 * aclrtMemcpyAsyncWithDesc. The copy moves exactly what the descriptor
 * says when it runs (a descriptor rewritten after the copy was queued
 * decides it); a descriptor rewritten with hostile addresses fails its
 * task and touches nothing; and every bad-input row of the three calls.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define N 20000
#define BYTES (1u << 20)
#define SENT 0xEEu

static void *g_src, *g_dst, *g_desc, *g_word;
static uint8_t g_pattern[BYTES], g_back[BYTES];

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_src, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc(&g_dst, BYTES, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc(&g_desc, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtMalloc(&g_word, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS)
		return -1;
	rt_fill_pattern(g_pattern, BYTES, 17);
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
	aclrtFree(g_desc);
	aclrtFree(g_word);
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

/* g_dst holds SENT except [off, off + n), which holds g_pattern from soff. */
static void check_dst(size_t off, size_t soff, size_t n)
{
	ACL_OK(aclrtMemcpy(g_back, BYTES, g_dst, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(g_back, off, SENT), off);
	assert_memory_equal(g_back + off, g_pattern + soff, n);
	assert_int_equal(rt_first_not(g_back + off + n, BYTES - off - n, SENT), BYTES - off - n);
}

static void test_desc_size(void **state)
{
	size_t size = 0;

	(void)state;
	ACL_OK(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, &size));
	assert_int_equal(size, 32);
	assert_int_equal(aclrtGetMemcpyDescSize(ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtGetMemcpyDescSize: descSize is NULL");
	assert_int_equal(aclrtGetMemcpyDescSize((aclrtMemcpyKind)8, &size),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetMemcpyDescSize((aclrtMemcpyKind)-1, &size),
			 ACL_ERROR_INVALID_PARAM);
	for (int k = 0; k < 8; k++) {
		if (k == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE)
			continue;
		assert_int_equal(aclrtGetMemcpyDescSize((aclrtMemcpyKind)k, &size),
				 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	assert_int_equal(size, 32);
}

static void test_copy_with_desc(void **state)
{
	aclrtStream s;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	reset_dst();
	ACL_OK(aclrtSetMemcpyDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, g_src,
				  (char *)g_dst + 8, N, NULL));
	ACL_OK(aclrtMemcpyAsyncWithDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(8, 0, N);
	/* The same descriptor, reused: the copy runs again. */
	ACL_OK(aclrtMemset(g_dst, BYTES, SENT, 64));
	ACL_OK(aclrtMemcpyAsyncWithDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(8, 0, N);
	ACL_OK(aclrtDestroyStream(s));
}

/* The copy reads the descriptor when it runs: rewritten after queuing, the new one counts. */
static void test_desc_read_when_the_copy_runs(void **state)
{
	aclrtStream s;
	uint64_t v = 0;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	reset_dst();
	ACL_OK(aclrtSetMemcpyDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, g_src, g_dst, N,
				  NULL));
	ACL_OK(aclrtMemcpy(g_word, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtValueWait(g_word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
	ACL_OK(aclrtMemcpyAsyncWithDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	/* Synchronous calls do not wait for the held stream. */
	ACL_OK(aclrtSetMemcpyDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, (char *)g_src + 64,
				  (char *)g_dst + 4096, 3 * N, NULL));
	v = 1;
	ACL_OK(aclrtMemcpy(g_word, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(4096, 64, 3 * N);
	ACL_OK(aclrtDestroyStream(s));
}

/*
 * A descriptor overwritten with hostile contents: its task fails (the
 * stream reports it), the host memory it names is untouched, and the
 * stream works on afterwards.
 */
static void test_hostile_desc_fails_its_task(void **state)
{
	aclrtStream s;
	uint8_t *host = malloc(4096);
	void *pinned;

	(void)state;
	assert_non_null(host);
	memset(host, 0x5C, 4096);
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	memset(pinned, 0x5D, 4096);
	ACL_OK(aclrtCreateStream(&s));
	const struct {
		const char *what;
		uint64_t rec[4];
	} rows[] = {
		{ "dst is host memory", { (uintptr_t)g_src, (uintptr_t)host, 64, 0 } },
		{ "dst is pinned host memory", { (uintptr_t)g_src, (uintptr_t)pinned, 64, 0 } },
		{ "src is host memory", { (uintptr_t)host, (uintptr_t)g_dst, 64, 0 } },
		{ "len past the end", { (uintptr_t)g_src, (uintptr_t)g_dst, 64ULL << 20, 0 } },
		{ "len wraps", { (uintptr_t)g_src, (uintptr_t)g_dst, UINT64_MAX, 0 } },
		{ "len 0", { (uintptr_t)g_src, (uintptr_t)g_dst, 0, 0 } },
		{ "reserved word set", { (uintptr_t)g_src, (uintptr_t)g_dst, 64, 1 } },
		{ "null addresses", { 0, 0, 64, 0 } },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclError rc;

		reset_dst();
		ACL_OK(aclrtMemcpy(g_desc, 32, rows[i].rec, 32, ACL_MEMCPY_HOST_TO_DEVICE));
		ACL_OK(aclrtMemcpyAsyncWithDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
		rc = aclrtSynchronizeStream(s);
		if (rc == ACL_SUCCESS)
			fail_msg("%s: the copy succeeded", rows[i].what);
		ACL_OK(aclrtMemcpy(g_back, BYTES, g_dst, BYTES, ACL_MEMCPY_DEVICE_TO_HOST));
		assert_int_equal(rt_first_not(g_back, BYTES, SENT), BYTES);
	}
	assert_int_equal(rt_first_not(host, 4096, 0x5C), 4096);
	assert_int_equal(rt_first_not(pinned, 4096, 0x5D), 4096);
	/* The stream still works. */
	ACL_OK(aclrtSetMemcpyDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, g_src, g_dst, 100,
				  NULL));
	ACL_OK(aclrtMemcpyAsyncWithDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_dst(0, 0, 100);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFreeHost(pinned));
	free(host);
}

static void *set_without_context(void *arg)
{
	*(aclError *)arg = aclrtSetMemcpyDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, g_src,
					      g_dst, 64, NULL);
	return NULL;
}

static void test_set_rows(void **state)
{
	void *freed, *pinned;
	void *heap = NULL;
	char *desc = g_desc;
	aclError rc = ACL_SUCCESS;
	int cfg;

	(void)state;
	assert_int_equal(posix_memalign(&heap, 64, 64), 0);
	ACL_OK(aclrtMalloc(&freed, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtFree(freed));
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	const struct {
		void *desc;
		int32_t kind;
		void *src, *dst;
		size_t count;
		void *config;
		aclError want;
		const char *msg;
	} rows[] = {
		{ NULL, 8, g_src, g_dst, 64, NULL, ACL_ERROR_INVALID_PARAM, "desc is NULL" },
		{ desc, 8, NULL, g_dst, 64, NULL, ACL_ERROR_INVALID_PARAM, "kind 8" },
		{ desc, -1, g_src, g_dst, 64, NULL, ACL_ERROR_INVALID_PARAM, "kind -1" },
		{ desc, 6, NULL, g_dst, 64, NULL, ACL_ERROR_INVALID_PARAM, "srcAddr is NULL" },
		{ desc, 6, g_src, NULL, 64, NULL, ACL_ERROR_INVALID_PARAM, "dstAddr is NULL" },
		{ desc, 6, g_src, g_dst, 0, NULL, ACL_ERROR_INVALID_PARAM, "count is 0" },
		{ desc, 6, g_src, g_dst, 64, &cfg, ACL_ERROR_INVALID_PARAM, "config" },
		{ desc, 3, g_src, g_dst, 64, NULL, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "kind 3" },
		{ desc, 6, g_src, g_dst, (4ULL << 30) + 1, NULL, ACL_ERROR_RT_PARAM_INVALID,
		  "over 4 GiB" },
		{ desc + 32, 6, g_src, g_dst, 64, NULL, ACL_ERROR_RT_PARAM_INVALID,
		  "not 64-byte aligned" },
		{ heap, 6, g_src, g_dst, 64, NULL, ACL_ERROR_RT_PARAM_INVALID,
		  "desc 0x" },
		{ pinned, 6, g_src, g_dst, 64, NULL, ACL_ERROR_RT_PARAM_INVALID, "not device memory" },
		{ freed, 6, g_src, g_dst, 64, NULL, ACL_ERROR_RT_PARAM_INVALID, "nothing is mapped" },
		{ desc, 6, heap, g_dst, 64, NULL, ACL_ERROR_RT_PARAM_INVALID, "srcAddr" },
		{ desc, 6, g_src, pinned, 64, NULL, ACL_ERROR_RT_PARAM_INVALID, "dstAddr" },
		{ desc, 6, g_src, freed, 64, NULL, ACL_ERROR_RT_PARAM_INVALID, "nothing is mapped" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclError got = aclrtSetMemcpyDesc(rows[i].desc, (aclrtMemcpyKind)rows[i].kind,
						  rows[i].src, rows[i].dst, rows[i].count,
						  rows[i].config);

		if (got != rows[i].want)
			fail_msg("row %zu (%s): %d, expected %d", i, rows[i].msg, got, rows[i].want);
		assert_msg_has(rows[i].msg);
	}
	rt_run_in_thread(set_without_context, &rc);
	assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtFreeHost(pinned));
	free(heap);
}

/* Operands on two devices: the record would name memory the engine cannot pair. */
static void test_set_needs_one_device(void **state)
{
	void *dev1;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc(&dev1, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtSetDevice(0));
	assert_int_equal(aclrtSetMemcpyDesc(g_desc, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, g_src, dev1,
					    64, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("not memory of the same device");
	assert_int_equal(aclrtSetMemcpyDesc(dev1, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE, g_src, g_dst,
					    64, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtFree(dev1));
	ACL_OK(aclrtResetDevice(1));
}

static void test_async_with_desc_rows(void **state)
{
	aclrtStream s, dead;
	void *pinned;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	const struct {
		void *desc;
		int32_t kind;
		aclrtStream stream;
		aclError want;
		const char *msg;
	} rows[] = {
		{ NULL, 8, NULL, ACL_ERROR_INVALID_PARAM, "desc is NULL" },
		{ g_desc, 8, NULL, ACL_ERROR_INVALID_PARAM, "kind 8" },
		{ g_desc, 6, NULL, ACL_ERROR_INVALID_PARAM, "stream is NULL" },
		{ g_desc, 2, s, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "kind 2" },
		{ pinned, 6, s, ACL_ERROR_RT_PARAM_INVALID, "not device memory" },
		{ (char *)g_desc + 32, 6, s, ACL_ERROR_RT_PARAM_INVALID, "not 64-byte aligned" },
		{ g_desc, 6, dead, ACL_ERROR_RT_INVALID_HANDLE, "" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclError got = aclrtMemcpyAsyncWithDesc(rows[i].desc, (aclrtMemcpyKind)rows[i].kind,
							rows[i].stream);

		if (got != rows[i].want)
			fail_msg("row %zu (%s): %d, expected %d", i, rows[i].msg, got, rows[i].want);
		assert_msg_has(rows[i].msg);
	}
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFreeHost(pinned));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_desc_size),
		cmocka_unit_test(test_copy_with_desc),
		cmocka_unit_test(test_desc_read_when_the_copy_runs),
		cmocka_unit_test(test_hostile_desc_fails_its_task),
		cmocka_unit_test(test_set_rows),
		cmocka_unit_test(test_set_needs_one_device),
		cmocka_unit_test(test_async_with_desc_rows),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
