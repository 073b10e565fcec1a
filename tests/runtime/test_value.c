// SPDX-License-Identifier: MIT
/*
 * Stream value operations: each wait condition holds its stream
 * until the word satisfies it, GEQ is wrap-around safe, a ValueWait on one
 * thread's stream is released by a ValueWrite from another thread's stream
 * (no deadlock), and the bad-input rows.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_test.h"

static void *g_word;	/* the word waited on */
static void *g_flag;	/* written after the wait passes */

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_word, 4096, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_flag, 4096, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_word);
	aclrtFree(g_flag);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void set_word(uint64_t v)
{
	ACL_OK(aclrtMemcpy(g_word, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
}

static uint64_t read_flag(void)
{
	uint64_t v = 0;

	ACL_OK(aclrtMemcpy(&v, 8, g_flag, 8, ACL_MEMCPY_DEVICE_TO_HOST));
	return v;
}

/* Waits for an event; on timeout the process exits (a hang would hide the bug). */
static void wait_event_or_die(aclrtEvent ev, uint64_t ms, const char *what)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	uint64_t t0 = rt_now_ms();

	while (rt_now_ms() - t0 < ms) {
		ACL_OK(aclrtQueryEventStatus(ev, &st));
		if (st == ACL_EVENT_RECORDED_STATUS_COMPLETE)
			return;
		usleep(500);
	}
	print_error("%s: not complete after %llu ms\n", what, (unsigned long long)ms);
	_exit(1);
}

struct cond_case {
	uint32_t flag;
	uint64_t value;		/* the ValueWait operand */
	uint64_t initial;	/* the word before: must not satisfy */
	uint64_t release;	/* the word written later: must satisfy */
};

static void run_cond(const struct cond_case *c)
{
	aclrtStream s = NULL;
	aclrtEvent ev = NULL;
	aclrtEventRecordedStatus st;

	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateEvent(&ev));
	set_word(c->initial);
	ACL_OK(aclrtMemset(g_flag, 8, 0, 8));
	ACL_OK(aclrtValueWait(g_word, c->value, c->flag, s));
	ACL_OK(aclrtValueWrite(g_flag, 0xF1A6, 0, s));
	ACL_OK(aclrtRecordEvent(ev, s));
	usleep(20000);
	ACL_OK(aclrtQueryEventStatus(ev, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	assert_int_equal(read_flag(), 0);
	/* The host writes the word; the engine re-evaluates the condition. */
	set_word(c->release);
	wait_event_or_die(ev, 20000, "ValueWait");
	assert_int_equal(read_flag(), 0xF1A6);
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyStream(s));
}

static void test_wait_conditions(void **state)
{
	static const struct cond_case cases[] = {
		{ ACL_STREAM_WAIT_VALUE_GEQ, 10, 9, 10 },
		{ ACL_STREAM_WAIT_VALUE_GEQ, 10, 3, 11 },
		/* Wrap-around: 2 is "after" UINT64_MAX - 1. */
		{ ACL_STREAM_WAIT_VALUE_GEQ, UINT64_MAX - 1, UINT64_MAX - 5, 2 },
		{ ACL_STREAM_WAIT_VALUE_EQ, 100, 99, 100 },
		{ ACL_STREAM_WAIT_VALUE_AND, 0x10, 0x0F, 0x11 },
		{ ACL_STREAM_WAIT_VALUE_NOR, 0xFFFFFFFF00000000ull, 0x00000000FFFFFFFFull, 1 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_cond(&cases[i]);
}

/* Already satisfied: the wait passes straight away. */
static void test_wait_already_satisfied(void **state)
{
	(void)state;
	set_word(7);
	ACL_OK(aclrtValueWait(g_word, 7, ACL_STREAM_WAIT_VALUE_EQ, NULL));
	ACL_OK(aclrtValueWait(g_word, 3, ACL_STREAM_WAIT_VALUE_GEQ, NULL));
	ACL_OK(aclrtSynchronizeStream(NULL));
}

/*
 * The two-thread program of aclrtValueWait's documentation: thread A queues ValueWait(EQ 100)
 * on stream A and synchronises it; thread B writes 100 from stream B later.
 */
struct pair_arg {
	aclrtStream s;
	volatile int phase;	/* 1: A queued its wait; 2: A's sync returned */
	aclError rc;
};

static void *waiter(void *arg)
{
	struct pair_arg *p = arg;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return NULL;
	p->rc = aclrtValueWait(g_word, 100, ACL_STREAM_WAIT_VALUE_EQ, p->s);
	__atomic_store_n(&p->phase, 1, __ATOMIC_RELEASE);
	if (p->rc == ACL_SUCCESS)
		p->rc = aclrtSynchronizeStream(p->s);
	__atomic_store_n(&p->phase, 2, __ATOMIC_RELEASE);
	aclrtResetDevice(0);
	return NULL;
}

static void test_wait_released_by_another_threads_write(void **state)
{
	struct pair_arg p = { 0 };
	aclrtStream b = NULL;
	pthread_t t;
	uint64_t t0;

	(void)state;
	set_word(0);
	ACL_OK(aclrtCreateStream(&p.s));
	ACL_OK(aclrtCreateStream(&b));
	p.rc = -1;
	assert_int_equal(pthread_create(&t, NULL, waiter, &p), 0);
	while (__atomic_load_n(&p.phase, __ATOMIC_ACQUIRE) < 1)
		usleep(100);
	usleep(100000);
	/* A is blocked in aclrtSynchronizeStream, the host (this thread) is not. */
	assert_int_equal(__atomic_load_n(&p.phase, __ATOMIC_ACQUIRE), 1);
	ACL_OK(aclrtValueWrite(g_word, 100, 0, b));
	ACL_OK(aclrtSynchronizeStream(b));
	t0 = rt_now_ms();
	while (__atomic_load_n(&p.phase, __ATOMIC_ACQUIRE) < 2 && rt_now_ms() - t0 < 20000)
		usleep(500);
	if (__atomic_load_n(&p.phase, __ATOMIC_ACQUIRE) < 2) {
		print_error("thread A still blocked 20 s after the ValueWrite\n");
		_exit(1);
	}
	pthread_join(t, NULL);
	assert_int_equal(p.rc, ACL_SUCCESS);
	ACL_OK(aclrtDestroyStream(p.s));
	ACL_OK(aclrtDestroyStream(b));
}

static void *no_context_thread(void *arg)
{
	(void)arg;
	assert_int_equal(aclrtValueWrite(g_word, 1, 0, NULL), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtValueWait(g_word, 1, 0, NULL), ACL_ERROR_RT_CONTEXT_NULL);
	return NULL;
}

static void test_bad_inputs(void **state)
{
	aclrtStream s = NULL;
	uint64_t host = 0;

	(void)state;
	assert_int_equal(aclrtValueWrite(NULL, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtValueWait(NULL, 1, 0, NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtValueWrite(g_word, 1, 1, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtValueWait(g_word, 1, 4, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* Not device memory. */
	assert_int_equal(aclrtValueWrite(&host, 1, 0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtValueWait(&host, 1, 0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* Misaligned (emulator choice). */
	assert_int_equal(aclrtValueWrite((char *)g_word + 4, 1, 0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	/* Destroyed stream: checked before flag. */
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtDestroyStream(s));
	assert_int_equal(aclrtValueWrite(g_word, 1, 1, s), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtValueWait(g_word, 1, 9, s), ACL_ERROR_RT_INVALID_HANDLE);
	rt_run_in_thread(no_context_thread, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wait_conditions),
		cmocka_unit_test(test_wait_already_satisfied),
		cmocka_unit_test(test_wait_released_by_another_threads_write),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
