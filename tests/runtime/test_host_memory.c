// SPDX-License-Identifier: MIT
/*
 * Pinned host memory and host registration
 *: pool allocations and frees, the WithCfg attributes, register
 * / device pointer / unregister, copies from pinned, registered and
 * pageable memory with every byte checked, every bad-input row with its
 * exact code, and (in-process) the pinned page counters back to where they
 * started once the devices are closed.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#include "npu/hal.h"

#define KiB (1ull << 10)
#define MiB (1ull << 20)

static long pinned_at_start;

/* Host pages the in-process driver's devices have pinned (debugfs counters). */
static long pinned_pages(void)
{
	long total = 0;

	for (int dev = 0; dev < 64; dev++) {
		char path[64], buf[512], *p;
		long n;

		snprintf(path, sizeof(path), "npu/npu%d/counters", dev);
		n = npuHalInprocDebugfsRead(path, buf, sizeof(buf) - 1);
		if (n < 0)
			break;
		buf[n] = '\0';
		p = strstr(buf, "pinned_pages ");
		assert_non_null(p);
		total += strtol(p + strlen("pinned_pages "), NULL, 10);
	}
	return total;
}

static int group_setup(void **state)
{
	(void)state;
	if (aclInit(NULL) != ACL_SUCCESS)
		return -1;
	if (npuHalBackendIsInproc())
		pinned_at_start = pinned_pages();
	return aclrtSetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtResetDevice(0);
	return aclFinalize() == ACL_SUCCESS ? 0 : -1;
}

static void *page_buffer(size_t n)
{
	void *p = NULL;

	assert_int_equal(posix_memalign(&p, 4096, n), 0);
	return p;
}

static aclrtMemLocationType location_of(const void *p)
{
	aclrtPtrAttributes a;

	ACL_OK(aclrtPointerGetAttributes(p, &a));
	return a.location.type;
}

static void test_malloc_host_allocations_are_distinct_and_usable(void **state)
{
	static const size_t sizes[] = { 1, 31, 64, 100, 4095, 4096, 65537, 3 * MiB, 20 * MiB };
	enum { N = sizeof(sizes) / sizeof(sizes[0]) };
	uint8_t *p[N];

	(void)state;
	for (int i = 0; i < N; i++) {
		p[i] = NULL;
		ACL_OK(aclrtMallocHost((void **)&p[i], sizes[i]));
		assert_non_null(p[i]);
		assert_int_equal((uintptr_t)p[i] % 64, 0);
		if (sizes[i] >= 4096)
			assert_int_equal((uintptr_t)p[i] % 4096, 0);
		rt_fill_pattern(p[i], sizes[i], (uint32_t)i);
		assert_int_equal(location_of(p[i]), ACL_MEM_LOCATION_TYPE_HOST);
		assert_int_equal(location_of(p[i] + sizes[i] - 1), ACL_MEM_LOCATION_TYPE_HOST);
	}
	/* No allocation overwrote another. */
	for (int i = 0; i < N; i++) {
		uint8_t *want = malloc(sizes[i]);

		rt_fill_pattern(want, sizes[i], (uint32_t)i);
		assert_memory_equal(p[i], want, sizes[i]);
		free(want);
	}
	for (int i = 0; i < N; i++) {
		ACL_OK(aclrtFreeHost(p[i]));
		assert_int_equal(location_of(p[i]), ACL_MEM_LOCATION_TYPE_UNREGISTERED);
	}
}

static void *malloc_host_in_thread(void *arg)
{
	void *p = NULL;

	*(aclError *)arg = aclrtMallocHost(&p, 64);
	return NULL;
}

static void *free_host_in_thread(void *arg)
{
	/* aclrtFreeHost works without a context. */
	assert_int_equal(aclrtFreeHost(arg), ACL_SUCCESS);
	return NULL;
}

static void test_malloc_host_bad_input(void **state)
{
	void *p = NULL, *dev = NULL;
	aclError rc = ACL_SUCCESS;
	int on_stack;

	(void)state;
	assert_int_equal(aclrtMallocHost(NULL, 64), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocHost(&p, 0), ACL_ERROR_INVALID_PARAM);
	assert_non_null(strstr(aclGetRecentErrMsg(), "size is 0"));
	assert_int_equal(aclrtMallocHost(&p, (size_t)1 << 62), ACL_ERROR_RT_MEMORY_ALLOCATION);
	rt_run_in_thread(malloc_host_in_thread, &rc);
	assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);

	/* aclrtFreeHost: NULL, unknown, interior, double free, device memory. */
	assert_int_equal(aclrtFreeHost(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFreeHostWithDevSync(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFreeHost(&on_stack), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtMallocHost(&p, 256));
	assert_int_equal(aclrtFreeHost((char *)p + 64), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtMalloc(&dev, 256, ACL_MEM_MALLOC_HUGE_FIRST));
	assert_int_equal(aclrtFreeHost(dev), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "device memory"));
	ACL_OK(aclrtFree(dev));
	rt_run_in_thread(free_host_in_thread, p);
	assert_int_equal(aclrtFreeHost(p), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtMallocHost(&p, 256));
	ACL_OK(aclrtFreeHostWithDevSync(p));
	assert_int_equal(aclrtFreeHostWithDevSync(p), ACL_ERROR_RT_PARAM_INVALID);
}

