// SPDX-License-Identifier: MIT
/*
 * NPU_TRACE: a small workload (a synchronous H2D copy, memsets on two
 * streams, an event record and wait, synchronisations) traced to a file,
 * which must then be one valid JSON trace-event document with one lane per
 * stream, each descriptor with its kind and bytes, times that make sense
 * (queued <= start <= end <= observed completion, lanes in order), the
 * engine's time of an event record the program read back, and the API calls
 * as slices of the calling thread. The file is written at aclFinalize and rewritten whole
 * by a second aclInit/aclFinalize. With NPU_TRACE_MAX_EVENTS set (the
 * .truncated variant) the file must say it is truncated and stay valid.
 *
 * The JSON is read by json_reader.h: no library needed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json_reader.h"
#include "rt_test.h"

/* ---- the trace's structure ---------------------------------------------- */

#define MAX_LANES 64

struct lane {
	double pid, tid;
	const char *name;
};

struct trace {
	struct jval root;
	const struct jval *events;
	struct lane lanes[MAX_LANES]; /* device lanes (thread_name of a device's pid) */
	size_t nlanes;
};

static int is_device_pid(double pid)
{
	return pid >= (double)0x7fff0000;
}

static void load_trace(const char *path, struct trace *t)
{
	memset(t, 0, sizeof(*t));
	read_trace(path, &t->root);
	t->events = jget(&t->root, "traceEvents");
	assert_non_null(t->events);
	assert_int_equal(t->events->t, J_ARR);
	assert_non_null(jget(&t->root, "otherData"));
	for (size_t i = 0; i < t->events->n; i++) {
		const struct jval *e = &t->events->items[i];
		const char *ph = jstr(e, "ph");

		assert_non_null(ph);
		assert_non_null(jstr(e, "name"));
		assert_non_null(jget(e, "pid"));
		assert_non_null(jget(e, "tid"));
		if (strcmp(ph, "M") == 0 && strcmp(jstr(e, "name"), "thread_name") == 0 &&
		    is_device_pid(jnum(e, "pid"))) {
			assert_true(t->nlanes < MAX_LANES);
			t->lanes[t->nlanes].pid = jnum(e, "pid");
			t->lanes[t->nlanes].tid = jnum(e, "tid");
			t->lanes[t->nlanes].name = jstr(jget(e, "args"), "name");
			assert_non_null(t->lanes[t->nlanes].name);
			t->nlanes++;
		}
	}
}

/* The lane whose name contains needle; fails unless there is exactly one. */
static const struct lane *lane_named(const struct trace *t, const char *needle)
{
	const struct lane *found = NULL;

	for (size_t i = 0; i < t->nlanes; i++) {
		if (strstr(t->lanes[i].name, needle) != NULL) {
			if (found != NULL)
				fail_msg("two lanes are named after %s", needle);
			found = &t->lanes[i];
		}
	}
	if (found == NULL)
		fail_msg("no lane is named after %s", needle);
	return found;
}

/* Descriptor slices on lane l (NULL: every device lane) with this kind
 * (NULL: any); *bytes gets their total bytes. */
static int count_desc(const struct trace *t, const struct lane *l, const char *kind,
		      double *bytes)
{
	int n = 0;

	if (bytes)
		*bytes = 0;
	for (size_t i = 0; i < t->events->n; i++) {
		const struct jval *e = &t->events->items[i];
		const struct jval *args = jget(e, "args");

		if (strcmp(jstr(e, "ph"), "X") != 0 || !is_device_pid(jnum(e, "pid")))
			continue;
		if (l != NULL && (jnum(e, "pid") != l->pid || jnum(e, "tid") != l->tid))
			continue;
		if (kind != NULL && strcmp(jstr(args, "kind"), kind) != 0)
			continue;
		n++;
		if (bytes)
			*bytes += jnum(args, "bytes");
	}
	return n;
}

/* The one descriptor slice of this kind on lane l. */
static const struct jval *find_desc(const struct trace *t, const struct lane *l, const char *kind)
{
	for (size_t i = 0; i < t->events->n; i++) {
		const struct jval *e = &t->events->items[i];

		if (strcmp(jstr(e, "ph"), "X") == 0 && jnum(e, "pid") == l->pid &&
		    jnum(e, "tid") == l->tid && strcmp(jstr(jget(e, "args"), "kind"), kind) == 0)
			return e;
	}
	fail_msg("no %s on lane %s", kind, l->name);
	return NULL;
}

