// SPDX-License-Identifier: MIT
/*
 * Exception information: a device task that fails (an asynchronous copy to
 * a freed device address, which the copy engine rejects) runs the callbacks
 * of aclrtExceptionInfoCallbackRegister and aclrtSetExceptionInfoCallback
 * once per failed task, in the thread of the call that waits for the
 * stream, before that call returns; the aclrtExceptionInfo carries the
 * task id, stream id, thread id, device id and the code that call returns.
 * Unregistering stops them; every bad-input row with its exact code.
 */
#define _GNU_SOURCE
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_test.h"

/* aclrtSetExceptionInfoCallback is deprecated, as upstream's; its
 * behaviour is still tested here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define N 4096
#define MAX_SEEN 8

struct seen {
	uint32_t task, stream, thread, device, code;
};

/* Written by the callbacks, which run in the test's thread. */
static int g_calls;
static struct seen g_seen[MAX_SEEN];
static int g_module_calls;
static struct seen g_module_seen;
static int g_other_calls;

static struct seen read_info(const aclrtExceptionInfo *info)
{
	struct seen s;

	s.task = aclrtGetTaskIdFromExceptionInfo(info);
	s.stream = aclrtGetStreamIdFromExceptionInfo(info);
	s.thread = aclrtGetThreadIdFromExceptionInfo(info);
	s.device = aclrtGetDeviceIdFromExceptionInfo(info);
	s.code = aclrtGetErrorCodeFromExceptionInfo(info);
	return s;
}

static void on_exception(aclrtExceptionInfo *info)
{
	if (g_calls < MAX_SEEN)
		g_seen[g_calls] = read_info(info);
	g_calls++;
}

static void on_exception_module(aclrtExceptionInfo *info)
{
	g_module_seen = read_info(info);
	g_module_calls++;
}

static void on_exception_other(aclrtExceptionInfo *info)
{
	(void)info;
	g_other_calls++;
}

static void reset_counts(void)
{
	g_calls = 0;
	g_module_calls = 0;
	g_other_calls = 0;
	memset(g_seen, 0, sizeof(g_seen));
	memset(&g_module_seen, 0, sizeof(g_module_seen));
}

struct fixture {
	aclrtStream stream;
	void *dev;	/* a live device buffer */
	void *freed;	/* a device address whose allocation was freed */
	int32_t stream_id;
};

