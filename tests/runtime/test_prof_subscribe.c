// SPDX-License-Identifier: MIT
/*
 * Model subscription (acl/acl_prof.h with profiling/aprof_pub.h): a model
 * id registered on a device and subscribed gets one record per operator
 * run on that device's streams, read from the pipe and decoded with the
 * aclprofGetOp* readers (type, name, model id, times in order); operators
 * of another device are not its; aclprofModelUnSubscribe closes the pipe
 * (the reader sees its end); bad inputs get upstream's codes.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "aclnn_test.h"
#include "profiling/aprof_pub.h"

#define N 16

static void *g_a, *g_b, *g_o;
static aclrtStream g_stream;

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_a, N * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc(&g_b, N * 4, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_o, N * 4, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_a);
	aclrtFree(g_b);
	aclrtFree(g_o);
	aclrtDestroyStream(g_stream);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

/* g_o = g_a + g_b (add) or g_a * g_b, as N floats, waited for. */
static void run(int add)
{
	const int64_t shape[1] = { N };

	aclnn_test_run_float(g_stream, add, g_a, g_b, g_o, shape, 1);
}

static void test_records_of_the_subscribed_model(void **state)
{
	int fds[2];
	aclprofSubscribeConfig *cfg;
	size_t size = 0, len = 0;
	char buf[4096], type[64], name[64];
	ssize_t got;
	uint32_t num = 0;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(MsprofSetDeviceIdByGeModelIdx(7, 0), 0);
	cfg = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fds[1]);
	assert_non_null(cfg);
	ACL_OK(aclprofModelSubscribe(7, cfg));
	EXPECT_FAIL(aclprofModelSubscribe(7, cfg), ACL_ERROR_PROF_REPEAT_SUBSCRIBE);
	run(1);
	run(0);
	ACL_OK(aclprofGetOpDescSize(&size));
	assert_true(size > 0);
	got = read(fds[0], buf, sizeof(buf));
	assert_int_equal(got, (ssize_t)(2 * size));
	ACL_OK(aclprofGetOpNum(buf, (size_t)got, &num));
	assert_int_equal(num, 2);
	ACL_OK(aclprofGetOpTypeLen(buf, (size_t)got, 0, &len));
	assert_int_equal(len, strlen("Add") + 1);
	ACL_OK(aclprofGetOpType(buf, (size_t)got, 0, type, len));
	assert_string_equal(type, "Add");
	ACL_OK(aclprofGetOpNameLen(buf, (size_t)got, 1, &len));
	ACL_OK(aclprofGetOpName(buf, (size_t)got, 1, name, len));
	assert_string_equal(name, "aclnnMul");
	assert_int_equal(aclprofGetModelId(buf, (size_t)got, 1), 7);
	assert_true(aclprofGetOpStart(buf, (size_t)got, 0) > 0);
	assert_true(aclprofGetOpEnd(buf, (size_t)got, 0) >= aclprofGetOpStart(buf, (size_t)got, 0));
	assert_true(aclprofGetOpStart(buf, (size_t)got, 1) >= aclprofGetOpEnd(buf, (size_t)got, 0));
	assert_int_equal(aclprofGetOpDuration(buf, (size_t)got, 0),
			 aclprofGetOpEnd(buf, (size_t)got, 0) - aclprofGetOpStart(buf, (size_t)got, 0));

	/* Bad reads. */
	EXPECT_FAIL(aclprofGetOpType(buf, (size_t)got, 0, type, 3), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofGetOpNum(NULL, (size_t)got, &num), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofGetOpNum(buf, (size_t)got - 1, &num), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofGetOpNum(buf, (size_t)got, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofGetOpTypeLen(buf, (size_t)got, 2, &len), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofGetOpNameLen(buf, (size_t)got, 0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofGetOpDescSize(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofGetOpStart(buf, (size_t)got, 5), 0);
	assert_int_equal(aclprofGetModelId(NULL, 0, 0), 0);
	memset(buf, 0, size); /* not a record */
	EXPECT_FAIL(aclprofGetOpNum(buf, size, &num), ACL_ERROR_INVALID_PARAM);

	/* Unsubscribing closes the write end: the reader sees the end. */
	ACL_OK(aclprofModelUnSubscribe(7));
	assert_int_equal(read(fds[0], buf, sizeof(buf)), 0);
	close(fds[0]);
	EXPECT_FAIL(aclprofModelUnSubscribe(7), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclprofDestroySubscribeConfig(cfg));
	assert_int_equal(MsprofUnsetDeviceIdByGeModelIdx(7, 0), 0);
}

static void test_other_device_and_no_time(void **state)
{
	int fds[2];
	aclprofSubscribeConfig *cfg;
	char buf[512];
	ssize_t got;

	(void)state;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fcntl(fds[0], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(MsprofSetDeviceIdByGeModelIdx(3, 1), 0); /* device 1 */
	cfg = aclprofCreateSubscribeConfig(0, ACL_AICORE_NONE, &fds[1]);
	ACL_OK(aclprofModelSubscribe(3, cfg));
	run(1); /* device 0: not model 3's */
	assert_int_equal(read(fds[0], buf, sizeof(buf)), -1);
	ACL_OK(aclprofModelUnSubscribe(3));
	assert_int_equal(read(fds[0], buf, sizeof(buf)), 0);
	close(fds[0]);
	/* Registered again on device 0: its operators now. */
	assert_int_equal(MsprofUnsetDeviceIdByGeModelIdx(3, 1), 0);
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(MsprofSetDeviceIdByGeModelIdx(3, 0), 0);
	{
		aclprofSubscribeConfig *c2 = aclprofCreateSubscribeConfig(0, ACL_AICORE_NONE, &fds[1]);

		ACL_OK(aclprofModelSubscribe(3, c2));
		run(0);
		got = read(fds[0], buf, sizeof(buf));
		assert_true(got > 0);
		assert_int_equal(aclprofGetOpStart(buf, (size_t)got, 0), 0); /* no time info */
		assert_int_equal(aclprofGetModelId(buf, (size_t)got, 0), 3);
		ACL_OK(aclprofModelUnSubscribe(3));
		ACL_OK(aclprofDestroySubscribeConfig(c2));
	}
	close(fds[0]);
	ACL_OK(aclprofDestroySubscribeConfig(cfg));
	assert_int_equal(MsprofUnsetDeviceIdByGeModelIdx(3, 0), 0);
}

static void test_bad_inputs(void **state)
{
	int fd = -1, fds[2];
	aclprofSubscribeConfig *cfg;

	(void)state;
	assert_null(aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, NULL));
	assert_null(aclprofCreateSubscribeConfig(2, ACL_AICORE_NONE, &fd));
	assert_non_null(aclGetRecentErrMsg());
	EXPECT_FAIL(aclprofDestroySubscribeConfig(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofDestroySubscribeConfig((aclprofSubscribeConfig *)&fd),
		    ACL_ERROR_INVALID_PARAM);
	assert_int_equal(MsprofSetDeviceIdByGeModelIdx(1, 99), -1);
	assert_int_equal(MsprofUnsetDeviceIdByGeModelIdx(12345, 0), -1);
	assert_int_equal(pipe(fds), 0);
	cfg = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fds[1]);
	EXPECT_FAIL(aclprofModelSubscribe(12345, cfg), ACL_ERROR_INVALID_MODEL_ID);
	EXPECT_FAIL(aclprofModelUnSubscribe(12345), ACL_ERROR_INVALID_MODEL_ID);
	assert_int_equal(MsprofSetDeviceIdByGeModelIdx(5, 0), 0);
	EXPECT_FAIL(aclprofModelSubscribe(5, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclprofModelSubscribe(5, (aclprofSubscribeConfig *)&fd), ACL_ERROR_INVALID_PARAM);
	{
		aclprofSubscribeConfig *closed = aclprofCreateSubscribeConfig(1, ACL_AICORE_NONE, &fd);

		EXPECT_FAIL(aclprofModelSubscribe(5, closed), ACL_ERROR_INVALID_PARAM);
		ACL_OK(aclprofDestroySubscribeConfig(closed));
	}
	ACL_OK(aclprofDestroySubscribeConfig(cfg));
	EXPECT_FAIL(aclprofDestroySubscribeConfig(cfg), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(MsprofUnsetDeviceIdByGeModelIdx(5, 0), 0);
	close(fds[0]);
	close(fds[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_of_the_subscribed_model),
		cmocka_unit_test(test_other_device_and_no_time),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests_name("prof_subscribe", tests, group_setup, group_teardown);
}
