// SPDX-License-Identifier: MIT
/*
 * Notifies: a record on one stream releases a wait on another; each wait
 * consumes one record and clears the notify; aclrtNotifyBatchReset clears
 * it from the host; ids; destroying a notify that a queued wait still
 * names; and every bad-input row.
 */
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

enum { kSize = 4 << 20 };

static void expect_status(aclrtStream s, aclrtStreamStatus want)
{
	aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;

	ACL_OK(aclrtStreamQuery(s, &st));
	assert_int_equal(st, want);
}

static void test_record_releases_a_wait_on_another_stream(void **state)
{
	aclrtNotify n = NULL;
	aclrtStream s1 = NULL, s2 = NULL;
	void *a = NULL, *b = NULL;
	static uint8_t out[kSize];

	(void)state;
	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtCreateStream(&s1));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtMalloc(&a, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtWaitAndResetNotify(n, s2, 0));
	ACL_OK(aclrtMemcpyAsync(b, kSize, a, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
	usleep(20 * 1000);
	expect_status(s2, ACL_STREAM_STATUS_NOT_READY); /* nothing recorded yet */
	for (int i = 0; i < 8; i++)
		ACL_OK(aclrtMemsetAsync(a, kSize, 0x30 + i, kSize, s1));
	ACL_OK(aclrtRecordNotify(n, s1));
	ACL_OK(aclrtSynchronizeStream(s2));
	ACL_OK(aclrtMemcpy(out, kSize, b, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(out, kSize, 0x37), kSize);
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtDestroyStream(s2));
	ACL_OK(aclrtDestroyNotify(n));
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
}

/* One record, one wait: a second wait needs a second record. */
static void test_each_wait_consumes_a_record(void **state)
{
	aclrtNotify n = NULL;
	aclrtStream s1 = NULL, s2 = NULL;

	(void)state;
	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEVICE_USE_ONLY));
	ACL_OK(aclrtCreateStream(&s1));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtRecordNotify(n, s1));
	ACL_OK(aclrtSynchronizeStream(s1));
	ACL_OK(aclrtWaitAndResetNotify(n, s2, UINT32_MAX));
	ACL_OK(aclrtSynchronizeStream(s2));
	ACL_OK(aclrtWaitAndResetNotify(n, s2, UINT32_MAX));
	usleep(30 * 1000);
	expect_status(s2, ACL_STREAM_STATUS_NOT_READY);
	ACL_OK(aclrtRecordNotify(n, s1));
	ACL_OK(aclrtSynchronizeStream(s2));

	/* A record cleared from the host releases nothing. */
	ACL_OK(aclrtRecordNotify(n, s1));
	ACL_OK(aclrtSynchronizeStream(s1));
	ACL_OK(aclrtNotifyBatchReset(&n, 1));
	ACL_OK(aclrtWaitAndResetNotify(n, NULL, 0)); /* the default stream */
	usleep(30 * 1000);
	expect_status(NULL, ACL_STREAM_STATUS_NOT_READY);
	ACL_OK(aclrtRecordNotify(n, s1));
	ACL_OK(aclrtSynchronizeStream(NULL));
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtDestroyStream(s2));
	ACL_OK(aclrtDestroyNotify(n));
}

/* A notify destroyed under a queued wait does not give its word to an
 * event, whose record would then release that wait. */
static void test_destroy_under_a_queued_wait(void **state)
{
	aclrtNotify n = NULL;
	aclrtStream s = NULL, r = NULL;
	aclrtEvent ev[64];

	(void)state;
	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&r));
	ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
	ACL_OK(aclrtDestroyNotify(n));
	for (int i = 0; i < 64; i++) {
		ACL_OK(aclrtCreateEvent(&ev[i]));
		ACL_OK(aclrtRecordEvent(ev[i], r));
	}
	ACL_OK(aclrtSynchronizeStream(r));
	usleep(20 * 1000);
	expect_status(s, ACL_STREAM_STATUS_NOT_READY);
	for (int i = 0; i < 64; i++)
		ACL_OK(aclrtDestroyEvent(ev[i]));
	ACL_OK(aclrtDestroyStreamForce(s));
	ACL_OK(aclrtDestroyStream(r));
}

