// SPDX-License-Identifier: MIT
/*
 * CANN's profiling API (acl/acl_prof.h) over the runtime's trace: a session
 * (aclprofInit, aclprofStart, aclprofStop) writes one JSON file into the
 * directory aclprofInit named, holding the program's marks, pushed ranges,
 * free ranges, steps and operator ranges, its device work and API calls of
 * the session and nothing of an earlier one; otherData.aclprof holds the
 * configuration and settings. Every function refuses bad arguments and
 * calls out of order with upstream's codes, and says why in
 * aclGetRecentErrMsg.
 */
#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl_prof.h"
#include "json_reader.h"
#include "rt_test.h"

static char g_dir[256];

/* Removes every file of dir, then dir. */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[512];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static void remove_all(void)
{
	remove_dir(g_dir);
}

/* The session files of dir (none if dir is missing): their number, and the
 * path of the last one in directory order (there is one when it matters). */
static int session_files(const char *dir, char *path, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, "aclprof_", 8) != 0 || l < 5 ||
		    strcmp(e->d_name + l - 5, ".json") != 0)
			continue;
		n++;
		snprintf(path, len, "%s/%s", dir, e->d_name);
	}
	closedir(d);
	return n;
}

/* The one session file of dir, parsed; the file is removed. */
static void read_session(const char *dir, struct jval *root)
{
	char path[512];

	assert_int_equal(session_files(dir, path, sizeof(path)), 1);
	read_trace(path, root);
	unlink(path);
}

static const struct jval *events(const struct jval *root)
{
	const struct jval *ev = jget(root, "traceEvents");

	assert_non_null(ev);
	assert_int_equal(ev->t, J_ARR);
	return ev;
}

/* The first event with phase ph and name, or NULL. */
static const struct jval *find_event(const struct jval *root, const char *ph, const char *name)
{
	const struct jval *ev = events(root);

	for (size_t i = 0; i < ev->n; i++) {
		const char *p = jstr(&ev->items[i], "ph"), *n = jstr(&ev->items[i], "name");

		if (p != NULL && n != NULL && strcmp(p, ph) == 0 && strcmp(n, name) == 0)
			return &ev->items[i];
	}
	return NULL;
}

static int count_events(const struct jval *root, const char *ph, const char *name)
{
	const struct jval *ev = events(root);
	int n = 0;

	for (size_t i = 0; i < ev->n; i++) {
		const char *p = jstr(&ev->items[i], "ph"), *nm = jstr(&ev->items[i], "name");

		if (p != NULL && nm != NULL && strcmp(p, ph) == 0 && strcmp(nm, name) == 0)
			n++;
	}
	return n;
}

/* The message of the last failure mentions api. */
static void expect_message(const char *api)
{
	const char *m = aclGetRecentErrMsg();

	if (m == NULL || strstr(m, api) == NULL)
		fail_msg("no message of %s (got \"%s\")", api, m ? m : "");
}

static void *stamp_with(const char *msg)
{
	void *s = aclprofCreateStamp();

	assert_non_null(s);
	ACL_OK(aclprofSetStampTraceMessage(s, msg, (uint32_t)strlen(msg)));
	return s;
}

static void init_dir(void)
{
	ACL_OK(aclprofInit(g_dir, strlen(g_dir)));
}

