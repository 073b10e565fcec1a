// SPDX-License-Identifier: MIT
/*
 * Model runtime instances and labels: a capture executed several times with
 * the data read back (copies, fills, events, host functions), the capture
 * modes' refusals, task-group update, a built model whose label switch
 * picks either branch by a device word, an update that an execution already
 * queued sees, fork/join captures across streams, a label loop ended by its
 * stream's or context's destruction, and the bad inputs with their codes.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

/* aclmdlRIDebugPrint is deprecated upstream, and tested all the same. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define N 64

static aclrtStream g_s, g_exec;
static uint8_t *g_a, *g_b, *g_c;

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_s) != ACL_SUCCESS ||
	    aclrtCreateStream(&g_exec) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc((void **)&g_a, N, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc((void **)&g_b, N, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS ||
	    aclrtMalloc((void **)&g_c, N, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_a);
	aclrtFree(g_b);
	aclrtFree(g_c);
	aclrtDestroyStream(g_s);
	aclrtDestroyStream(g_exec);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void read_back(const void *dev, uint8_t *out)
{
	ACL_OK(aclrtMemcpy(out, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
}

/*
 * Waits, up to 10 s, until the first byte of dev reads want: a model that
 * runs on its own (a label loop) shows it ran whenever its runner gets a
 * CPU, which on a loaded host is not within any fixed sleep.
 */
static void await_first_byte(const void *dev, uint8_t want)
{
	uint64_t t0 = rt_now_ms();
	uint8_t out[N];

	for (;;) {
		read_back(dev, out);
		if (out[0] == want)
			return;
		if (rt_now_ms() - t0 > 10000)
			fail_msg("the first byte is 0x%02x, not 0x%02x, after 10 s", out[0], want);
		usleep(1000);
	}
}

static void host_count(void *arg)
{
	++*(int *)arg;
}

/* memset a, copy a -> b, host function: nothing runs until executed, then each run does it all. */
static void test_capture_execute(void **state)
{
	uint8_t out[N];
	int calls = 0;
	aclmdlRI m = NULL;
	aclmdlRICaptureStatus st;
	aclmdlRI got = NULL;

	(void)state;
	ACL_OK(aclrtMemset(g_a, N, 0, N));
	ACL_OK(aclrtMemset(g_b, N, 0, N));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	ACL_OK(aclmdlRICaptureGetInfo(g_s, &st, &got));
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
	assert_non_null(got);
	ACL_OK(aclrtMemsetAsync(g_a, N, 0x5a, N, g_s));
	ACL_OK(aclrtMemcpyAsync(g_b, N, g_a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, g_s));
	ACL_OK(aclrtLaunchHostFunc(g_s, host_count, &calls));
	/* Executing while it still captures is refused. */
	EXPECT_FAIL(aclmdlRIExecuteAsync(got, g_exec), ACL_ERROR_RT_MODEL_CAPTURED);
	/* A second capture on the same stream too. */
	EXPECT_FAIL(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED),
		    ACL_ERROR_RT_STREAM_CAPTURED);
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	assert_ptr_equal(m, got);
	ACL_OK(aclmdlRICaptureGetInfo(g_s, &st, &got));
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
	/* Nothing ran during the capture. */
	ACL_OK(aclrtSynchronizeStream(g_s));
	read_back(g_b, out);
	assert_int_equal(out[0], 0);
	assert_int_equal(calls, 0);
	for (int i = 1; i <= 3; i++) {
		ACL_OK(aclrtMemset(g_b, N, 0, N));
		ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
		ACL_OK(aclrtSynchronizeStream(g_exec));
		read_back(g_b, out);
		for (int j = 0; j < N; j++)
			assert_int_equal(out[j], 0x5a);
		assert_int_equal(calls, i);
	}
	/* Synchronous execution on the default stream. */
	ACL_OK(aclrtMemset(g_b, N, 0, N));
	ACL_OK(aclmdlRIExecute(m, -1));
	read_back(g_b, out);
	assert_int_equal(out[N - 1], 0x5a);
	assert_int_equal(calls, 4);
	/* The JSON dump names the tasks. */
	char path[] = "/tmp/test_model_ri_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	ACL_OK(aclmdlRIDebugJsonPrint(m, path, 0));
	ACL_OK(aclmdlRIDebugPrint(m));
	FILE *f = fopen(path, "r");
	char buf[2048] = { 0 };
	assert_non_null(f);
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	unlink(path);
	assert_true(n > 0);
	assert_non_null(strstr(buf, "\"MEMSET\""));
	assert_non_null(strstr(buf, "\"MEMCPY\""));
	assert_non_null(strstr(buf, "\"HOST_FUNC\""));
	ACL_OK(aclmdlRIDestroy(m));
	/* A destroyed model is refused. */
	EXPECT_FAIL(aclmdlRIExecuteAsync(m, g_exec), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclmdlRIDestroy(m), ACL_ERROR_RT_PARAM_INVALID);
}

