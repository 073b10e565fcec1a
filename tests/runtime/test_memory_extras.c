// SPDX-License-Identifier: MIT
/*
 * The smaller memory calls: aclrtMallocForTaskScheduler (aclrtMallocWithCfg's
 * memory and checks), the deprecated aclrtMemcpyAsyncWithCondition (moves
 * the data like aclrtMemcpyAsync), and the cache-maintenance calls that the
 * emulated device has no cache for (aclrtMemFlush, aclrtMemInvalidate,
 * aclrtDeviceL2CacheFlush, aclrtCmoAsync and its descriptor form): their
 * bad-input rows and that they leave memory alone.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

/* aclrtMemcpyAsyncWithCondition is deprecated upstream, and tested here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define BYTES 65536

static void *g_dev;

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_dev, BYTES, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_dev);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void assert_msg_has(const char *what)
{
	const char *m = aclGetRecentErrMsg();

	assert_non_null(m);
	if (strstr(m, what) == NULL)
		fail_msg("message \"%s\" does not contain \"%s\"", m, what);
}

static void test_malloc_for_task_scheduler_gives_device_memory(void **state)
{
	void *p = NULL;
	aclrtPtrAttributes attr;
	uint8_t in[4096], out[4096];
	aclrtMallocAttribute bad = { .attr = ACL_RT_MEM_ATTR_VA_FLAG };
	aclrtMallocConfig cfg = { .attrs = &bad, .numAttrs = 1 };

	(void)state;
	ACL_OK(aclrtMallocForTaskScheduler(&p, sizeof(in), ACL_MEM_MALLOC_HUGE_FIRST, NULL));
	ACL_OK(aclrtPointerGetAttributes(p, &attr));
	assert_int_equal(attr.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	rt_fill_pattern(in, sizeof(in), 7);
	ACL_OK(aclrtMemcpy(p, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(out, sizeof(out), p, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(in, out, sizeof(in));
	ACL_OK(aclrtFree(p));
	/* aclrtMallocWithCfg's rows, under this API's name. */
	assert_int_equal(aclrtMallocForTaskScheduler(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMallocForTaskScheduler: devPtr is NULL");
	assert_int_equal(aclrtMallocForTaskScheduler(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocForTaskScheduler(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST, &cfg),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("not allowed for device memory");
}

static void test_memcpy_async_with_condition_moves_data(void **state)
{
	aclrtStream s;
	void *pinned;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMallocHost(&pinned, 2 * BYTES));
	rt_fill_pattern(pinned, BYTES, 11);
	memset((char *)pinned + BYTES, 0, BYTES);
	ACL_OK(aclrtMemcpyAsyncWithCondition(g_dev, BYTES, pinned, BYTES,
					     ACL_MEMCPY_HOST_TO_DEVICE, s));
	ACL_OK(aclrtMemcpyAsyncWithCondition((char *)pinned + BYTES, BYTES, g_dev, BYTES,
					     ACL_MEMCPY_DEVICE_TO_HOST, s));
	ACL_OK(aclrtSynchronizeStream(s));
	assert_memory_equal(pinned, (char *)pinned + BYTES, BYTES);
	/* count 0 first, then aclrtMemcpyAsync's rows. */
	ACL_OK(aclrtMemcpyAsyncWithCondition(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE, s));
	assert_int_equal(aclrtMemcpyAsyncWithCondition(NULL, 8, pinned, 8,
						       ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMemcpyAsyncWithCondition: dst is NULL");
	assert_int_equal(
		aclrtMemcpyAsyncWithCondition(g_dev, 8, pinned, 8, (aclrtMemcpyKind)6, s),
		ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemcpyAsyncWithCondition(g_dev, 4, pinned, 8,
						       ACL_MEMCPY_HOST_TO_DEVICE, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtFreeHost(pinned));
	ACL_OK(aclrtDestroyStream(s));
}

/* Flush and invalidate: NULL and size 0 are 100000; a valid range changes nothing. */
static void test_flush_and_invalidate(void **state)
{
	uint8_t in[256], out[256];

	(void)state;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	rt_fill_pattern(in, sizeof(in), 3);
	ACL_OK(aclrtMemcpy(g_dev, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemFlush(g_dev, BYTES));
	ACL_OK(aclrtMemInvalidate(g_dev, BYTES));
	ACL_OK(aclrtMemcpy(out, sizeof(out), g_dev, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(aclrtMemFlush(NULL, 64), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMemFlush: devPtr is NULL");
	assert_int_equal(aclrtMemFlush(g_dev, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemInvalidate(NULL, 64), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMemInvalidate: devPtr is NULL");
	assert_int_equal(aclrtMemInvalidate(g_dev, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

static void test_l2_cache_flush(void **state)
{
	int rsv;

	(void)state;
	ACL_OK(aclrtDeviceL2CacheFlush(NULL));
	assert_int_equal(aclrtDeviceL2CacheFlush(&rsv), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtDeviceL2CacheFlush: rsv");
}

static void *cmo_without_context(void *arg)
{
	*(aclError *)arg = aclrtCmoAsync(g_dev, 64, ACL_RT_CMO_TYPE_FLUSH, NULL);
	return NULL;
}

/* aclrtCmoAsync: every type on a device range, then the rows. */
static void test_cmo_async(void **state)
{
	aclrtStream s, dead;
	void *pinned;
	aclError rc = ACL_SUCCESS;
	uint8_t in[256], out[256];

	(void)state;
	rt_fill_pattern(in, sizeof(in), 5);
	ACL_OK(aclrtMemcpy(g_dev, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtCreateStream(&s));
	for (int t = ACL_RT_CMO_TYPE_PREFETCH; t <= ACL_RT_CMO_TYPE_FLUSH; t++) {
		ACL_OK(aclrtCmoAsync(g_dev, BYTES, (aclrtCmoType)t, s));
		ACL_OK(aclrtCmoAsync((char *)g_dev + 64, 64, (aclrtCmoType)t, NULL));
	}
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtMemcpy(out, sizeof(out), g_dev, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(in, out, sizeof(in));
	assert_int_equal(aclrtCmoAsync(NULL, 64, ACL_RT_CMO_TYPE_FLUSH, s), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtCmoAsync: src is NULL");
	assert_int_equal(aclrtCmoAsync(g_dev, 0, ACL_RT_CMO_TYPE_FLUSH, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCmoAsync(g_dev, 64, (aclrtCmoType)4, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCmoAsync(g_dev, 64, (aclrtCmoType)-1, s), ACL_ERROR_INVALID_PARAM);
	/* Host memory, and ranges that leave the allocation. */
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	assert_int_equal(aclrtCmoAsync(pinned, 64, ACL_RT_CMO_TYPE_FLUSH, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("not device memory");
	ACL_OK(aclrtFreeHost(pinned));
	assert_int_equal(aclrtCmoAsync(g_dev, (size_t)64 << 20, ACL_RT_CMO_TYPE_FLUSH, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("runs past the end");
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	assert_int_equal(aclrtCmoAsync(g_dev, 64, ACL_RT_CMO_TYPE_FLUSH, dead),
			 ACL_ERROR_RT_INVALID_HANDLE);
	rt_run_in_thread(cmo_without_context, &rc);
	assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtDestroyStream(s));
}

/* The descriptor form: a 64-byte record naming (src, size), in device memory. */
static void test_cmo_desc(void **state)
{
	size_t desc_size = 0;
	void *desc, *pinned;
	aclrtStream s, dead;
	uint64_t rec[8];
	uint8_t in[256], out[256];

	(void)state;
	ACL_OK(aclrtCmoGetDescSize(&desc_size));
	assert_int_equal(desc_size, 64);
	assert_int_equal(aclrtCmoGetDescSize(NULL), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtCmoGetDescSize: size is NULL");
	ACL_OK(aclrtMalloc(&desc, 2 * desc_size, ACL_MEM_MALLOC_HUGE_FIRST));
	rt_fill_pattern(in, sizeof(in), 9);
	ACL_OK(aclrtMemcpy(g_dev, sizeof(in), in, sizeof(in), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtCmoSetDesc(desc, (char *)g_dev + 128, 4096));
	/* The record reads back: src, size, then zeroes. */
	ACL_OK(aclrtMemcpy(rec, sizeof(rec), desc, sizeof(rec), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rec[0], (uint64_t)(uintptr_t)g_dev + 128);
	assert_int_equal(rec[1], 4096);
	for (int i = 2; i < 8; i++)
		assert_int_equal(rec[i], 0);
	ACL_OK(aclrtCreateStream(&s));
	for (int t = ACL_RT_CMO_TYPE_PREFETCH; t <= ACL_RT_CMO_TYPE_FLUSH; t++) {
		ACL_OK(aclrtCmoAsyncWithDesc(desc, (aclrtCmoType)t, s, NULL));
		ACL_OK(aclrtCmoAsyncWithDesc(desc, (aclrtCmoType)t, NULL, NULL));
	}
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtMemcpy(out, sizeof(out), g_dev, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(in, out, sizeof(in));

	/* aclrtCmoSetDesc rows. */
	assert_int_equal(aclrtCmoSetDesc(NULL, g_dev, 64), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtCmoSetDesc: cmoDesc is NULL");
	assert_int_equal(aclrtCmoSetDesc(desc, NULL, 64), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCmoSetDesc(desc, g_dev, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCmoSetDesc((char *)desc + 8, g_dev, 64), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("not 64-byte aligned");
	assert_int_equal(aclrtCmoSetDesc(desc, g_dev, (size_t)64 << 20),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("runs past the end");
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	assert_int_equal(aclrtCmoSetDesc(pinned, g_dev, 64), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("is not device memory");
	assert_int_equal(aclrtCmoSetDesc(desc, pinned, 64), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("src");
	/* A failed call left the record alone. */
	ACL_OK(aclrtMemcpy(rec, sizeof(rec), desc, sizeof(rec), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rec[1], 4096);

	/* aclrtCmoAsyncWithDesc rows. */
	assert_int_equal(aclrtCmoAsyncWithDesc(NULL, ACL_RT_CMO_TYPE_FLUSH, s, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtCmoAsyncWithDesc: cmoDesc is NULL");
	assert_int_equal(aclrtCmoAsyncWithDesc(desc, (aclrtCmoType)4, s, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_FLUSH, s, &rec),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("reserve");
	assert_int_equal(aclrtCmoAsyncWithDesc((char *)desc + 32, ACL_RT_CMO_TYPE_FLUSH, s, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtCmoAsyncWithDesc(pinned, ACL_RT_CMO_TYPE_FLUSH, s, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	assert_int_equal(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_FLUSH, dead, NULL),
			 ACL_ERROR_RT_INVALID_HANDLE);
	ACL_OK(aclrtFreeHost(pinned));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(desc));
	assert_int_equal(aclrtCmoAsyncWithDesc(desc, ACL_RT_CMO_TYPE_FLUSH, NULL, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malloc_for_task_scheduler_gives_device_memory),
		cmocka_unit_test(test_memcpy_async_with_condition_moves_data),
		cmocka_unit_test(test_flush_and_invalidate),
		cmocka_unit_test(test_l2_cache_flush),
		cmocka_unit_test(test_cmo_async),
		cmocka_unit_test(test_cmo_desc),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