static void test_session_records_the_program_events(void **state)
{
	uint32_t dev0[1] = {0};
	aclprofConfig *cfg;
	aclrtStream stream = NULL;
	void *host = NULL, *dev = NULL, *mark, *outer, *inner, *range;
	aclprofStepInfo *step;
	uint32_t range_id = 0;
	struct jval root;
	const struct jval *meta, *e, *o, *in, *b, *en;
	char range_key[32];
	aclprofTensorInfo info;
	aclprofEventAttributes attr;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	init_dir();
	cfg = aclprofCreateConfig(dev0, 1, ACL_AICORE_ARITHMETIC_UTILIZATION, NULL,
				  ACL_PROF_ACL_API | ACL_PROF_MSPROFTX);
	assert_non_null(cfg);
	ACL_OK(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 2));
	ACL_OK(aclprofStart(cfg));

	/* A stream made in the session has a lane, with its device work. */
	ACL_OK(aclrtCreateStream(&stream));
	ACL_OK(aclrtMallocHost(&host, 4096));
	ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	mark = stamp_with("load \"mark\"");
	outer = stamp_with("outer");
	inner = stamp_with("inner");
	range = stamp_with("free range");
	step = aclprofCreateStepInfo();
	assert_non_null(step);

	ACL_OK(aclprofGetStepTimestamp(step, ACL_STEP_START, stream));
	ACL_OK(aclprofMark(mark));
	ACL_OK(aclprofPush(outer));
	ACL_OK(aclprofRangeStart(range, &range_id));
	assert_int_not_equal(range_id, 0);
	ACL_OK(aclprofPush(inner));
	ACL_OK(aclrtMemcpyAsync(dev, 4096, host, 4096, ACL_MEMCPY_HOST_TO_DEVICE, stream));
	ACL_OK(aclrtSynchronizeStream(stream));
	ACL_OK(aclprofPop());
	ACL_OK(aclprofRangeStop(range_id));
	ACL_OK(aclprofMarkEx("on the stream", 13, stream));
	ACL_OK(aclprofPop());
	/* An operator range, named by aclprofStr2Id's string. */
	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	info.opNameId = aclprofStr2Id("MatMul_1");
	info.tensorNum = 0;
	attr.version = ACL_PROF_EVENT_ATTR_VERSION;
	attr.size = sizeof(attr);
	attr.messageType = ACL_PROF_MESSAGE_TYPE_TENSOR_INFO;
	attr.message.tensorInfo = &info;
	ACL_OK(aclprofRangePushEx(&attr));
	ACL_OK(aclprofRangePop());
	ACL_OK(aclprofGetStepTimestamp(step, ACL_STEP_END, stream));
	/* The range is closed: its id is no more. */
	assert_int_equal(aclprofRangeStop(range_id), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclprofStop(cfg));

	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtFreeHost(host));
	ACL_OK(aclrtDestroyStream(stream));
	aclprofDestroyStepInfo(step);
	aclprofDestroyStamp(mark);
	aclprofDestroyStamp(outer);
	aclprofDestroyStamp(inner);
	aclprofDestroyStamp(range);
	ACL_OK(aclprofDestroyConfig(cfg));
	ACL_OK(aclprofFinalize());

	read_session(g_dir, &root);
	meta = jget(jget(&root, "otherData"), "aclprof");
	assert_non_null(meta);
	assert_int_equal(jget(meta, "devices")->n, 1);
	assert_int_equal((int)jget(meta, "devices")->items[0].num, 0);
	assert_string_equal(jstr(meta, "data_types"), "0x81");
	assert_int_equal((int)jnum(meta, "aicore_metrics"), ACL_AICORE_ARITHMETIC_UTILIZATION);
	assert_string_equal(jstr(jget(meta, "settings"), "ACL_PROF_SYS_HARDWARE_MEM_FREQ"), "15");

	/* The mark: an instant of this thread, its message escaped and back. */
	e = find_event(&root, "i", "load \"mark\"");
	assert_non_null(e);
	assert_string_equal(jstr(e, "cat"), "msproftx");
	assert_int_equal((int)jnum(e, "pid"), (int)getpid());

	/* Pushed ranges nest, and hold the copy's API call. */
	o = find_event(&root, "X", "outer");
	in = find_event(&root, "X", "inner");
	assert_non_null(o);
	assert_non_null(in);
	assert_true(jnum(o, "ts") <= jnum(in, "ts"));
	assert_true(jnum(in, "ts") + jnum(in, "dur") <= jnum(o, "ts") + jnum(o, "dur") + 0.001);
	assert_int_equal((int)jnum(o, "tid"), (int)jnum(in, "tid"));
	e = find_event(&root, "X", "aclrtMemcpyAsync");
	assert_non_null(e);
	assert_true(jnum(in, "ts") <= jnum(e, "ts"));
	assert_true(jnum(e, "ts") + jnum(e, "dur") <= jnum(in, "ts") + jnum(in, "dur") + 0.001);

	/* The free range: a begin and an end with its id. */
	b = find_event(&root, "b", "free range");
	en = find_event(&root, "e", "free range");
	assert_non_null(b);
	assert_non_null(en);
	snprintf(range_key, sizeof(range_key), "0x%x", range_id);
	assert_string_equal(jstr(b, "id"), range_key);
	assert_string_equal(jstr(en, "id"), range_key);
	assert_true(jnum(b, "ts") <= jnum(en, "ts"));
	assert_true(jnum(o, "ts") <= jnum(b, "ts"));

	/* MarkEx: on the stream's lane (a device "process"). */
	e = find_event(&root, "i", "on the stream");
	assert_non_null(e);
	assert_true(jnum(e, "pid") >= (double)0x7fff0000);

	/* The step and the operator range. */
	assert_int_equal(count_events(&root, "b", "step 0") + count_events(&root, "b", "step 1") +
				 count_events(&root, "b", "step 2"),
			 1);
	assert_non_null(find_event(&root, "X", "MatMul_1"));

	/* The copy, on the stream's lane. */
	e = NULL;
	{
		const struct jval *ev = events(&root);

		for (size_t i = 0; i < ev->n; i++) {
			const struct jval *a = jget(&ev->items[i], "args");

			if (strcmp(jstr(&ev->items[i], "ph"), "X") == 0 && a != NULL &&
			    jstr(a, "kind") != NULL && strcmp(jstr(a, "kind"), "H2D") == 0)
				e = &ev->items[i];
		}
	}
	assert_non_null(e);
	assert_int_equal((int)jnum(jget(e, "args"), "bytes"), 4096);
	/* aclprof* calls are not slices of their own. */
	assert_null(find_event(&root, "X", "aclprofMark"));
	jfree(&root);
	ACL_OK(aclrtResetDevice(0));
}

