// SPDX-License-Identifier: MIT
/*
 * Stream configuration and state: aclrtCreateStreamWithConfig and the
 * config-handle calls, the getters (id, priority, flags, available number,
 * priority range, the thread's last task id), the stream attributes,
 * aclrtStreamAbort, aclrtStreamStop, the stream state callbacks,
 * aclrtPersistentTaskClean, and aclrtDeviceTaskAbort with its named
 * callbacks (aclrtSetDeviceTaskAbortCallback), with every bad-input row.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

/* A device word that holds a stream's ValueWait until released. */
struct gate {
	void *word;
};

static void gate_init(struct gate *g)
{
	ACL_OK(aclrtMalloc(&g->word, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(g->word, 8, 0, 8));
}

/* Queues on s a wait that only gate_open releases. */
static void gate_block(struct gate *g, aclrtStream s)
{
	ACL_OK(aclrtValueWait(g->word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
}

static void gate_open(struct gate *g)
{
	uint64_t one = 1;

	ACL_OK(aclrtMemcpy(g->word, 8, &one, 8, ACL_MEMCPY_HOST_TO_DEVICE));
}

static void gate_fini(struct gate *g)
{
	ACL_OK(aclrtFree(g->word));
}

static uint32_t available(void)
{
	uint32_t n = 0;

	ACL_OK(aclrtGetStreamAvailableNum(&n));
	return n;
}

static void test_create_with_config_stores_flags_and_priority(void **state)
{
	static const struct {
		uint32_t priority, flag, want_priority, want_flags;
	} rows[] = {
		{ 0, 0, 0, 0 },
		{ 3, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC, 3,
		  ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC },
		{ 7, ACL_STREAM_PERSISTENT, 7, ACL_STREAM_PERSISTENT },
		/* Out of range is clamped. */
		{ 8, 0, 7, 0 },
		{ UINT32_MAX, ACL_STREAM_CPU_SCHEDULE, 7, ACL_STREAM_CPU_SCHEDULE },
		/* Unknown bits are dropped silently. */
		{ 1, 0x80000000u | 0x40u | ACL_STREAM_FAST_SYNC, 1, ACL_STREAM_FAST_SYNC },
		{ 2, ACL_STREAM_DEVICE_USE_ONLY, 2, ACL_STREAM_DEVICE_USE_ONLY },
		{ 2, ACL_STREAM_DEVICE_USE_ONLY | 0x100u, 2, ACL_STREAM_DEVICE_USE_ONLY },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclrtStream s = NULL;
		uint32_t p = 99, f = 99;

		ACL_OK(aclrtCreateStreamWithConfig(&s, rows[i].priority, rows[i].flag));
		ACL_OK(aclrtStreamGetPriority(s, &p));
		ACL_OK(aclrtStreamGetFlags(s, &f));
		assert_int_equal(p, rows[i].want_priority);
		assert_int_equal(f, rows[i].want_flags);
		ACL_OK(aclrtDestroyStream(s));
	}
}

static void *create_without_context(void *arg)
{
	aclrtStream s = NULL;

	*(aclError *)arg = aclrtCreateStreamWithConfig(&s, 0, 0);
	return NULL;
}

static void test_create_with_config_bad_inputs(void **state)
{
	static const struct {
		uint32_t flag;
		aclError want;
	} rows[] = {
		{ ACL_STREAM_HUGE, ACL_ERROR_RT_FEATURE_NOT_SUPPORT },
		{ ACL_STREAM_HUGE | ACL_STREAM_FAST_LAUNCH, ACL_ERROR_RT_FEATURE_NOT_SUPPORT },
		{ ACL_STREAM_HUGE | ACL_STREAM_DEVICE_USE_ONLY, ACL_ERROR_RT_FEATURE_NOT_SUPPORT },
		{ ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_LAUNCH, ACL_ERROR_RT_PARAM_INVALID },
		{ ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_PERSISTENT, ACL_ERROR_RT_PARAM_INVALID },
		{ ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_CPU_SCHEDULE, ACL_ERROR_RT_PARAM_INVALID },
	};
	const uint32_t before = available();
	aclError rc = 0;

	(void)state;
	assert_int_equal(aclrtCreateStreamWithConfig(NULL, 0, 0), ACL_ERROR_INVALID_PARAM);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclrtStream s = (aclrtStream)0x1234;

		assert_int_equal(aclrtCreateStreamWithConfig(&s, 0, rows[i].flag), rows[i].want);
		assert_ptr_equal(s, (aclrtStream)0x1234);
		assert_non_null(aclGetRecentErrMsg());
	}
	rt_run_in_thread(create_without_context, &rc);
	assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
	/* Nothing was created by the failures. */
	assert_int_equal(available(), before);
}

/*
 * PERSISTENT, DEVICE_USE_ONLY and CPU_SCHEDULE streams are the device's:
 * synchronising returns at once and the query says complete, even with
 * work held; an ordinary stream with the same work is not ready.
 */
static void test_device_only_streams_do_not_wait(void **state)
{
	static const uint32_t flags[] = { ACL_STREAM_PERSISTENT, ACL_STREAM_DEVICE_USE_ONLY,
					  ACL_STREAM_CPU_SCHEDULE };

	(void)state;
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
		struct gate g;
		aclrtStream d = NULL, plain = NULL;
		aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;

		gate_init(&g);
		ACL_OK(aclrtCreateStreamWithConfig(&d, 0, flags[i]));
		ACL_OK(aclrtCreateStream(&plain));
		gate_block(&g, d);
		gate_block(&g, plain);
		ACL_OK(aclrtSynchronizeStream(d));
		ACL_OK(aclrtSynchronizeStreamWithTimeout(d, 10));
		ACL_OK(aclrtStreamQuery(d, &st));
		assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
		ACL_OK(aclrtStreamQuery(plain, &st));
		assert_int_equal(st, ACL_STREAM_STATUS_NOT_READY);
		assert_int_equal(aclrtSynchronizeStreamWithTimeout(plain, 10),
				 ACL_ERROR_RT_STREAM_SYNC_TIMEOUT);
		gate_open(&g);
		ACL_OK(aclrtSynchronizeStream(plain));
		ACL_OK(aclrtDestroyStream(d));
		ACL_OK(aclrtDestroyStream(plain));
		gate_fini(&g);
	}
}

static void test_stream_ids_are_unique_and_non_negative(void **state)
{
	enum { kStreams = 24 };
	aclrtStream s[kStreams];
	int32_t ids[kStreams + 1];

	(void)state;
	for (int i = 0; i < kStreams; i++) {
		ACL_OK(i % 2 ? aclrtCreateStream(&s[i]) : aclrtCreateStreamWithConfig(&s[i], 1, 0));
		ACL_OK(aclrtStreamGetId(s[i], &ids[i]));
	}
	ACL_OK(aclrtStreamGetId(NULL, &ids[kStreams]));
	for (int i = 0; i <= kStreams; i++) {
		int32_t again = -1;

		assert_true(ids[i] >= 0);
		for (int j = 0; j < i; j++)
			assert_int_not_equal(ids[i], ids[j]);
		ACL_OK(aclrtStreamGetId(i < kStreams ? s[i] : NULL, &again));
		assert_int_equal(again, ids[i]);
	}
	for (int i = 0; i < kStreams; i++)
		ACL_OK(aclrtDestroyStream(s[i]));
}

struct getter_arg {
	aclrtStream s;
	aclError rc[6];
};

static void *getters_without_context(void *arg)
{
	struct getter_arg *g = arg;
	int32_t id = 0;
	uint32_t v = 0;
	aclrtStreamAttrValue a;

	g->rc[0] = aclrtStreamGetId(NULL, &id);
	g->rc[1] = aclrtStreamGetPriority(g->s, &v);
	g->rc[2] = aclrtStreamGetFlags(NULL, &v);
	g->rc[3] = aclrtGetStreamAvailableNum(&v);
	g->rc[4] = aclrtGetStreamAttribute(g->s, ACL_STREAM_ATTR_PRIORITY, &a);
	g->rc[5] = aclrtStreamAbort(NULL);
	return NULL;
}

static void test_getters_bad_inputs_and_defaults(void **state)
{
	aclrtStream s = NULL, dead = NULL;
	uint32_t v = 99;
	int32_t id = 0;
	struct getter_arg g;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	assert_int_equal(aclrtStreamGetId(s, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamGetPriority(s, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamGetFlags(s, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetStreamAvailableNum(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetThreadLastTaskId(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtStreamGetId(dead, &id), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtStreamGetPriority(dead, &v), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtStreamGetFlags(dead, &v), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtStreamGetFlags((aclrtStream)&v, &v), ACL_ERROR_RT_INVALID_HANDLE);
	/* aclrtCreateStream and the default stream: priority 0, no flags. */
	ACL_OK(aclrtStreamGetPriority(s, &v));
	assert_int_equal(v, 0);
	ACL_OK(aclrtStreamGetFlags(s, &v));
	assert_int_equal(v, 0);
	v = 99;
	ACL_OK(aclrtStreamGetPriority(NULL, &v));
	assert_int_equal(v, 0);
	v = 99;
	ACL_OK(aclrtStreamGetFlags(NULL, &v));
	assert_int_equal(v, 0);
	/* Without a current context, even with a live handle. */
	g.s = s;
	rt_run_in_thread(getters_without_context, &g);
	for (int i = 0; i < 6; i++)
		assert_int_equal(g.rc[i], ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtDestroyStream(s));
}

static void test_priority_range(void **state)
{
	int32_t least = -1, greatest = -1;

	(void)state;
	ACL_OK(aclrtDeviceGetStreamPriorityRange(&least, &greatest));
	assert_int_equal(least, 7);
	assert_int_equal(greatest, 0);
	least = -1;
	ACL_OK(aclrtDeviceGetStreamPriorityRange(&least, NULL));
	assert_int_equal(least, 7);
	greatest = -1;
	ACL_OK(aclrtDeviceGetStreamPriorityRange(NULL, &greatest));
	assert_int_equal(greatest, 0);
	ACL_OK(aclrtDeviceGetStreamPriorityRange(NULL, NULL));
}

/* Quota minus live streams, the default streams and every context of the device included. */
static void test_available_num_counts_live_streams(void **state)
{
	aclrtContext main_ctx = NULL, other = NULL;
	aclrtStream s[3], in_other = NULL;
	const uint32_t base = available();

	(void)state;
	assert_true(base > 3 && base <= 1984);
	for (int i = 0; i < 3; i++) {
		ACL_OK(aclrtCreateStream(&s[i]));
		assert_int_equal(available(), base - 1 - i);
	}
	ACL_OK(aclrtDestroyStream(s[1]));
	assert_int_equal(available(), base - 2);
	/* A second context of the device shares the quota; its default stream counts. */
	ACL_OK(aclrtGetCurrentContext(&main_ctx));
	ACL_OK(aclrtCreateContext(&other, 0));
	assert_int_equal(available(), base - 2);
	ACL_OK(aclrtSynchronizeStream(NULL)); /* makes the default stream */
	assert_int_equal(available(), base - 3);
	ACL_OK(aclrtCreateStream(&in_other));
	assert_int_equal(available(), base - 4);
	ACL_OK(aclrtSetCurrentContext(main_ctx));
	assert_int_equal(available(), base - 4);
	/* Destroying the context gives its streams back. */
	ACL_OK(aclrtDestroyContext(other));
	assert_int_equal(available(), base - 2);
	ACL_OK(aclrtDestroyStream(s[0]));
	ACL_OK(aclrtDestroyStream(s[2]));
	assert_int_equal(available(), base);
}

struct task_id_arg {
	aclrtStream s;
	void *dev;
	uint32_t first, second, after_default;
};

static void *task_ids_in_thread(void *arg)
{
	struct task_id_arg *t = arg;
	uint32_t id = 99;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return NULL;
	if (aclrtGetThreadLastTaskId(&id) == ACL_SUCCESS)
		t->first = id; /* nothing submitted by this thread yet */
	aclrtMemsetAsync(t->dev, 64, 1, 64, t->s);
	aclrtMemsetAsync(t->dev, 64, 2, 64, t->s);
	aclrtGetThreadLastTaskId(&t->second);
	/* Apart from the stream's bytes: the two streams are not ordered. */
	aclrtMemsetAsync((char *)t->dev + 2048, 64, 3, 64, NULL);
	aclrtGetThreadLastTaskId(&t->after_default);
	aclrtSynchronizeStream(NULL);
	aclrtResetDevice(0);
	return NULL;
}

static void test_thread_last_task_id(void **state)
{
	struct task_id_arg t = { .first = 99 };
	uint32_t a = 0, b = 0, c = 0;

	(void)state;
	ACL_OK(aclrtMalloc(&t.dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtCreateStream(&t.s));
	ACL_OK(aclrtMemsetAsync(t.dev, 64, 0, 64, t.s));
	ACL_OK(aclrtGetThreadLastTaskId(&a));
	ACL_OK(aclrtMemsetAsync(t.dev, 64, 0, 64, t.s));
	ACL_OK(aclrtGetThreadLastTaskId(&b));
	assert_true(a > 0);
	assert_true(b > a);
	/* Work on the default stream does not count. */
	ACL_OK(aclrtMemsetAsync((char *)t.dev + 2048, 64, 0, 64, NULL));
	ACL_OK(aclrtGetThreadLastTaskId(&c));
	assert_int_equal(c, b);
	/* Per thread: another thread starts at 0 and does not move ours. */
	rt_run_in_thread(task_ids_in_thread, &t);
	assert_int_equal(t.first, 0);
	assert_true(t.second > b);
	assert_int_equal(t.after_default, t.second);
	ACL_OK(aclrtGetThreadLastTaskId(&c));
	assert_int_equal(c, b);
	ACL_OK(aclrtSynchronizeStream(t.s));
	ACL_OK(aclrtSynchronizeStream(NULL));
	ACL_OK(aclrtDestroyStream(t.s));
	ACL_OK(aclrtFree(t.dev));
}

static void test_config_handle_creates_streams(void **state)
{
	aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
	uint32_t prio = 5, v = 0;
	size_t flag = ACL_STREAM_FAST_SYNC, size = 4096;
	void *ptr = (void *)0x1000;
	aclrtStream s = NULL;

	(void)state;
	assert_non_null(h);
	assert_null(h->workptr);
	assert_int_equal(h->workSize, 0);
	assert_int_equal(h->flag, 0);
	assert_int_equal(h->priority, 0);
	ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)));
	ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag, sizeof(flag)));
	ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_SIZE, &size, sizeof(size)));
	ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_WORK_ADDR_PTR, &ptr, sizeof(ptr)));
	assert_int_equal(h->priority, 5);
	assert_int_equal(h->flag, ACL_STREAM_FAST_SYNC);
	assert_int_equal(h->workSize, 4096);
	assert_ptr_equal(h->workptr, ptr);
	ACL_OK(aclrtCreateStreamV2(&s, h));
	ACL_OK(aclrtStreamGetPriority(s, &v));
	assert_int_equal(v, 5);
	ACL_OK(aclrtStreamGetFlags(s, &v));
	assert_int_equal(v, ACL_STREAM_FAST_SYNC);
	ACL_OK(aclrtDestroyStream(s));
	/* ACL_RT_STREAM_FLAG also takes a 4-byte value, as upstream's sample
	 * passes it: the whole field is set from it. */
	{
		uint32_t flag32 = ACL_STREAM_FAST_LAUNCH;

		h->flag = ~(size_t)0;
		ACL_OK(aclrtSetStreamConfigOpt(h, ACL_RT_STREAM_FLAG, &flag32, sizeof(flag32)));
		assert_int_equal(h->flag, ACL_STREAM_FAST_LAUNCH);
		ACL_OK(aclrtCreateStreamV2(&s, h));
		ACL_OK(aclrtStreamGetFlags(s, &v));
		assert_int_equal(v, ACL_STREAM_FAST_LAUNCH);
		ACL_OK(aclrtDestroyStream(s));
	}
	/* A handle the caller filled itself works too. */
	aclrtStreamConfigHandle mine = { NULL, 0, ACL_STREAM_FAST_LAUNCH, 2 };

	ACL_OK(aclrtCreateStreamV2(&s, &mine));
	ACL_OK(aclrtStreamGetPriority(s, &v));
	assert_int_equal(v, 2);
	ACL_OK(aclrtDestroyStream(s));
	/* The checks of aclrtCreateStreamWithConfig apply. */
	h->flag = ACL_STREAM_HUGE;
	assert_int_equal(aclrtCreateStreamV2(&s, h), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	h->flag = ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_SYNC;
	assert_int_equal(aclrtCreateStreamV2(&s, h), ACL_ERROR_RT_PARAM_INVALID);
	h->flag = (size_t)1 << 40;
	assert_int_equal(aclrtCreateStreamV2(&s, h), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtDestroyStreamConfigHandle(h));
}

