// SPDX-License-Identifier: MIT
/*
 * aclrtPointerGetAttributes for every kind of pointer:
 * device allocations (4 KiB and 2 MiB pages, interior addresses, a second
 * device), an IPC import, a VMM mapping, pinned and registered host
 * memory, plain host memory, addresses in an aperture that nothing is
 * mapped at, NULL; with and without a current context.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define MiB (1ull << 20)

static int group_setup(void **state)
{
	(void)state;
	return aclInit(NULL) == ACL_SUCCESS && aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtResetDevice(0);
	return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static void expect(const void *p, aclrtMemLocationType type, uint32_t id, uint32_t page)
{
	aclrtPtrAttributes a;

	memset(&a, 0x5a, sizeof(a));
	ACL_OK(aclrtPointerGetAttributes(p, &a));
	assert_int_equal(a.location.type, type);
	assert_int_equal(a.location.id, id);
	assert_int_equal(a.pageSize, page);
	for (int i = 0; i < 4; i++)
		assert_int_equal(a.rsv[i], 0);
}

static void test_device_memory(void **state)
{
	char *huge = NULL, *normal = NULL;

	(void)state;
	ACL_OK(aclrtMalloc((void **)&huge, 4 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	ACL_OK(aclrtMalloc((void **)&normal, 8192, ACL_MEM_MALLOC_NORMAL_ONLY));
	expect(huge, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 2 * MiB);
	expect(huge + 3 * MiB + 17, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 2 * MiB);
	expect(normal, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 4096);
	expect(normal + 8191, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 4096);
	/* HUGE_FIRST: huge pages only over 1 MiB, whatever the tail pad adds. */
	{
		char *one = NULL, *over = NULL;

		ACL_OK(aclrtMalloc((void **)&one, MiB, ACL_MEM_MALLOC_HUGE_FIRST));
		ACL_OK(aclrtMalloc((void **)&over, MiB + 1, ACL_MEM_MALLOC_HUGE_FIRST));
		expect(one, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 4096);
		expect(over, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 2 * MiB);
		ACL_OK(aclrtFree(one));
		ACL_OK(aclrtFree(over));
	}
	ACL_OK(aclrtFree(normal));
	/* Freed: an address of the device that nothing is mapped at. */
	assert_int_equal(aclrtPointerGetAttributes(normal, &(aclrtPtrAttributes){ 0 }),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "nothing is mapped"));
	ACL_OK(aclrtFree(huge));
}

static void test_device_memory_of_another_device(void **state)
{
	void *p = NULL;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	/* Whatever the current device. */
	expect(p, ACL_MEM_LOCATION_TYPE_DEVICE, 1, 4096);
	ACL_OK(aclrtSetDevice(0));
	expect(p, ACL_MEM_LOCATION_TYPE_DEVICE, 1, 4096);
	ACL_OK(aclrtFree(p));
	ACL_OK(aclrtResetDevice(0));	/* the second reference of this test */
	ACL_OK(aclrtResetDevice(1));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDevice(0));
}

static void test_ipc_import(void **state)
{
	char key[65];
	void *p = NULL, *q = NULL;

	(void)state;
	ACL_OK(aclrtMalloc(&p, 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY));
	ACL_OK(aclrtIpcMemGetExportKey(p, 2 * MiB, key, sizeof(key),
				       ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	ACL_OK(aclrtIpcMemImportByKey(&q, key, 0));
	assert_ptr_not_equal(p, q);
	expect(q, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 2 * MiB);
	expect((char *)q + MiB, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 2 * MiB);
	ACL_OK(aclrtIpcMemClose(key));
	ACL_OK(aclrtIpcMemClose(key));
	ACL_OK(aclrtFree(p));
}

static void test_vmm_mapping(void **state)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h;
	size_t gran = 0;
	void *va = NULL;

	(void)state;
	memset(&prop, 0, sizeof(prop));
	prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop.memAttr = ACL_HBM_MEM_HUGE;
	prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran));
	ACL_OK(aclrtMallocPhysical(&h, gran, &prop, 0));
	ACL_OK(aclrtReserveMemAddress(&va, 2 * gran, 0, NULL, 0));
	/* Reserved but not mapped yet. */
	assert_int_equal(aclrtPointerGetAttributes(va, &(aclrtPtrAttributes){ 0 }),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtMapMem(va, gran, 0, h, 0));
	expect(va, ACL_MEM_LOCATION_TYPE_DEVICE, 0, (uint32_t)gran);
	expect((char *)va + gran - 1, ACL_MEM_LOCATION_TYPE_DEVICE, 0, (uint32_t)gran);
	assert_int_equal(aclrtPointerGetAttributes((char *)va + gran, &(aclrtPtrAttributes){ 0 }),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFreePhysical(h));
}

static void test_host_memory_kinds(void **state)
{
	void *pinned = NULL, *reg = NULL, *dev = NULL;
	char *plain = malloc(100);
	int on_stack = 0;

	(void)state;
	ACL_OK(aclrtMallocHost(&pinned, 3000));
	expect(pinned, ACL_MEM_LOCATION_TYPE_HOST, 0, 4096);
	expect((char *)pinned + 2999, ACL_MEM_LOCATION_TYPE_HOST, 0, 4096);
	assert_int_equal(posix_memalign(&reg, 4096, 8192), 0);
	ACL_OK(aclrtHostRegister(reg, 8192, ACL_HOST_REGISTER_MAPPED, &dev));
	expect((char *)reg + 4100, ACL_MEM_LOCATION_TYPE_HOST, 0, 4096);
	/* Never registered: the id is the querying device (don't-care). */
	expect(plain, ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0, 4096);
	expect(&on_stack, ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0, 4096);
	ACL_OK(aclrtHostUnregister(reg));
	expect(reg, ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0, 4096);
	ACL_OK(aclrtFreeHost(pinned));
	expect(pinned, ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0, 4096);
	free(reg);
	free(plain);
}

static void test_null_arguments(void **state)
{
	aclrtPtrAttributes a;
	int x;

	(void)state;
	assert_int_equal(aclrtPointerGetAttributes(NULL, &a), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtPointerGetAttributes(&x, NULL), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "attributes is NULL"));
}

struct no_ctx_args {
	void *dev, *pinned, *plain;
};

static void *query_without_context(void *arg)
{
	struct no_ctx_args *a = arg;

	expect(a->dev, ACL_MEM_LOCATION_TYPE_DEVICE, 0, 4096);
	expect(a->pinned, ACL_MEM_LOCATION_TYPE_HOST, 0, 4096);
	expect(a->plain, ACL_MEM_LOCATION_TYPE_UNREGISTERED, 0, 4096);
	return NULL;
}

static void test_works_without_context(void **state)
{
	struct no_ctx_args a = { NULL, NULL, malloc(8) };

	(void)state;
	ACL_OK(aclrtMalloc(&a.dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMallocHost(&a.pinned, 64));
	rt_run_in_thread(query_without_context, &a);
	ACL_OK(aclrtFree(a.dev));
	ACL_OK(aclrtFreeHost(a.pinned));
	free(a.plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_memory),
		cmocka_unit_test(test_device_memory_of_another_device),
		cmocka_unit_test(test_ipc_import),
		cmocka_unit_test(test_vmm_mapping),
		cmocka_unit_test(test_host_memory_kinds),
		cmocka_unit_test(test_null_arguments),
		cmocka_unit_test(test_works_without_context),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