/* A second session's file holds none of the first's events. */
static void test_sessions_are_separate(void **state)
{
	void *m1, *m2;
	struct jval root;
	char path[512];

	(void)state;
	init_dir();
	m1 = stamp_with("first");
	m2 = stamp_with("second");
	ACL_OK(aclprofStart(NULL));
	ACL_OK(aclprofMark(m1));
	ACL_OK(aclprofStop(NULL));
	assert_int_equal(session_files(g_dir, path, sizeof(path)), 1);
	read_trace(path, &root);
	unlink(path);
	assert_non_null(find_event(&root, "i", "first"));
	jfree(&root);

	ACL_OK(aclprofStart(NULL));
	ACL_OK(aclprofMark(m2));
	/* aclprofFinalize ends the running session and writes it. */
	ACL_OK(aclprofFinalize());
	read_session(g_dir, &root);
	assert_non_null(find_event(&root, "i", "second"));
	assert_null(find_event(&root, "i", "first"));
	jfree(&root);
	aclprofDestroyStamp(m1);
	aclprofDestroyStamp(m2);
}

static void test_calls_out_of_order(void **state)
{
	uint32_t dev0[1] = {0};
	aclprofConfig *cfg, *other;
	void *st;
	uint32_t id = 0;

	(void)state;
	cfg = aclprofCreateConfig(dev0, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API);
	other = aclprofCreateConfig(dev0, 1, ACL_AICORE_NONE, NULL, ACL_PROF_TASK_TIME);
	assert_non_null(cfg);
	assert_non_null(other);

	/* Before aclprofInit. */
	assert_int_equal(aclprofStart(cfg), ACL_ERROR_PROF_NOT_RUN);
	expect_message("aclprofStart");
	assert_int_equal(aclprofStop(cfg), ACL_SUCCESS);
	assert_int_equal(aclprofFinalize(), ACL_SUCCESS);
	assert_null(aclprofCreateStamp());
	expect_message("aclprofCreateStamp");
	assert_int_equal(aclprofPop(), ACL_ERROR_PROF_NOT_RUN);
	assert_int_equal(aclprofRangeStop(1), ACL_ERROR_PROF_NOT_RUN);
	assert_int_equal(aclprofMarkEx("x", 1, (aclrtStream)0x1), ACL_ERROR_PROF_NOT_RUN);
	assert_int_equal(aclprofRangePop(), ACL_ERROR_PROF_NOT_RUN);

	init_dir();
	assert_int_equal(aclprofInit(g_dir, strlen(g_dir)), ACL_ERROR_REPEAT_INITIALIZE);
	expect_message("aclprofInit");
	st = aclprofCreateStamp();
	assert_non_null(st);
	/* Initialised, not started. */
	assert_int_equal(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN);
	expect_message("aclprofStop");
	assert_int_equal(aclprofMark(st), ACL_ERROR_PROF_NOT_RUN);
	assert_int_equal(aclprofPush(st), ACL_ERROR_PROF_NOT_RUN);
	assert_int_equal(aclprofRangeStart(st, &id), ACL_ERROR_PROF_NOT_RUN);

	ACL_OK(aclprofStart(cfg));
	/* The same configuration again: nothing happens; another: refused. */
	ACL_OK(aclprofStart(cfg));
	assert_int_equal(aclprofStart(other), ACL_ERROR_INVALID_PROFILING_CONFIG);
	assert_int_equal(aclprofStop(other), ACL_ERROR_INVALID_PROFILING_CONFIG);
	/* Nothing pushed on this thread. */
	assert_int_equal(aclprofPop(), ACL_ERROR_FAILURE);
	expect_message("aclprofPop");
	assert_int_equal(aclprofRangePop(), ACL_ERROR_FAILURE);
	ACL_OK(aclprofStop(cfg));
	assert_int_equal(aclprofStop(cfg), ACL_ERROR_PROF_NOT_RUN);
	ACL_OK(aclprofFinalize());
	assert_int_equal(aclprofFinalize(), ACL_SUCCESS);
	/* Init again after Finalize. */
	init_dir();
	ACL_OK(aclprofFinalize());
	{
		char path[512];

		assert_int_equal(session_files(g_dir, path, sizeof(path)), 1);
		unlink(path);
	}
	aclprofDestroyStamp(st);
	ACL_OK(aclprofDestroyConfig(cfg));
	ACL_OK(aclprofDestroyConfig(other));
}

