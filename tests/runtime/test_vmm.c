/*
 * VMM and IPC within one process, on every backend (the in-process device
 * included): the canonical physical-memory sequence, copies across handles
 * mapped back to back, deferred frees, and an allocation imported by key
 * into the process that exported it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define MiB (1ull << 20)

static void prop_device(aclrtPhysicalMemProp *prop, aclrtMemAttr attr)
{
	memset(prop, 0, sizeof(*prop));
	prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop->memAttr = attr;
	prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = 0;
}

static int setup(void **state)
{
	(void)state;
	return aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	aclrtResetDevice(0);
	return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static void test_copies_span_handles_mapped_back_to_back(void **state)
{
	const size_t n = 6 * MiB;
	unsigned char *src = malloc(n), *dst = malloc(n);
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h[3], r;
	aclrtMemAccessDesc desc = { 0 };
	void *va, *lin, *base;
	size_t gran, size;

	(void)state;
	assert_non_null(src);
	assert_non_null(dst);
	prop_device(&prop, ACL_MEM_NORMAL);
	ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
						&gran));
	assert_int_equal(gran, 2 * MiB);
	ACL_OK(aclrtMallocPhysical(&h[0], gran, &prop, 0));
	prop_device(&prop, ACL_MEM_HUGE);
	ACL_OK(aclrtMallocPhysical(&h[1], gran, &prop, 0));
	prop_device(&prop, ACL_MEM_P2P_HUGE);
	ACL_OK(aclrtMallocPhysical(&h[2], gran, &prop, 0));
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h[2], &prop));
	assert_int_equal(prop.memAttr, ACL_HBM_MEM_P2P_HUGE);
	ACL_OK(aclrtReserveMemAddress(&va, n, 0, NULL, 0));
	for (int i = 0; i < 3; i++)
		ACL_OK(aclrtMapMem((char *)va + i * gran, gran, 0, h[i], 0));
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	for (int i = 0; i < 3; i++)
		ACL_OK(aclrtMemSetAccess((char *)va + i * gran, gran, &desc, 1));

	/* H2D and D2H across all three, D2D with linear memory, memset across two. */
	rt_fill_pattern(src, n, 21);
	ACL_OK(aclrtMemcpy(va, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMalloc(&lin, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(lin, n, va, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	memset(dst, 0, n);
	ACL_OK(aclrtMemcpy(dst, n, lin, n, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(dst, src, n);
	ACL_OK(aclrtMemset((char *)va + gran - 100, 200, 0xab, 200));
	ACL_OK(aclrtMemcpy(dst, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(dst + gran - 100, 200, 0xab), 200);
	assert_memory_equal(dst, src, gran - 100);
	/* The range of a VMM address is its mapping, not the reservation. */
	ACL_OK(aclrtMemGetAddressRange((char *)va + 3 * MiB, &base, &size));
	assert_ptr_equal(base, (char *)va + gran);
	assert_int_equal(size, gran);

	/* The handle behind an address; freed handles keep mapped frames. */
	ACL_OK(aclrtMemRetainAllocationHandle((char *)va + gran + 5, &r));
	assert_ptr_equal(r, h[1]);
	ACL_OK(aclrtFreePhysical(r));
	for (int i = 0; i < 3; i++)
		ACL_OK(aclrtFreePhysical(h[i]));
	memset(dst, 0, n);
	ACL_OK(aclrtMemcpy(dst, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(dst + gran + 100, src + gran + 100, n - gran - 100);
	for (int i = 0; i < 3; i++)
		ACL_OK(aclrtUnmapMem((char *)va + i * gran));
	/* Unmapped: the range is reserved but holds nothing. */
	assert_int_equal(aclrtMemcpy(dst, 16, va, 16, ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemGetAddressRange((char *)va + 5, &base, &size),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "nothing is mapped"));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFree(lin));
	free(src);
	free(dst);
}

static void test_reserve_at_an_expected_address(void **state)
{
	void *a, *b;

	(void)state;
	ACL_OK(aclrtReserveMemAddress(&a, 64 * MiB, 0, NULL, 1));
	ACL_OK(aclrtReleaseMemAddress(a));
	/* The range just released is free again, and aligned for 64 MiB. */
	ACL_OK(aclrtReserveMemAddress(&b, 64 * MiB, 0, a, 0));
	assert_ptr_equal(a, b);
	assert_int_equal(aclrtReserveMemAddress(&a, 64 * MiB, 0, (char *)b + 2 * MiB, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtReserveMemAddress(&a, 2 * MiB, 4096, NULL, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtReleaseMemAddress(b));
	assert_int_equal(aclrtReleaseMemAddress(b), ACL_ERROR_RT_PARAM_INVALID);
}

static void test_ipc_import_into_the_exporting_process(void **state)
{
	const size_t n = 3 * MiB;
	unsigned char *src = malloc(n), *dst = malloc(n);
	char key[65];
	void *p, *q;

	(void)state;
	ACL_OK(aclrtMalloc(&p, n, ACL_MEM_MALLOC_HUGE_FIRST));
	rt_fill_pattern(src, n, 4);
	ACL_OK(aclrtMemcpy(p, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtIpcMemGetExportKey(p, n, key, sizeof(key),
				       ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	assert_int_equal(strlen(key), 64);
	ACL_OK(aclrtIpcMemImportByKey(&q, key, 0));
	assert_ptr_not_equal(p, q);
	ACL_OK(aclrtMemcpy(dst, n, q, n, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(dst, src, n);
	/* An import is not aclrtFree memory. */
	assert_int_equal(aclrtFree(q), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtIpcMemClose(key));	/* the import */
	ACL_OK(aclrtIpcMemClose(key));	/* the key */
	assert_int_equal(aclrtIpcMemImportByKey(&q, key, 0), ACL_ERROR_RT_PARAM_INVALID);
	/* On the private in-process device, the message says why keys go nowhere. */
	{
		const char *backend = getenv("NPU_DEVICE");
		bool inproc = backend && !strcmp(backend, "inproc");
		bool hint = strstr(aclGetRecentErrMsg(), "private in-process device") != NULL;

		assert_int_equal(hint, inproc);
	}
	ACL_OK(aclrtFree(p));
	free(src);
	free(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies_span_handles_mapped_back_to_back),
		cmocka_unit_test(test_reserve_at_an_expected_address),
		cmocka_unit_test(test_ipc_import_into_the_exporting_process),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
