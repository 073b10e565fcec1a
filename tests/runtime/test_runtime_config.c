// SPDX-License-Identifier: MIT
/*
 * Runtime configuration: system parameters of the process
 * (aclrtSetSysParamOpt, aclrtGetSysParamOpt) and of a context
 * (aclrtCtxSetSysParamOpt, aclrtCtxGetSysParamOpt), device and stream
 * resource limits and the stream a thread takes its limits from, kernel
 * timeouts and aclrtSetOpWaitTimeout; then the init/finalize hooks
 * (aclInitCallbackRegister ...), aclsysGetCANNVersion and the CANN
 * attributes. Values read back, every bad-input row with its exact code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"

/* aclsysGetCANNVersion and ACL_OPT_STRONG_CONSISTENCY are deprecated, as
 * upstream's; their behaviour is still tested here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static char g_root[64];	/* a temporary CANN root for the version files */

/* ---- process system parameters ---------------------------------------- */

static void *sys_params_thread(void *arg)
{
	int64_t v = 77;

	(void)arg;
	/* No device or context needed; 0 until set. */
	for (int opt = 0; opt < 4; opt++) {
		v = 77;
		assert_int_equal(aclrtGetSysParamOpt((aclSysParamOpt)opt, &v), ACL_SUCCESS);
		assert_int_equal(v, 0);
	}
	assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 3), ACL_SUCCESS);
	assert_int_equal(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1), ACL_SUCCESS);
	return NULL;
}

static void test_sys_params(void **state)
{
	int64_t v = 77;

	(void)state;
	rt_run_in_thread(sys_params_thread, NULL);
	/* Process-wide: the other thread's settings are seen here. */
	ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 3);
	ACL_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v));
	assert_int_equal(v, 1);
	ACL_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1));
	ACL_OK(aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v));
	assert_int_equal(v, 1);
	ACL_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
	ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 0);

	/* Ranges: [0, 4) for DETERMINISTIC, [0, 2) for the others (107000). */
	EXPECT_FAIL(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, -1), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 2),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, INT64_MIN),
		    ACL_ERROR_RT_PARAM_INVALID);
	/* Options outside 0..3 (100000), NULL value (100000). */
	EXPECT_FAIL(aclrtSetSysParamOpt((aclSysParamOpt)4, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtSetSysParamOpt((aclSysParamOpt)-1, 0), ACL_ERROR_INVALID_PARAM);
	v = 77;
	EXPECT_FAIL(aclrtGetSysParamOpt((aclSysParamOpt)4, &v), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(v, 77);
	/* The failed sets changed nothing. */
	ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 0);
}

/* ---- context system parameters ---------------------------------------- */

static void *no_context_ctx_params(void *arg)
{
	int64_t v = 77;

	(void)arg;
	assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1),
			 ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
			 ACL_ERROR_RT_CONTEXT_NULL);
	/* The option is checked before the context. */
	assert_int_equal(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 1),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(v, 77);
	return NULL;
}

static void test_ctx_sys_params(void **state)
{
	aclrtContext explicit_ctx = NULL, primary = NULL;
	int64_t v = 77;

	(void)state;
	rt_run_in_thread(no_context_ctx_params, NULL);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetCurrentContext(&primary));
	/* Never set in this context: 107021, value untouched. */
	EXPECT_FAIL(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
		    ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
	assert_int_equal(v, 77);
	ACL_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 2));
	ACL_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 2);
	v = 77;
	EXPECT_FAIL(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v),
		    ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
	assert_int_equal(v, 77);

	/* Another context has its own settings. */
	ACL_OK(aclrtCreateContext(&explicit_ctx, 0));
	EXPECT_FAIL(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v),
		    ACL_ERROR_RT_SYSPARAMOPT_NOT_SET);
	ACL_OK(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1));
	ACL_OK(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1));
	ACL_OK(aclrtSetCurrentContext(primary));
	ACL_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 2);
	ACL_OK(aclrtSetCurrentContext(explicit_ctx));
	ACL_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 1);
	/* The process value is separate. */
	ACL_OK(aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 0);

	/* Bad rows: option 3 and beyond (100000), NULL (100000), range (107000). */
	EXPECT_FAIL(aclrtCtxSetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, 0),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtCtxGetSysParamOpt(ACL_OPT_ENABLE_KERNEL_EARLY_START, &v),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtCtxSetSysParamOpt((aclSysParamOpt)-1, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 4), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtCtxSetSysParamOpt(ACL_OPT_STRONG_CONSISTENCY, 2),
		    ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v));
	assert_int_equal(v, 1);

	/* A destroyed context's settings are gone with it; the thread has none. */
	ACL_OK(aclrtDestroyContext(explicit_ctx));
	EXPECT_FAIL(aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v), ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtSetCurrentContext(primary));
	ACL_OK(aclrtResetDevice(0));
}