static void *malloc_host_cfg_in_thread(void *arg)
{
	aclrtMallocConfig *cfg = arg;
	void *p = NULL;

	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, cfg), ACL_ERROR_RT_CONTEXT_NULL);
	/* The cfg checks come before the context check. */
	cfg->attrs = NULL;
	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, cfg), ACL_ERROR_RT_PARAM_INVALID);
	return NULL;
}

static void test_malloc_host_with_cfg(void **state)
{
	aclrtMallocAttribute attrs[2];
	aclrtMallocConfig cfg = { attrs, 1 };
	void *p = NULL;

	(void)state;
	memset(attrs, 0, sizeof(attrs));
	ACL_OK(aclrtMallocHostWithCfg(&p, 1000, NULL));
	assert_int_equal(location_of(p), ACL_MEM_LOCATION_TYPE_HOST);
	ACL_OK(aclrtFreeHost(p));

	attrs[0].attr = ACL_RT_MEM_ATTR_MODULE_ID;
	attrs[0].value.moduleId = 33;
	attrs[1].attr = ACL_RT_MEM_ATTR_VA_FLAG;
	attrs[1].value.vaFlag = 1;
	cfg.numAttrs = 2;
	ACL_OK(aclrtMallocHostWithCfg(&p, 5000, &cfg));
	memset(p, 0xab, 5000);
	ACL_OK(aclrtFreeHost(p));

	assert_int_equal(aclrtMallocHostWithCfg(NULL, 64, &cfg), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMallocHostWithCfg(&p, 0, &cfg), ACL_ERROR_INVALID_PARAM);
	attrs[1].value.vaFlag = 2;
	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
	/* RSV and DEVICE_ID are for device memory only. */
	attrs[1].attr = ACL_RT_MEM_ATTR_RSV;
	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
	attrs[1].attr = ACL_RT_MEM_ATTR_DEVICE_ID;
	attrs[1].value.deviceId = 0;
	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "attrs[1]"));
	attrs[1].attr = (aclrtMallocAttrType)99;
	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
	/* attrs NULL, with or without numAttrs. */
	cfg.attrs = NULL;
	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
	cfg.numAttrs = 0;
	assert_int_equal(aclrtMallocHostWithCfg(&p, 64, &cfg), ACL_ERROR_RT_PARAM_INVALID);
	cfg.attrs = attrs;
	cfg.numAttrs = 1;
	rt_run_in_thread(malloc_host_cfg_in_thread, &cfg);
}

