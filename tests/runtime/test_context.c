// SPDX-License-Identifier: MIT
/*
 * Contexts: aclrtCreateContext, aclrtDestroyContext, aclrtSetCurrentContext,
 * aclrtGetCurrentContext beside the primary context of aclrtSetDevice.
 * An explicit context becomes current when made, owns its streams, shares
 * its device's memory, can be current in several threads, and dies with
 * aclrtDestroyContext or with a reset of its device; and every bad-input row.
 * Each test sets and resets the devices it needs itself.
 */
#include <string.h>

#include "rt_test.h"

enum { kSize = 1 << 20 };

static void test_create_makes_current_and_set_switches(void **state)
{
	aclrtContext primary = NULL, ctx = NULL, cur = NULL;
	int32_t dev = -1;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	assert_non_null(primary);
	ACL_OK(aclrtCreateContext(&ctx, 0));
	assert_non_null(ctx);
	assert_ptr_not_equal(ctx, primary);
	ACL_OK(aclrtGetCurrentContext(&cur));
	assert_ptr_equal(cur, ctx);
	ACL_OK(aclrtGetDevice(&dev));
	assert_int_equal(dev, 0);

	ACL_OK(aclrtSetCurrentContext(primary));
	ACL_OK(aclrtGetCurrentContext(&cur));
	assert_ptr_equal(cur, primary);
	/* Last call wins, repeatedly. */
	ACL_OK(aclrtSetCurrentContext(ctx));
	ACL_OK(aclrtSetCurrentContext(ctx));
	ACL_OK(aclrtGetCurrentContext(&cur));
	assert_ptr_equal(cur, ctx);
	/* aclrtSetDevice makes the primary context current again. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&cur));
	assert_ptr_equal(cur, primary);

	ACL_OK(aclrtDestroyContext(ctx));
	assert_int_equal(aclrtSetCurrentContext(ctx), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "not a live context"));
	assert_int_equal(aclrtDestroyContext(ctx), ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtResetDevice(0));
}

static void test_destroying_the_current_context_leaves_none(void **state)
{
	aclrtContext ctx = NULL, cur = NULL;
	aclrtStream s = NULL;
	void *p = NULL;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtCreateContext(&ctx, 0));
	ACL_OK(aclrtDestroyContext(ctx));
	/* Not the primary context either: no context until set again. */
	assert_int_equal(aclrtGetCurrentContext(&cur), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtCreateStream(&s), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSynchronizeDevice(), ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&cur));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtResetDevice(0));
}

static void test_primary_context_is_not_destroyed(void **state)
{
	aclrtContext primary = NULL, cur = NULL;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	assert_int_equal(aclrtDestroyContext(primary), ACL_ERROR_RT_CONTEXT_NULL);
	assert_non_null(strstr(aclGetRecentErrMsg(), "primary context"));
	ACL_OK(aclrtGetCurrentContext(&cur));
	assert_ptr_equal(cur, primary);
	ACL_OK(aclrtResetDevice(0));
	/* Reset released it: its handle is dead. */
	assert_int_equal(aclrtSetCurrentContext(primary), ACL_ERROR_RT_PARAM_INVALID);
}

