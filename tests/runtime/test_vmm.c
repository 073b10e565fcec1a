// SPDX-License-Identifier: MIT
/*
 * VMM and IPC within one process, on every backend (the in-process device
 * included): the canonical physical-memory sequence, copies across handles
 * mapped back to back, deferred frees, physical host memory, physical
 * memory and reservations with no device set, another device's memory
 * mapped into a reservation, what properties report back, and an
 * allocation imported by key into the process that exported it, the
 * reservation that avoids uncorrectable-error memory and the interconnect
 * link choices, with their bad-input rows. Physical
 * memory and reservations are also made in a child process (this binary,
 * run again with --no-device) that has never set a device at all.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

static void prop_at(aclrtPhysicalMemProp *prop, aclrtMemAttr attr, aclrtMemLocationType type,
		    uint32_t id)
{
	prop_device(prop, attr);
	prop->location.type = type;
	prop->location.id = id;
}

/* The memory behind va holds src (n bytes): copied in, then read back. */
static void check_round_trip(void *va, size_t n, uint32_t seed)
{
	unsigned char *src = malloc(n), *dst = calloc(1, n);

	assert_non_null(src);
	assert_non_null(dst);
	rt_fill_pattern(src, n, seed);
	ACL_OK(aclrtMemcpy(va, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(dst, n, va, n, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(dst, src, n);
	free(src);
	free(dst);
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

static void test_physical_host_memory(void **state)
{
	aclrtPhysicalMemProp prop, back;
	aclrtDrvMemHandle h, r;
	aclrtMemAccessDesc desc = { 0 };
	aclrtPtrAttributes attr;
	void *va;

	(void)state;
	prop_at(&prop, ACL_MEM_HUGE, ACL_MEM_LOCATION_TYPE_HOST, 0);
	prop.reserve = 0x5eed;
	ACL_OK(aclrtMallocPhysical(&h, 4 * MiB, &prop, 0));
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &back));
	assert_int_equal(back.location.type, ACL_MEM_LOCATION_TYPE_HOST);
	assert_int_equal(back.location.id, 0);
	assert_int_equal(back.memAttr, ACL_MEM_HUGE);
	assert_int_equal(back.handleType, ACL_MEM_HANDLE_TYPE_NONE);
	assert_int_equal(back.allocationType, ACL_MEM_ALLOCATION_TYPE_PINNED);
	assert_int_equal(back.reserve, 0x5eed);
	/* DDR attributes are what a host location is for. */
	prop_at(&prop, ACL_DDR_MEM_NORMAL, ACL_MEM_LOCATION_TYPE_HOST, 0);
	ACL_OK(aclrtMallocPhysical(&r, 2 * MiB, &prop, 0));
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(r, &back));
	assert_int_equal(back.memAttr, ACL_MEM_NORMAL);
	assert_int_equal(back.reserve, 0);
	ACL_OK(aclrtFreePhysical(r));

	ACL_OK(aclrtReserveMemAddress(&va, 4 * MiB, 0, NULL, 0));
	ACL_OK(aclrtMapMem(va, 4 * MiB, 0, h, 0));
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	ACL_OK(aclrtMemSetAccess(va, 4 * MiB, &desc, 1));
	/* New host memory reads back as zeros, then holds what is written. */
	{
		unsigned char zero[4096] = { 0 }, got[4096];

		memset(got, 0xa5, sizeof(got));
		ACL_OK(aclrtMemcpy(got, sizeof(got), (char *)va + 3 * MiB, sizeof(got),
				   ACL_MEMCPY_DEVICE_TO_HOST));
		assert_memory_equal(got, zero, sizeof(got));
	}
	check_round_trip(va, 4 * MiB, 21);
	ACL_OK(aclrtPointerGetAttributes(va, &attr));
	assert_int_equal(attr.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	/* Retained through the address: the same host memory, reserve kept. */
	ACL_OK(aclrtMemRetainAllocationHandle((char *)va + MiB, &r));
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(r, &back));
	assert_int_equal(back.location.type, ACL_MEM_LOCATION_TYPE_HOST);
	assert_int_equal(back.reserve, 0x5eed);
	ACL_OK(aclrtFreePhysical(r));
	ACL_OK(aclrtFreePhysical(h));
	/* Freed while mapped: the memory stays until the unmap. */
	check_round_trip(va, 2 * MiB, 22);
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtReleaseMemAddress(va));

	/*
	 * Host NUMA memory: any node (-1, as a DRAM segment asks for it) or a
	 * node of the host, mapped and copied like HOST memory.
	 */
	prop_at(&prop, ACL_DDR_MEM_P2P_HUGE, ACL_MEM_LOCATION_TYPE_HOST_NUMA, UINT32_MAX);
	ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ACL_OK(aclrtReserveMemAddress(&va, 2 * MiB, 0, NULL, 0));
	ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	check_round_trip(va, 2 * MiB, 23);
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &back));
	assert_int_equal(back.location.type, ACL_MEM_LOCATION_TYPE_HOST);
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFreePhysical(h));
	prop_at(&prop, ACL_MEM_NORMAL, ACL_MEM_LOCATION_TYPE_HOST_NUMA, 0);
	ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ACL_OK(aclrtFreePhysical(h));
	/* A node the host does not have is refused with a reason. */
	prop_at(&prop, ACL_MEM_NORMAL, ACL_MEM_LOCATION_TYPE_HOST_NUMA, 4096);
	assert_int_equal(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "NUMA"));
	/* DEVICE attributes stay checked. */
	prop_at(&prop, ACL_MEM_NORMAL, ACL_MEM_LOCATION_TYPE_HOST, 0);
	assert_int_equal(aclrtMallocPhysical(&h, MiB, &prop, 0), ACL_ERROR_RT_PARAM_INVALID);
}