/* ---- device resource limits -------------------------------------------- */

static void test_device_res_limits(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	uint32_t v = 77;

	(void)state;
	/* The device must be set in this process first (507033). */
	EXPECT_FAIL(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v),
		    ACL_ERROR_RT_DEV_SETUP_ERROR);
	EXPECT_FAIL(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 4),
		    ACL_ERROR_RT_DEV_SETUP_ERROR);
	EXPECT_FAIL(aclrtResetDeviceResLimit(0), ACL_ERROR_RT_DEV_SETUP_ERROR);
	assert_int_equal(v, 77);

	ACL_OK(aclrtSetDevice(0));
	/* Defaults: the hardware counts of aclrtGetDeviceInfo. */
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 24);
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 48);
	ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 10));
	ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 48));
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 10);
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 48);
	ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, 0));	/* 0 is accepted */
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 0);

	/* Bad rows, in upstream's order: negative id, type, other bad id, value. */
	v = 77;
	EXPECT_FAIL(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetDeviceResLimit(-1, (aclrtDevResLimitType)5, &v),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtGetDeviceResLimit(n, (aclrtDevResLimitType)5, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetDeviceResLimit(n, ACL_RT_DEV_RES_CUBE_CORE, &v),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtSetDeviceResLimit(-1, (aclrtDevResLimitType)2, 1),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtSetDeviceResLimit(0, (aclrtDevResLimitType)2, 1),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetDeviceResLimit(0, (aclrtDevResLimitType)-1, 1),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetDeviceResLimit(n, ACL_RT_DEV_RES_CUBE_CORE, 1),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 25),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, UINT32_MAX),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtResetDeviceResLimit(-1), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtResetDeviceResLimit(n), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(v, 77);
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 10);	/* the failed sets changed nothing */

	/* Reset: the hardware counts again. */
	ACL_OK(aclrtResetDeviceResLimit(0));
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 24);
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 48);

	/* A limit belongs to one open of the device: gone after a full reset. */
	ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 3));
	ACL_OK(aclrtResetDevice(0));
	EXPECT_FAIL(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v),
		    ACL_ERROR_RT_DEV_SETUP_ERROR);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 24);
	ACL_OK(aclrtResetDevice(0));
}

/* ---- stream resource limits and the thread's stream --------------------- */

static void *no_context_stream_limits(void *arg)
{
	aclrtStream s = arg;
	uint32_t v = 77;

	/* NULL means the default stream of the current context: there is none. */
	assert_int_equal(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, &v),
			 ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtSetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, 1),
			 ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtResetStreamResLimit(NULL), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtUseStreamResInCurrentThread(NULL), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtUnuseStreamResInCurrentThread(NULL), ACL_ERROR_RT_CONTEXT_NULL);
	/* Unbound and without a context: no device to take the limit of. */
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v),
			 ACL_ERROR_RT_CONTEXT_NULL);
	/* Bound to a stream with its own limit: that limit, no context needed. */
	assert_int_equal(aclrtUseStreamResInCurrentThread(s), ACL_SUCCESS);
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
	assert_int_equal(v, 5);
	/* ... but not for a type the stream has no limit of. */
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v),
			 ACL_ERROR_RT_CONTEXT_NULL);
	return NULL;
}

static void *other_thread_unbound(void *arg)
{
	uint32_t v = 77;

	(void)arg;
	/* The binding of the main thread is not this thread's. */
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v), ACL_SUCCESS);
	assert_int_equal(v, 12);
	assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
	return NULL;
}