static void test_register_get_device_pointer_unregister(void **state)
{
	const size_t n = 64 * KiB;
	char *p = page_buffer(n);
	void *dev = NULL, *alias = NULL;

	(void)state;
	assert_int_equal(location_of(p), ACL_MEM_LOCATION_TYPE_UNREGISTERED);
	ACL_OK(aclrtHostRegister(p, n, ACL_HOST_REGISTER_MAPPED, &dev));
	assert_non_null(dev);
	assert_int_equal(location_of(p), ACL_MEM_LOCATION_TYPE_HOST);
	assert_int_equal(location_of(p + n - 1), ACL_MEM_LOCATION_TYPE_HOST);
	assert_int_equal(location_of(p + n), ACL_MEM_LOCATION_TYPE_UNREGISTERED);
	ACL_OK(aclrtHostGetDevicePointer(p, &alias, 0));
	assert_ptr_equal(alias, dev);
	ACL_OK(aclrtHostGetDevicePointer(p + 100, &alias, 0));
	assert_ptr_equal(alias, (char *)dev + 100);

	/* The same range, or any overlap. */
	assert_int_equal(aclrtHostRegister(p, n, ACL_HOST_REGISTER_MAPPED, &dev),
			 ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	assert_int_equal(aclrtHostRegister(p + 8 * KiB, n, ACL_HOST_REGISTER_MAPPED, &dev),
			 ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	assert_int_equal(aclrtHostRegisterV2(p + n - 4 * KiB, 4 * KiB, ACL_HOST_REG_MAPPED),
			 ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
	assert_non_null(strstr(aclGetRecentErrMsg(), "overlaps"));
	/* Only the base unregisters. */
	assert_int_equal(aclrtHostUnregister(p + 4 * KiB), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
	ACL_OK(aclrtHostUnregister(p));
	assert_int_equal(aclrtHostUnregister(p), ACL_ERROR_HOST_MEMORY_NOT_REGISTERED);
	assert_int_equal(location_of(p), ACL_MEM_LOCATION_TYPE_UNREGISTERED);
	assert_int_equal(aclrtHostGetDevicePointer(p, &alias, 0), ACL_ERROR_RT_PARAM_INVALID);

	/* V2: PINNED alone has no device alias; MAPPED has. */
	ACL_OK(aclrtHostRegisterV2(p, n, ACL_HOST_REG_PINNED));
	assert_int_equal(location_of(p), ACL_MEM_LOCATION_TYPE_HOST);
	assert_int_equal(aclrtHostGetDevicePointer(p, &alias, 0), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtHostUnregister(p));
	ACL_OK(aclrtHostRegisterV2(p, n, ACL_HOST_REG_PINNED | ACL_HOST_REG_MAPPED));
	ACL_OK(aclrtHostGetDevicePointer(p + 4096, &alias, 0));
	assert_non_null(alias);
	ACL_OK(aclrtHostUnregister(p));
	free(p);
}

static void test_register_pool_memory(void **state)
{
	void *p = NULL, *dev = NULL;

	(void)state;
	ACL_OK(aclrtMallocHost(&p, 64 * KiB));
	ACL_OK(aclrtHostRegister(p, 64 * KiB, ACL_HOST_REGISTER_MAPPED, &dev));
	assert_int_equal(location_of(p), ACL_MEM_LOCATION_TYPE_HOST);
	ACL_OK(aclrtHostUnregister(p));
	assert_int_equal(location_of(p), ACL_MEM_LOCATION_TYPE_HOST);
	ACL_OK(aclrtFreeHost(p));
}

static void *register_in_thread(void *arg)
{
	void *dev = NULL;

	assert_int_equal(aclrtHostRegister(arg, 4096, ACL_HOST_REGISTER_MAPPED, &dev),
			 ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtHostRegisterV2(arg, 4096, ACL_HOST_REG_MAPPED),
			 ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtHostGetDevicePointer(arg, &dev, 0), ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(aclrtHostUnregister(arg), ACL_ERROR_RT_CONTEXT_NULL);
	return NULL;
}

static void test_register_bad_input(void **state)
{
	char *p = page_buffer(16 * KiB);
	void *dev = NULL, *d = NULL;

	(void)state;
	assert_int_equal(aclrtHostRegister(NULL, 4096, ACL_HOST_REGISTER_MAPPED, &dev),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegister(p, 4096, ACL_HOST_REGISTER_MAPPED, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegister(p, 0, ACL_HOST_REGISTER_MAPPED, &dev),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegister(p, 4096, (aclrtHostRegisterType)1, &dev),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(aclrtHostRegister(p, 4096, (aclrtHostRegisterType)0x10, &dev),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* Documented: 4 KiB aligned. */
	assert_int_equal(aclrtHostRegister(p + 8, 4096, ACL_HOST_REGISTER_MAPPED, &dev),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* IOMEMORY / READONLY bits pass the runtime's check. */
	ACL_OK(aclrtHostRegister(p, 4096, ACL_HOST_REGISTER_IOMEMORY, &dev));
	ACL_OK(aclrtHostUnregister(p));

	assert_int_equal(aclrtHostRegisterV2(NULL, 4096, ACL_HOST_REG_MAPPED), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegisterV2(p, 0, ACL_HOST_REG_MAPPED), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostRegisterV2(p, 4096, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtHostRegisterV2(p, 4096, 0x1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtHostRegisterV2(p, 4096, ACL_HOST_REG_MAPPED | 0x100),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Device memory is not host memory. */
	ACL_OK(aclrtMalloc(&d, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	assert_int_equal(aclrtHostRegisterV2(d, 4096, ACL_HOST_REG_MAPPED), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtFree(d));

	assert_int_equal(aclrtHostGetDevicePointer(NULL, &dev, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostGetDevicePointer(p, NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostGetDevicePointer(p, &dev, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtHostGetDevicePointer(p, &dev, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtHostUnregister(NULL), ACL_ERROR_INVALID_PARAM);
	rt_run_in_thread(register_in_thread, p);
	free(p);
}

/* H2D from src, D2D, D2H into dst: every byte, several sizes and offsets. */
static void round_trip(uint8_t *src, uint8_t *dst, size_t n, uint32_t seed)
{
	void *a = NULL, *b = NULL;

	rt_fill_pattern(src, n, seed);
	memset(dst, 0, n);
	ACL_OK(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(a, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(b, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ACL_OK(aclrtMemcpy(dst, n, b, n, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(dst, src, n);
	/* Host to host between the two kinds. */
	memset(dst, 0, n);
	ACL_OK(aclrtMemcpy(dst, n, src, n, ACL_MEMCPY_HOST_TO_HOST));
	assert_memory_equal(dst, src, n);
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
}

static void test_pinned_registered_and_pageable_copies(void **state)
{
	static const size_t sizes[] = { 1, 4097, 1 * MiB + 3, 9 * MiB };
	const size_t max = 9 * MiB + 4096;
	uint8_t *pin_a = NULL, *pin_b = NULL;
	uint8_t *reg = page_buffer(max), *plain = malloc(max);
	void *dev = NULL;

	(void)state;
	ACL_OK(aclrtMallocHost((void **)&pin_a, max));
	ACL_OK(aclrtMallocHost((void **)&pin_b, max));
	ACL_OK(aclrtHostRegister(reg, max, ACL_HOST_REGISTER_MAPPED, &dev));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		uint32_t s = (uint32_t)i;

		round_trip(pin_a, pin_b, n, s);			/* pinned both ways */
		round_trip(pin_a + 3, plain + 1, n, s + 10);	/* pinned -> pageable */
		round_trip(plain, pin_b + 7, n, s + 20);	/* pageable -> pinned */
		round_trip(reg + 5, pin_a, n, s + 30);		/* registered -> pinned */
		round_trip(plain, reg, n, s + 40);		/* pageable -> registered */
	}
	ACL_OK(aclrtHostUnregister(reg));
	ACL_OK(aclrtFreeHost(pin_a));
	ACL_OK(aclrtFreeHost(pin_b));
	free(reg);
	free(plain);
}

/* In-process: the driver's pins are visible in the mock kernel's counters. */
static void test_pinned_pages_follow_devices(void **state)
{
	const long reg_pages = 16;
	void *p = NULL, *dev = NULL;
	char *reg = page_buffer(reg_pages * 4096);
	long base, open_cost = 0;

	(void)state;
	if (!npuHalBackendIsInproc()) {
		free(reg);
		skip();
	}
	/* At least one pool segment (32 MiB) is pinned by device 0. */
	ACL_OK(aclrtMallocHost(&p, 1000));
	base = pinned_pages();
	assert_true(base - pinned_at_start >= (32 << 20) / 4096);
	if (rt_device_count() >= 2) {
		ACL_OK(aclrtSetDevice(1));
		open_cost = pinned_pages() - base;	/* its ring and the pool */
		assert_true(open_cost >= (32 << 20) / 4096);
		ACL_OK(aclrtResetDevice(1));
		assert_int_equal(pinned_pages(), base);
		ACL_OK(aclrtSetDevice(0));
		ACL_OK(aclrtResetDevice(0));	/* the extra reference */
	}
	ACL_OK(aclrtHostRegister(reg, reg_pages * 4096, ACL_HOST_REGISTER_MAPPED, &dev));
	assert_int_equal(pinned_pages(), base + reg_pages);
	if (rt_device_count() >= 2) {
		/* A device opened later pins the registration too. */
		ACL_OK(aclrtSetDevice(1));
		assert_int_equal(pinned_pages(), base + reg_pages + open_cost + reg_pages);
		ACL_OK(aclrtResetDevice(1));
		assert_int_equal(pinned_pages(), base + reg_pages);
		ACL_OK(aclrtSetDevice(0));
		ACL_OK(aclrtResetDevice(0));
	}
	ACL_OK(aclrtHostUnregister(reg));
	assert_int_equal(pinned_pages(), base);
	ACL_OK(aclrtHostRegister(reg, reg_pages * 4096, ACL_HOST_REGISTER_MAPPED, &dev));
	/* Closing the last device unpins everything; reopening pins the pool again. */
	ACL_OK(aclrtResetDeviceForce(0));
	assert_int_equal(pinned_pages(), pinned_at_start);
	ACL_OK(aclrtSetDevice(0));
	assert_true(pinned_pages() - pinned_at_start >= (32 << 20) / 4096 + reg_pages);
	ACL_OK(aclrtHostUnregister(reg));
	ACL_OK(aclrtFreeHost(p));
	free(reg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malloc_host_allocations_are_distinct_and_usable),
		cmocka_unit_test(test_malloc_host_bad_input),
		cmocka_unit_test(test_malloc_host_with_cfg),
		cmocka_unit_test(test_register_get_device_pointer_unregister),
		cmocka_unit_test(test_register_pool_memory),
		cmocka_unit_test(test_register_bad_input),
		cmocka_unit_test(test_pinned_registered_and_pageable_copies),
		cmocka_unit_test(test_pinned_pages_follow_devices),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