static int setup(void **state)
{
	static struct fixture f;

	if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&f.stream) != ACL_SUCCESS ||
	    aclrtStreamGetId(f.stream, &f.stream_id) != ACL_SUCCESS ||
	    aclrtMalloc(&f.dev, N, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtMalloc(&f.freed, N, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtFree(f.freed) != ACL_SUCCESS)
		return -1;
	*state = &f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	(void)aclrtExceptionInfoCallbackUnregister(on_exception);
	(void)aclrtExceptionInfoCallbackUnregister(on_exception_other);
	(void)aclrtSetExceptionInfoCallback(NULL);
	if (aclrtFree(f->dev) != ACL_SUCCESS || aclrtDestroyStream(f->stream) != ACL_SUCCESS)
		return -1;
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

/*
 * Queues a copy the engine rejects (to the freed address) and returns its
 * task id (aclrtGetThreadLastTaskId right after queueing it).
 */
static uint32_t queue_failing_copy(struct fixture *f)
{
	uint32_t task = 0;

	ACL_OK(aclrtMemcpyAsync(f->freed, N, f->dev, N, ACL_MEMCPY_DEVICE_TO_DEVICE, f->stream));
	ACL_OK(aclrtGetThreadLastTaskId(&task));
	return task;
}

static void assert_seen(const struct seen *s, const struct fixture *f, uint32_t task,
			aclError code)
{
	assert_int_equal(s->task, task);
	assert_int_equal(s->stream, (uint32_t)f->stream_id);
	assert_int_equal(s->thread, (uint32_t)syscall(SYS_gettid));
	assert_int_equal(s->device, 0);
	assert_int_equal(s->code, (uint32_t)code);
}

/* One failed task: each callback once, with the failure's fields. */
static void test_failed_task_runs_each_callback_once(void **state)
{
	struct fixture *f = *state;
	uint32_t task;
	aclError rc;

	reset_counts();
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	/* A set: registering again does not make it run twice. */
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	ACL_OK(aclrtSetExceptionInfoCallback(on_exception_module));

	task = queue_failing_copy(f);
	/* Nothing is reported before a call waits for the stream. */
	assert_int_equal(g_calls, 0);
	rc = aclrtSynchronizeStream(f->stream);
	assert_int_not_equal(rc, ACL_SUCCESS);
	assert_int_equal(g_calls, 1);
	assert_int_equal(g_module_calls, 1);
	assert_seen(&g_seen[0], f, task, rc);
	assert_seen(&g_module_seen, f, task, rc);

	/* The failure is reported once: the next wait has nothing. */
	ACL_OK(aclrtSynchronizeStream(f->stream));
	assert_int_equal(g_calls, 1);
	assert_int_equal(g_module_calls, 1);

	ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
	ACL_OK(aclrtSetExceptionInfoCallback(NULL));
}

/* Two failed tasks before one wait: two calls, in task order. */
static void test_every_failed_task_is_reported(void **state)
{
	struct fixture *f = *state;
	uint32_t first, second;
	aclError rc;

	reset_counts();
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	first = queue_failing_copy(f);
	ACL_OK(aclrtMemcpyAsync(f->dev, N, f->dev, N, ACL_MEMCPY_DEVICE_TO_DEVICE, f->stream));
	second = queue_failing_copy(f);
	assert_true(second > first);
	/* aclrtSynchronizeDevice reports them as well. */
	rc = aclrtSynchronizeDevice();
	assert_int_not_equal(rc, ACL_SUCCESS);
	assert_int_equal(g_calls, 2);
	assert_seen(&g_seen[0], f, first, rc);
	assert_seen(&g_seen[1], f, second, rc);
	ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
}

/* Unregistering stops one callback; the others still run. */
static void test_unregister_stops_callbacks(void **state)
{
	struct fixture *f = *state;
	aclError rc;

	reset_counts();
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception_other));
	ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
	/* Unregistering one that is not registered changes nothing. */
	ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
	(void)queue_failing_copy(f);
	rc = aclrtSynchronizeStream(f->stream);
	assert_int_not_equal(rc, ACL_SUCCESS);
	assert_int_equal(g_calls, 0);
	assert_int_equal(g_other_calls, 1);

	ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception_other));
	(void)queue_failing_copy(f);
	assert_int_not_equal(aclrtSynchronizeStream(f->stream), ACL_SUCCESS);
	assert_int_equal(g_calls, 0);
	assert_int_equal(g_other_calls, 1);
	assert_int_equal(g_module_calls, 0);
}

struct sync_args {
	struct fixture *f;
	aclrtContext ctx;
	aclError rc;
	uint32_t tid;
};

static void *sync_in_thread(void *arg)
{
	struct sync_args *a = arg;

	ACL_OK(aclrtSetCurrentContext(a->ctx));
	a->tid = (uint32_t)syscall(SYS_gettid);
	a->rc = aclrtSynchronizeStream(a->f->stream);
	return NULL;
}

/* The callback runs in the thread that waits, whichever queued the task. */
static void test_callback_runs_in_the_waiting_thread(void **state)
{
	struct fixture *f = *state;
	struct sync_args a = { .f = f };
	uint32_t task;

	reset_counts();
	ACL_OK(aclrtGetCurrentContext(&a.ctx));
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	task = queue_failing_copy(f);
	rt_run_in_thread(sync_in_thread, &a);
	assert_int_not_equal(a.rc, ACL_SUCCESS);
	assert_int_equal(g_calls, 1);
	assert_int_equal(g_seen[0].thread, a.tid);
	assert_int_not_equal(g_seen[0].thread, (uint32_t)syscall(SYS_gettid));
	assert_int_equal(g_seen[0].task, task);
	assert_int_equal(g_seen[0].code, (uint32_t)a.rc);
	ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
}