/* Events recorded in a model are recorded at each execution. */
static void test_capture_events(void **state)
{
	uint8_t out[N];
	aclrtEvent ev;
	aclmdlRI m;
	aclrtStream other;

	(void)state;
	ACL_OK(aclrtCreateStream(&other));
	ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_SYNC));
	ACL_OK(aclrtMemset(g_c, N, 7, N));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtMemcpyAsync(g_b, N, g_c, N, ACL_MEMCPY_DEVICE_TO_DEVICE, g_s));
	ACL_OK(aclrtRecordEventWithFlag(ev, g_s, ACL_EVENT_RECORD_EXTERNAL));
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclrtMemset(g_b, N, 0, N));
	ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
	ACL_OK(aclrtStreamWaitEvent(other, ev));
	ACL_OK(aclrtMemcpyAsync(out, N, g_b, N, ACL_MEMCPY_DEVICE_TO_HOST, other));
	ACL_OK(aclrtSynchronizeStream(other));
	assert_int_equal(out[3], 7);
	ACL_OK(aclmdlRIDestroy(m));
	/* External flags outside a capture stay refused. */
	EXPECT_FAIL(aclrtRecordEventWithFlag(ev, g_s, ACL_EVENT_RECORD_EXTERNAL),
		    ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyStream(other));
}

/* GLOBAL refuses a synchronous copy until the thread exchanges its mode to RELAXED. */
static void test_capture_modes(void **state)
{
	uint8_t host[N];
	aclmdlRI m;
	aclmdlRICaptureMode mode = ACL_MODEL_RI_CAPTURE_MODE_RELAXED;

	(void)state;
	memset(host, 3, sizeof(host));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	assert_int_equal(aclrtMemcpy(g_a, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	const char *msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "aclmdlRICaptureThreadExchangeMode"));
	ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL);
	ACL_OK(aclrtMemcpy(g_a, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclmdlRICaptureThreadExchangeMode(&mode));
	assert_int_equal(mode, ACL_MODEL_RI_CAPTURE_MODE_RELAXED);
	/* Work that cannot be recorded is refused, not run. */
	EXPECT_FAIL(aclrtMemsetD32Async(g_a, N, 1, N / 4, g_s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclmdlRIDestroy(m));
	/* RELAXED allows it. */
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtMemcpy(g_a, N, host, N, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclmdlRIDestroy(m));
}

/* A task group re-captured with other parameters: the next execution runs the new ones. */
static void test_task_group_update(void **state)
{
	uint8_t out[N];
	aclmdlRI m;
	aclrtTaskGrp grp;
	aclrtStream upd;

	(void)state;
	ACL_OK(aclrtCreateStream(&upd));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclmdlRICaptureTaskGrpBegin(g_s));
	EXPECT_FAIL(aclmdlRICaptureTaskGrpBegin(g_s), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x11, N, g_s));
	EXPECT_FAIL(aclmdlRICaptureEnd(g_s, &m), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
	ACL_OK(aclmdlRICaptureTaskGrpEnd(g_s, &grp));
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
	ACL_OK(aclrtSynchronizeStream(g_exec));
	read_back(g_c, out);
	assert_int_equal(out[5], 0x11);
	ACL_OK(aclmdlRICaptureTaskUpdateBegin(upd, grp));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x22, N, upd));
	/* An updating stream is not bound to the model: no end task there. */
	EXPECT_FAIL(aclmdlRIEndTask(m, upd), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclmdlRICaptureTaskUpdateEnd(upd));
	ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
	ACL_OK(aclrtSynchronizeStream(g_exec));
	read_back(g_c, out);
	assert_int_equal(out[5], 0x22);
	/* An update of another kind or count is refused and changes nothing. */
	ACL_OK(aclmdlRICaptureTaskUpdateBegin(upd, grp));
	ACL_OK(aclrtMemcpyAsync(g_c, N, g_a, N, ACL_MEMCPY_DEVICE_TO_DEVICE, upd));
	EXPECT_FAIL(aclmdlRICaptureTaskUpdateEnd(upd), ACL_ERROR_RT_MODEL_UPDATE_FAILED);
	ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
	ACL_OK(aclrtSynchronizeStream(g_exec));
	read_back(g_c, out);
	assert_int_equal(out[5], 0x22);
	EXPECT_FAIL(aclmdlRICaptureTaskUpdateEnd(upd), ACL_ERROR_STREAM_TASK_GROUP_STATUS);
	ACL_OK(aclmdlRIDestroy(m));
	EXPECT_FAIL(aclmdlRICaptureTaskUpdateBegin(upd, grp), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDestroyStream(upd));
}

