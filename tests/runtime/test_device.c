// SPDX-License-Identifier: MIT
/*
 * Devices, the library state and memory accounting: aclInit/aclFinalize
 *, the aclrtSetDevice/ResetDevice/ResetDeviceForce
 * sequences, aclrtGetDeviceCount and ASCEND_RT_VISIBLE_DEVICES
 *, and aclrtGetMemInfo/aclrtMemGetAddressRange against real
 * allocations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"

static void write_file(char *path, size_t len, const char *tag, const char *content)
{
	snprintf(path, len, "/tmp/npu-test-device-%d-%s.json", (int)getpid(), tag);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* Runs in a forked child, before the child makes any other ACL call, so
 * the device table is discovered with the given environment. */
static int child_visible_count(const char *visible, int32_t set_id)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		uint32_t n = 0;

		setenv("ASCEND_RT_VISIBLE_DEVICES", visible, 1);
		if (aclrtGetDeviceCount(&n) != ACL_SUCCESS)
			_exit(200);
		if (set_id >= 0 && aclrtSetDevice(set_id) != ACL_ERROR_RT_INVALID_DEVICEID)
			_exit(201);
		_exit((int)n);
	}
	int status = 0;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_visible_devices_map_user_ids(void **state)
{
	/* Empty means unset: every device. */
	int all = child_visible_count("", -1);

	(void)state;
	assert_true(all >= 1);
	assert_int_equal(child_visible_count("0", 1), 1);
	/* A repeated or out-of-range id ends the list. */
	assert_int_equal(child_visible_count("0,0", 1), 1);
	assert_int_equal(child_visible_count("0,99,0", 1), 1);
	assert_int_equal(child_visible_count("99", 0), 0);
	assert_int_equal(child_visible_count("junk", 0), 0);
	if (all >= 2) {
		assert_int_equal(child_visible_count("1", 1), 1);
		assert_int_equal(child_visible_count("1,0", 2), 2);
	}
	/* Only now may this process discover the devices itself. */
	assert_int_equal((int)rt_device_count(), all);
}

static void test_init_and_finalize_rules(void **state)
{
	char good[96], same[96], other[96];
	uint64_t refs = 77;

	(void)state;
	write_file(good, sizeof(good), "good", "{\"dump\": {\"paths\": [1, 2.5e3, \"a\\\"b\"]},"
		   " \"x\": [true, false, null, -0.5, [[[[[[[[1]]]]]]]]]}");
	write_file(same, sizeof(same), "same", "{\"dump\": {\"paths\": [1, 2.5e3, \"a\\\"b\"]},"
		   " \"x\": [true, false, null, -0.5, [[[[[[[[1]]]]]]]]]}");
	write_file(other, sizeof(other), "other", "{}");

	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	assert_int_equal(aclFinalizeReference(&refs), ACL_ERROR_REPEAT_FINALIZE);
	ACL_OK(aclInit(good));
	/* While initialised the path is not even looked at. */
	assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
	assert_int_equal(aclInit("/nonexistent/acl.json"), ACL_ERROR_REPEAT_INITIALIZE);
	assert_non_null(aclGetRecentErrMsg());
	ACL_OK(aclFinalizeReference(&refs));
	assert_int_equal(refs, 2);
	ACL_OK(aclFinalizeReference(NULL));
	/* One finalize releases every remaining reference. */
	assert_int_equal(aclInit(NULL), ACL_ERROR_REPEAT_INITIALIZE);
	ACL_OK(aclFinalize());
	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	assert_int_equal(aclFinalizeReference(&refs), ACL_ERROR_REPEAT_FINALIZE);
	/* After a finalize, only the first configuration's content is accepted. */
	assert_int_equal(aclInit(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclInit(other), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclInit(same));
	ACL_OK(aclFinalizeReference(&refs));
	assert_int_equal(refs, 0);
	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	aclGetRecentErrMsg();
	unlink(good);
	unlink(same);
	unlink(other);
}

static void test_finalize_tears_devices_down(void **state)
{
	int32_t id = -1;
	char path[96];

	(void)state;
	write_file(path, sizeof(path), "fin", "{\"dump\": {\"paths\": [1, 2.5e3, \"a\\\"b\"]},"
		   " \"x\": [true, false, null, -0.5, [[[[[[[[1]]]]]]]]]}");
	ACL_OK(aclInit(path));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetDevice(&id));
	ACL_OK(aclFinalize());
	assert_int_equal(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
	aclGetRecentErrMsg();
	unlink(path);
}

static void expect_no_context(void)
{
	int32_t id = -1;
	void *p = NULL;

	assert_int_equal(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_RT_CONTEXT_NULL);
	aclGetRecentErrMsg();
}

static void expect_current(int32_t want)
{
	int32_t id = -1;

	ACL_OK(aclrtGetDevice(&id));
	assert_int_equal(id, want);
}

static void test_reset_sequences(void **state)
{
	(void)state;
	/* Never set. */
	assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
	assert_int_equal(aclrtResetDeviceForce(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);

	/* Set -> Reset -> Reset. */
	ACL_OK(aclrtSetDevice(0));
	expect_current(0);
	ACL_OK(aclrtResetDevice(0));
	expect_no_context();
	assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);

	/* Set -> Set -> Reset keeps the context; the second Reset ends it. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDevice(0));
	expect_current(0);
	ACL_OK(aclrtResetDevice(0));
	expect_no_context();

	/* Set -> Force -> Set -> Force, then a third Force and a Reset fail. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDeviceForce(0));
	expect_no_context();
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDeviceForce(0));
	assert_int_equal(aclrtResetDeviceForce(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
	assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);

	/* Set -> Set -> Force. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDeviceForce(0));
	expect_no_context();
	assert_int_equal(aclrtResetDevice(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);

	/* Set -> Reset -> Set -> Force. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDeviceForce(0));

	/* Set -> Set -> Reset -> Force, then Force again fails. */
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtResetDeviceForce(0));
	assert_int_equal(aclrtResetDeviceForce(0), ACL_ERROR_RT_CONTEXT_RELEASE_ERROR);
	expect_no_context();
	aclGetRecentErrMsg();
}