/* Slices named name on the host threads' lanes. */
static int count_host(const struct trace *t, const char *name)
{
	int n = 0;

	for (size_t i = 0; i < t->events->n; i++) {
		const struct jval *e = &t->events->items[i];

		if (strcmp(jstr(e, "ph"), "X") == 0 && jnum(e, "pid") == (double)getpid() &&
		    strcmp(jstr(e, "name"), name) == 0)
			n++;
	}
	return n;
}

/* Every descriptor: queued <= start, end >= start, completion observed and
 * not before the queueing; on each lane, a slice starts no earlier than the
 * previous one ended. Times are in us with ns digits. */
static void check_times(const struct trace *t)
{
	const double eps = 0.002;

	for (size_t li = 0; li < t->nlanes; li++) {
		const struct lane *l = &t->lanes[li];
		double prev_end = 0;

		for (size_t i = 0; i < t->events->n; i++) {
			const struct jval *e = &t->events->items[i];
			const struct jval *args = jget(e, "args");
			const struct jval *done;
			double ts, dur, queued;

			if (strcmp(jstr(e, "ph"), "X") != 0 || jnum(e, "pid") != l->pid ||
			    jnum(e, "tid") != l->tid)
				continue;
			ts = jnum(e, "ts");
			dur = jnum(e, "dur");
			queued = jnum(args, "queued_us");
			done = jget(args, "completed_us");
			assert_true(dur >= 0);
			assert_true(ts + eps >= queued);
			assert_true(ts + eps >= prev_end);
			assert_non_null(done);
			if (done->t != J_NUM)
				fail_msg("descriptor %.0f on %s: completion not observed after a sync",
					 jnum(args, "seq"), l->name);
			assert_true(done->num + eps >= queued);
			/* The end is the observed completion, or earlier where an
			 * engine time bounds it. */
			assert_true(ts + dur <= done->num + eps);
			prev_end = ts + dur;
		}
	}
}

/* ---- the tests ---------------------------------------------------------- */

static char g_path[256];

static void remove_trace(void)
{
	unlink(g_path);
}

#define COPY_BYTES (1u << 20)
#define SET1_BYTES (64u << 10)
#define SET2_BYTES (128u << 10)
#define BACK_BYTES 4096u