/* The calls that take explicit device ids need no device set (spec, contexts). */
static void test_physical_memory_without_a_device_set(void **state)
{
	aclrtPhysicalMemProp prop, back;
	aclrtDrvMemHandle h, hh;
	aclrtPtrAttributes attr;
	void *va;

	(void)state;
	ACL_OK(aclrtResetDevice(0));	/* the group's: now nothing is set */
	prop_device(&prop, ACL_MEM_HUGE);
	prop.reserve = 7;
	ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	prop_at(&prop, ACL_MEM_NORMAL, ACL_MEM_LOCATION_TYPE_HOST, 0);
	ACL_OK(aclrtMallocPhysical(&hh, 2 * MiB, &prop, 0));
	ACL_OK(aclrtReserveMemAddress(&va, 4 * MiB, 0, NULL, 0));
	ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	ACL_OK(aclrtMapMem((char *)va + 2 * MiB, 2 * MiB, 0, hh, 0));
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &back));
	assert_int_equal(back.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	assert_int_equal(back.location.id, 0);
	assert_int_equal(back.reserve, 7);
	ACL_OK(aclrtPointerGetAttributes((char *)va + 4096, &attr));
	assert_int_equal(attr.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	/* A copy still needs a context. */
	{
		char b[16] = { 0 };

		assert_int_equal(aclrtMemcpy(va, 16, b, 16, ACL_MEMCPY_HOST_TO_DEVICE),
				 ACL_ERROR_RT_CONTEXT_NULL);
	}
	/* Setting the device later finds the same memory. */
	ACL_OK(aclrtSetDevice(0));
	check_round_trip(va, 4 * MiB, 23);
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtUnmapMem((char *)va + 2 * MiB));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFreePhysical(h));
	ACL_OK(aclrtFreePhysical(hh));
	/* An invalid device id is still that error. */
	prop_at(&prop, ACL_MEM_HUGE, ACL_MEM_LOCATION_TYPE_DEVICE, 99);
	assert_int_equal(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_ERROR_RT_INVALID_DEVICEID);
}

/*
 * One reservation, made on device 0, holds device 1's memory (spec
 * aclrtMapMem: the handle's device need not be current); what it may not
 * do is hold two devices' memory at once.
 */