static void test_stream_res_limits(void **state)
{
	aclrtStream s = NULL, s2 = NULL, def = NULL;
	uint32_t v = 77;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtCtxGetCurrentDefaultStream(&def));
	/* Without its own limit: the process limit, else the hardware count. */
	ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 24);
	ACL_OK(aclrtSetDeviceResLimit(0, ACL_RT_DEV_RES_CUBE_CORE, 12));
	ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 12);
	/* Its own limit may exceed the process limit, not the hardware. */
	ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 20));
	ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 20);
	ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 48);
	ACL_OK(aclrtGetStreamResLimit(s2, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 12);
	/* NULL is the default stream. */
	ACL_OK(aclrtSetStreamResLimit(NULL, ACL_RT_DEV_RES_VECTOR_CORE, 7));
	ACL_OK(aclrtGetStreamResLimit(def, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 7);
	ACL_OK(aclrtResetStreamResLimit(def));
	ACL_OK(aclrtGetStreamResLimit(NULL, ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 48);

	/* Bad rows. */
	v = 77;
	EXPECT_FAIL(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetStreamResLimit(s, (aclrtDevResLimitType)2, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetStreamResLimit(s, (aclrtDevResLimitType)2, 1),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 25),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_VECTOR_CORE, 49),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetStreamResLimit((aclrtStream)&v, ACL_RT_DEV_RES_CUBE_CORE, &v),
		    ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_FAIL(aclrtUseStreamResInCurrentThread((aclrtStream)&v), ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_FAIL(aclrtUnuseStreamResInCurrentThread((aclrtStream)&v),
		    ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_FAIL(aclrtResetStreamResLimit((aclrtStream)&v), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(v, 77);
	ACL_OK(aclrtGetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 20);

	/* The thread's stream: its limit, else the process limit of the device. */
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 12);
	ACL_OK(aclrtUseStreamResInCurrentThread(s));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 20);
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
	assert_int_equal(v, 48);
	rt_run_in_thread(other_thread_unbound, NULL);
	/* Unbinding another stream is accepted and changes nothing. */
	ACL_OK(aclrtUnuseStreamResInCurrentThread(s2));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 20);
	/* Last call wins. */
	ACL_OK(aclrtUseStreamResInCurrentThread(s2));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 12);
	ACL_OK(aclrtUseStreamResInCurrentThread(s));
	ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 12);
	/* NULL binds the default stream. */
	ACL_OK(aclrtSetStreamResLimit(NULL, ACL_RT_DEV_RES_CUBE_CORE, 2));
	ACL_OK(aclrtUseStreamResInCurrentThread(NULL));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 2);
	ACL_OK(aclrtUnuseStreamResInCurrentThread(def));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 12);
	/* A destroyed bound stream: back to the process limit. */
	ACL_OK(aclrtUseStreamResInCurrentThread(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
	assert_int_equal(v, 12);
	EXPECT_FAIL(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 1),
		    ACL_ERROR_RT_INVALID_HANDLE);
	EXPECT_FAIL(aclrtResetStreamResLimit(s), ACL_ERROR_RT_INVALID_HANDLE);
	v = 77;
	EXPECT_FAIL(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetResInCurrentThread((aclrtDevResLimitType)2, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(v, 77);

	/* A thread without a context, bound to s2 (with its own cube limit). */
	ACL_OK(aclrtSetStreamResLimit(s2, ACL_RT_DEV_RES_CUBE_CORE, 5));
	rt_run_in_thread(no_context_stream_limits, s2);

	ACL_OK(aclrtDestroyStream(s2));
	ACL_OK(aclrtResetDevice(0));
}

/* ---- concurrent use ------------------------------------------------------ */

struct setter_arg {
	aclrtContext ctx;
	int64_t value;	/* this thread's DETERMINISTIC value, 0..3 */
	int failures;
};

/* Each thread sets its own context's option and the process option, and
 * reads its context's back: it must always be its own value. */
static void *setter_thread(void *p)
{
	struct setter_arg *a = p;
	int64_t v = -1;

	if (aclrtSetCurrentContext(a->ctx) != ACL_SUCCESS) {
		a->failures++;
		return NULL;
	}
	for (int i = 0; i < 2000; i++) {
		if (aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, a->value) != ACL_SUCCESS ||
		    aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, a->value) != ACL_SUCCESS ||
		    aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v) != ACL_SUCCESS ||
		    v != a->value || aclrtGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v) != ACL_SUCCESS ||
		    v < 0 || v > 3)
			a->failures++;
	}
	return NULL;
}

static void test_concurrent_settings(void **state)
{
	struct setter_arg args[4];
	pthread_t t[4];

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	for (int i = 0; i < 4; i++) {
		args[i].value = i;
		args[i].failures = 0;
		ACL_OK(aclrtCreateContext(&args[i].ctx, 0));
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, setter_thread, &args[i]), 0);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(t[i], NULL), 0);
		assert_int_equal(args[i].failures, 0);
	}
	for (int i = 0; i < 4; i++)
		ACL_OK(aclrtDestroyContext(args[i].ctx));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtResetDevice(0));
}

