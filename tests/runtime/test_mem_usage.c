// SPDX-License-Identifier: MIT
/*
 * aclrtGetMemUsageInfo: this process's device memory on one device by
 * component ("aclrtMalloc", "ipc import", "other"), sorted by current
 * usage, at most inputNum entries; the aclrtMalloc component follows
 * allocations and frees and keeps its peak; every bad-input row with its
 * exact code and a message.
 */
#include <string.h>

#include "rt_test.h"

#define MIB (1024ULL * 1024ULL)

static const aclrtMemUsageInfo *find(const aclrtMemUsageInfo *info, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(info[i].name, name) == 0)
			return &info[i];
	return NULL;
}

static void query(aclrtMemUsageInfo *info, size_t *n)
{
	memset(info, 0xa5, sizeof(*info) * 8);
	*n = 99;
	ACL_OK(aclrtGetMemUsageInfo(0, info, 8, n));
	assert_int_equal(*n, 3);
	/* Sorted by current usage, names terminated, peaks at least current. */
	for (size_t i = 0; i < *n; i++) {
		assert_true(memchr(info[i].name, 0, sizeof(info[i].name)) != NULL);
		assert_true(info[i].memPeakSize >= info[i].curMemSize);
		if (i > 0)
			assert_true(info[i - 1].curMemSize >= info[i].curMemSize);
	}
	assert_non_null(find(info, *n, "aclrtMalloc"));
	assert_non_null(find(info, *n, "ipc import"));
	assert_non_null(find(info, *n, "other"));
}

static void test_malloc_component_follows_allocations(void **state)
{
	aclrtMemUsageInfo info[8];
	size_t n = 0;
	uint64_t base, peak, cur;
	void *a = NULL, *b = NULL;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	query(info, &n);
	base = find(info, n, "aclrtMalloc")->curMemSize;

	ACL_OK(aclrtMalloc(&a, 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, 2 * MIB, ACL_MEM_MALLOC_HUGE_FIRST));
	query(info, &n);
	assert_true(find(info, n, "aclrtMalloc")->curMemSize >= base + 6 * MIB);
	peak = find(info, n, "aclrtMalloc")->memPeakSize;
	assert_true(peak >= base + 6 * MIB);
	/* The largest component is first. */
	assert_string_equal(info[0].name, "aclrtMalloc");

	/* Mapped sizes include upstream's pad, so only bounds are known. */
	cur = find(info, n, "aclrtMalloc")->curMemSize;
	ACL_OK(aclrtFree(a));
	query(info, &n);
	assert_true(find(info, n, "aclrtMalloc")->curMemSize <= cur - 4 * MIB);
	assert_true(find(info, n, "aclrtMalloc")->curMemSize >= base + 2 * MIB);
	/* The peak stays. */
	assert_int_equal(find(info, n, "aclrtMalloc")->memPeakSize, peak);

	/* inputNum bounds the entries written: the largest one only. */
	memset(info, 0xa5, sizeof(info));
	ACL_OK(aclrtGetMemUsageInfo(0, info, 1, &n));
	assert_int_equal(n, 1);
	assert_string_equal(info[0].name, "aclrtMalloc");
	assert_int_equal((unsigned char)info[1].name[0], 0xa5);

	ACL_OK(aclrtFree(b));
	ACL_OK(aclrtResetDevice(0));
}

static void test_bad_inputs(void **state)
{
	aclrtMemUsageInfo info[4];
	size_t n = 77;
	const int32_t count = (int32_t)rt_device_count();

	(void)state;
	EXPECT_FAIL(aclrtGetMemUsageInfo(0, NULL, 4, &n), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetMemUsageInfo(0, info, 4, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetMemUsageInfo(0, info, 0, &n), ACL_ERROR_INVALID_PARAM);
	/* Pointer checks come before the device id. */
	EXPECT_FAIL(aclrtGetMemUsageInfo(-1, NULL, 4, &n), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetMemUsageInfo(-1, info, 4, &n), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtGetMemUsageInfo(count, info, 4, &n), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(n, 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malloc_component_follows_allocations),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
