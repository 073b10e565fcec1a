// SPDX-License-Identifier: MIT
/*
 * Device state callbacks (aclrtRegDeviceStateCallback): a named hook runs
 * with SET_PRE / SET_POST around every aclrtSetDevice and RESET_PRE /
 * RESET_POST around aclrtResetDevice and aclrtResetDeviceForce, in the
 * calling thread, in registration order; not for an invalid device id, and
 * no POST after a failed call. A NULL callback unregisters; a name cannot
 * be registered twice; every bad-input row with its exact code.
 */
#include <string.h>

#include "rt_test.h"

#define MAX_EVENTS 16

struct event {
	int32_t device;
	aclrtDeviceState state;
	void *args;
	int hook;	/* 1 or 2: which hook */
};

static struct event g_events[MAX_EVENTS];
static int g_nevents;
static int g_tag1, g_tag2;

static void record(int hook, int32_t device, aclrtDeviceState state, void *args)
{
	if (g_nevents < MAX_EVENTS) {
		g_events[g_nevents].device = device;
		g_events[g_nevents].state = state;
		g_events[g_nevents].args = args;
		g_events[g_nevents].hook = hook;
	}
	g_nevents++;
}

static void hook1(int32_t device, aclrtDeviceState state, void *args)
{
	record(1, device, state, args);
}

static void hook2(int32_t device, aclrtDeviceState state, void *args)
{
	record(2, device, state, args);
}

static void expect(int i, int hook, int32_t device, aclrtDeviceState state)
{
	assert_true(i < g_nevents);
	assert_int_equal(g_events[i].hook, hook);
	assert_int_equal(g_events[i].device, device);
	assert_int_equal(g_events[i].state, state);
	assert_ptr_equal(g_events[i].args, hook == 1 ? (void *)&g_tag1 : (void *)&g_tag2);
}

static void test_hooks_run_around_set_and_reset(void **state)
{
	const int32_t last = (int32_t)rt_device_count() - 1;

	(void)state;
	g_nevents = 0;
	ACL_OK(aclrtRegDeviceStateCallback("one", hook1, &g_tag1));
	ACL_OK(aclrtRegDeviceStateCallback("two", hook2, &g_tag2));

	ACL_OK(aclrtSetDevice(last));
	assert_int_equal(g_nevents, 4);
	expect(0, 1, last, ACL_RT_DEVICE_STATE_SET_PRE);
	expect(1, 2, last, ACL_RT_DEVICE_STATE_SET_PRE);
	expect(2, 1, last, ACL_RT_DEVICE_STATE_SET_POST);
	expect(3, 2, last, ACL_RT_DEVICE_STATE_SET_POST);

	/* Every call, not only the one that opens the device. */
	g_nevents = 0;
	ACL_OK(aclrtSetDevice(last));
	assert_int_equal(g_nevents, 4);
	g_nevents = 0;
	ACL_OK(aclrtResetDevice(last));
	assert_int_equal(g_nevents, 4);
	expect(0, 1, last, ACL_RT_DEVICE_STATE_RESET_PRE);
	expect(1, 2, last, ACL_RT_DEVICE_STATE_RESET_PRE);
	expect(2, 1, last, ACL_RT_DEVICE_STATE_RESET_POST);
	expect(3, 2, last, ACL_RT_DEVICE_STATE_RESET_POST);

	g_nevents = 0;
	ACL_OK(aclrtResetDeviceForce(last));
	assert_int_equal(g_nevents, 4);
	expect(0, 1, last, ACL_RT_DEVICE_STATE_RESET_PRE);
	expect(3, 2, last, ACL_RT_DEVICE_STATE_RESET_POST);

	/* An invalid id runs no hook. */
	g_nevents = 0;
	assert_int_equal(aclrtSetDevice(last + 100), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtResetDevice(-1), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(g_nevents, 0);

	/* NULL unregisters by name (an absent name is no error). */
	ACL_OK(aclrtRegDeviceStateCallback("one", NULL, NULL));
	ACL_OK(aclrtRegDeviceStateCallback("one", NULL, NULL));
	ACL_OK(aclrtSetDevice(0));
	assert_int_equal(g_nevents, 2);
	expect(0, 2, 0, ACL_RT_DEVICE_STATE_SET_PRE);
	expect(1, 2, 0, ACL_RT_DEVICE_STATE_SET_POST);
	ACL_OK(aclrtRegDeviceStateCallback("two", NULL, NULL));
	ACL_OK(aclrtResetDevice(0));
	assert_int_equal(g_nevents, 2);
}

static void test_bad_inputs(void **state)
{
	const char *m;

	(void)state;
	assert_int_equal(aclrtRegDeviceStateCallback(NULL, hook1, NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(aclGetRecentErrMsg());
	ACL_OK(aclrtRegDeviceStateCallback("dup", hook1, &g_tag1));
	/* A name is registered once, whatever the callback. */
	assert_int_equal(aclrtRegDeviceStateCallback("dup", hook2, &g_tag2),
			 ACL_ERROR_RT_PARAM_INVALID);
	m = aclGetRecentErrMsg();
	assert_non_null(m);
	assert_non_null(strstr(m, "dup"));
	ACL_OK(aclrtRegDeviceStateCallback("dup", NULL, NULL));
	/* Free again: registering works. */
	ACL_OK(aclrtRegDeviceStateCallback("dup", hook2, &g_tag2));
	ACL_OK(aclrtRegDeviceStateCallback("dup", NULL, NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hooks_run_around_set_and_reset),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