/* switch(index) { label0: c = 0x10; end; label1: c = 0x20; end } */
static void run_switch(uint32_t index, uint8_t expect)
{
	aclrtStream bound;
	aclmdlRI m;
	aclrtLabel l[2];
	aclrtLabelList list;
	uint32_t *dev_index;
	uint8_t out[N];

	ACL_OK(aclrtCreateStreamWithConfig(&bound, 0, ACL_STREAM_PERSISTENT));
	ACL_OK(aclrtMalloc((void **)&dev_index, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(dev_index, 4, &index, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ACL_OK(aclmdlRIBindStream(m, bound, 0));
	ACL_OK(aclrtCreateLabel(&l[0]));
	ACL_OK(aclrtCreateLabel(&l[1]));
	ACL_OK(aclrtCreateLabelList(l, 2, &list));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x01, N, bound));
	ACL_OK(aclrtSwitchLabelByIndex(dev_index, 2, list, bound));
	ACL_OK(aclrtSetLabel(l[0], bound));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x10, N, bound));
	ACL_OK(aclmdlRIEndTask(m, bound));
	ACL_OK(aclrtSetLabel(l[1], bound));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x20, N, bound));
	ACL_OK(aclmdlRIEndTask(m, bound));
	ACL_OK(aclmdlRIBuildEnd(m, NULL));
	ACL_OK(aclrtMemset(g_c, N, 0, N));
	ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
	ACL_OK(aclrtSynchronizeStream(g_exec));
	read_back(g_c, out);
	assert_int_equal(out[9], expect);
	ACL_OK(aclmdlRIUnbindStream(m, bound));
	ACL_OK(aclmdlRIDestroy(m));
	ACL_OK(aclrtDestroyLabelList(list));
	ACL_OK(aclrtDestroyLabel(l[0]));
	ACL_OK(aclrtDestroyLabel(l[1]));
	ACL_OK(aclrtFree(dev_index));
	ACL_OK(aclrtDestroyStream(bound));
}

static void test_labels(void **state)
{
	(void)state;
	run_switch(0, 0x10);
	run_switch(1, 0x20);
	/* Out of range: no branch, the task after the switch follows (label 0's). */
	run_switch(5, 0x10);
}

struct later {
	aclrtContext ctx;
	aclrtEvent ev;
};

static void *record_later(void *arg)
{
	struct later *l = arg;
	aclrtStream s;

	usleep(100 * 1000);
	if (aclrtSetCurrentContext(l->ctx) != ACL_SUCCESS || aclrtCreateStream(&s) != ACL_SUCCESS)
		return NULL;
	aclrtRecordEvent(l->ev, s);
	aclrtSynchronizeStream(s);
	aclrtDestroyStream(s);
	return NULL;
}

/*
 * wait ev; reset ev; group { c = 0x11 }: an execution queued before the group
 * is updated to c = 0x22 runs the update, as it reads its tasks when it runs.
 * A destroy of the model waits for the execution still queued.
 */