/* ---- kernel timeouts ----------------------------------------------------- */

static void test_op_timeouts(void **state)
{
	uint64_t interval = 0, actual = 0;
	uint32_t ms = 0;

	(void)state;
	/* Never set: none. */
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, UINT32_MAX);
	ACL_OK(aclrtGetOpTimeOutInterval(&interval));
	assert_int_equal(interval, 1000000);	/* 1 s, in microseconds */

	ACL_OK(aclrtSetOpExecuteTimeOut(3));
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, 3000);
	/* Rounded up to whole intervals, at most 254 of them; 0 is the maximum. */
	ACL_OK(aclrtSetOpExecuteTimeOutWithMs(1500));
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, 2000);
	ACL_OK(aclrtSetOpExecuteTimeOutWithMs(1));
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, 1000);
	ACL_OK(aclrtSetOpExecuteTimeOut(0));
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, 254000);
	ACL_OK(aclrtSetOpExecuteTimeOut(UINT32_MAX));
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, 254000);
	ACL_OK(aclrtSetOpExecuteTimeOutWithMs(0));
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, 254000);
	/* V2: microseconds, the applied value written back; 0 is never. */
	ACL_OK(aclrtSetOpExecuteTimeOutV2(2500000, &actual));
	assert_int_equal(actual, 3000000);
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, 3000);
	ACL_OK(aclrtSetOpExecuteTimeOutV2(UINT64_MAX, &actual));
	assert_int_equal(actual, 254000000);
	ACL_OK(aclrtSetOpExecuteTimeOutV2(0, &actual));
	assert_int_equal(actual, UINT64_MAX);
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, UINT32_MAX);

	EXPECT_FAIL(aclrtSetOpExecuteTimeOutV2(1, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetOpTimeOutInterval(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetOpExecuteTimeout(NULL), ACL_ERROR_INVALID_PARAM);
	/* The rejected V2 call changed nothing. */
	ACL_OK(aclrtGetOpExecuteTimeout(&ms));
	assert_int_equal(ms, UINT32_MAX);

	ACL_OK(aclrtSetOpWaitTimeout(0));
	ACL_OK(aclrtSetOpWaitTimeout(30));
}

/* ---- init and finalize hooks --------------------------------------------- */

static int g_init_calls, g_fin_calls;
static char g_init_config[256];
static size_t g_init_len;
static void *g_init_user, *g_fin_user;
static aclError g_init_rc;

static aclError init_hook(const char *config, size_t len, void *user)
{
	g_init_calls++;
	g_init_len = len;
	g_init_user = user;
	snprintf(g_init_config, sizeof(g_init_config), "%s", config ? config : "(null)");
	return g_init_rc;
}

static aclError reentering_init_hook(const char *config, size_t len, void *user)
{
	(void)config;
	(void)len;
	*(aclError *)user = aclInit(NULL);
	return ACL_SUCCESS;
}

static aclError fin_hook(void *user)
{
	g_fin_calls++;
	g_fin_user = user;
	return ACL_SUCCESS;
}

static void test_init_finalize_hooks(void **state)
{
	static const char json[] = "{\"dump\": {}}";
	char path[128];
	int user1, user2;
	aclError inner = -1;
	uint64_t refs = 7;
	FILE *f;

	(void)state;
	snprintf(path, sizeof(path), "%s/acl.json", g_root);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(json, f);
	fclose(f);

	/* Bad rows. */
	EXPECT_FAIL(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, NULL, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclInitCallbackRegister((aclRegisterCallbackType)8, init_hook, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclInitCallbackUnRegister((aclRegisterCallbackType)-1, init_hook),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, NULL, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclFinalizeCallbackRegister((aclRegisterCallbackType)0x10000, fin_hook, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, NULL),
		    ACL_ERROR_INVALID_PARAM);
	/* Removing a hook that is not there does nothing. */
	ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, init_hook));
	ACL_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_ACL_DVPP, fin_hook));

	/* Registered twice: called once, with the newer user data. */
	ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_hook, &user1));
	ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_MODEL, init_hook, &user2));
	ACL_OK(aclFinalizeCallbackRegister(ACL_REG_TYPE_OTHER, fin_hook, &user1));
	ACL_OK(aclInit(path));
	assert_int_equal(g_init_calls, 1);
	assert_string_equal(g_init_config, json);
	assert_int_equal(g_init_len, strlen(json));
	assert_ptr_equal(g_init_user, &user2);
	assert_int_equal(g_fin_calls, 0);
	/* A repeated aclInit does not call the hooks again. */
	assert_int_equal(aclInit(path), ACL_ERROR_REPEAT_INITIALIZE);
	assert_int_equal(g_init_calls, 1);
	ACL_OK(aclFinalizeReference(&refs));
	assert_int_equal(refs, 1);
	assert_int_equal(g_fin_calls, 0);
	ACL_OK(aclFinalizeReference(&refs));
	assert_int_equal(refs, 0);
	assert_int_equal(g_fin_calls, 1);
	assert_ptr_equal(g_fin_user, &user1);

	/* A failing init hook fails aclInit with its code; nothing is initialised. */
	g_init_rc = ACL_ERROR_INVALID_FILE;
	EXPECT_FAIL(aclInit(path), ACL_ERROR_INVALID_FILE);
	assert_int_equal(g_init_calls, 2);
	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	assert_int_equal(g_fin_calls, 1);
	g_init_rc = ACL_SUCCESS;

	/* A hook may not re-enter aclInit. */
	ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_OTHER, reentering_init_hook, &inner));
	ACL_OK(aclInit(path));
	assert_int_equal(inner, ACL_ERROR_INVALID_PARAM);
	assert_int_equal(g_init_calls, 3);
	ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_OTHER, reentering_init_hook));
	ACL_OK(aclFinalize());
	assert_int_equal(g_fin_calls, 2);

	/* Unregistered: not called any more; the same function under another
	 * type is another hook. */
	ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_MODEL, init_hook));
	ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_RETR, init_hook, NULL));
	ACL_OK(aclFinalizeCallbackUnRegister(ACL_REG_TYPE_OTHER, fin_hook));
	ACL_OK(aclInit(path));
	assert_int_equal(g_init_calls, 4);
	assert_null(g_init_user);
	ACL_OK(aclFinalize());
	assert_int_equal(g_fin_calls, 2);
	ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_RETR, init_hook));
	ACL_OK(aclInit(path));
	assert_int_equal(g_init_calls, 4);
	ACL_OK(aclFinalize());
}