static void test_bad_arguments(void **state)
{
	uint32_t devs[2] = {0, 0};
	uint32_t count = 0;
	uint32_t big = 0;
	aclprofConfig *cfg;
	aclprofStepInfo *step;
	void *st;
	uint32_t id = 0;
	char msg[200];
	aclprofEventAttributes attr;
	int bogus = 0;

	(void)state;
	ACL_OK(aclrtGetDeviceCount(&count));

	/* aclprofInit */
	assert_int_equal(aclprofInit(NULL, 4), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofInit");
	assert_int_equal(aclprofInit(g_dir, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofInit(g_dir, strlen(g_dir) + 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofInit(g_dir, 4096), ACL_ERROR_INVALID_PARAM);
	/* A path through a file is no directory. */
	{
		char file[300], under[320];
		FILE *f;

		snprintf(file, sizeof(file), "%s-file", g_dir);
		f = fopen(file, "w");
		assert_non_null(f);
		fclose(f);
		snprintf(under, sizeof(under), "%s/sub", file);
		assert_int_equal(aclprofInit(under, strlen(under)), ACL_ERROR_INVALID_PARAM);
		unlink(file);
	}

	/* aclprofCreateConfig */
	assert_null(aclprofCreateConfig(NULL, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	expect_message("aclprofCreateConfig");
	assert_null(aclprofCreateConfig(devs, 1, ACL_AICORE_NONE, (const aclprofAicoreEvents *)&bogus,
					ACL_PROF_ACL_API));
	assert_null(aclprofCreateConfig(devs, 65, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	assert_null(aclprofCreateConfig(devs, 0, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	/* {0, 0}: above the device count with one device, else listed twice. */
	assert_null(aclprofCreateConfig(devs, 2, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	expect_message(count >= 2 ? "twice" : "above");
	big = count;
	assert_null(aclprofCreateConfig(&big, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API));
	/* No device, with msproftx: allowed. */
	cfg = aclprofCreateConfig(NULL, 0, ACL_AICORE_NONE, NULL, ACL_PROF_MSPROFTX);
	assert_non_null(cfg);
	ACL_OK(aclprofDestroyConfig(cfg));
	/* Destroyed: refused from now on, not freed twice. */
	assert_int_equal(aclprofDestroyConfig(cfg), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofDestroyConfig");
	assert_int_equal(aclprofDestroyConfig(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofDestroyConfig((const aclprofConfig *)&bogus), ACL_ERROR_INVALID_PARAM);

	/* aclprofSetConfig */
	assert_int_equal(aclprofSetConfig(ACL_PROF_ARGS_MIN, "1", 1), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofSetConfig");
	assert_int_equal(aclprofSetConfig(ACL_PROF_ARGS_MAX, "1", 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofSetConfig((aclprofConfigType)2, "1", 1),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	assert_int_equal(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "15", 3),
			 ACL_ERROR_INVALID_PARAM);
	memset(msg, '1', sizeof(msg));
	msg[sizeof(msg) - 1] = 0;
	assert_int_equal(aclprofSetConfig(ACL_PROF_OPTYPE, msg, 257), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "0", 1),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	assert_int_equal(aclprofSetConfig(ACL_PROF_SYS_HARDWARE_MEM_FREQ, "101", 3),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	assert_int_equal(aclprofSetConfig(ACL_PROF_SYS_CPU_FREQ, "1x", 2),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	assert_int_equal(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "100MB", 5),
			 ACL_ERROR_INVALID_PROFILING_CONFIG);
	ACL_OK(aclprofSetConfig(ACL_PROF_STORAGE_LIMIT, "200MB", 5));
	ACL_OK(aclprofSetConfig(ACL_PROF_SYS_CPU_FREQ, "100", 3));

	/* aclprofStart's configuration */
	init_dir();
	cfg = aclprofCreateConfig(devs, 1, ACL_AICORE_NONE, NULL, 0);
	assert_non_null(cfg);
	assert_int_equal(aclprofStart(cfg), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofStart");
	ACL_OK(aclprofDestroyConfig(cfg));
	cfg = aclprofCreateConfig(devs, 1, ACL_AICORE_NONE, NULL, ACL_PROF_ACL_API | (1ULL << 40));
	assert_non_null(cfg);
	assert_int_equal(aclprofStart(cfg), ACL_ERROR_PROF_MODULES_UNSUPPORTED);
	ACL_OK(aclprofDestroyConfig(cfg));
	assert_int_equal(aclprofStart((const aclprofConfig *)&bogus), ACL_ERROR_INVALID_PARAM);

	/* Stamps */
	st = aclprofCreateStamp();
	assert_non_null(st);
	assert_int_equal(aclprofSetStampTraceMessage(NULL, "a", 1), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofSetStampTraceMessage");
	assert_int_equal(aclprofSetStampTraceMessage(&bogus, "a", 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofSetStampTraceMessage(st, NULL, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofSetStampTraceMessage(st, msg, 128), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclprofSetStampTraceMessage(st, msg, 127));
	aclprofDestroyStamp(NULL);
	expect_message("aclprofDestroyStamp");
	aclprofDestroyStamp(&bogus);
	expect_message("aclprofDestroyStamp");

	ACL_OK(aclprofStart(NULL));
	assert_int_equal(aclprofMark(NULL), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofMark");
	assert_int_equal(aclprofMark(&bogus), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofPush(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofPush(&bogus), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofRangeStart(NULL, &id), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofRangeStart(st, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofRangeStop(0x7654321), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofRangeStop");
	assert_int_equal(aclprofMarkEx(NULL, 1, (aclrtStream)&bogus), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofMarkEx("a", 1, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofMarkEx("", 0, (aclrtStream)&bogus), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofMarkEx(msg, 128, (aclrtStream)&bogus), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofMarkEx("ab", 1, (aclrtStream)&bogus), ACL_ERROR_INVALID_PARAM);
	/* A stream with no lane: the mark goes on the thread's. */
	ACL_OK(aclprofMarkEx("ab", 2, (aclrtStream)&bogus));

	/* Steps */
	step = aclprofCreateStepInfo();
	assert_non_null(step);
	assert_int_equal(aclprofGetStepTimestamp(NULL, ACL_STEP_START, NULL), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofGetStepTimestamp");
	assert_int_equal(aclprofGetStepTimestamp((aclprofStepInfo *)&bogus, ACL_STEP_START, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofGetStepTimestamp(step, (aclprofStepTag)5, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofGetStepTimestamp(step, ACL_STEP_END, NULL), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclprofGetStepTimestamp(step, ACL_STEP_START, NULL));
	assert_int_equal(aclprofGetStepTimestamp(step, ACL_STEP_START, NULL),
			 ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclprofGetStepTimestamp(step, ACL_STEP_END, NULL));
	assert_int_equal(aclprofGetStepTimestamp(step, ACL_STEP_END, NULL), ACL_ERROR_INVALID_PARAM);
	aclprofDestroyStepInfo(step);
	assert_int_equal(aclprofGetStepTimestamp(step, ACL_STEP_START, NULL),
			 ACL_ERROR_INVALID_PARAM);
	aclprofDestroyStepInfo(NULL);
	expect_message("aclprofDestroyStepInfo");

	/* Operator ranges and string ids */
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(aclprofRangePushEx(NULL), ACL_ERROR_INVALID_PARAM);
	expect_message("aclprofRangePushEx");
	attr.version = ACL_PROF_EVENT_ATTR_VERSION;
	attr.messageType = 1;
	assert_int_equal(aclprofRangePushEx(&attr), ACL_ERROR_INVALID_PARAM);
	attr.messageType = ACL_PROF_MESSAGE_TYPE_TENSOR_INFO;
	assert_int_equal(aclprofRangePushEx(&attr), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclprofStr2Id(NULL), 0);
	expect_message("aclprofStr2Id");
	assert_true(aclprofStr2Id("a") == aclprofStr2Id("a"));
	assert_true(aclprofStr2Id("a") != aclprofStr2Id("b"));
	ACL_OK(aclprofStop(NULL));
	ACL_OK(aclprofFinalize());
	{
		char path[512];
		struct jval root;

		read_session(g_dir, &root);
		(void)path;
		/* The 127-character message and the stream-less MarkEx. */
		assert_non_null(find_event(&root, "i", "ab"));
		assert_int_equal(count_events(&root, "b", "step 0") + count_events(&root, "b", "step 1") +
					 count_events(&root, "b", "step 2") +
					 count_events(&root, "b", "step 3"),
				 1);
		jfree(&root);
	}
	aclprofDestroyStamp(st);
}

/* Pushed ranges belong to a thread; a free range may end on another. */
struct range_arg {
	uint32_t id;
	aclError pop, stop;
};

static void *other_thread(void *p)
{
	struct range_arg *a = p;

	a->pop = aclprofPop();
	a->stop = aclprofRangeStop(a->id);
	return NULL;
}

static void test_threads(void **state)
{
	pthread_t th;
	struct range_arg a = {0};
	void *st;
	struct jval root;
	const struct jval *b, *e;

	(void)state;
	init_dir();
	st = stamp_with("across threads");
	ACL_OK(aclprofStart(NULL));
	ACL_OK(aclprofPush(st));
	ACL_OK(aclprofRangeStart(st, &a.id));
	assert_int_equal(pthread_create(&th, NULL, other_thread, &a), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(a.pop, ACL_ERROR_FAILURE);
	assert_int_equal(a.stop, ACL_SUCCESS);
	ACL_OK(aclprofPop());
	ACL_OK(aclprofStop(NULL));
	ACL_OK(aclprofFinalize());
	read_session(g_dir, &root);
	b = find_event(&root, "b", "across threads");
	e = find_event(&root, "e", "across threads");
	assert_non_null(b);
	assert_non_null(e);
	assert_non_null(find_event(&root, "X", "across threads"));
	jfree(&root);
	aclprofDestroyStamp(st);
}

/* After each test, passed or not: profiling finalised and no session file
 * left, so that one failure does not fail the tests after it. */
static int teardown(void **state)
{
	char path[512];

	(void)state;
	aclprofFinalize();
	while (session_files(g_dir, path, sizeof(path)) > 0)
		unlink(path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_session_records_the_program_events, teardown),
		cmocka_unit_test_teardown(test_sessions_are_separate, teardown),
		cmocka_unit_test_teardown(test_calls_out_of_order, teardown),
		cmocka_unit_test_teardown(test_bad_arguments, teardown),
		cmocka_unit_test_teardown(test_threads, teardown),
	};
	const char *tmp = getenv("TMPDIR");
	int rc;

	/* A directory aclprofInit makes (with a missing parent). */
	snprintf(g_dir, sizeof(g_dir), "%s/npu-prof-test-%d/out", tmp ? tmp : "/tmp",
		 (int)getpid());
	atexit(remove_all);
	if (aclInit(NULL) != ACL_SUCCESS)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	aclFinalize();
	{
		char parent[256];

		remove_dir(g_dir);
		snprintf(parent, sizeof(parent), "%s", g_dir);
		*strrchr(parent, '/') = 0;
		rmdir(parent);
	}
	return rc;
}