/* Memory belongs to the device: what one context writes, another reads. */
static void test_contexts_of_a_device_share_its_memory(void **state)
{
	aclrtContext primary = NULL, ctx = NULL;
	static uint8_t in[kSize], out[kSize];
	void *dev = NULL;

	(void)state;
	rt_fill_pattern(in, sizeof(in), 7);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	ACL_OK(aclrtCreateContext(&ctx, 0));
	ACL_OK(aclrtMalloc(&dev, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(dev, kSize, in, kSize, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtSetCurrentContext(primary));
	memset(out, 0, sizeof(out));
	ACL_OK(aclrtMemcpy(out, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(in, out, kSize);
	/* Destroying the context that allocated it does not free it. */
	ACL_OK(aclrtDestroyContext(ctx));
	memset(out, 0, sizeof(out));
	ACL_OK(aclrtMemcpy(out, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(in, out, kSize);
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtResetDevice(0));
}

struct copy_arg {
	void *dev;
	aclrtStream stream;
	aclError rc;
};

/* A D2D copy within arg->dev on arg->stream, in a thread of its own. */
static void *copy_on_stream_thread(void *p)
{
	struct copy_arg *arg = p;

	arg->rc = aclrtMemcpyAsync(arg->dev, 64, (char *)arg->dev + 64, 64,
				   ACL_MEMCPY_DEVICE_TO_DEVICE, arg->stream);
	return NULL;
}

static void test_streams_belong_to_their_context(void **state)
{
	aclrtContext primary = NULL, ctx = NULL;
	aclrtStream s = NULL;
	aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
	void *dev = NULL;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtCreateContext(&ctx, 0));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMemsetAsync(dev, 4096, 0x5a, 4096, s));
	ACL_OK(aclrtSetCurrentContext(primary));
	assert_int_equal(aclrtMemsetAsync(dev, 4096, 0, 4096, s), ACL_ERROR_RT_STREAM_CONTEXT);
	assert_non_null(strstr(aclGetRecentErrMsg(), "another context"));
	/* The same for a copy within the stream's device (its quickest path). */
	assert_int_equal(aclrtMemcpyAsync(dev, 64, (char *)dev + 64, 64,
					  ACL_MEMCPY_DEVICE_TO_DEVICE, s),
			 ACL_ERROR_RT_STREAM_CONTEXT);
	/* And in a thread with no current context, it is that error. */
	struct copy_arg copy = { .dev = dev, .stream = s };
	rt_run_in_thread(copy_on_stream_thread, &copy);
	assert_int_equal(copy.rc, ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_STREAM_CONTEXT);
	/* aclrtSynchronizeDevice covers every context of the device. */
	ACL_OK(aclrtSynchronizeDevice());
	ACL_OK(aclrtStreamQuery(s, &st));
	assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
	/* Destroying the context destroys its streams. */
	ACL_OK(aclrtDestroyContext(ctx));
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
	uint8_t b[4096];
	ACL_OK(aclrtMemcpy(b, sizeof(b), dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(b, sizeof(b), 0x5a), sizeof(b));
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtResetDevice(0));
}

/* An event recorded in one context orders a stream of another. */
static void test_event_orders_streams_of_two_contexts(void **state)
{
	aclrtContext primary = NULL, ctx = NULL;
	aclrtStream s1 = NULL, s2 = NULL;
	aclrtEvent ev = NULL;
	void *a = NULL, *b = NULL;
	static uint8_t out[kSize];

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	ACL_OK(aclrtMalloc(&a, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtCreateEvent(&ev));
	ACL_OK(aclrtCreateContext(&ctx, 0));
	ACL_OK(aclrtCreateStream(&s1));
	for (int i = 0; i < 8; i++)
		ACL_OK(aclrtMemsetAsync(a, kSize, (int32_t)(0x10 + i), kSize, s1));
	ACL_OK(aclrtRecordEvent(ev, s1));
	ACL_OK(aclrtSetCurrentContext(primary));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtStreamWaitEvent(s2, ev));
	ACL_OK(aclrtMemcpyAsync(b, kSize, a, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
	ACL_OK(aclrtSynchronizeStream(s2));
	ACL_OK(aclrtMemcpy(out, kSize, b, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(out, kSize, 0x17), kSize);
	ACL_OK(aclrtDestroyStream(s2));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyContext(ctx));
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
	ACL_OK(aclrtResetDevice(0));
}

struct thread_arg {
	aclrtContext ctx;
	void *dev;
	aclError rc_get, rc_copy, rc_set;
	aclrtContext seen;
};

static void *use_context_thread(void *p)
{
	struct thread_arg *arg = p;
	aclrtContext none = NULL;
	uint8_t b[256];

	arg->rc_get = aclrtGetCurrentContext(&none);
	arg->rc_set = aclrtSetCurrentContext(arg->ctx);
	if (arg->rc_set == ACL_SUCCESS) {
		aclrtGetCurrentContext(&arg->seen);
		arg->rc_copy = aclrtMemcpy(b, sizeof(b), arg->dev, sizeof(b),
					   ACL_MEMCPY_DEVICE_TO_HOST);
		if (arg->rc_copy == ACL_SUCCESS && rt_first_not(b, sizeof(b), 0x33) != sizeof(b))
			arg->rc_copy = -1;
	}
	return NULL;
}

static void test_context_current_in_another_thread(void **state)
{
	struct thread_arg arg = { 0 };

	(void)state;
	/* No aclrtSetDevice at all: the explicit context brings the device up. */
	ACL_OK(aclrtCreateContext(&arg.ctx, 0));
	ACL_OK(aclrtMalloc(&arg.dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(arg.dev, 4096, 0x33, 4096));
	rt_run_in_thread(use_context_thread, &arg);
	assert_int_equal(arg.rc_get, ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(arg.rc_set, ACL_SUCCESS);
	assert_ptr_equal(arg.seen, arg.ctx);
	assert_int_equal(arg.rc_copy, ACL_SUCCESS);
	/* It is not an aclrtSetDevice reference. */
	assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
	ACL_OK(aclrtFree(arg.dev));
	ACL_OK(aclrtDestroyContext(arg.ctx));
	/* A thread bound to a destroyed context finds it invalid. */
	arg.rc_set = ACL_SUCCESS;
	rt_run_in_thread(use_context_thread, &arg);
	assert_int_equal(arg.rc_set, ACL_ERROR_RT_PARAM_INVALID);
}

/* A reset that tears the device down destroys its explicit contexts. */
static void test_reset_destroys_explicit_contexts(void **state)
{
	aclrtContext ctx = NULL;
	aclrtStream s = NULL;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtCreateContext(&ctx, 0));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtResetDeviceForce(0));
	assert_int_equal(aclrtSetCurrentContext(ctx), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtDestroyContext(ctx), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSynchronizeStream(s), ACL_ERROR_RT_INVALID_HANDLE);
}

static void test_context_on_another_device_switches_device(void **state)
{
	aclrtContext primary = NULL, ctx = NULL;
	int32_t dev = -1;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	ACL_OK(aclrtCreateContext(&ctx, 1));
	ACL_OK(aclrtGetDevice(&dev));
	assert_int_equal(dev, 1);
	ACL_OK(aclrtSetCurrentContext(primary));
	ACL_OK(aclrtGetDevice(&dev));
	assert_int_equal(dev, 0);
	ACL_OK(aclrtSetCurrentContext(ctx));
	ACL_OK(aclrtGetDevice(&dev));
	assert_int_equal(dev, 1);
	ACL_OK(aclrtDestroyContext(ctx));
	ACL_OK(aclrtResetDevice(0));
}

/* The default stream as a handle, and the primary context's state. */
static void test_default_stream_and_primary_state(void **state)
{
	aclrtContext ctx = NULL;
	aclrtStream def = NULL, def2 = NULL;
	int32_t active = -1;
	uint32_t flags = 0;
	void *dev = NULL;

	(void)state;
	ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	assert_int_equal(active, 0);
	assert_int_equal(aclrtCtxGetCurrentDefaultStream(&def), ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	assert_int_equal(active, 1);
	ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
	assert_non_null(def);
	/* Usable wherever NULL is, and not destroyable. */
	ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemsetAsync(dev, 4096, 0x44, 4096, def));
	ACL_OK(aclrtSynchronizeStream(def));
	assert_int_equal(aclrtDestroyStream(def), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "default stream"));
	ACL_OK(aclrtSynchronizeStream(NULL));
	/* Each context has its own. */
	ACL_OK(aclrtCreateContext(&ctx, 0));
	ACL_OK(aclrtCtxGetCurrentDefaultStream(&def2));
	assert_ptr_not_equal(def, def2);
	assert_int_equal(aclrtMemsetAsync(dev, 4096, 0, 4096, def), ACL_ERROR_RT_STREAM_CONTEXT);
	ACL_OK(aclrtDestroyContext(ctx));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtFree(dev));

	assert_int_equal(aclrtCtxGetCurrentDefaultStream(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetPrimaryCtxState(0, NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetPrimaryCtxState(0, &flags, &active), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetPrimaryCtxState(-1, NULL, &active), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtGetPrimaryCtxState((int32_t)rt_device_count(), NULL, &active),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtGetPrimaryCtxState(0, NULL, &active));
	assert_int_equal(active, 0);
}

static void test_bad_inputs(void **state)
{
	aclrtContext ctx = NULL, primary = NULL;
	aclrtStream s = NULL;
	uint32_t n = rt_device_count();

	(void)state;
	assert_int_equal(aclrtCreateContext(NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateContext(&ctx, -1), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtCreateContext(&ctx, (int32_t)n), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_null(ctx);
	assert_int_equal(aclrtDestroyContext(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetCurrentContext(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetCurrentContext(&ctx), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtDestroyContext((aclrtContext)(uintptr_t)0x1234),
			 ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSetCurrentContext((aclrtContext)(uintptr_t)0x1234),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* A stream handle is not a context, nor a context a stream. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(aclrtDestroyContext((aclrtContext)s), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSetCurrentContext((aclrtContext)s), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtSynchronizeStream((aclrtStream)primary), ACL_ERROR_RT_INVALID_HANDLE);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtResetDevice(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_create_makes_current_and_set_switches),
		cmocka_unit_test(test_destroying_the_current_context_leaves_none),
		cmocka_unit_test(test_primary_context_is_not_destroyed),
		cmocka_unit_test(test_contexts_of_a_device_share_its_memory),
		cmocka_unit_test(test_streams_belong_to_their_context),
		cmocka_unit_test(test_event_orders_streams_of_two_contexts),
		cmocka_unit_test(test_context_current_in_another_thread),
		cmocka_unit_test(test_reset_destroys_explicit_contexts),
		cmocka_unit_test(test_context_on_another_device_switches_device),
		cmocka_unit_test(test_default_stream_and_primary_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