static void test_config_handle_bad_inputs(void **state)
{
	aclrtStreamConfigHandle *h = aclrtCreateStreamConfigHandle();
	aclrtStreamConfigHandle mine = { 0 };
	uint32_t prio = 1, eight = 8;
	size_t flag = 0;
	aclrtStream s = NULL;
	const struct {
		aclrtStreamConfigAttr attr;
		const void *value;
		size_t size;
	} rows[] = {
		{ ACL_RT_STREAM_PRIORITY, NULL, sizeof(prio) },
		{ ACL_RT_STREAM_PRIORITY, &prio, sizeof(size_t) },
		{ ACL_RT_STREAM_PRIORITY, &prio, 0 },
		{ ACL_RT_STREAM_PRIORITY, &eight, sizeof(eight) },
		{ ACL_RT_STREAM_FLAG, &flag, 2 },
		{ ACL_RT_STREAM_FLAG, &flag, 16 },
		{ ACL_RT_STREAM_WORK_SIZE, &flag, 4 },
		{ ACL_RT_STREAM_WORK_ADDR_PTR, &flag, 1 },
		{ (aclrtStreamConfigAttr)4, &flag, sizeof(flag) },
		{ (aclrtStreamConfigAttr)-1, &flag, sizeof(flag) },
	};

	(void)state;
	assert_non_null(h);
	assert_int_equal(aclrtSetStreamConfigOpt(NULL, ACL_RT_STREAM_PRIORITY, &prio, sizeof(prio)),
			 ACL_ERROR_INVALID_PARAM);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(aclrtSetStreamConfigOpt(h, rows[i].attr, rows[i].value, rows[i].size),
				 ACL_ERROR_INVALID_PARAM);
	/* Nothing was written by the failures. */
	assert_int_equal(h->priority, 0);
	assert_int_equal(aclrtCreateStreamV2(NULL, h), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtCreateStreamV2(&s, NULL), ACL_ERROR_INVALID_PARAM);
	assert_null(s);
	assert_int_equal(aclrtDestroyStreamConfigHandle(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtDestroyStreamConfigHandle(&mine), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtDestroyStreamConfigHandle(h));
	assert_int_equal(aclrtDestroyStreamConfigHandle(h), ACL_ERROR_INVALID_PARAM);
}

static void test_stream_attributes(void **state)
{
	aclrtStream s = NULL, dead = NULL;
	aclrtStreamAttrValue v;
	uint32_t p = 0;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	/* Failure mode: the same setting as aclrtSetStreamFailureMode. */
	memset(&v, 0xff, sizeof(v));
	ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	assert_int_equal(v.failureMode, ACL_CONTINUE_ON_FAILURE);
	v.failureMode = ACL_STOP_ON_FAILURE;
	ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	memset(&v, 0, sizeof(v));
	ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	assert_int_equal(v.failureMode, ACL_STOP_ON_FAILURE);
	ACL_OK(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
	ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	assert_int_equal(v.failureMode, ACL_CONTINUE_ON_FAILURE);
	v.failureMode = 2;
	assert_int_equal(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FAILURE_MODE, &v),
			 ACL_ERROR_RT_PARAM_INVALID);
	v.failureMode = ACL_STOP_ON_FAILURE;
	assert_int_equal(aclrtSetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, &v),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Priority, clamped as at creation. */
	v.streamPriority = 4;
	ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	ACL_OK(aclrtStreamGetPriority(s, &p));
	assert_int_equal(p, 4);
	v.streamPriority = 1000;
	ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	memset(&v, 0, sizeof(v));
	ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, &v));
	assert_int_equal(v.streamPriority, 7);
	/* The tag and the cache-op switch are kept. */
	v.userCustomTag = 0xC0FFEE;
	ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	v.cacheOpInfoSwitch = 1;
	ACL_OK(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	memset(&v, 0, sizeof(v));
	ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	assert_int_equal(v.userCustomTag, 0xC0FFEE);
	memset(&v, 0, sizeof(v));
	ACL_OK(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_CACHE_OP_INFO, &v));
	assert_int_equal(v.cacheOpInfoSwitch, 1);
	/* Per stream: the default stream's are untouched. */
	memset(&v, 0xff, sizeof(v));
	ACL_OK(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_USER_CUSTOM_TAG, &v));
	assert_int_equal(v.userCustomTag, 0);
	ACL_OK(aclrtGetStreamAttribute(NULL, ACL_STREAM_ATTR_FAILURE_MODE, &v));
	assert_int_equal(v.failureMode, ACL_CONTINUE_ON_FAILURE);
	/* The overflow switch is AI Core state. */
	v.overflowSwitch = 1;
	assert_int_equal(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK, &v),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* Bad inputs. */
	assert_int_equal(aclrtSetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetStreamAttribute(s, ACL_STREAM_ATTR_PRIORITY, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtSetStreamAttribute(dead, ACL_STREAM_ATTR_PRIORITY, &v),
			 ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtGetStreamAttribute(dead, ACL_STREAM_ATTR_PRIORITY, &v),
			 ACL_ERROR_RT_INVALID_HANDLE);
	for (int a = -1; a <= 6; a += 7) {
		assert_int_equal(aclrtSetStreamAttribute(s, (aclrtStreamAttr)a, &v),
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_int_equal(aclrtGetStreamAttribute(s, (aclrtStreamAttr)a, &v),
				 ACL_ERROR_RT_PARAM_INVALID);
	}
	assert_int_equal(aclrtGetStreamAttribute(s, (aclrtStreamAttr)0, &v),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDestroyStream(s));
}

/* Abort: the queued work never runs, and the stream runs new work. */
static void test_abort_discards_queued_work_and_stream_stays_usable(void **state)
{
	struct gate g;
	aclrtStream s = NULL;
	void *dev = NULL;
	uint8_t back[256];
	aclrtStreamStatus st;

	(void)state;
	gate_init(&g);
	ACL_OK(aclrtMalloc(&dev, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(dev, 1 << 20, 0x11, 1 << 20));
	ACL_OK(aclrtCreateStream(&s));
	gate_block(&g, s);
	for (int i = 0; i < 32; i++)
		ACL_OK(aclrtMemsetAsync(dev, 1 << 20, 0xA0 + i, 1 << 20, s));
	ACL_OK(aclrtStreamAbort(s));
	ACL_OK(aclrtStreamQuery(s, &st));
	assert_int_equal(st, ACL_STREAM_STATUS_COMPLETE);
	ACL_OK(aclrtSynchronizeStream(s)); /* nothing left, no error */
	ACL_OK(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, sizeof(back), 0x11), sizeof(back));
	/* The gate is still shut, yet new work runs: the wait was discarded. */
	ACL_OK(aclrtMemsetAsync(dev, 1 << 20, 0x5C, 1 << 20, s));
	ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 10000));
	ACL_OK(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, sizeof(back), 0x5C), sizeof(back));
	/* Aborting an idle stream, twice, is harmless. */
	ACL_OK(aclrtStreamAbort(s));
	ACL_OK(aclrtStreamAbort(s));
	ACL_OK(aclrtMemsetAsync(dev, 256, 0x77, 256, s));
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, sizeof(back), 0x77), sizeof(back));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtFree(dev));
	gate_fini(&g);
}