static void test_get_device_count_needs_no_context(void **state)
{
	uint32_t n = 0;

	(void)state;
	expect_no_context();
	ACL_OK(aclrtGetDeviceCount(&n));
	assert_true(n >= 1);
}

struct thread_check {
	void *dev;	/* device memory written by the main thread */
	uint8_t seen[64];
	aclError before_set, set, get;
	int32_t id;
};

static void *other_thread(void *arg)
{
	struct thread_check *tc = arg;
	int32_t id = -1;

	tc->before_set = aclrtGetDevice(&id);
	tc->set = aclrtSetDevice(0);
	tc->get = aclrtGetDevice(&tc->id);
	if (aclrtMemcpy(tc->seen, sizeof(tc->seen), tc->dev, sizeof(tc->seen),
			ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
		memset(tc->seen, 0, sizeof(tc->seen));
	aclrtResetDevice(0);
	aclGetRecentErrMsg();
	return NULL;
}

/* Threads that set the same device share its default context. */
static void test_threads_share_the_default_context(void **state)
{
	struct thread_check tc = { 0 };
	uint8_t pattern[64];

	(void)state;
	rt_fill_pattern(pattern, sizeof(pattern), 3);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtMalloc(&tc.dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemcpy(tc.dev, 4096, pattern, sizeof(pattern), ACL_MEMCPY_HOST_TO_DEVICE));
	rt_run_in_thread(other_thread, &tc);
	assert_int_equal(tc.before_set, ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(tc.set, ACL_SUCCESS);
	assert_int_equal(tc.get, ACL_SUCCESS);
	assert_int_equal(tc.id, 0);
	assert_memory_equal(tc.seen, pattern, sizeof(pattern));
	/* The other thread's reset dropped only its own reference. */
	expect_current(0);
	ACL_OK(aclrtFree(tc.dev));
	ACL_OK(aclrtResetDevice(0));
}

static void mem_info(aclrtMemAttr attr, size_t *free_b, size_t *total_b)
{
	ACL_OK(aclrtGetMemInfo(attr, free_b, total_b));
	assert_true(*free_b <= *total_b);
}

/* GetMemInfo's free drops by each allocation and comes back after free. */
static void test_mem_info_tracks_allocations(void **state)
{
	size_t f0, t0, f1, t1, f2, t2, hf0, ht0, hf1, ht1;
	void *p = NULL, *q = NULL;
	const size_t big = 64u << 20;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	mem_info(ACL_HBM_MEM, &f0, &t0);
	assert_true(t0 > 0);
	mem_info(ACL_HBM_MEM_HUGE, &hf0, &ht0);

	ACL_OK(aclrtMalloc(&p, big, ACL_MEM_MALLOC_HUGE_ONLY));
	mem_info(ACL_HBM_MEM, &f1, &t1);
	assert_int_equal(t1, t0);
	assert_true(f1 <= f0 - big);
	assert_true(f1 >= f0 - big - (4u << 20));	/* the pad costs one more page */
	mem_info(ACL_HBM_MEM_HUGE, &hf1, &ht1);
	assert_true(hf1 <= hf0 - big);

	ACL_OK(aclrtMalloc(&q, 5000, ACL_MEM_MALLOC_NORMAL_ONLY));
	mem_info(ACL_MEM_NORMAL, &f2, &t2);
	assert_int_equal(f2, f1 - 8192);	/* 5000 + pad -> two 4 KiB pages */

	ACL_OK(aclrtFree(q));
	ACL_OK(aclrtFree(p));
	mem_info(ACL_HBM_MEM, &f2, &t2);
	assert_int_equal(f2, f0);
	assert_int_equal(t2, t0);
	mem_info(ACL_HBM_MEM_HUGE, &hf1, &ht1);
	assert_int_equal(hf1, hf0);

	/* The device has no DDR: DDR classes report nothing. */
	mem_info(ACL_DDR_MEM, &f2, &t2);
	assert_int_equal(f2, 0);
	assert_int_equal(t2, 0);
	/* Every class in range answers (1G ones may be unsupported). */
	for (int a = ACL_DDR_MEM; a <= ACL_MEM_P2P_HUGE1G; a++) {
		aclError rc = aclrtGetMemInfo((aclrtMemAttr)a, &f2, &t2);

		assert_true(rc == ACL_SUCCESS || rc == ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
	aclGetRecentErrMsg();
	ACL_OK(aclrtResetDevice(0));
}

/* Resetting the device releases what it held. */
static void test_reset_releases_device_memory(void **state)
{
	size_t f0, t0, f1, t1;
	void *p = NULL;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	mem_info(ACL_HBM_MEM, &f0, &t0);
	ACL_OK(aclrtMalloc(&p, 32u << 20, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtResetDevice(0));
	ACL_OK(aclrtSetDevice(0));
	/*
	 * Through npud the old file's RELEASE reaches the driver after
	 * close() returns (FUSE sends it asynchronously): allow it a second.
	 */
	for (uint64_t end = rt_now_ms() + 1000;;) {
		mem_info(ACL_HBM_MEM, &f1, &t1);
		if (f1 == f0 || rt_now_ms() > end)
			break;
		usleep(1000);
	}
	assert_int_equal(f1, f0);
	/* The old pointer is gone with the context. */
	assert_int_equal(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
	aclGetRecentErrMsg();
	ACL_OK(aclrtResetDevice(0));
}

static void test_address_range_of_allocations(void **state)
{
	static const struct {
		size_t size;
		aclrtMemMallocPolicy policy;
		size_t page;
	} cases[] = {
		{ 1, ACL_MEM_MALLOC_NORMAL_ONLY, 4096 },
		{ 4096, ACL_MEM_MALLOC_NORMAL_ONLY, 4096 },	/* + pad: 2 pages */
		{ 100000, ACL_MEM_MALLOC_HUGE_FIRST, 4096 },	/* <= 1 MiB: normal */
		{ 3u << 20, ACL_MEM_MALLOC_HUGE_ONLY, 2u << 20 },
		{ 3u << 20, ACL_MEM_MALLOC_HUGE_FIRST, 2u << 20 },
	};

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		void *p = NULL, *base = NULL;
		size_t size = 0;
		size_t want = (cases[i].size + 31) / 32 * 32 + 32;

		want = (want + cases[i].page - 1) / cases[i].page * cases[i].page;
		ACL_OK(aclrtMalloc(&p, cases[i].size, cases[i].policy));
		assert_int_equal((uintptr_t)p % cases[i].page, 0);
		ACL_OK(aclrtMemGetAddressRange(p, &base, &size));
		assert_ptr_equal(base, p);
		assert_int_equal(size, want);
		ACL_OK(aclrtMemGetAddressRange((char *)p + size - 1, &base, &size));
		assert_ptr_equal(base, p);
		ACL_OK(aclrtFree(p));
		assert_int_equal(aclrtMemGetAddressRange(p, &base, &size),
				 ACL_ERROR_RT_PARAM_INVALID);
	}
	/* Align32 and WithCfg add no pad: 4096 bytes are exactly one page. */
	void *p = NULL, *base = NULL;
	size_t size = 0;

	ACL_OK(aclrtMallocAlign32(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemGetAddressRange(p, &base, &size));
	assert_int_equal(size, 4096);
	ACL_OK(aclrtFree(p));
	ACL_OK(aclrtMallocWithCfg(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY, NULL));
	ACL_OK(aclrtMemGetAddressRange(p, &base, &size));
	assert_int_equal(size, 4096);
	ACL_OK(aclrtFree(p));
	ACL_OK(aclrtMallocCached(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemGetAddressRange(p, &base, &size));
	assert_int_equal(size, 8192);
	ACL_OK(aclrtFree(p));
	/* aclrtMallocHost memory: its base and page-rounded size. */
	ACL_OK(aclrtMallocHost(&p, 5000));
	ACL_OK(aclrtMemGetAddressRange((char *)p + 4999, &base, &size));
	assert_ptr_equal(base, p);
	assert_int_equal(size, 8192);
	ACL_OK(aclrtFreeHost(p));
	assert_int_equal(aclrtMemGetAddressRange(p, &base, &size), ACL_ERROR_RT_PARAM_INVALID);
	aclGetRecentErrMsg();
	ACL_OK(aclrtResetDevice(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: it forks children that must start with no ACL state. */
		cmocka_unit_test(test_visible_devices_map_user_ids),
		cmocka_unit_test(test_init_and_finalize_rules),
		cmocka_unit_test(test_finalize_tears_devices_down),
		cmocka_unit_test(test_reset_sequences),
		cmocka_unit_test(test_get_device_count_needs_no_context),
		cmocka_unit_test(test_threads_share_the_default_context),
		cmocka_unit_test(test_mem_info_tracks_allocations),
		cmocka_unit_test(test_reset_releases_device_memory),
		cmocka_unit_test(test_address_range_of_allocations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