static void test_reservation_maps_another_devices_memory(void **state)
{
	aclrtPhysicalMemProp prop, back;
	aclrtDrvMemHandle h1, h0, r;
	aclrtMemAccessDesc desc = { 0 };
	uint32_t n = 0;
	void *va;

	(void)state;
	ACL_OK(aclrtGetDeviceCount(&n));
	if (n < 2) {
		print_message("skipped: one device (in-process: set NPU_INPROC_DEVICES=2)\n");
		skip();
	}
	prop_at(&prop, ACL_MEM_HUGE, ACL_MEM_LOCATION_TYPE_DEVICE, 1);
	ACL_OK(aclrtMallocPhysical(&h1, 4 * MiB, &prop, 0));
	prop_device(&prop, ACL_MEM_HUGE);
	ACL_OK(aclrtMallocPhysical(&h0, 2 * MiB, &prop, 0));
	ACL_OK(aclrtReserveMemAddress(&va, 8 * MiB, 0, NULL, 0));	/* on device 0, current */
	ACL_OK(aclrtMapMem(va, 4 * MiB, 0, h1, 0));
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	desc.location.id = 1;
	ACL_OK(aclrtMemSetAccess(va, 4 * MiB, &desc, 1));
	check_round_trip(va, 4 * MiB, 24);
	/* The range of an address is its mapping; the unmapped half has none. */
	{
		void *base = NULL;
		size_t size = 0;

		ACL_OK(aclrtMemGetAddressRange((char *)va + 3 * MiB, &base, &size));
		assert_ptr_equal(base, va);
		assert_int_equal(size, 4 * MiB);
		assert_int_equal(aclrtMemGetAddressRange((char *)va + 6 * MiB, &base, &size),
				 ACL_ERROR_RT_PARAM_INVALID);
		assert_non_null(strstr(aclGetRecentErrMsg(), "nothing is mapped"));
	}
	/* Device 1's memory, seen through the address. */
	ACL_OK(aclrtMemRetainAllocationHandle((char *)va + MiB, &r));
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(r, &back));
	assert_int_equal(back.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	assert_int_equal(back.location.id, 1);
	ACL_OK(aclrtFreePhysical(r));
	/* Device 0's memory beside it would make two devices in one reservation. */
	assert_int_equal(aclrtMapMem((char *)va + 4 * MiB, 2 * MiB, 0, h0, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "two devices"));
	/* Freed by its device's handle, the memory lives on while mapped. */
	ACL_OK(aclrtFreePhysical(h1));
	check_round_trip((char *)va + 2 * MiB, 2 * MiB, 25);
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFreePhysical(h0));
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

