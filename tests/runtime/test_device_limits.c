// SPDX-License-Identifier: MIT
/*
 * Device limits (aclrtDeviceSetLimit, aclrtDeviceGetLimit): process-wide
 * values, 0 until set, read back as set; the SIMT limits are not supported
 * on the emulated device (it has no SIMT units); every bad-input row with
 * its exact code and a message.
 */
#include <string.h>

#include "rt_test.h"

static const aclrtDeviceLimit kSimd[] = {
	ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE,
	ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE,
};
static const aclrtDeviceLimit kSimt[] = {
	ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE,
	ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE,
	ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE,
};

static void *round_trip_thread(void *arg)
{
	size_t v = 1;

	(void)arg;
	/* No device or context needed; 0 until set. */
	for (size_t i = 0; i < sizeof(kSimd) / sizeof(kSimd[0]); i++) {
		v = 1;
		ACL_OK(aclrtDeviceGetLimit(kSimd[i], &v));
		assert_int_equal(v, 0);
	}
	ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 64 * 1024));
	ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, 1 << 20));
	/* The largest value accepted. */
	ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, UINT32_MAX));
	ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	assert_int_equal(v, UINT32_MAX);
	ACL_OK(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, 32 * 1024));
	return NULL;
}

/* Set in one thread, read in another: the values are the process's. */
static void test_round_trip_is_process_wide(void **state)
{
	size_t v = 0;

	(void)state;
	rt_run_in_thread(round_trip_thread, NULL);
	ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	assert_int_equal(v, 32 * 1024);
	ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_PRINTF_FIFO_SIZE_PER_CORE, &v));
	assert_int_equal(v, 1 << 20);
	/* A set device changes nothing. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	assert_int_equal(v, 32 * 1024);
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	assert_int_equal(v, 32 * 1024);
}

static void test_simt_limits_not_supported(void **state)
{
	size_t v = 7;

	(void)state;
	for (size_t i = 0; i < sizeof(kSimt) / sizeof(kSimt[0]); i++) {
		EXPECT_FAIL(aclrtDeviceSetLimit(kSimt[i], 1024), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		EXPECT_FAIL(aclrtDeviceGetLimit(kSimt[i], &v), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
		assert_int_equal(v, 7);
	}
}

static void test_bad_inputs(void **state)
{
	size_t v = 7;

	(void)state;
	/* The limit first, then the value. */
	EXPECT_FAIL(aclrtDeviceSetLimit((aclrtDeviceLimit)5, 1), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceSetLimit((aclrtDeviceLimit)-1, 1), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceSetLimit((aclrtDeviceLimit)5, (size_t)UINT32_MAX + 1),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, (size_t)UINT32_MAX + 1),
		    ACL_ERROR_INVALID_PARAM);
	/* Checked before the SIMT answer. */
	EXPECT_FAIL(aclrtDeviceSetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, (size_t)UINT32_MAX + 1),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetLimit((aclrtDeviceLimit)5, &v), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetLimit((aclrtDeviceLimit)-1, &v), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE, NULL),
		    ACL_ERROR_INVALID_PARAM);
	assert_int_equal(v, 7);
	/* A failed set leaves the value alone. */
	ACL_OK(aclrtDeviceGetLimit(ACL_RT_DEV_LIMIT_SIMD_STACK_SIZE, &v));
	assert_int_equal(v, 32 * 1024);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_is_process_wide),
		cmocka_unit_test(test_simt_limits_not_supported),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