/* The default stream (NULL) can be aborted too. */
static void test_abort_default_stream(void **state)
{
	struct gate g;
	void *dev = NULL;
	uint8_t back[64];

	(void)state;
	gate_init(&g);
	ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(dev, 4096, 0, 4096));
	gate_block(&g, NULL);
	ACL_OK(aclrtMemsetAsync(dev, 64, 0xEE, 64, NULL));
	ACL_OK(aclrtStreamAbort(NULL));
	ACL_OK(aclrtSynchronizeStreamWithTimeout(NULL, 10000));
	ACL_OK(aclrtMemcpy(back, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, 64, 0), 64);
	ACL_OK(aclrtMemsetAsync(dev, 64, 0x3D, 64, NULL));
	ACL_OK(aclrtSynchronizeStream(NULL));
	ACL_OK(aclrtMemcpy(back, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, 64, 0x3D), 64);
	ACL_OK(aclrtFree(dev));
	gate_fini(&g);
}

struct waiter {
	aclrtStream s;
	int timeout_ms; /* 0: aclrtSynchronizeStream */
	atomic_int started;
	atomic_int done;
	aclError rc;
};

static void *waiter_thread(void *arg)
{
	struct waiter *w = arg;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return NULL;
	atomic_store(&w->started, 1);
	w->rc = w->timeout_ms ? aclrtSynchronizeStreamWithTimeout(w->s, w->timeout_ms)
			      : aclrtSynchronizeStream(w->s);
	atomic_store(&w->done, 1);
	aclrtResetDevice(0);
	return NULL;
}