static void test_update_queued_execution(void **state)
{
	uint8_t out[N];
	aclmdlRI m;
	aclrtTaskGrp grp;
	aclrtStream upd;
	aclrtEvent ev;
	pthread_t t;

	(void)state;
	ACL_OK(aclrtCreateStream(&upd));
	ACL_OK(aclrtCreateEventWithFlag(&ev, ACL_EVENT_EXTERNAL));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtStreamWaitEvent(g_s, ev));
	ACL_OK(aclrtResetEvent(ev, g_s));
	ACL_OK(aclmdlRICaptureTaskGrpBegin(g_s));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x11, N, g_s));
	ACL_OK(aclmdlRICaptureTaskGrpEnd(g_s, &grp));
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));

	ACL_OK(aclrtMemset(g_c, N, 0, N));
	ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
	/* Queued, waiting for ev: nothing ran. */
	usleep(20 * 1000);
	read_back(g_c, out);
	assert_int_equal(out[0], 0);
	ACL_OK(aclmdlRICaptureTaskUpdateBegin(upd, grp));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x22, N, upd));
	ACL_OK(aclmdlRICaptureTaskUpdateEnd(upd));
	ACL_OK(aclrtRecordEvent(ev, upd));
	ACL_OK(aclrtSynchronizeStream(g_exec));
	read_back(g_c, out);
	assert_int_equal(out[0], 0x22);
	assert_int_equal(out[N - 1], 0x22);

	/* Destroy while an execution waits: it returns once the execution ran. */
	ACL_OK(aclrtMemset(g_c, N, 0, N));
	ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
	struct later later = { NULL, ev };
	ACL_OK(aclrtGetCurrentContext(&later.ctx));
	assert_int_equal(pthread_create(&t, NULL, record_later, &later), 0);
	ACL_OK(aclmdlRIDestroy(m));
	read_back(g_c, out);
	assert_int_equal(out[7], 0x22);
	pthread_join(t, NULL);
	ACL_OK(aclrtSynchronizeStream(g_exec));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyStream(upd));
}

/* aclrtStreamAbort ends the executions it finds, running or queued: the model can go. */
static void test_abort_executions(void **state)
{
	uint8_t out[N];
	aclmdlRI m;
	aclrtStream run;
	aclrtEvent ev;

	(void)state;
	ACL_OK(aclrtCreateStream(&run));
	ACL_OK(aclrtCreateEventWithFlag(&ev, ACL_EVENT_EXTERNAL));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtStreamWaitEvent(g_s, ev));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x11, N, g_s));
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclrtMemset(g_c, N, 0, N));
	ACL_OK(aclmdlRIExecuteAsync(m, run)); /* reached: waits for ev */
	ACL_OK(aclmdlRIExecuteAsync(m, run)); /* queued behind it */
	usleep(20 * 1000);
	ACL_OK(aclrtStreamAbort(run));
	uint64_t t0 = rt_now_ms();
	ACL_OK(aclmdlRIDestroy(m));
	assert_true(rt_now_ms() - t0 < 5000);
	read_back(g_c, out);
	assert_int_equal(out[0], 0);
	/* The stream runs models again. */
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x12, N, g_s));
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclmdlRIExecuteAsync(m, run));
	ACL_OK(aclrtSynchronizeStream(run));
	read_back(g_c, out);
	assert_int_equal(out[N - 1], 0x12);
	ACL_OK(aclmdlRIDestroy(m));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyStream(run));
}

/*
 * Fork/join: g_s records e1, side waits on it (and joins the capture), fills b
 * and records e2; g_s fills a, waits on e2 and copies b into c.
 */
