// SPDX-License-Identifier: MIT
/*
 * Events: status before and after a record, record and
 * synchronize, a stream waiting on another stream's event, events across
 * threads, re-recording, timestamps the engine writes (elapsed time,
 * aclrtEventGetTimestamp), reset, destroyed handles and the bad-input rows.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt_test.h"

/* aclrtQueryEvent is deprecated, as upstream's; its behaviour is still tested here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Polls ev until it completes; fails after 20 s. */
static void wait_complete(aclrtEvent ev)
{
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	uint64_t t0 = rt_now_ms();

	while (rt_now_ms() - t0 < 20000) {
		ACL_OK(aclrtQueryEventStatus(ev, &st));
		if (st == ACL_EVENT_RECORDED_STATUS_COMPLETE)
			return;
		usleep(500);
	}
	fail_msg("event did not complete within 20 s");
}

static void test_status_before_and_after_record(void **state)
{
	aclrtEvent ev = NULL, ex = NULL;
	aclrtEventRecordedStatus st;

	(void)state;
	ACL_OK(aclrtCreateEvent(&ev));
	ACL_OK(aclrtQueryEventStatus(ev, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	ACL_OK(aclrtQueryEventStatus(ex, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

	ACL_OK(aclrtRecordEvent(ev, NULL));
	ACL_OK(aclrtSynchronizeEvent(ev));
	ACL_OK(aclrtQueryEventStatus(ev, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	/* A never-recorded event: synchronising returns at once. */
	ACL_OK(aclrtSynchronizeEvent(ex));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyEvent(ex));
}

/* The event captures the work queued before the record, not after. */
static void test_record_captures_prior_work(void **state)
{
	aclrtStream s = NULL;
	aclrtEvent ev = NULL;
	aclrtEventRecordedStatus st;
	void *word = NULL, *buf = NULL;
	uint8_t back[4096];

	(void)state;
	ACL_OK(aclrtMalloc(&word, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&buf, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(word, 8, 0, 8));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateEvent(&ev));
	ACL_OK(aclrtMemsetAsync(buf, 4096, 0x77, 4096, s));
	ACL_OK(aclrtRecordEvent(ev, s));
	ACL_OK(aclrtValueWait(word, 5, ACL_STREAM_WAIT_VALUE_GEQ, s));
	ACL_OK(aclrtSynchronizeEvent(ev)); /* does not wait for the ValueWait */
	ACL_OK(aclrtMemcpy(back, 4096, buf, 4096, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, 4096, 0x77), 4096);
	/* Re-recording captures the blocked wait too. */
	ACL_OK(aclrtRecordEvent(ev, s));
	usleep(20000);
	ACL_OK(aclrtQueryEventStatus(ev, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	ACL_OK(aclrtValueWrite(word, 5, 0, NULL));
	wait_complete(ev);
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(word));
	ACL_OK(aclrtFree(buf));
}

/*
 * Stream B waits on an event of stream A, which is held by a ValueWait:
 * B's copy must not run before A's preceding copy, whose result it reads.
 */
static void test_stream_waits_for_event_of_another_stream(void **state)
{
	aclrtStream a = NULL, b = NULL, c = NULL;
	aclrtEvent ev = NULL, done = NULL;
	aclrtEventRecordedStatus st;
	void *word = NULL, *x = NULL, *y = NULL;
	uint8_t host[65536], back[65536];

	(void)state;
	ACL_OK(aclrtMalloc(&word, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&x, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&y, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(word, 8, 0, 8));
	ACL_OK(aclrtMemset(x, sizeof(host), 0, sizeof(host)));
	ACL_OK(aclrtMemset(y, sizeof(host), 0, sizeof(host)));
	rt_fill_pattern(host, sizeof(host), 21);
	void *src = NULL;

	ACL_OK(aclrtMalloc(&src, sizeof(host), ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(src, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtCreateStream(&a));
	ACL_OK(aclrtCreateStream(&b));
	ACL_OK(aclrtCreateStream(&c));
	ACL_OK(aclrtCreateEvent(&ev));
	ACL_OK(aclrtCreateEvent(&done));

	ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, a));
	ACL_OK(aclrtMemcpyAsync(x, sizeof(host), src, sizeof(host), ACL_MEMCPY_DEVICE_TO_DEVICE, a));
	ACL_OK(aclrtRecordEvent(ev, a));
	ACL_OK(aclrtStreamWaitEvent(b, ev));
	ACL_OK(aclrtMemcpyAsync(y, sizeof(host), x, sizeof(host), ACL_MEMCPY_DEVICE_TO_DEVICE, b));
	ACL_OK(aclrtRecordEvent(done, b));
	usleep(20000);
	ACL_OK(aclrtQueryEventStatus(done, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	/* Release A from a third stream. */
	ACL_OK(aclrtValueWrite(word, 1, 0, c));
	wait_complete(done);
	ACL_OK(aclrtSynchronizeStream(b));
	ACL_OK(aclrtMemcpy(back, sizeof(back), y, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(back, host, sizeof(host));

	/* Waiting on a completed or never-recorded event costs nothing. */
	aclrtEvent fresh = NULL;

	ACL_OK(aclrtCreateEvent(&fresh));
	ACL_OK(aclrtStreamWaitEvent(b, fresh));
	ACL_OK(aclrtStreamWaitEvent(NULL, ev));
	ACL_OK(aclrtSynchronizeStream(b));
	ACL_OK(aclrtSynchronizeStream(NULL));
	ACL_OK(aclrtDestroyEvent(fresh));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyEvent(done));
	ACL_OK(aclrtDestroyStream(a));
	ACL_OK(aclrtDestroyStream(b));
	ACL_OK(aclrtDestroyStream(c));
	ACL_OK(aclrtFree(word));
	ACL_OK(aclrtFree(x));
	ACL_OK(aclrtFree(y));
	ACL_OK(aclrtFree(src));
}

/* Thread 1 records on its stream; thread 2 synchronises the event. */
struct cross {
	aclrtEvent ev;
	aclrtStream s;
	void *buf;
	volatile int recorded;
	aclError rc;
};

static void *recorder(void *arg)
{
	struct cross *c = arg;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return NULL;
	c->rc = aclrtMemsetAsync(c->buf, 1 << 20, 0x42, 1 << 20, c->s);
	if (c->rc == ACL_SUCCESS)
		c->rc = aclrtRecordEvent(c->ev, c->s);
	__atomic_store_n(&c->recorded, 1, __ATOMIC_RELEASE);
	aclrtResetDevice(0);
	return NULL;
}

static void test_event_across_threads(void **state)
{
	struct cross c = { 0 };
	pthread_t t;
	uint8_t *back = malloc(1 << 20);

	(void)state;
	assert_non_null(back);
	ACL_OK(aclrtCreateEvent(&c.ev));
	ACL_OK(aclrtCreateStream(&c.s));
	ACL_OK(aclrtMalloc(&c.buf, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	c.rc = -1;
	assert_int_equal(pthread_create(&t, NULL, recorder, &c), 0);
	while (!__atomic_load_n(&c.recorded, __ATOMIC_ACQUIRE))
		usleep(100);
	assert_int_equal(c.rc, ACL_SUCCESS);
	ACL_OK(aclrtSynchronizeEvent(c.ev));
	ACL_OK(aclrtMemcpy(back, 1 << 20, c.buf, 1 << 20, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, 1 << 20, 0x42), 1 << 20);
	pthread_join(t, NULL);
	ACL_OK(aclrtDestroyEvent(c.ev));
	ACL_OK(aclrtDestroyStream(c.s));
	ACL_OK(aclrtFree(c.buf));
	free(back);
}

/* Many events at once, and slots reused after destruction. */
static void test_many_events(void **state)
{
	enum { N = 1100 };
	static aclrtEvent ev[N];
	int round, i;

	(void)state;
	for (round = 0; round < 2; round++) {
		for (i = 0; i < N; i++) {
			ACL_OK(aclrtCreateEvent(&ev[i]));
			ACL_OK(aclrtRecordEvent(ev[i], NULL));
		}
		for (i = 0; i < N; i++) {
			ACL_OK(aclrtStreamWaitEvent(NULL, ev[i]));
			ACL_OK(aclrtSynchronizeEvent(ev[i]));
		}
		for (i = 0; i < N; i++)
			ACL_OK(aclrtDestroyEvent(ev[i]));
	}
	ACL_OK(aclrtSynchronizeStream(NULL));
}

static void *no_context_thread(void *arg)
{
	aclrtEvent ev = NULL;

	(void)arg;
	assert_int_equal(aclrtCreateEvent(&ev), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtCreateEventWithFlag(&ev, ACL_EVENT_SYNC), ACL_ERROR_RT_CONTEXT_NULL);
	return NULL;
}

/* CLOCK_MONOTONIC in microseconds: the clock the engines stamp records with. */
static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/*
 * The timestamps are the engine's clock when each record executes: a
 * stream held by a ValueWait for 50 ms between two records shows it.
 */
static void test_elapsed_time_measures_device_work(void **state)
{
	aclrtStream s = NULL;
	aclrtEvent start = NULL, end = NULL;
	uint64_t t_start = 0, t_end = 0, before, released, after;
	void *word = NULL;
	float ms = -1, back = 0;

	(void)state;
	ACL_OK(aclrtMalloc(&word, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(word, 8, 0, 8));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateEvent(&start));
	ACL_OK(aclrtCreateEvent(&end));
	before = now_us();
	ACL_OK(aclrtRecordEvent(start, s));
	ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
	ACL_OK(aclrtRecordEvent(end, s));
	/* Not executed yet: no timestamp. */
	assert_int_equal(aclrtEventGetTimestamp(end, &t_end), ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
	assert_int_equal(aclrtEventElapsedTime(&ms, start, end),
			 ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
	usleep(50000);
	released = now_us();
	ACL_OK(aclrtValueWrite(word, 1, 0, NULL));
	ACL_OK(aclrtSynchronizeEvent(end));
	after = now_us();
	ACL_OK(aclrtEventGetTimestamp(start, &t_start));
	ACL_OK(aclrtEventGetTimestamp(end, &t_end));
	/* Device time is the host's monotonic clock, taken when each record ran. */
	assert_true(t_start >= before && t_start <= released);
	assert_true(t_end >= released && t_end <= after);
	ACL_OK(aclrtEventElapsedTime(&ms, start, end));
	assert_true(ms >= (released - t_start) / 1000.0f - 1.0f);
	assert_true(ms <= (after - before) / 1000.0f + 1.0f);
	assert_true(ms >= 45.0f);
	/* Reversed: negative, as upstream. */
	ACL_OK(aclrtEventElapsedTime(&back, end, start));
	assert_true(back == -ms);
	/* Recorded again, on the default stream: a newer time. */
	ACL_OK(aclrtRecordEvent(start, NULL));
	ACL_OK(aclrtSynchronizeEvent(start));
	{
		uint64_t again = 0;

		ACL_OK(aclrtEventGetTimestamp(start, &again));
		assert_true(again >= t_end);
	}
	ACL_OK(aclrtDestroyEvent(start));
	ACL_OK(aclrtDestroyEvent(end));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(word));
}

static void test_timestamp_rows(void **state)
{
	aclrtEvent ev = NULL, sync_only = NULL, ex = NULL, dev_only = NULL;
	uint64_t ts = 0;
	float ms = 0;

	(void)state;
	ACL_OK(aclrtCreateEvent(&ev));
	/* NULL rows: timestamp is checked before event. */
	assert_int_equal(aclrtEventGetTimestamp(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "timestamp is NULL"));
	assert_int_equal(aclrtEventGetTimestamp(NULL, &ts), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtEventElapsedTime(NULL, ev, ev), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtEventElapsedTime(&ms, NULL, ev), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtEventElapsedTime(&ms, ev, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtResetEvent(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	/* Never recorded. */
	assert_int_equal(aclrtEventGetTimestamp(ev, &ts), ACL_ERROR_RT_INTERNAL_ERROR);
	assert_int_equal(aclrtEventElapsedTime(&ms, ev, ev), ACL_ERROR_RT_INTERNAL_ERROR);
	/* Without ACL_EVENT_TIME_LINE: recorded, but no timestamp. */
	ACL_OK(aclrtCreateEventWithFlag(&sync_only, ACL_EVENT_SYNC));
	ACL_OK(aclrtRecordEvent(sync_only, NULL));
	ACL_OK(aclrtSynchronizeEvent(sync_only));
	assert_int_equal(aclrtEventGetTimestamp(sync_only, &ts),
			 ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "ACL_EVENT_TIME_LINE"));
	/* The same event for both ends: 0 ms. */
	ACL_OK(aclrtRecordEvent(ev, NULL));
	ACL_OK(aclrtSynchronizeEvent(ev));
	ACL_OK(aclrtEventElapsedTime(&ms, ev, ev));
	assert_true(ms == 0.0f);

	/* Reset: back to never recorded; waiting on it then passes at once. */
	ACL_OK(aclrtResetEvent(sync_only, NULL));
	assert_int_equal(aclrtEventGetTimestamp(sync_only, &ts), ACL_ERROR_RT_INTERNAL_ERROR);
	ACL_OK(aclrtStreamWaitEvent(NULL, sync_only));
	ACL_OK(aclrtSynchronizeStream(NULL));
	{
		aclrtEvent timed = NULL;

		ACL_OK(aclrtCreateEventWithFlag(&timed, ACL_EVENT_SYNC | ACL_EVENT_TIME_LINE));
		ACL_OK(aclrtRecordEvent(timed, NULL));
		ACL_OK(aclrtSynchronizeEvent(timed));
		ACL_OK(aclrtEventGetTimestamp(timed, &ts));
		ACL_OK(aclrtResetEvent(timed, NULL));
		assert_int_equal(aclrtEventGetTimestamp(timed, &ts), ACL_ERROR_RT_INTERNAL_ERROR);
		ACL_OK(aclrtDestroyEvent(timed));
	}
	/* An event of aclrtCreateEvent resets too (upstream's multi-stream sample
	 * does): recorded, reset, then a wait on it passes at once and it has no
	 * timestamp. */
	ACL_OK(aclrtRecordEvent(ev, NULL));
	ACL_OK(aclrtSynchronizeEvent(ev));
	ACL_OK(aclrtResetEvent(ev, NULL));
	assert_int_equal(aclrtEventGetTimestamp(ev, &ts), ACL_ERROR_RT_INTERNAL_ERROR);
	ACL_OK(aclrtStreamWaitEvent(NULL, ev));
	ACL_OK(aclrtSynchronizeStream(NULL));
	/* Which events cannot be reset: Ex ones, device-only ones. */
	ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	assert_int_equal(aclrtResetEvent(ex, NULL), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ACL_OK(aclrtCreateEventWithFlag(&dev_only, ACL_EVENT_DEVICE_USE_ONLY));
	assert_int_equal(aclrtResetEvent(dev_only, NULL), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDestroyEvent(dev_only));
	/* A timing-only event (no ACL_EVENT_SYNC) resets as well. */
	ACL_OK(aclrtCreateEventWithFlag(&dev_only, ACL_EVENT_TIME_LINE));
	ACL_OK(aclrtRecordEvent(dev_only, NULL));
	ACL_OK(aclrtSynchronizeEvent(dev_only));
	ACL_OK(aclrtResetEvent(dev_only, NULL));
	assert_int_equal(aclrtEventGetTimestamp(dev_only, &ts), ACL_ERROR_RT_INTERNAL_ERROR);
	/* Destroyed handles. */
	ACL_OK(aclrtDestroyEvent(ev));
	assert_int_equal(aclrtEventGetTimestamp(ev, &ts), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtEventElapsedTime(&ms, ev, sync_only), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtResetEvent(ev, NULL), ACL_ERROR_RT_INVALID_HANDLE);
	ACL_OK(aclrtDestroyEvent(sync_only));
	ACL_OK(aclrtDestroyEvent(ex));
	ACL_OK(aclrtDestroyEvent(dev_only));
}

/* The flag, timeout and status variants of record, synchronize, query and wait. */
static void test_flag_and_timeout_variants(void **state)
{
	aclrtStream s = NULL, w = NULL;
	aclrtEvent ev = NULL, tl = NULL, ex = NULL, dev_only = NULL;
	aclrtEventStatus st;
	aclrtEventWaitStatus ws;
	uint32_t id = 0, id2 = 0, avail = 0, avail2 = 0;
	void *word = NULL;
	uint64_t t0;

	(void)state;
	ACL_OK(aclrtMalloc(&word, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(word, 8, 0, 8));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&w));
	ACL_OK(aclrtCreateEvent(&ev));

	/* Record with a flag: DEFAULT records; EXTERNAL needs graph capture. */
	assert_int_equal(aclrtRecordEventWithFlag(NULL, s, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordEventWithFlag(ev, s, 2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_EXTERNAL),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ACL_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
	ACL_OK(aclrtRecordEventWithFlag(ev, s, ACL_EVENT_RECORD_DEFAULT));

	/* Deprecated query: COMPLETE is 0 there. */
	ACL_OK(aclrtQueryEvent(ev, &st));
	assert_int_equal(st, ACL_EVENT_STATUS_NOT_READY);

	/* Synchronize with a timeout: the record is held by the ValueWait. */
	assert_int_equal(aclrtSynchronizeEventWithTimeout(NULL, -2), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(NULL, 10), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSynchronizeEventWithTimeout(ev, 0), ACL_ERROR_RT_PARAM_INVALID);
	t0 = rt_now_ms();
	assert_int_equal(aclrtSynchronizeEventWithTimeout(ev, 30), ACL_ERROR_RT_EVENT_SYNC_TIMEOUT);
	assert_true(rt_now_ms() - t0 >= 25);

	/* A wait on another stream is pending until the record has run. */
	ACL_OK(aclrtQueryEventWaitStatus(ev, &ws));
	assert_int_equal(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);	/* none queued yet */
	ACL_OK(aclrtStreamWaitEventWithTimeout(w, ev, 5));
	ACL_OK(aclrtStreamWaitEventWithFlag(w, ev, 0, ACL_EVENT_WAIT_DEFAULT));
	usleep(10000);
	ACL_OK(aclrtQueryEventWaitStatus(ev, &ws));
	assert_int_equal(ws, ACL_EVENT_WAIT_STATUS_NOT_READY);
	ACL_OK(aclrtValueWrite(word, 1, 0, NULL));
	ACL_OK(aclrtSynchronizeEventWithTimeout(ev, -1));
	ACL_OK(aclrtSynchronizeStream(w));
	ACL_OK(aclrtQueryEventWaitStatus(ev, &ws));
	assert_int_equal(ws, ACL_EVENT_WAIT_STATUS_COMPLETE);
	ACL_OK(aclrtQueryEvent(ev, &st));
	assert_int_equal(st, ACL_EVENT_STATUS_COMPLETE);

	/* The wait variants' rows. */
	assert_int_equal(aclrtStreamWaitEventWithTimeout(w, ev, -1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtStreamWaitEventWithTimeout(w, NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtStreamWaitEventWithFlag(w, NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamWaitEventWithFlag(w, ev, 0, 2), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamWaitEventWithFlag(w, ev, 3, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamWaitEventWithFlag(w, ev, 0, ACL_EVENT_WAIT_EXTERNAL),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ACL_OK(aclrtCreateEventWithFlag(&tl, ACL_EVENT_TIME_LINE));
	assert_int_equal(aclrtStreamWaitEventWithFlag(w, tl, 0, 0), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ACL_OK(aclrtCreateEventWithFlag(&dev_only, ACL_EVENT_DEVICE_USE_ONLY));
	assert_int_equal(aclrtStreamWaitEventWithFlag(w, dev_only, 0, 0), ACL_ERROR_RT_PARAM_INVALID);

	/* Query rows: Ex events are refused by the query variants. */
	ACL_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
	assert_int_equal(aclrtQueryEvent(NULL, &st), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtQueryEvent(ev, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtQueryEvent(ex, &st), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtQueryEventWaitStatus(NULL, &ws), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtQueryEventWaitStatus(ex, &ws), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);

	/* Ids: distinct for waitable events; a timeline-only event has none. */
	assert_int_equal(aclrtGetEventId(NULL, &id), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetEventId(ev, NULL), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtGetEventId(ev, &id));
	ACL_OK(aclrtGetEventId(ex, &id2));
	assert_int_not_equal(id, id2);
	assert_int_equal(aclrtGetEventId(tl, &id), ACL_ERROR_RT_INTERNAL_ERROR);

	/* Available events: one fewer for each event that took a slot. */
	assert_int_equal(aclrtGetEventAvailNum(NULL), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtGetEventAvailNum(&avail));
	assert_true(avail > 0 && avail <= 65536);
	ACL_OK(aclrtRecordEvent(ex, NULL));
	ACL_OK(aclrtGetEventAvailNum(&avail2));
	assert_int_equal(avail2, avail - 1);
	ACL_OK(aclrtDestroyEvent(ex));
	ACL_OK(aclrtGetEventAvailNum(&avail2));
	assert_int_equal(avail2, avail);

	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyEvent(tl));
	ACL_OK(aclrtDestroyEvent(dev_only));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyStream(w));
	ACL_OK(aclrtFree(word));
}

static void test_bad_inputs(void **state)
{
	aclrtEvent ev = NULL;
	aclrtStream s = NULL;
	aclrtEventRecordedStatus st;

	(void)state;
	assert_int_equal(aclrtCreateEvent(NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateEventWithFlag(&ev, 0x80000000u), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtRecordEvent(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSynchronizeEvent(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtQueryEventStatus(NULL, &st), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamWaitEvent(NULL, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyEvent(NULL), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtCreateEvent(&ev));
	assert_int_equal(aclrtQueryEventStatus(ev, NULL), ACL_ERROR_INVALID_PARAM);

	/* Destroyed handles. */
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtDestroyEvent(ev));
	assert_int_equal(aclrtRecordEvent(ev, NULL), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtSynchronizeEvent(ev), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtQueryEventStatus(ev, &st), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtStreamWaitEvent(s, ev), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtDestroyEvent(ev), ACL_ERROR_RT_INVALID_HANDLE);
	ACL_OK(aclrtCreateEvent(&ev));
	ACL_OK(aclrtDestroyStream(s));
	assert_int_equal(aclrtRecordEvent(ev, s), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtStreamWaitEvent(s, ev), ACL_ERROR_RT_INVALID_HANDLE);
	/* A stream handle is not an event. */
	ACL_OK(aclrtCreateStream(&s));
	assert_int_equal(aclrtDestroyEvent((aclrtEvent)s), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtRecordEvent((aclrtEvent)s, s), ACL_ERROR_RT_INVALID_HANDLE);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyEvent(ev));
	rt_run_in_thread(no_context_thread, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_before_and_after_record),
		cmocka_unit_test(test_record_captures_prior_work),
		cmocka_unit_test(test_stream_waits_for_event_of_another_stream),
		cmocka_unit_test(test_event_across_threads),
		cmocka_unit_test(test_many_events),
		cmocka_unit_test(test_elapsed_time_measures_device_work),
		cmocka_unit_test(test_timestamp_rows),
		cmocka_unit_test(test_flag_and_timeout_variants),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