/* A wait in progress when the stream is aborted ends with ACL_ERROR_RT_STREAM_ABORT. */
static void test_abort_ends_waits_with_stream_abort(void **state)
{
	for (int variant = 0; variant < 2; variant++) {
		struct gate g;
		struct waiter w[2];
		pthread_t t[2];
		aclrtStream s = NULL;
		uint64_t t0;

		(void)state;
		gate_init(&g);
		ACL_OK(aclrtCreateStream(&s));
		gate_block(&g, s);
		for (int i = 0; i < 2; i++) {
			memset(&w[i], 0, sizeof(w[i]));
			w[i].s = s;
			w[i].timeout_ms = i == 0 ? 0 : 60000;
			w[i].rc = -1;
			assert_int_equal(pthread_create(&t[i], NULL, waiter_thread, &w[i]), 0);
		}
		while (!atomic_load(&w[0].started) || !atomic_load(&w[1].started))
			usleep(1000);
		usleep(100 * 1000); /* the waiters are blocked */
		assert_false(atomic_load(&w[0].done));
		assert_false(atomic_load(&w[1].done));
		ACL_OK(aclrtStreamAbort(s));
		t0 = rt_now_ms();
		while ((!atomic_load(&w[0].done) || !atomic_load(&w[1].done)) &&
		       rt_now_ms() - t0 < 20000)
			usleep(1000);
		if (!atomic_load(&w[0].done) || !atomic_load(&w[1].done)) {
			print_error("a wait did not end within 20 s of aclrtStreamAbort\n");
			_exit(1);
		}
		for (int i = 0; i < 2; i++) {
			pthread_join(t[i], NULL);
			assert_int_equal(w[i].rc, ACL_ERROR_RT_STREAM_ABORT);
		}
		/* A wait after the abort is an ordinary one. */
		ACL_OK(aclrtSynchronizeStream(s));
		ACL_OK(aclrtDestroyStream(s));
		gate_fini(&g);
	}
}