/* ---- fork -------------------------------------------------------------- */

static int g_child_hook_calls;

static aclError child_init_hook(const char *config, size_t len, void *user)
{
	(void)config;
	(void)len;
	(void)user;
	g_child_hook_calls++;
	return ACL_SUCCESS;
}

/* In the child: the process settings and hooks are kept, the thread's bound
 * stream (a handle of the parent's) is not. */
static int fork_child_checks(void)
{
	int64_t v = -1;
	uint32_t ms = 0, cores = 0;

	if (aclrtGetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, &v) != ACL_SUCCESS || v != 1)
		return 10;
	if (aclrtGetOpExecuteTimeout(&ms) != ACL_SUCCESS || ms != 5000)
		return 11;
	if (aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cores) !=
	    ACL_ERROR_RT_CONTEXT_NULL)
		return 12;
	if (aclInit(NULL) != ACL_SUCCESS)
		return 13;
	if (g_child_hook_calls != 1)
		return 14;
	return 0;
}

static void test_fork_keeps_process_settings(void **state)
{
	aclrtStream s = NULL;
	uint32_t cores = 0;
	int status = 0;
	pid_t pid;

	(void)state;
	ACL_OK(aclrtSetSysParamOpt(ACL_OPT_ENABLE_DEBUG_KERNEL, 1));
	ACL_OK(aclrtSetOpExecuteTimeOut(5));
	ACL_OK(aclInitCallbackRegister(ACL_REG_TYPE_ACL_TDT_QUEUE, child_init_hook, NULL));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtSetStreamResLimit(s, ACL_RT_DEV_RES_CUBE_CORE, 3));
	ACL_OK(aclrtUseStreamResInCurrentThread(s));
	ACL_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &cores));
	assert_int_equal(cores, 3);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fork_child_checks());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(g_child_hook_calls, 0);	/* the parent did not init */
	ACL_OK(aclInitCallbackUnRegister(ACL_REG_TYPE_ACL_TDT_QUEUE, child_init_hook));
	ACL_OK(aclrtUnuseStreamResInCurrentThread(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtResetDevice(0));
}