static void test_fork_join(void **state)
{
	uint8_t out[N];
	aclmdlRI m, got, other;
	aclrtStream side;
	aclrtEvent e1, e2;
	aclmdlRICaptureStatus st;

	(void)state;
	ACL_OK(aclrtCreateStream(&side));
	ACL_OK(aclrtCreateEvent(&e1));
	ACL_OK(aclrtCreateEvent(&e2));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtRecordEvent(e1, g_s));
	ACL_OK(aclrtStreamWaitEvent(side, e1));
	ACL_OK(aclmdlRICaptureGetInfo(side, &st, &got));
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE);
	ACL_OK(aclmdlRICaptureGetInfo(g_s, &st, &other));
	assert_ptr_equal(got, other);
	ACL_OK(aclrtMemsetAsync(g_b, N, 0x33, N, side));
	ACL_OK(aclrtRecordEvent(e2, side));
	ACL_OK(aclrtMemsetAsync(g_a, N, 0x44, N, g_s));
	ACL_OK(aclrtStreamWaitEvent(g_s, e2));
	ACL_OK(aclrtMemcpyAsync(g_c, N, g_b, N, ACL_MEMCPY_DEVICE_TO_DEVICE, g_s));
	/* Only the stream that began the capture ends it. */
	EXPECT_FAIL(aclmdlRICaptureEnd(side, &m), ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED);
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	assert_ptr_equal(m, got);
	ACL_OK(aclmdlRICaptureGetInfo(side, &st, &got));
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
	/* Nothing ran during the capture. */
	ACL_OK(aclrtSynchronizeStream(side));
	read_back(g_b, out);
	assert_int_not_equal(out[0], 0x33);
	for (int i = 0; i < 2; i++) {
		ACL_OK(aclrtMemset(g_a, N, 0, N));
		ACL_OK(aclrtMemset(g_b, N, 0, N));
		ACL_OK(aclrtMemset(g_c, N, 0, N));
		ACL_OK(aclmdlRIExecuteAsync(m, g_exec));
		ACL_OK(aclrtSynchronizeStream(g_exec));
		read_back(g_a, out);
		assert_int_equal(out[1], 0x44);
		read_back(g_c, out);
		assert_int_equal(out[2], 0x33);
		assert_int_equal(out[N - 1], 0x33);
	}
	ACL_OK(aclmdlRIDestroy(m));
	ACL_OK(aclrtDestroyEvent(e1));
	ACL_OK(aclrtDestroyEvent(e2));
	ACL_OK(aclrtDestroyStream(side));
}

/* A stream that joined and did not rejoin the origin: the capture fails and is gone. */
static void test_fork_unjoined(void **state)
{
	aclmdlRI m = NULL, got;
	aclrtStream side;
	aclrtEvent e1, e2;
	aclmdlRICaptureStatus st;

	(void)state;
	ACL_OK(aclrtCreateStream(&side));
	ACL_OK(aclrtCreateEvent(&e1));
	ACL_OK(aclrtCreateEvent(&e2));
	/* The side stream's last task is not an event record. */
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtRecordEvent(e1, g_s));
	ACL_OK(aclrtStreamWaitEvent(side, e1));
	ACL_OK(aclmdlRICaptureGetInfo(g_s, &st, &got));
	ACL_OK(aclrtMemsetAsync(g_b, N, 0x55, N, side));
	EXPECT_FAIL(aclmdlRICaptureEnd(g_s, &m), ACL_ERROR_RT_STREAM_UNJOINED);
	assert_null(m);
	ACL_OK(aclmdlRICaptureGetInfo(g_s, &st, &m));
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
	ACL_OK(aclmdlRICaptureGetInfo(side, &st, &m));
	assert_int_equal(st, ACL_MODEL_RI_CAPTURE_STATUS_NONE);
	EXPECT_FAIL(aclmdlRIDestroy(got), ACL_ERROR_RT_PARAM_INVALID);
	/* The side stream records, and the origin never waits for it. */
	m = NULL;
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_RELAXED));
	ACL_OK(aclrtRecordEvent(e1, g_s));
	ACL_OK(aclrtStreamWaitEvent(side, e1));
	ACL_OK(aclrtMemsetAsync(g_b, N, 0x55, N, side));
	ACL_OK(aclrtRecordEvent(e2, side));
	EXPECT_FAIL(aclmdlRICaptureEnd(g_s, &m), ACL_ERROR_RT_STREAM_UNJOINED);
	assert_null(m);
	/* Both streams work as before: a queued memset runs. */
	uint8_t out[N];
	ACL_OK(aclrtMemsetAsync(g_b, N, 0x66, N, side));
	ACL_OK(aclrtSynchronizeStream(side));
	read_back(g_b, out);
	assert_int_equal(out[0], 0x66);
	ACL_OK(aclrtDestroyEvent(e1));
	ACL_OK(aclrtDestroyEvent(e2));
	ACL_OK(aclrtDestroyStream(side));
}