struct event_waiter {
	aclrtEvent ev;
	atomic_int started;
	atomic_int done;
	aclError rc;
};

static void *event_waiter_thread(void *arg)
{
	struct event_waiter *w = arg;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return NULL;
	atomic_store(&w->started, 1);
	w->rc = aclrtSynchronizeEvent(w->ev);
	atomic_store(&w->done, 1);
	aclrtResetDevice(0);
	return NULL;
}

/* So does a wait for an event the aborted stream was to record. */
static void test_abort_ends_event_waits_with_stream_abort(void **state)
{
	struct gate g;
	struct event_waiter w;
	pthread_t t;
	aclrtStream s = NULL;
	aclrtEventRecordedStatus st;
	uint64_t t0;

	(void)state;
	memset(&w, 0, sizeof(w));
	w.rc = -1;
	gate_init(&g);
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateEvent(&w.ev));
	gate_block(&g, s);
	ACL_OK(aclrtRecordEvent(w.ev, s));
	assert_int_equal(pthread_create(&t, NULL, event_waiter_thread, &w), 0);
	while (!atomic_load(&w.started))
		usleep(1000);
	usleep(100 * 1000);
	assert_false(atomic_load(&w.done));
	ACL_OK(aclrtStreamAbort(s));
	t0 = rt_now_ms();
	while (!atomic_load(&w.done) && rt_now_ms() - t0 < 20000)
		usleep(1000);
	if (!atomic_load(&w.done)) {
		print_error("aclrtSynchronizeEvent did not end within 20 s of aclrtStreamAbort\n");
		_exit(1);
	}
	pthread_join(t, NULL);
	assert_int_equal(w.rc, ACL_ERROR_RT_STREAM_ABORT);
	/* The record is settled (discarded): a new wait returns at once. */
	ACL_OK(aclrtQueryEventStatus(w.ev, &st));
	ACL_OK(aclrtSynchronizeEvent(w.ev));
	ACL_OK(aclrtRecordEvent(w.ev, s));
	ACL_OK(aclrtSynchronizeEvent(w.ev));
	ACL_OK(aclrtDestroyEvent(w.ev));
	ACL_OK(aclrtDestroyStream(s));
	gate_fini(&g);
}

static atomic_int host_ran[2];

static void host_fn(void *arg)
{
	atomic_fetch_add(&host_ran[(intptr_t)arg], 1);
}

/* Host tasks queued behind the abort point are dropped; later ones run. */
static void test_abort_drops_host_tasks(void **state)
{
	struct gate g;
	aclrtStream s = NULL, other = NULL;

	(void)state;
	atomic_store(&host_ran[0], 0);
	atomic_store(&host_ran[1], 0);
	gate_init(&g);
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&other));
	gate_block(&g, s);
	for (int i = 0; i < 3; i++)
		ACL_OK(aclrtLaunchHostFunc(s, host_fn, (void *)0));
	usleep(50 * 1000); /* the host thread waits for the first one */
	ACL_OK(aclrtStreamAbort(s));
	ACL_OK(aclrtLaunchHostFunc(s, host_fn, (void *)1));
	ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 20000));
	assert_int_equal(atomic_load(&host_ran[1]), 1);
	/* The host thread is not stuck: another stream's host work runs too. */
	ACL_OK(aclrtLaunchHostFunc(other, host_fn, (void *)1));
	ACL_OK(aclrtSynchronizeStreamWithTimeout(other, 20000));
	assert_int_equal(atomic_load(&host_ran[1]), 2);
	/* Opening the gate now runs nothing of what was dropped. */
	gate_open(&g);
	usleep(50 * 1000);
	ACL_OK(aclrtSynchronizeStream(s));
	assert_int_equal(atomic_load(&host_ran[0]), 0);
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyStream(other));
	gate_fini(&g);
}

/*
 * Abort while another thread keeps queueing work (device work and host
 * tasks) on a held stream until the ring is full and it blocks: the abort
 * frees it, nothing hangs, and the stream ends usable. A watchdog turns a
 * hang into a failure.
 */
struct pump {
	aclrtStream s;
	void *dev;
	atomic_int stop;
	atomic_int done;
	atomic_long queued;
	int bad_rc;
};

static void *pump_thread(void *arg)
{
	struct pump *p = arg;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return NULL;
	while (!atomic_load(&p->stop)) {
		long n = atomic_load(&p->queued);
		aclError rc = n % 97 == 0 ? aclrtLaunchHostFunc(p->s, host_fn, (void *)0)
					  : aclrtMemsetAsync(p->dev, 4096, (int)(n & 0x7f), 4096, p->s);
		if (rc != ACL_SUCCESS)
			p->bad_rc = rc;
		atomic_fetch_add(&p->queued, 1);
	}
	atomic_store(&p->done, 1);
	aclrtResetDevice(0);
	return NULL;
}