/* ---- CANN package versions and attributes -------------------------------- */

static void write_info(const char *pkg, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/share", g_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info", g_root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info/%s", g_root, pkg);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/share/info/%s/version.info", g_root, pkg);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_cann_version(void **state)
{
	aclCANNPackageVersion v;

	(void)state;
	setenv("ASCEND_HOME_PATH", g_root, 1);
	write_info("runtime", "Version=8.5.0-rc.1\n");
	memset(&v, 0x5a, sizeof(v));
	ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, &v));
	assert_string_equal(v.version, "8.5.0.rc1");
	assert_string_equal(v.majorVersion, "8");
	assert_string_equal(v.minorVersion, "5");
	assert_string_equal(v.releaseVersion, "0");
	assert_string_equal(v.patchVersion, "rc1");
	assert_int_equal(v.reserved[0], 0);	/* the struct is zeroed */
	assert_int_equal(v.version[sizeof(v.version) - 1], 0);

	/* Missing parts are "0"; ops-legacy is found as ops_legacy. */
	write_info("ops_legacy", "Version=7.1\n");
	ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_OPP_KERNEL, &v));
	assert_string_equal(v.version, "7.1");
	assert_string_equal(v.minorVersion, "1");
	assert_string_equal(v.releaseVersion, "0");
	assert_string_equal(v.patchVersion, "0");
	write_info("hccl", "Version=9.0.0\n");
	ACL_OK(aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v));
	assert_string_equal(v.version, "9.0.0");

	/* Fewer than two parts, no file: 100003; unknown name, NULL: 100000. */
	write_info("hccl", "Version=9\n");
	memset(&v, 0x5a, sizeof(v));
	EXPECT_FAIL(aclsysGetCANNVersion(ACL_PKG_NAME_HCCL, &v), ACL_ERROR_INVALID_FILE);
	EXPECT_FAIL(aclsysGetCANNVersion(ACL_PKG_NAME_COMPILER, &v), ACL_ERROR_INVALID_FILE);
	EXPECT_FAIL(aclsysGetCANNVersion((aclCANNPackageName)8, &v), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclsysGetCANNVersion((aclCANNPackageName)-1, &v), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclsysGetCANNVersion(ACL_PKG_NAME_CANN, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal((uint8_t)v.version[0], 0x5a);
	unsetenv("ASCEND_HOME_PATH");
	EXPECT_FAIL(aclsysGetCANNVersion(ACL_PKG_NAME_RUNTIME, &v), ACL_ERROR_INVALID_FILE);
}

static void test_cann_attributes(void **state)
{
	const aclCannAttr *list = NULL;
	size_t num = 0;
	int32_t v = 7;

	(void)state;
	ACL_OK(aclGetCannAttributeList(&list, &num));
	assert_int_equal(num, 2);
	assert_int_equal(list[0], ACL_CANN_ATTR_INF_NAN);
	assert_int_equal(list[1], ACL_CANN_ATTR_BF16);
	ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_INF_NAN, &v));
	assert_int_equal(v, 1);
	ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_BF16, &v));
	assert_int_equal(v, 1);
	ACL_OK(aclGetCannAttribute(ACL_CANN_ATTR_JIT_COMPILE, &v));
	assert_int_equal(v, 0);
	v = 7;
	EXPECT_FAIL(aclGetCannAttributeList(NULL, &num), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclGetCannAttributeList(&list, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclGetCannAttribute(ACL_CANN_ATTR_UNDEFINED, &v), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclGetCannAttribute((aclCannAttr)3, &v), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclGetCannAttribute(ACL_CANN_ATTR_BF16, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(v, 7);
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(g_root, sizeof(g_root), "/tmp/npu-test-rtconfig-XXXXXX");
	return mkdtemp(g_root) ? 0 : -1;
}

static int group_teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_root);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	/* test_op_timeouts first: it sees the process before any timeout is set. */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_op_timeouts),
		cmocka_unit_test(test_sys_params),
		cmocka_unit_test(test_ctx_sys_params),
		cmocka_unit_test(test_device_res_limits),
		cmocka_unit_test(test_stream_res_limits),
		cmocka_unit_test(test_fork_keeps_process_settings),
		cmocka_unit_test(test_concurrent_settings),
		cmocka_unit_test(test_cann_version),
		cmocka_unit_test(test_cann_attributes),
		cmocka_unit_test(test_init_finalize_hooks),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