static void *no_context_thread(void *p)
{
	aclError *rc = p;
	aclrtNotify n = NULL;

	rc[0] = aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT);
	rc[1] = aclrtNotifyBatchReset(&n, 1);
	return NULL;
}

static void test_ids_and_bad_inputs(void **state)
{
	aclrtNotify n = NULL, m = NULL, dead = NULL;
	aclrtStream s = NULL;
	aclrtContext primary = NULL, other = NULL;
	uint32_t id1 = 0, id2 = 0;
	aclError rc[2];

	(void)state;
	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtCreateNotify(&m, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtGetNotifyId(n, &id1));
	ACL_OK(aclrtGetNotifyId(m, &id2));
	assert_int_not_equal(id1, id2);
	ACL_OK(aclrtCreateNotify(&dead, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtDestroyNotify(dead));

	assert_int_equal(aclrtCreateNotify(NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateNotify(&n, 2), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtDestroyNotify(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyNotify(dead), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtRecordNotify(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordNotify(dead, NULL), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtWaitAndResetNotify(NULL, NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtWaitAndResetNotify(dead, NULL, 0), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtGetNotifyId(NULL, &id1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetNotifyId(n, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetNotifyId(dead, &id1), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtNotifyBatchReset(NULL, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtNotifyBatchReset(&n, 0), ACL_ERROR_RT_PARAM_INVALID);
	aclrtNotify two[2] = { n, dead };
	assert_int_equal(aclrtNotifyBatchReset(two, 2), ACL_ERROR_RT_INVALID_HANDLE);
	/* A stream handle is not a notify. */
	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(aclrtRecordNotify((aclrtNotify)s, s), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtRecordNotify(n, (aclrtStream)(uintptr_t)0x77),
			 ACL_ERROR_RT_INVALID_HANDLE);
	/* A stream of another context. */
	ACL_OK(aclrtGetCurrentContext(&primary));
	ACL_OK(aclrtCreateContext(&other, 0));
	assert_int_equal(aclrtRecordNotify(n, s), ACL_ERROR_RT_STREAM_CONTEXT);
	/* Its own default stream is fine: the notify belongs to the device. */
	ACL_OK(aclrtRecordNotify(n, NULL));
	ACL_OK(aclrtWaitAndResetNotify(n, NULL, 0));
	ACL_OK(aclrtSynchronizeStream(NULL));
	ACL_OK(aclrtDestroyContext(other));
	ACL_OK(aclrtSetCurrentContext(primary));
	rt_run_in_thread(no_context_thread, rc);
	assert_int_equal(rc[0], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(rc[1], ACL_ERROR_RT_CONTEXT_NULL);

	/* A notify of device 0 on a stream of device 1. */
	if (rt_device_count() >= 2) {
		aclrtStream s1 = NULL;
		ACL_OK(aclrtSetDevice(1));
		ACL_OK(aclrtCreateStream(&s1));
		assert_int_equal(aclrtRecordNotify(n, s1), ACL_ERROR_RT_PARAM_INVALID);
		ACL_OK(aclrtDestroyStream(s1));
		ACL_OK(aclrtResetDevice(1));
		ACL_OK(aclrtSetDevice(0));
		ACL_OK(aclrtResetDevice(0));
	}
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyNotify(n));
	ACL_OK(aclrtDestroyNotify(m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_releases_a_wait_on_another_stream),
		cmocka_unit_test(test_each_wait_consumes_a_record),
		cmocka_unit_test(test_destroy_under_a_queued_wait),
		cmocka_unit_test(test_ids_and_bad_inputs),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