static void test_abort_while_another_thread_queues(void **state)
{
	struct gate g;
	struct pump p;
	pthread_t t;
	uint64_t t0;
	uint8_t back[64];

	(void)state;
	memset(&p, 0, sizeof(p));
	gate_init(&g);
	ACL_OK(aclrtMalloc(&p.dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtCreateStream(&p.s));
	assert_int_equal(pthread_create(&t, NULL, pump_thread, &p), 0);
	t0 = rt_now_ms();
	for (int round = 0; round < 6; round++) {
		long before;

		gate_block(&g, p.s);
		/* Until the ring is full and the pump is blocked. */
		do {
			before = atomic_load(&p.queued);
			usleep(30 * 1000);
		} while (atomic_load(&p.queued) != before && rt_now_ms() - t0 < 20000);
		ACL_OK(aclrtStreamAbort(p.s));
	}
	atomic_store(&p.stop, 1);
	ACL_OK(aclrtStreamAbort(p.s));
	while (!atomic_load(&p.done) && rt_now_ms() - t0 < 30000)
		usleep(1000);
	if (!atomic_load(&p.done)) {
		print_error("the pump did not stop within 30 s of aclrtStreamAbort\n");
		_exit(1);
	}
	pthread_join(t, NULL);
	assert_int_equal(p.bad_rc, 0);
	assert_true(atomic_load(&p.queued) > 4096);
	ACL_OK(aclrtSynchronizeStreamWithTimeout(p.s, 20000));
	ACL_OK(aclrtMemsetAsync(p.dev, 64, 0xB7, 64, p.s));
	ACL_OK(aclrtSynchronizeStream(p.s));
	ACL_OK(aclrtMemcpy(back, 64, p.dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, 64, 0xB7), 64);
	ACL_OK(aclrtDestroyStream(p.s));
	ACL_OK(aclrtFree(p.dev));
	gate_fini(&g);
}

static void *abort_without_context(void *arg)
{
	aclError *rc = arg;

	rc[0] = aclrtStreamAbort(NULL);
	rc[1] = aclrtStreamStop(NULL);
	return NULL;
}

struct stop_arg {
	aclrtStream s;
	aclError rc;
};

static void *stop_without_context(void *arg)
{
	struct stop_arg *a = arg;

	a->rc = aclrtStreamStop(a->s);
	return NULL;
}

static void test_abort_and_stop_bad_inputs(void **state)
{
	aclrtStream s = NULL, dead = NULL, foreign = NULL;
	aclrtContext main_ctx = NULL, other = NULL;
	aclError rc[2] = { -1, -1 };
	struct stop_arg sa;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	assert_int_equal(aclrtStreamAbort(dead), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtStreamAbort((aclrtStream)&rc), ACL_ERROR_RT_INVALID_HANDLE);
	rt_run_in_thread(abort_without_context, rc);
	assert_int_equal(rc[0], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(rc[1], ACL_ERROR_RT_PARAM_INVALID);
	/* A stream of another context. */
	ACL_OK(aclrtGetCurrentContext(&main_ctx));
	ACL_OK(aclrtCreateContext(&other, 0));
	ACL_OK(aclrtCreateStream(&foreign));
	ACL_OK(aclrtSetCurrentContext(main_ctx));
	assert_int_equal(aclrtStreamAbort(foreign), ACL_ERROR_RT_STREAM_CONTEXT);
	ACL_OK(aclrtDestroyContext(other));
	/* aclrtStreamStop: NULL first, then the handle, then the context. */
	assert_int_equal(aclrtStreamStop(NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtStreamStop(dead), ACL_ERROR_RT_INVALID_HANDLE);
	sa.s = s;
	sa.rc = -1;
	rt_run_in_thread(stop_without_context, &sa);
	assert_int_equal(sa.rc, ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtStreamStop(s), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_non_null(aclGetRecentErrMsg());
	ACL_OK(aclrtDestroyStream(s));
}

/* What the stream state callbacks saw. */
enum { kMaxSeen = 64 };
struct seen {
	int n;
	struct {
		aclrtStream s;
		aclrtStreamState state;
		int tag;
		aclError id_rc; /* aclrtStreamGetId on the stream inside the callback */
	} ev[kMaxSeen];
};

static struct seen g_seen;
static int tag_a = 1, tag_b = 2;

static void state_cb(aclrtStream s, aclrtStreamState state, void *args)
{
	int32_t id;

	if (g_seen.n >= kMaxSeen)
		return;
	g_seen.ev[g_seen.n].s = s;
	g_seen.ev[g_seen.n].state = state;
	g_seen.ev[g_seen.n].tag = *(int *)args;
	g_seen.ev[g_seen.n].id_rc = aclrtStreamGetId(s, &id);
	g_seen.n++;
}

/* Index of the first event for (s, state, tag) from `from` on, or -1. */
static int seen_find(int from, aclrtStream s, aclrtStreamState state, int tag)
{
	for (int i = from; i < g_seen.n; i++)
		if (g_seen.ev[i].s == s && g_seen.ev[i].state == state && g_seen.ev[i].tag == tag)
			return i;
	return -1;
}

static void test_stream_state_callbacks(void **state)
{
	aclrtStream s = NULL, t = NULL;
	int i, j;

	(void)state;
	memset(&g_seen, 0, sizeof(g_seen));
	assert_int_equal(aclrtRegStreamStateCallback(NULL, state_cb, &tag_a),
			 ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtRegStreamStateCallback("npu-test-a", state_cb, &tag_a));
	assert_int_equal(aclrtRegStreamStateCallback("npu-test-a", state_cb, &tag_b),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtRegStreamStateCallback("npu-test-b", state_cb, &tag_b));
	ACL_OK(aclrtCreateStream(&s));
	/* Both names, in registration order, after the creation: the handle is live. */
	i = seen_find(0, s, ACL_RT_STREAM_STATE_CREATE_POST, 1);
	j = seen_find(0, s, ACL_RT_STREAM_STATE_CREATE_POST, 2);
	assert_true(i >= 0 && j > i);
	assert_int_equal(g_seen.ev[i].id_rc, ACL_SUCCESS);
	ACL_OK(aclrtCreateStreamWithConfig(&t, 3, ACL_STREAM_FAST_SYNC));
	assert_true(seen_find(0, t, ACL_RT_STREAM_STATE_CREATE_POST, 1) >= 0);
	/* Destroy: before, with the handle still live. */
	ACL_OK(aclrtDestroyStream(s));
	i = seen_find(0, s, ACL_RT_STREAM_STATE_DESTROY_PRE, 1);
	assert_true(i >= 0);
	assert_int_equal(g_seen.ev[i].id_rc, ACL_SUCCESS);
	assert_true(seen_find(0, s, ACL_RT_STREAM_STATE_DESTROY_PRE, 2) > i);
	/* A failed destroy or create reports nothing. */
	int n = g_seen.n;

	assert_int_equal(aclrtDestroyStream(s), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_HUGE),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(g_seen.n, n);
	/* NULL removes a name; removing an absent name is fine. */
	ACL_OK(aclrtRegStreamStateCallback("npu-test-b", NULL, NULL));
	ACL_OK(aclrtRegStreamStateCallback("npu-test-b", NULL, NULL));
	ACL_OK(aclrtRegStreamStateCallback("npu-test-none", NULL, NULL));
	ACL_OK(aclrtDestroyStream(t));
	assert_true(seen_find(0, t, ACL_RT_STREAM_STATE_DESTROY_PRE, 1) >= 0);
	assert_int_equal(seen_find(0, t, ACL_RT_STREAM_STATE_DESTROY_PRE, 2), -1);
	/* The name is free again. */
	ACL_OK(aclrtRegStreamStateCallback("npu-test-b", state_cb, &tag_b));
	ACL_OK(aclrtRegStreamStateCallback("npu-test-b", NULL, NULL));

	/* Default streams, and the streams a destroyed context takes along. */
	aclrtContext main_ctx = NULL, other = NULL;
	aclrtStream left = NULL, def = NULL;
	int32_t def_id = -1, id = -1;

	ACL_OK(aclrtGetCurrentContext(&main_ctx));
	ACL_OK(aclrtCreateContext(&other, 0));
	n = g_seen.n;
	ACL_OK(aclrtSynchronizeStream(NULL)); /* makes the default stream */
	assert_int_equal(g_seen.n, n + 1);
	def = g_seen.ev[n].s;
	assert_int_equal(g_seen.ev[n].state, ACL_RT_STREAM_STATE_CREATE_POST);
	ACL_OK(aclrtStreamGetId(def, &id));
	ACL_OK(aclrtStreamGetId(NULL, &def_id));
	assert_int_equal(id, def_id);
	ACL_OK(aclrtSynchronizeStream(NULL)); /* not made twice */
	assert_int_equal(g_seen.n, n + 1);
	ACL_OK(aclrtCreateStream(&left));
	ACL_OK(aclrtSetCurrentContext(main_ctx));
	ACL_OK(aclrtDestroyContext(other));
	i = seen_find(n, left, ACL_RT_STREAM_STATE_DESTROY_PRE, 1);
	j = seen_find(n, def, ACL_RT_STREAM_STATE_DESTROY_PRE, 1);
	assert_true(i >= 0 && j >= 0);
	assert_int_equal(g_seen.ev[i].id_rc, ACL_SUCCESS);
	assert_int_equal(g_seen.ev[j].id_rc, ACL_SUCCESS);
	ACL_OK(aclrtRegStreamStateCallback("npu-test-a", NULL, NULL));
	n = g_seen.n;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtDestroyStream(s));
	assert_int_equal(g_seen.n, n);
}

static void test_persistent_task_clean(void **state)
{
	aclrtStream persistent, plain, dead;
	void *dev;
	uint8_t back[64];

	(void)state;
	ACL_OK(aclrtCreateStreamWithConfig(&persistent, 0, ACL_STREAM_PERSISTENT));
	ACL_OK(aclrtCreateStream(&plain));
	ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemsetAsync(dev, 64, 0x42, 64, persistent));
	/* Nothing is retained to drop; the stream takes new work after. */
	ACL_OK(aclrtPersistentTaskClean(persistent));
	ACL_OK(aclrtMemsetAsync(dev, 64, 0x43, 64, persistent));
	/*
	 * Synchronising a persistent stream returns at once (upstream leaves it
	 * to the device): an event recorded on it tells when the work ran.
	 */
	aclrtEvent done;

	ACL_OK(aclrtCreateEvent(&done));
	ACL_OK(aclrtRecordEvent(done, persistent));
	ACL_OK(aclrtSynchronizeEvent(done));
	ACL_OK(aclrtDestroyEvent(done));
	ACL_OK(aclrtMemcpy(back, 64, dev, 64, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, 64, 0x43), 64);
	assert_int_equal(aclrtPersistentTaskClean(NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "aclrtPersistentTaskClean: stream is NULL"));
	assert_int_equal(aclrtPersistentTaskClean(plain), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "ACL_STREAM_PERSISTENT"));
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	assert_int_equal(aclrtPersistentTaskClean(dead), ACL_ERROR_RT_INVALID_HANDLE);
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtDestroyStream(plain));
	ACL_OK(aclrtDestroyStream(persistent));
}