static struct fixture *g_fixture;
static aclError g_inner_rc;

/* Calls back into the runtime: no runtime lock is held around it. */
static void on_exception_reentrant(aclrtExceptionInfo *info)
{
	char byte = 0;

	(void)info;
	g_calls++;
	g_inner_rc = aclrtExceptionInfoCallbackUnregister(on_exception_reentrant);
	if (g_inner_rc == ACL_SUCCESS)
		g_inner_rc = aclrtMemcpy(&byte, 1, g_fixture->dev, 1, ACL_MEMCPY_DEVICE_TO_HOST);
	if (g_inner_rc == ACL_SUCCESS)
		g_inner_rc = aclrtSynchronizeDevice();
}

static void test_callback_may_call_the_runtime(void **state)
{
	struct fixture *f = *state;

	reset_counts();
	g_fixture = f;
	g_inner_rc = -1;
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception_reentrant));
	(void)queue_failing_copy(f);
	assert_int_not_equal(aclrtSynchronizeStream(f->stream), ACL_SUCCESS);
	assert_int_equal(g_calls, 1);
	ACL_OK(g_inner_rc);
	/* It unregistered itself. */
	(void)queue_failing_copy(f);
	assert_int_not_equal(aclrtSynchronizeStream(f->stream), ACL_SUCCESS);
	assert_int_equal(g_calls, 1);
}

/* A successful stream runs no callback. */
static void test_success_reports_nothing(void **state)
{
	struct fixture *f = *state;

	reset_counts();
	ACL_OK(aclrtExceptionInfoCallbackRegister(on_exception));
	ACL_OK(aclrtMemcpyAsync(f->dev, N, f->dev, N, ACL_MEMCPY_DEVICE_TO_DEVICE, f->stream));
	ACL_OK(aclrtSynchronizeStream(f->stream));
	assert_int_equal(g_calls, 0);
	ACL_OK(aclrtExceptionInfoCallbackUnregister(on_exception));
}

static void expect_message(void)
{
	const char *m = aclGetRecentErrMsg();

	assert_non_null(m);
	assert_true(strlen(m) > 0);
}

static void test_bad_inputs(void **state)
{
	(void)state;
	/* NULL callbacks: the runtime's code, as upstream's ACL layer. */
	assert_int_equal(aclrtExceptionInfoCallbackRegister(NULL), ACL_ERROR_RT_PARAM_INVALID);
	expect_message();
	assert_int_equal(aclrtExceptionInfoCallbackUnregister(NULL), ACL_ERROR_RT_PARAM_INVALID);
	expect_message();
	/* The deprecated setter takes NULL: it clears the callback. */
	ACL_OK(aclrtSetExceptionInfoCallback(NULL));
	/* The getters answer 0xFFFFFFFF for a NULL info. */
	assert_int_equal(aclrtGetTaskIdFromExceptionInfo(NULL), UINT32_MAX);
	expect_message();
	assert_int_equal(aclrtGetStreamIdFromExceptionInfo(NULL), UINT32_MAX);
	expect_message();
	assert_int_equal(aclrtGetThreadIdFromExceptionInfo(NULL), UINT32_MAX);
	expect_message();
	assert_int_equal(aclrtGetDeviceIdFromExceptionInfo(NULL), UINT32_MAX);
	expect_message();
	assert_int_equal(aclrtGetErrorCodeFromExceptionInfo(NULL), UINT32_MAX);
	expect_message();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_task_runs_each_callback_once),
		cmocka_unit_test(test_every_failed_task_is_reported),
		cmocka_unit_test(test_unregister_stops_callbacks),
		cmocka_unit_test(test_callback_runs_in_the_waiting_thread),
		cmocka_unit_test(test_callback_may_call_the_runtime),
		cmocka_unit_test(test_success_reports_nothing),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