/* aclrtReserveMemAddressNoUCMemory: whole GiB at an expected address. */
static void test_reserve_avoiding_uncorrectable_memory(void **state)
{
	const size_t gib = 1024 * MiB;
	void *a, *b = NULL;
	aclrtDrvMemHandle h;
	aclrtPhysicalMemProp prop;

	(void)state;
	ACL_OK(aclrtReserveMemAddress(&a, gib, 0, NULL, 0));
	ACL_OK(aclrtReleaseMemAddress(a));
	ACL_OK(aclrtReserveMemAddressNoUCMemory(&b, gib, 0, a, 0));
	assert_ptr_equal(b, a);
	/* An ordinary reservation: memory maps into it and copies through it. */
	prop_device(&prop, ACL_HBM_MEM_HUGE);
	ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	ACL_OK(aclrtMapMem((char *)b + gib - 2 * MiB, 2 * MiB, 0, h, 0));
	check_round_trip((char *)b + gib - 2 * MiB, 2 * MiB, 31);
	ACL_OK(aclrtUnmapMem((char *)b + gib - 2 * MiB));
	ACL_OK(aclrtFreePhysical(h));
	/* Taken now. */
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, gib, 0, b, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtReleaseMemAddress(b));
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(NULL, gib, 0, b, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, 0, 0, b, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, 2 * MiB, 0, b, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, gib + 2 * MiB, 0, b, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, gib, 0, NULL, 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, gib, 0, b, 2),
			 ACL_ERROR_INVALID_PARAM);
	/* The rows of aclrtReserveMemAddress follow: outside the device window. */
	assert_int_equal(aclrtReserveMemAddressNoUCMemory(&a, gib, 0, (void *)(uintptr_t)4096, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
}

/* Link choices have one path to choose on this host: checked, accepted. */
static void test_link_choices(void **state)
{
	void *va, *dev;
	aclrtDrvMemHandle h;
	aclrtPhysicalMemProp prop;
	char host[64];

	(void)state;
	prop_device(&prop, ACL_HBM_MEM_HUGE);
	ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	for (int l = ACL_RT_MEM_ACCESS_LINK_SIO; l <= ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH; l++)
		ACL_OK(aclrtMemMapSetLink(h, (aclrtMemLinkType)l));
	assert_int_equal(aclrtMemMapSetLink(NULL, ACL_RT_MEM_ACCESS_LINK_SIO),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemMapSetLink(h, (aclrtMemLinkType)4), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemMapSetLink(h, (aclrtMemLinkType)-1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemMapSetLink((aclrtDrvMemHandle)host, ACL_RT_MEM_ACCESS_LINK_SIO),
			 ACL_ERROR_RT_INVALID_HANDLE);

	ACL_OK(aclrtReserveMemAddress(&va, 2 * MiB, 0, NULL, 0));
	ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	ACL_OK(aclrtMalloc(&dev, 2 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemMapSelectedLink(va, 2 * MiB, dev, ACL_RT_MEM_LINK_IDX_0));
	ACL_OK(aclrtMemMapSelectedLink(va, 4096, dev, ACL_RT_MEM_LINK_IDX_1));
	assert_int_equal(aclrtMemMapSelectedLink(NULL, 4096, dev, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemMapSelectedLink(va, 0, dev, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemMapSelectedLink(va, 4096, NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemMapSelectedLink(va, 4096, dev, 2), ACL_ERROR_INVALID_PARAM);
	/* Addresses that are not device memory (a 2 MiB aclrtMalloc spans 4 MiB). */
	assert_int_equal(aclrtMemMapSelectedLink(host, 4096, dev, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemMapSelectedLink(va, 4096, host, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemMapSelectedLink(va, 4096, (char *)dev + 4 * MiB, 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtFree(dev));
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFreePhysical(h));
	assert_int_equal(aclrtMemMapSetLink(h, ACL_RT_MEM_ACCESS_LINK_SIO),
			 ACL_ERROR_RT_INVALID_HANDLE);
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

/*
 * The child side of test_physical_memory_in_a_process_that_never_set_a_device:
 * aclrtMallocPhysical, aclrtReserveMemAddress, aclrtMapMem and the queries
 * on handles and addresses need no context, so they work before the process
 * has ever called aclrtSetDevice. A copy still needs one; once the device is
 * set, the memory made before holds what is written.
 */
static void test_fresh_physical_memory_and_reservation(void **state)
{
	aclrtPhysicalMemProp prop, back;
	aclrtDrvMemHandle h, hh, r;
	aclrtPtrAttributes attr;
	void *va, *base;
	size_t size;
	int32_t id = -1;

	(void)state;
	assert_int_equal(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
	aclGetRecentErrMsg();
	prop_device(&prop, ACL_MEM_HUGE);
	prop.reserve = 9;
	ACL_OK(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0));
	prop_at(&prop, ACL_MEM_NORMAL, ACL_MEM_LOCATION_TYPE_HOST, 0);
	ACL_OK(aclrtMallocPhysical(&hh, 2 * MiB, &prop, 0));
	ACL_OK(aclrtReserveMemAddress(&va, 8 * MiB, 0, NULL, 0));
	ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h, 0));
	ACL_OK(aclrtMapMem((char *)va + 2 * MiB, 2 * MiB, 0, hh, 0));
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(h, &back));
	assert_int_equal(back.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	assert_int_equal(back.location.id, 0);
	/* Reported back lossily: a device ACL_MEM_HUGE is ACL_HBM_MEM_HUGE. */
	assert_int_equal(back.memAttr, ACL_HBM_MEM_HUGE);
	assert_int_equal(back.reserve, 9);
	ACL_OK(aclrtMemGetAllocationPropertiesFromHandle(hh, &back));
	assert_int_equal(back.location.type, ACL_MEM_LOCATION_TYPE_HOST);
	ACL_OK(aclrtMemRetainAllocationHandle((char *)va + 3 * MiB, &r));
	assert_ptr_equal(r, hh);
	ACL_OK(aclrtFreePhysical(r));
	ACL_OK(aclrtPointerGetAttributes((char *)va + 4096, &attr));
	assert_int_equal(attr.location.type, ACL_MEM_LOCATION_TYPE_DEVICE);
	assert_int_equal(attr.location.id, 0);
	/* The range of an address is its mapping; past the mappings, nothing. */
	ACL_OK(aclrtMemGetAddressRange((char *)va + 2 * MiB + 5, &base, &size));
	assert_ptr_equal(base, (char *)va + 2 * MiB);
	assert_int_equal(size, 2 * MiB);
	assert_int_equal(aclrtMemGetAddressRange((char *)va + 5 * MiB, &base, &size),
			 ACL_ERROR_RT_PARAM_INVALID);
	aclGetRecentErrMsg();
	{
		char b[16] = { 0 };

		assert_int_equal(aclrtMemcpy(va, 16, b, 16, ACL_MEMCPY_HOST_TO_DEVICE),
				 ACL_ERROR_RT_CONTEXT_NULL);
		aclGetRecentErrMsg();
	}
	/* Still no device: nothing above set one. */
	assert_int_equal(aclrtGetDevice(&id), ACL_ERROR_RT_CONTEXT_NULL);
	aclGetRecentErrMsg();
	ACL_OK(aclrtSetDevice(0));
	check_round_trip(va, 4 * MiB, 26);
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtUnmapMem((char *)va + 2 * MiB));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFreePhysical(h));
	ACL_OK(aclrtFreePhysical(hh));
	ACL_OK(aclrtResetDevice(0));
}

/* The second device's memory, in a fresh process that has set no device. */
static void test_fresh_other_devices_memory(void **state)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h1;
	aclrtMemAccessDesc desc = { 0 };
	uint32_t n = 0;
	void *va;

	(void)state;
	ACL_OK(aclrtGetDeviceCount(&n));
	if (n < 2) {
		print_message("skipped: one device\n");
		skip();
	}
	prop_at(&prop, ACL_MEM_HUGE, ACL_MEM_LOCATION_TYPE_DEVICE, 1);
	ACL_OK(aclrtMallocPhysical(&h1, 2 * MiB, &prop, 0));
	ACL_OK(aclrtReserveMemAddress(&va, 2 * MiB, 0, NULL, 0));
	ACL_OK(aclrtMapMem(va, 2 * MiB, 0, h1, 0));
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	desc.location.id = 1;
	ACL_OK(aclrtMemSetAccess(va, 2 * MiB, &desc, 1));
	/* Device 0 current: the copy reaches device 1's memory through the mapping. */
	ACL_OK(aclrtSetDevice(0));
	check_round_trip(va, 2 * MiB, 27);
	ACL_OK(aclrtUnmapMem(va));
	ACL_OK(aclrtReleaseMemAddress(va));
	ACL_OK(aclrtFreePhysical(h1));
	ACL_OK(aclrtResetDevice(0));
}

static int fresh_setup(void **state)
{
	(void)state;
	return aclInit(NULL) == ACL_SUCCESS ? 0 : -1;
}

static int fresh_teardown(void **state)
{
	(void)state;
	return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static const char *g_self;

static void test_physical_memory_in_a_process_that_never_set_a_device(void **state)
{
	int status = -1;
	pid_t pid;

	(void)state;
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(g_self, g_self, "--no-device", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);	/* the child's failed tests */
}

int main(int argc, char **argv)
{
	const struct CMUnitTest fresh[] = {
		cmocka_unit_test(test_fresh_physical_memory_and_reservation),
		cmocka_unit_test(test_fresh_other_devices_memory),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies_span_handles_mapped_back_to_back),
		cmocka_unit_test(test_physical_host_memory),
		cmocka_unit_test(test_physical_memory_without_a_device_set),
		cmocka_unit_test(test_physical_memory_in_a_process_that_never_set_a_device),
		cmocka_unit_test(test_reservation_maps_another_devices_memory),
		cmocka_unit_test(test_reserve_at_an_expected_address),
		cmocka_unit_test(test_reserve_avoiding_uncorrectable_memory),
		cmocka_unit_test(test_link_choices),
		cmocka_unit_test(test_ipc_import_into_the_exporting_process),
	};

	if (argc == 2 && !strcmp(argv[1], "--no-device"))
		return cmocka_run_group_tests_name("vmm_no_device", fresh, fresh_setup,
						   fresh_teardown);
	g_self = argv[0];
	return cmocka_run_group_tests(tests, setup, teardown);
}