#define MAX_ABORT_CALLS 8

static struct {
	int n;
	struct {
		int hook;
		int32_t device;
		aclrtDeviceTaskAbortStage stage;
		uint32_t timeout;
		void *args;
		aclrtStreamStatus status; /* of g_abort_stream, when called */
	} call[MAX_ABORT_CALLS];
} g_abort;
static aclrtStream g_abort_stream;
static int abort_tag_a, abort_tag_b;

static void abort_record(int hook, int32_t device, aclrtDeviceTaskAbortStage stage,
			 uint32_t timeout, void *args)
{
	if (g_abort.n < MAX_ABORT_CALLS) {
		g_abort.call[g_abort.n].hook = hook;
		g_abort.call[g_abort.n].device = device;
		g_abort.call[g_abort.n].stage = stage;
		g_abort.call[g_abort.n].timeout = timeout;
		g_abort.call[g_abort.n].args = args;
		g_abort.call[g_abort.n].status = (aclrtStreamStatus)-1;
		if (g_abort_stream != NULL)
			ACL_OK(aclrtStreamQuery(g_abort_stream, &g_abort.call[g_abort.n].status));
	}
	g_abort.n++;
}

static int32_t abort_hook_a(int32_t device, aclrtDeviceTaskAbortStage stage, uint32_t timeout,
			    void *args)
{
	abort_record(1, device, stage, timeout, args);
	return 0;
}

static int32_t abort_hook_b(int32_t device, aclrtDeviceTaskAbortStage stage, uint32_t timeout,
			    void *args)
{
	abort_record(2, device, stage, timeout, args);
	return -1; /* not looked at */
}

static void expect_abort_call(int i, int hook, int32_t device, aclrtDeviceTaskAbortStage stage,
			      uint32_t timeout)
{
	assert_true(i < g_abort.n);
	assert_int_equal(g_abort.call[i].hook, hook);
	assert_int_equal(g_abort.call[i].device, device);
	assert_int_equal(g_abort.call[i].stage, stage);
	assert_int_equal(g_abort.call[i].timeout, timeout);
	assert_ptr_equal(g_abort.call[i].args, hook == 1 ? &abort_tag_a : &abort_tag_b);
}

/*
 * Every stream of the device in this process (the default stream and those
 * of an explicit context included) drops its queued work; the callbacks run
 * before (work still queued) and after (nothing left), in registration order.
 */