/* The synchronous calls upstream checks against the capture mode. */
static void test_capture_mode_sync_calls(void **state)
{
	uint8_t host[N], out[N];
	aclmdlRI m;

	(void)state;
	memset(host, 9, sizeof(host));
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	assert_int_equal(aclrtMemcpy2d(g_a, 16, host, 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	const char *msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "aclrtMemcpy2d"));
	EXPECT_FAIL(aclrtMemset(g_a, N, 1, N), ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	EXPECT_FAIL(aclrtMemcpy(out, N, g_a, N, ACL_MEMCPY_DEVICE_TO_HOST),
		    ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT);
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclmdlRIDestroy(m));
	/* The argument checks come first. */
	ACL_OK(aclmdlRICaptureBegin(g_s, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL));
	EXPECT_FAIL(aclrtMemcpy2d(NULL, 16, host, 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE),
		    ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclmdlRICaptureEnd(g_s, &m));
	ACL_OK(aclmdlRIDestroy(m));
	/* Outside a capture the 2-D copy runs. */
	ACL_OK(aclrtMemset(g_a, N, 0, N));
	ACL_OK(aclrtMemcpy2d(g_a, 16, host, 16, 16, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	read_back(g_a, out);
	assert_int_equal(out[0], 9);
	assert_int_equal(out[N - 1], 9);
}

/* L0: c = 0x77; switch(0) -> L0: a loop for ever, executed on s until s goes. */
static aclmdlRI build_loop(aclrtStream bound, uint32_t *dev_index, aclrtLabel *l,
			   aclrtLabelList *list)
{
	aclmdlRI m;
	uint32_t zero = 0;

	ACL_OK(aclrtMemcpy(dev_index, 4, &zero, 4, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclmdlRIBuildBegin(&m, 0));
	ACL_OK(aclmdlRIBindStream(m, bound, 0));
	ACL_OK(aclrtCreateLabel(l));
	ACL_OK(aclrtCreateLabelList(l, 1, list));
	ACL_OK(aclrtSetLabel(*l, bound));
	ACL_OK(aclrtMemsetAsync(g_c, N, 0x77, N, bound));
	ACL_OK(aclrtSwitchLabelByIndex(dev_index, 1, *list, bound));
	ACL_OK(aclmdlRIBuildEnd(m, NULL));
	ACL_OK(aclmdlRIUnbindStream(m, bound));
	return m;
}

static void test_label_loop_ended(void **state)
{
	aclrtStream bound, run;
	aclrtLabel l;
	aclrtLabelList list;
	aclmdlRI m;
	uint32_t *dev_index;
	uint8_t out[N];
	aclrtContext prev, ctx;

	(void)state;
	ACL_OK(aclrtMalloc((void **)&dev_index, 4, ACL_MEM_MALLOC_HUGE_FIRST));
	/* Ended by aclrtDestroyStream. */
	ACL_OK(aclrtCreateStream(&bound));
	ACL_OK(aclrtCreateStream(&run));
	m = build_loop(bound, dev_index, &l, &list);
	ACL_OK(aclrtMemset(g_c, N, 0, N));
	ACL_OK(aclmdlRIExecuteAsync(m, run));
	await_first_byte(g_c, 0x77); /* it runs */
	/*
	 * A destroy waits for a running model, then gives up: upstream's 10 s,
	 * here the 400 ms main() sets in NPU_MODEL_DESTROY_WAIT_MS.
	 */
	uint64_t t0 = rt_now_ms();
	assert_int_equal(aclmdlRIDestroy(m), ACL_ERROR_RT_MODEL_RUNNING);
	assert_true(rt_now_ms() - t0 >= 400);
	const char *msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "still running after 400 ms"));
	ACL_OK(aclrtDestroyStream(run));
	ACL_OK(aclmdlRIDestroy(m));
	ACL_OK(aclrtDestroyLabelList(list));
	ACL_OK(aclrtDestroyLabel(l));
	ACL_OK(aclrtDestroyStream(bound));

	/* Ended by aclrtDestroyContext (as by aclrtResetDevice). */
	ACL_OK(aclrtGetCurrentContext(&prev));
	ACL_OK(aclrtCreateContext(&ctx, 0));
	ACL_OK(aclrtCreateStream(&bound));
	ACL_OK(aclrtCreateStream(&run));
	m = build_loop(bound, dev_index, &l, &list);
	ACL_OK(aclrtMemset(g_c, N, 0, N));
	ACL_OK(aclmdlRIExecuteAsync(m, run));
	await_first_byte(g_c, 0x77);
	ACL_OK(aclrtDestroyContext(ctx));
	ACL_OK(aclrtSetCurrentContext(prev));
	/* The loop ended, and the model went with its context, as upstream's. */
	ACL_OK(aclrtMemset(g_c, N, 0, N));
	usleep(20 * 1000);
	read_back(g_c, out);
	assert_int_equal(out[0], 0);
	EXPECT_FAIL(aclmdlRIExecuteAsync(m, g_exec), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclmdlRIDestroy(m), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDestroyLabelList(list));
	ACL_OK(aclrtDestroyLabel(l));
	ACL_OK(aclrtFree(dev_index));
}

static void test_bad_inputs(void **state)
{
	aclmdlRI m;
	aclmdlRICaptureStatus st;
	aclrtLabel l;
	aclrtLabelList list;

	(void)state;
	EXPECT_FAIL(aclmdlRICaptureBegin(g_s, (aclmdlRICaptureMode)7), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRICaptureBegin(NULL, ACL_MODEL_RI_CAPTURE_MODE_GLOBAL),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclmdlRICaptureEnd(g_s, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRICaptureEnd(g_s, &m), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	EXPECT_FAIL(aclmdlRICaptureGetInfo(g_s, NULL, &m), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRICaptureGetInfo(g_s, &st, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRICaptureThreadExchangeMode(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRICaptureTaskGrpBegin(g_s), ACL_ERROR_RT_STREAM_NOT_CAPTURED);
	EXPECT_FAIL(aclmdlRIExecuteAsync(NULL, g_exec), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRIExecute(NULL, -1), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRIDestroy(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRIDebugPrint(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRIBuildBegin(NULL, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclmdlRIExecuteAsync((aclmdlRI)&st, g_exec), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtCreateLabel(NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDestroyLabel(NULL), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtCreateLabel(&l));
	EXPECT_FAIL(aclrtCreateLabelList(&l, 0, &list), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtCreateLabelList(NULL, 1, &list), ACL_ERROR_INVALID_PARAM);
	/* A label outside a model being built is refused. */
	EXPECT_FAIL(aclrtSetLabel(l, g_s), ACL_ERROR_RT_STREAM_MODEL);
	ACL_OK(aclrtCreateLabelList(&l, 1, &list));
	EXPECT_FAIL(aclrtSwitchLabelByIndex(NULL, 1, list, g_s), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtSwitchLabelByIndex(g_a, 1, list, g_s), ACL_ERROR_RT_STREAM_MODEL);
	ACL_OK(aclrtDestroyLabelList(list));
	ACL_OK(aclrtDestroyLabel(l));
	EXPECT_FAIL(aclrtDestroyLabel(l), ACL_ERROR_RT_PARAM_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_execute), cmocka_unit_test(test_capture_events),
		cmocka_unit_test(test_capture_modes),	cmocka_unit_test(test_task_group_update),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_update_queued_execution),
		cmocka_unit_test(test_abort_executions),
		cmocka_unit_test(test_fork_join),
		cmocka_unit_test(test_fork_unjoined),
		cmocka_unit_test(test_capture_mode_sync_calls),
		cmocka_unit_test(test_label_loop_ended),
		cmocka_unit_test(test_bad_inputs),
	};

	/* Upstream's 10 s of aclmdlRIDestroy, shortened (test_label_loop_ended). */
	setenv("NPU_MODEL_DESTROY_WAIT_MS", "400", 1);
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