static void test_trace_of_a_small_workload(void **state)
{
	aclrtStream s1 = NULL, s2 = NULL;
	aclrtEvent ev = NULL;
	void *host = NULL, *dev = NULL;
	char name1[64], name2[64];
	struct trace t;
	double bytes = 0;
	uint64_t engine_us = 0;

	(void)state;
	unlink(g_path);
	ACL_OK(aclInit(NULL));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtCreateStream(&s1));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtMallocHost(&host, COPY_BYTES));
	ACL_OK(aclrtMalloc(&dev, COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
	rt_fill_pattern(host, COPY_BYTES, 7);
	ACL_OK(aclrtMemcpy(dev, COPY_BYTES, host, COPY_BYTES, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemsetAsync(dev, SET1_BYTES, 0x11, SET1_BYTES, s1));
	ACL_OK(aclrtMemsetAsync((char *)dev + COPY_BYTES / 2, SET2_BYTES, 0x22, SET2_BYTES, s2));
	ACL_OK(aclrtCreateEvent(&ev));
	ACL_OK(aclrtRecordEvent(ev, s1));
	ACL_OK(aclrtStreamWaitEvent(s2, ev));
	ACL_OK(aclrtMemcpyAsync(host, BACK_BYTES, dev, BACK_BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s1));
	ACL_OK(aclrtSynchronizeStream(s2));
	ACL_OK(aclrtSynchronizeStream(s1));
	ACL_OK(aclrtEventGetTimestamp(ev, &engine_us));
	assert_int_equal(((uint8_t *)host)[0], 0x11);
	snprintf(name1, sizeof(name1), "stream %p ", s1);
	snprintf(name2, sizeof(name2), "stream %p ", s2);
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtDestroyStream(s2));
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtFreeHost(host));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclFinalize());

	load_trace(g_path, &t);
	if (getenv("NPU_TRACE_MAX_EVENTS") != NULL) {
		const struct jval *other = jget(&t.root, "otherData");
		const struct jval *trunc = jget(other, "truncated");

		assert_non_null(trunc);
		assert_int_equal(trunc->t, J_BOOL);
		assert_true(trunc->b);
		assert_true(jnum(other, "dropped_events") > 0);
		assert_true(jnum(other, "descriptors") + jnum(other, "slices") <=
			    jnum(other, "max_events"));
		check_times(&t);
		jfree(&t.root);
		return;
	}
	assert_false(jget(jget(&t.root, "otherData"), "truncated")->b);

	/* One lane per user stream, named after its handle. */
	const struct lane *l1 = lane_named(&t, name1);
	const struct lane *l2 = lane_named(&t, name2);
	size_t user_lanes = 0;
	for (size_t i = 0; i < t.nlanes; i++) {
		user_lanes += strncmp(t.lanes[i].name, "stream ", 7) == 0;
	}
	assert_int_equal(user_lanes, 2);

	/* The memsets, each on its stream, with its bytes. */
	assert_int_equal(count_desc(&t, l1, "memset device", &bytes), 1);
	assert_int_equal((uint64_t)bytes, SET1_BYTES);
	assert_int_equal(count_desc(&t, l2, "memset device", &bytes), 1);
	assert_int_equal((uint64_t)bytes, SET2_BYTES);
	/* The synchronous H2D copy, wherever the runtime ran it, and the D2H on
	 * s1 (reading the event's timestamp back is a D2H of its own). */
	assert_int_equal(count_desc(&t, NULL, "H2D", &bytes), 1);
	assert_int_equal((uint64_t)bytes, COPY_BYTES);
	assert_int_equal(count_desc(&t, l1, "D2H", &bytes), 1);
	assert_int_equal((uint64_t)bytes, BACK_BYTES);
	/* The record: the engine's timestamp, then the epoch's write. */
	assert_int_equal(count_desc(&t, l1, "timestamp", NULL), 1);
	assert_int_equal(count_desc(&t, l1, "value write", NULL), 1);
	assert_int_equal(count_desc(&t, l1, NULL, NULL), 4);
	/* The program read the record's engine time: the trace uses it. */
	const struct jval *stamp = find_desc(&t, l1, "timestamp");
	assert_true(fabs(jnum(jget(stamp, "args"), "engine_us") - (double)engine_us) < 1.0);
	assert_true(fabs(jnum(stamp, "ts") - jnum(jget(stamp, "args"), "engine_us")) < 0.002);

	check_times(&t);

	/* The calls, as slices of this thread. */
	assert_int_equal(count_host(&t, "aclrtMemcpy"), 1);
	assert_int_equal(count_host(&t, "aclrtMemsetAsync"), 2);
	assert_int_equal(count_host(&t, "aclrtRecordEvent"), 1);
	assert_int_equal(count_host(&t, "aclrtSynchronizeStream"), 2);
	jfree(&t.root);
}

/* A second aclInit/aclFinalize rewrites the file with everything so far. */
static void test_trace_survives_a_second_init(void **state)
{
	void *host = NULL, *dev = NULL;
	struct trace t;
	double bytes = 0;

	(void)state;
	if (getenv("NPU_TRACE_MAX_EVENTS") != NULL)
		skip();
	ACL_OK(aclInit(NULL));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtMallocHost(&host, 8192));
	ACL_OK(aclrtMalloc(&dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(dev, 8192, host, 8192, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtFreeHost(host));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclFinalize());

	load_trace(g_path, &t);
	assert_int_equal(count_desc(&t, NULL, "H2D", &bytes), 2);
	assert_int_equal((uint64_t)bytes, COPY_BYTES + 8192);
	/* The first aclInit may be the call that reads NPU_TRACE, so only the
	 * second is sure to be in. */
	assert_true(count_host(&t, "aclInit") >= 1);
	assert_int_equal(count_host(&t, "aclrtSynchronizeStream"), 2);
	check_times(&t);
	jfree(&t.root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_trace_of_a_small_workload),
		cmocka_unit_test(test_trace_survives_a_second_init),
	};
	const char *dir = getenv("TMPDIR");

	/* Before the first acl call: the runtime reads NPU_TRACE once. */
	snprintf(g_path, sizeof(g_path), "%s/npu-trace-test-%d.json", dir ? dir : "/tmp",
		 (int)getpid());
	setenv("NPU_TRACE", g_path, 1);
	/* The runtime writes the file once more at exit, from a handler it
	 * registers when tracing starts: one registered before runs after it. */
	atexit(remove_trace);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