static void test_device_task_abort(void **state)
{
	struct gate g;
	aclrtStream s, s2;
	aclrtContext main_ctx, ctx2;
	void *dev;
	uint8_t back[256];

	(void)state;
	gate_init(&g);
	ACL_OK(aclrtMalloc(&dev, 1 << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(dev, 1 << 20, 0x11, 1 << 20));
	ACL_OK(aclrtGetCurrentContext(&main_ctx));
	ACL_OK(aclrtCreateContext(&ctx2, 0));
	ACL_OK(aclrtCreateStream(&s2));
	gate_block(&g, s2);
	for (int i = 0; i < 8; i++)
		ACL_OK(aclrtMemsetAsync((uint8_t *)dev + 4096, 256, 0xB0 + i, 256, s2));
	ACL_OK(aclrtSetCurrentContext(main_ctx));
	ACL_OK(aclrtCreateStream(&s));
	gate_block(&g, s);
	gate_block(&g, NULL);
	for (int i = 0; i < 8; i++) {
		ACL_OK(aclrtMemsetAsync(dev, 256, 0xA0 + i, 256, s));
		ACL_OK(aclrtMemsetAsync((uint8_t *)dev + 8192, 256, 0xC0 + i, 256, NULL));
	}
	ACL_OK(aclrtSetDeviceTaskAbortCallback("a", abort_hook_a, &abort_tag_a));
	ACL_OK(aclrtSetDeviceTaskAbortCallback("b", abort_hook_b, &abort_tag_b));
	memset(&g_abort, 0, sizeof(g_abort));
	g_abort_stream = s;
	ACL_OK(aclrtDeviceTaskAbort(0, 1500));
	g_abort_stream = NULL;
	assert_int_equal(g_abort.n, 4);
	expect_abort_call(0, 1, 0, ACL_RT_DEVICE_TASK_ABORT_PRE, 1500);
	expect_abort_call(1, 2, 0, ACL_RT_DEVICE_TASK_ABORT_PRE, 1500);
	expect_abort_call(2, 1, 0, ACL_RT_DEVICE_TASK_ABORT_POST, 1500);
	expect_abort_call(3, 2, 0, ACL_RT_DEVICE_TASK_ABORT_POST, 1500);
	assert_int_equal(g_abort.call[0].status, ACL_STREAM_STATUS_NOT_READY);
	assert_int_equal(g_abort.call[2].status, ACL_STREAM_STATUS_COMPLETE);
	/* Nothing queued ran, on any of the three streams. */
	ACL_OK(aclrtSynchronizeStreamWithTimeout(s, 10000));
	ACL_OK(aclrtSynchronizeStreamWithTimeout(NULL, 10000));
	ACL_OK(aclrtSetCurrentContext(ctx2));
	ACL_OK(aclrtSynchronizeStreamWithTimeout(s2, 10000));
	for (int off = 0; off <= 8192; off += 4096) {
		ACL_OK(aclrtMemcpy(back, sizeof(back), (uint8_t *)dev + off, sizeof(back),
				   ACL_MEMCPY_DEVICE_TO_HOST));
		assert_int_equal(rt_first_not(back, sizeof(back), 0x11), sizeof(back));
	}
	/* The streams take new work. */
	ACL_OK(aclrtMemsetAsync(dev, 256, 0x5C, 256, s2));
	ACL_OK(aclrtSynchronizeStream(s2));
	ACL_OK(aclrtMemcpy(back, sizeof(back), dev, sizeof(back), ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(back, sizeof(back), 0x5C), sizeof(back));
	ACL_OK(aclrtSetCurrentContext(main_ctx));

	/* An idle device, and one this process never opened: nothing to abort. */
	g_abort.n = 0;
	ACL_OK(aclrtDeviceTaskAbort(0, 0));
	assert_int_equal(g_abort.n, 4);
	if (rt_device_count() > 1) {
		g_abort.n = 0;
		ACL_OK(aclrtDeviceTaskAbort(1, 0));
		assert_int_equal(g_abort.n, 4);
		expect_abort_call(0, 1, 1, ACL_RT_DEVICE_TASK_ABORT_PRE, 0);
	}

	/* Bad inputs: no callback runs for an invalid device. */
	g_abort.n = 0;
	assert_int_equal(aclrtDeviceTaskAbort(99, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtDeviceTaskAbort(-1, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(g_abort.n, 0);
	assert_int_equal(aclrtSetDeviceTaskAbortCallback(NULL, abort_hook_a, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "regName is NULL"));
	assert_int_equal(aclrtSetDeviceTaskAbortCallback("a", abort_hook_b, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "already registered"));
	/* A NULL callback removes by name (an absent name is no error). */
	ACL_OK(aclrtSetDeviceTaskAbortCallback("a", NULL, NULL));
	ACL_OK(aclrtSetDeviceTaskAbortCallback("a", NULL, NULL));
	ACL_OK(aclrtDeviceTaskAbort(0, 0));
	assert_int_equal(g_abort.n, 2);
	expect_abort_call(0, 2, 0, ACL_RT_DEVICE_TASK_ABORT_PRE, 0);
	ACL_OK(aclrtSetDeviceTaskAbortCallback("b", NULL, NULL));
	ACL_OK(aclrtDeviceTaskAbort(0, 0));
	assert_int_equal(g_abort.n, 2);

	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyContext(ctx2));
	ACL_OK(aclrtSetCurrentContext(main_ctx));
	ACL_OK(aclrtFree(dev));
	gate_fini(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_with_config_stores_flags_and_priority),
		cmocka_unit_test(test_create_with_config_bad_inputs),
		cmocka_unit_test(test_device_only_streams_do_not_wait),
		cmocka_unit_test(test_stream_ids_are_unique_and_non_negative),
		cmocka_unit_test(test_getters_bad_inputs_and_defaults),
		cmocka_unit_test(test_priority_range),
		cmocka_unit_test(test_available_num_counts_live_streams),
		cmocka_unit_test(test_thread_last_task_id),
		cmocka_unit_test(test_config_handle_creates_streams),
		cmocka_unit_test(test_config_handle_bad_inputs),
		cmocka_unit_test(test_stream_attributes),
		cmocka_unit_test(test_abort_discards_queued_work_and_stream_stays_usable),
		cmocka_unit_test(test_abort_default_stream),
		cmocka_unit_test(test_abort_ends_waits_with_stream_abort),
		cmocka_unit_test(test_abort_ends_event_waits_with_stream_abort),
		cmocka_unit_test(test_abort_drops_host_tasks),
		cmocka_unit_test(test_abort_while_another_thread_queues),
		cmocka_unit_test(test_abort_and_stop_bad_inputs),
		cmocka_unit_test(test_stream_state_callbacks),
		cmocka_unit_test(test_persistent_task_clean),
		cmocka_unit_test(test_device_task_abort),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
