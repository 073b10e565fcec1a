// SPDX-License-Identifier: MIT
/*
 * aclrtCheckMemType (device allocations are DEV, VMM reservations RSVD,
 * nothing is DVPP, anything else has no type; the result is 1 only when
 * every address matches) and aclrtHostMemMapCapabilities (the copy engines
 * reach registered host memory, no other accelerator exists), with every
 * bad-input row.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define MIB (1u << 20)

static uint32_t check(void **list, uint32_t n, uint32_t type)
{
	uint32_t result = 0xdead;

	ACL_OK(aclrtCheckMemType(list, n, type, &result, 0));
	assert_true(result == 0 || result == 1);
	return result;
}

static void test_check_mem_type_classifies(void **state)
{
	void *dev, *freed, *va, *pinned;
	char *heap = malloc(64);
	const uint32_t both = ACL_RT_MEM_TYPE_DEV | ACL_RT_MEM_TYPE_RSVD;

	(void)state;
	assert_non_null(heap);
	ACL_OK(aclrtMalloc(&dev, 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&freed, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtFree(freed));
	ACL_OK(aclrtReserveMemAddress(&va, 4 * MIB, 0, NULL, 0));
	ACL_OK(aclrtMallocHost(&pinned, 4096));

	void *d[] = { dev, (char *)dev + 4 * MIB - 1 };
	void *r[] = { va, (char *)va + 3 * MIB };
	void *mixed[] = { dev, va };

	assert_int_equal(check(d, 2, ACL_RT_MEM_TYPE_DEV), 1);
	assert_int_equal(check(d, 2, ACL_RT_MEM_TYPE_RSVD), 0);
	assert_int_equal(check(d, 2, ACL_RT_MEM_TYPE_DVPP), 0);
	assert_int_equal(check(d, 2, both), 1);
	assert_int_equal(check(r, 2, ACL_RT_MEM_TYPE_RSVD), 1);
	assert_int_equal(check(r, 2, ACL_RT_MEM_TYPE_DEV), 0);
	assert_int_equal(check(mixed, 2, both), 1);
	assert_int_equal(check(mixed, 2, ACL_RT_MEM_TYPE_DEV), 0);
	assert_int_equal(check(mixed, 1, ACL_RT_MEM_TYPE_DEV), 1);	/* only the first */
	/* Addresses with no type spoil the list. */
	void *others[] = { heap, pinned, freed, NULL };

	for (int i = 0; i < 4; i++) {
		void *pair[] = { dev, others[i] };

		if (check(pair, 2, both | ACL_RT_MEM_TYPE_DVPP) != 0)
			fail_msg("address %d of the others has a type", i);
	}
	ACL_OK(aclrtReleaseMemAddress(va));
	assert_int_equal(check(r, 1, ACL_RT_MEM_TYPE_RSVD), 0);
	ACL_OK(aclrtFreeHost(pinned));
	ACL_OK(aclrtFree(dev));
	assert_int_equal(check(d, 1, ACL_RT_MEM_TYPE_DEV), 0);
	free(heap);
}

static void test_check_mem_type_rows(void **state)
{
	void *dev;
	uint32_t result = 7;

	(void)state;
	ACL_OK(aclrtMalloc(&dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	void *list[] = { dev };
	const struct {
		void **list;
		uint32_t size, type;
		uint32_t *result;
		uint32_t reserve;
		const char *msg;
	} rows[] = {
		{ NULL, 1, ACL_RT_MEM_TYPE_DEV, &result, 0, "addrList is NULL" },
		{ list, 0, ACL_RT_MEM_TYPE_DEV, &result, 0, "size is 0" },
		{ list, 1, ACL_RT_MEM_TYPE_DEV, NULL, 0, "checkResult is NULL" },
		{ list, 1, ACL_RT_MEM_TYPE_DEV, &result, 1, "reserve 1" },
		{ list, 1, 0, &result, 0, "memType 0x0" },
		{ list, 1, 0x1, &result, 0, "memType 0x1" },
		{ list, 1, ACL_RT_MEM_TYPE_DEV | 0x100, &result, 0, "memType 0x102" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const char *m;

		if (aclrtCheckMemType(rows[i].list, rows[i].size, rows[i].type, rows[i].result,
				      rows[i].reserve) != ACL_ERROR_INVALID_PARAM)
			fail_msg("row %zu (%s) was not rejected", i, rows[i].msg);
		m = aclGetRecentErrMsg();
		assert_non_null(m);
		if (strstr(m, rows[i].msg) == NULL || strstr(m, "aclrtCheckMemType") == NULL)
			fail_msg("row %zu: message \"%s\"", i, m);
		assert_int_equal(result, 7);	/* untouched */
	}
	ACL_OK(aclrtFree(dev));
}

static void test_host_mem_map_capabilities(void **state)
{
	(void)state;
	for (int t = ACL_RT_HAC_TYPE_STARS; t <= ACL_RT_HAC_TYPE_CCU; t++) {
		aclrtHostMemMapCapability cap = (aclrtHostMemMapCapability)7;

		ACL_OK(aclrtHostMemMapCapabilities(0, (aclrtHacType)t, &cap));
		if (t == ACL_RT_HAC_TYPE_SDMA || t == ACL_RT_HAC_TYPE_PCIEDMA)
			assert_int_equal(cap, ACL_RT_HOST_MEM_MAP_SUPPORTED);
		else
			assert_int_equal(cap, ACL_RT_HOST_MEM_MAP_NOT_SUPPORTED);
	}
	aclrtHostMemMapCapability cap = (aclrtHostMemMapCapability)7;

	assert_int_equal(aclrtHostMemMapCapabilities(0, ACL_RT_HAC_TYPE_SDMA, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostMemMapCapabilities(0, (aclrtHacType)10, &cap),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostMemMapCapabilities(0, (aclrtHacType)-1, &cap),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostMemMapCapabilities(99, ACL_RT_HAC_TYPE_SDMA, &cap),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(aclrtHostMemMapCapabilities(UINT32_MAX, ACL_RT_HAC_TYPE_SDMA, &cap),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(cap, 7);
	const char *m = aclGetRecentErrMsg();

	assert_non_null(m);
	assert_non_null(strstr(m, "aclrtHostMemMapCapabilities: deviceId 4294967295"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_mem_type_classifies),
		cmocka_unit_test(test_check_mem_type_rows),
		cmocka_unit_test(test_host_mem_map_capabilities),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
