// SPDX-License-Identifier: MIT
/*
 * Host work in stream order: aclrtLaunchHostFunc (the context's thread runs
 * it; the stream waits for it) and aclrtLaunchCallback with
 * aclrtSubscribeReport / aclrtProcessReport / aclrtUnSubscribeReport (a
 * user thread runs it; BLOCK holds the stream, NO_BLOCK does not), their
 * ordering against device work on both sides, and every bad-input row.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

enum { kSize = 4 << 20, kTasks = 64 };

static uint64_t self_id(void)
{
	return (uint64_t)pthread_self();
}

/* A host function that checks what the stream's earlier work left in
 * pinned memory and then fills it for the stream's later work. */
struct handover {
	uint8_t *pinned;
	atomic_int ran;
	int saw_earlier_work;
	pthread_t thread;
};

static void handover_fn(void *p)
{
	struct handover *h = p;

	h->saw_earlier_work = rt_first_not(h->pinned, kSize, 0x21) == kSize;
	usleep(20 * 1000); /* the stream must wait for this */
	memset(h->pinned, 0x42, kSize);
	h->thread = pthread_self();
	atomic_fetch_add(&h->ran, 1);
}

static void test_host_func_runs_between_device_work(void **state)
{
	struct handover h = { 0 };
	aclrtStream s = NULL;
	void *dev = NULL;
	static uint8_t out[kSize];

	(void)state;
	ACL_OK(aclrtMallocHost((void **)&h.pinned, kSize));
	ACL_OK(aclrtMalloc(&dev, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMemsetAsync(dev, kSize, 0x21, kSize, s));
	ACL_OK(aclrtMemcpyAsync(h.pinned, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ACL_OK(aclrtLaunchHostFunc(s, handover_fn, &h));
	ACL_OK(aclrtMemcpyAsync(dev, kSize, h.pinned, kSize, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ACL_OK(aclrtSynchronizeStream(s));
	assert_int_equal(atomic_load(&h.ran), 1);
	assert_true(h.saw_earlier_work);
	assert_false(pthread_equal(h.thread, pthread_self()));
	ACL_OK(aclrtMemcpy(out, kSize, dev, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(out, kSize, 0x42), kSize);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtFreeHost(h.pinned));
}

struct order_log {
	atomic_int n;
	int seen[2 * kTasks + 1];
};

struct order_task {
	struct order_log *log;
	int id;
};

static void order_fn(void *p)
{
	struct order_task *t = p;

	t->log->seen[atomic_fetch_add(&t->log->n, 1)] = t->id;
}

/* Many host functions on two streams: each stream's run in order; the
 * default stream (NULL) takes them too; destroying a stream waits. */
static void test_host_funcs_keep_stream_order(void **state)
{
	static struct order_log log;
	static struct order_task tasks[2 * kTasks];
	aclrtStream s[2] = { NULL, NULL };

	(void)state;
	memset(&log, 0, sizeof(log));
	ACL_OK(aclrtCreateStream(&s[0]));
	ACL_OK(aclrtCreateStream(&s[1]));
	for (int i = 0; i < kTasks; i++) {
		for (int j = 0; j < 2; j++) {
			tasks[2 * i + j] = (struct order_task){ &log, j * 1000 + i };
			ACL_OK(aclrtLaunchHostFunc(s[j], order_fn, &tasks[2 * i + j]));
		}
	}
	ACL_OK(aclrtDestroyStream(s[0])); /* waits for its host work */
	ACL_OK(aclrtSynchronizeStream(s[1]));
	assert_int_equal(atomic_load(&log.n), 2 * kTasks);
	int next[2] = { 0, 0 };
	for (int i = 0; i < 2 * kTasks; i++) {
		int j = log.seen[i] / 1000;
		assert_int_equal(log.seen[i] % 1000, next[j]);
		next[j]++;
	}
	ACL_OK(aclrtDestroyStream(s[1]));

	struct order_task t = { &log, 7 };
	ACL_OK(aclrtLaunchHostFunc(NULL, order_fn, &t));
	ACL_OK(aclrtSynchronizeStream(NULL));
	assert_int_equal(atomic_load(&log.n), 2 * kTasks + 1);
}

/* A subscribed user thread serves BLOCK callbacks of a stream in order. */
struct server {
	atomic_int stop;
	atomic_int ready;
	pthread_t thread;
	int unexpected_rc;
};

static void *serve(void *p)
{
	struct server *sv = p;

	atomic_store(&sv->ready, 1);
	while (!atomic_load(&sv->stop)) {
		aclError rc = aclrtProcessReport(20);
		if (rc != ACL_SUCCESS && rc != ACL_ERROR_RT_REPORT_TIMEOUT &&
		    rc != ACL_ERROR_RT_THREAD_SUBSCRIBE)
			sv->unexpected_rc = rc;
	}
	return NULL;
}

struct cb_arg {
	struct order_log *log;
	int id;
	pthread_t ran_in;
};

static void cb_fn(void *p)
{
	struct cb_arg *a = p;

	a->ran_in = pthread_self();
	a->log->seen[atomic_fetch_add(&a->log->n, 1)] = a->id;
}

static void test_callbacks_run_in_the_subscribed_thread(void **state)
{
	static struct order_log log;
	static struct cb_arg args[kTasks];
	struct server sv = { 0 };
	aclrtStream s = NULL;

	(void)state;
	memset(&log, 0, sizeof(log));
	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(pthread_create(&sv.thread, NULL, serve, &sv), 0);
	ACL_OK(aclrtSubscribeReport((uint64_t)sv.thread, s));
	for (int i = 0; i < kTasks; i++) {
		args[i] = (struct cb_arg){ &log, i, 0 };
		ACL_OK(aclrtLaunchCallback(cb_fn, &args[i], ACL_CALLBACK_BLOCK, s));
	}
	ACL_OK(aclrtSynchronizeStream(s));
	assert_int_equal(atomic_load(&log.n), kTasks);
	for (int i = 0; i < kTasks; i++) {
		assert_int_equal(log.seen[i], i);
		assert_true(pthread_equal(args[i].ran_in, sv.thread));
	}
	ACL_OK(aclrtUnSubscribeReport((uint64_t)sv.thread, s));
	assert_int_equal(aclrtLaunchCallback(cb_fn, &args[0], ACL_CALLBACK_BLOCK, s),
			 ACL_ERROR_RT_STREAM_NO_CB_REG);
	atomic_store(&sv.stop, 1);
	assert_int_equal(pthread_join(sv.thread, NULL), 0);
	assert_int_equal(sv.unexpected_rc, 0);
	ACL_OK(aclrtDestroyStream(s));
}

/* NO_BLOCK lets the stream go on before anyone runs the callback; BLOCK
 * holds it until aclrtProcessReport has run it. */
static void test_block_and_no_block(void **state)
{
	static struct order_log log;
	struct cb_arg a = { &log, 1, 0 }, b = { &log, 2, 0 };
	aclrtStream s = NULL;
	aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
	void *dev = NULL;

	(void)state;
	memset(&log, 0, sizeof(log));
	ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtSubscribeReport(self_id(), s));
	ACL_OK(aclrtLaunchCallback(cb_fn, &a, ACL_CALLBACK_NO_BLOCK, s));
	ACL_OK(aclrtMemsetAsync(dev, 4096, 1, 4096, s));
	ACL_OK(aclrtSynchronizeStream(s));
	assert_int_equal(atomic_load(&log.n), 0);
	ACL_OK(aclrtProcessReport(1000));
	assert_int_equal(atomic_load(&log.n), 1);

	ACL_OK(aclrtLaunchCallback(cb_fn, &b, ACL_CALLBACK_BLOCK, s));
	ACL_OK(aclrtMemsetAsync(dev, 4096, 2, 4096, s));
	usleep(50 * 1000);
	ACL_OK(aclrtStreamQuery(s, &st));
	assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
	ACL_OK(aclrtProcessReport(1000));
	ACL_OK(aclrtSynchronizeStream(s));
	assert_int_equal(atomic_load(&log.n), 2);
	assert_int_equal(log.seen[1], 2);
	uint8_t buf[4096];
	ACL_OK(aclrtMemcpy(buf, sizeof(buf), dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(buf, sizeof(buf), 2), sizeof(buf));
	/* Nothing pending: the timeout is the routine answer. */
	assert_int_equal(aclrtProcessReport(20), ACL_ERROR_RT_REPORT_TIMEOUT);
	ACL_OK(aclrtUnSubscribeReport(self_id(), s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(dev));
}

static void *no_context_thread(void *p)
{
	aclError *rc = p;

	rc[0] = aclrtLaunchHostFunc(NULL, order_fn, NULL);
	rc[1] = aclrtLaunchCallback(cb_fn, NULL, ACL_CALLBACK_BLOCK, NULL);
	rc[2] = aclrtSubscribeReport(self_id(), NULL);
	rc[3] = aclrtProcessReport(10);
	return NULL;
}

static void test_bad_inputs(void **state)
{
	aclrtStream s = NULL, t = NULL;
	aclrtContext primary = NULL, other = NULL;
	aclError rc[4];

	(void)state;
	ACL_OK(aclrtGetCurrentContext(&primary));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&t));
	assert_int_equal(aclrtLaunchHostFunc(s, NULL, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtLaunchHostFunc((aclrtStream)(uintptr_t)0x99, order_fn, NULL),
			 ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtLaunchCallback(cb_fn, NULL, (aclrtCallbackBlockType)2, s),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtLaunchCallback(NULL, NULL, ACL_CALLBACK_BLOCK, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtLaunchCallback(cb_fn, NULL, ACL_CALLBACK_BLOCK, s),
			 ACL_ERROR_RT_STREAM_NO_CB_REG);
	assert_int_equal(aclrtProcessReport(0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtProcessReport(-2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
	assert_int_equal(aclrtUnSubscribeReport(self_id(), s), ACL_ERROR_RT_STREAM_SUBSCRIBE);

	ACL_OK(aclrtSubscribeReport(self_id(), s));
	assert_int_equal(aclrtSubscribeReport(self_id(), s), ACL_ERROR_RT_THREAD_SUBSCRIBE);
	assert_int_equal(aclrtSubscribeReport(self_id() + 1, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
	assert_int_equal(aclrtUnSubscribeReport(self_id() + 1, s), ACL_ERROR_RT_THREAD_SUBSCRIBE);
	/* The two mechanisms never share a stream. */
	assert_int_equal(aclrtLaunchHostFunc(s, order_fn, NULL), ACL_ERROR_RT_STREAM_SUBSCRIBE);
	struct order_log log = { 0 };
	struct order_task task = { &log, 0 };
	ACL_OK(aclrtLaunchHostFunc(t, order_fn, &task));
	ACL_OK(aclrtSynchronizeStream(t));
	assert_int_equal(aclrtSubscribeReport(self_id() + 1, t), ACL_ERROR_RT_STREAM_SUBSCRIBE);
	ACL_OK(aclrtUnSubscribeReport(self_id(), s));

	/* The aliases need a stream. */
	assert_int_equal(aclrtSubscribeHostFunc(self_id(), NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtUnSubscribeHostFunc(self_id(), NULL), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtSubscribeHostFunc(self_id(), s));
	assert_int_equal(aclrtProcessHostFunc(10), ACL_ERROR_RT_REPORT_TIMEOUT);
	ACL_OK(aclrtUnSubscribeHostFunc(self_id(), s));

	/* A stream has a report subscriber and a host-function subscriber,
	 * independently: both subscriptions succeed, in either order, and each
	 * goes with its own unsubscribe. */
	ACL_OK(aclrtSubscribeReport(self_id(), s));
	ACL_OK(aclrtSubscribeHostFunc(self_id(), s));
	assert_int_equal(aclrtSubscribeHostFunc(self_id(), s), ACL_ERROR_RT_THREAD_SUBSCRIBE);
	assert_int_equal(aclrtSubscribeHostFunc(self_id() + 1, s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
	ACL_OK(aclrtUnSubscribeReport(self_id(), s));
	/* The host-function subscription stays; callbacks have no thread now. */
	assert_int_equal(aclrtLaunchCallback(cb_fn, NULL, ACL_CALLBACK_NO_BLOCK, s),
			 ACL_ERROR_RT_STREAM_NO_CB_REG);
	assert_int_equal(aclrtProcessHostFunc(10), ACL_ERROR_RT_REPORT_TIMEOUT);
	assert_int_equal(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
	ACL_OK(aclrtSubscribeReport(self_id() + 1, s));
	ACL_OK(aclrtUnSubscribeHostFunc(self_id(), s));
	assert_int_equal(aclrtUnSubscribeHostFunc(self_id(), s), ACL_ERROR_RT_STREAM_SUBSCRIBE);
	ACL_OK(aclrtUnSubscribeReport(self_id() + 1, s));
	/* A stream that ran aclrtLaunchHostFunc work may still get a
	 * host-function subscriber (only callbacks exclude it). */
	ACL_OK(aclrtSubscribeHostFunc(self_id(), t));
	ACL_OK(aclrtUnSubscribeHostFunc(self_id(), t));

	/* A stream of another context. */
	ACL_OK(aclrtCreateContext(&other, 0));
	assert_int_equal(aclrtLaunchHostFunc(s, order_fn, NULL), ACL_ERROR_RT_STREAM_CONTEXT);
	ACL_OK(aclrtSubscribeReport(self_id(), s));
	assert_int_equal(aclrtLaunchCallback(cb_fn, NULL, ACL_CALLBACK_BLOCK, s),
			 ACL_ERROR_RT_STREAM_CONTEXT);
	ACL_OK(aclrtDestroyContext(other));
	ACL_OK(aclrtSetCurrentContext(primary));
	ACL_OK(aclrtUnSubscribeReport(self_id(), s));

	rt_run_in_thread(no_context_thread, rc);
	assert_int_equal(rc[0], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(rc[1], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(rc[2], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(rc[3], ACL_ERROR_RT_THREAD_SUBSCRIBE);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyStream(t));
}

/* A thread serves streams of one device only. */
static void test_one_device_per_serving_thread(void **state)
{
	aclrtStream s0 = NULL, s1 = NULL;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtCreateStream(&s0));
	ACL_OK(aclrtSubscribeReport(self_id(), s0));
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtCreateStream(&s1));
	assert_int_equal(aclrtSubscribeReport(self_id(), s1), ACL_ERROR_RT_THREAD_SUBSCRIBE);
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtResetDevice(1));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDevice(0));
	/* Destroying a stream ends its subscription. */
	ACL_OK(aclrtDestroyStream(s0));
	assert_int_equal(aclrtProcessReport(10), ACL_ERROR_RT_THREAD_SUBSCRIBE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_func_runs_between_device_work),
		cmocka_unit_test(test_host_funcs_keep_stream_order),
		cmocka_unit_test(test_callbacks_run_in_the_subscribed_thread),
		cmocka_unit_test(test_block_and_no_block),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_one_device_per_serving_thread),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
