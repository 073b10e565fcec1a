// SPDX-License-Identifier: MIT
/*
 * Managed memory (aclrtMemAllocManaged): sizes rounded up to 2 MiB, the
 * MANAGED location of aclrtPointerGetAttributes, one copy of the bytes seen
 * by the CPU and by the device's copies (synchronous and on streams),
 * aclrtFree (not aclrtFreeHost) frees it and gives the memory back, the
 * placement hints and prefetches that have nothing to move but are recorded
 * and read back (aclrtMemManagedGetAttr[s], as CUDA's
 * cudaMemRangeGetAttribute reports them), concurrent use, and every
 * bad-input row.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define MIB (1u << 20)

static void *g_dev;	/* 4 MiB of device memory */

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_dev, 4 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_dev);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void assert_msg_has(const char *what)
{
	const char *m = aclGetRecentErrMsg();

	assert_non_null(m);
	if (strstr(m, what) == NULL)
		fail_msg("message \"%s\" does not contain \"%s\"", m, what);
}

static void test_size_rounds_up_to_2mib(void **state)
{
	static const struct {
		uint64_t size, rounded;
	} rows[] = {
		{ 1, 2 * MIB }, { 4096, 2 * MIB }, { 2 * MIB, 2 * MIB }, { 2 * MIB + 1, 4 * MIB },
		{ 5 * MIB, 6 * MIB },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		void *p = NULL, *base = NULL;
		size_t size = 0;

		ACL_OK(aclrtMemAllocManaged(&p, rows[i].size, ACL_RT_MEM_ATTACH_GLOBAL));
		assert_non_null(p);
		ACL_OK(aclrtMemGetAddressRange((char *)p + 1, &base, &size));
		assert_ptr_equal(base, p);
		if (size != rows[i].rounded)
			fail_msg("size %llu: range of %zu bytes, expected %llu",
				 (unsigned long long)rows[i].size, size,
				 (unsigned long long)rows[i].rounded);
		/* The whole rounded range is usable. */
		memset(p, 0x5a, (size_t)rows[i].rounded);
		ACL_OK(aclrtFree(p));
	}
}

static void test_pointer_attributes_say_managed(void **state)
{
	void *p;
	aclrtPtrAttributes a;

	(void)state;
	ACL_OK(aclrtMemAllocManaged(&p, 3 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	memset(&a, 0xff, sizeof(a));
	ACL_OK(aclrtPointerGetAttributes(p, &a));
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED);
	assert_int_equal(a.location.id, 0);
	assert_true(a.pageSize > 0);
	/* Any address inside, up to the rounded end. */
	ACL_OK(aclrtPointerGetAttributes((char *)p + 4 * MIB - 1, &a));
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED);
	ACL_OK(aclrtFree(p));
	/* Freed: no longer managed (nor ACL host memory). */
	ACL_OK(aclrtPointerGetAttributes(p, &a));
	assert_int_not_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED);
	assert_int_not_equal(a.location.type, ACL_MEM_LOCATION_TYPE_HOST);
}

/* The device of the allocation is the current one. */
static void test_location_id_is_the_current_device(void **state)
{
	void *p;
	aclrtPtrAttributes a;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMemAllocManaged(&p, MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	ACL_OK(aclrtPointerGetAttributes(p, &a));
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED);
	assert_int_equal(a.location.id, 1);
	ACL_OK(aclrtFree(p));
	ACL_OK(aclrtResetDevice(1));
	ACL_OK(aclrtSetDevice(0));
}

/* The CPU and the device's synchronous copies see the same bytes. */
static void test_host_and_device_share_bytes_sync(void **state)
{
	uint8_t *m, *back = malloc(4 * MIB), *want = malloc(4 * MIB);

	(void)state;
	assert_non_null(back);
	assert_non_null(want);
	ACL_OK(aclrtMemAllocManaged((void **)&m, 4 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	/* CPU writes, the device reads. */
	rt_fill_pattern(m, 4 * MIB, 1);
	memcpy(want, m, 4 * MIB);
	ACL_OK(aclrtMemcpy(g_dev, 4 * MIB, m, 4 * MIB, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(back, 4 * MIB, g_dev, 4 * MIB, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(back, want, 4 * MIB);
	/* The device writes, the CPU reads. */
	rt_fill_pattern(want, 4 * MIB, 2);
	ACL_OK(aclrtMemcpy(g_dev, 4 * MIB, want, 4 * MIB, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(m, 4 * MIB, g_dev, 4 * MIB, ACL_MEMCPY_DEVICE_TO_DEVICE));
	assert_memory_equal(m, want, 4 * MIB);
	/* A fill by the device. */
	ACL_OK(aclrtMemset(m + 100, 4 * MIB - 100, 0xC3, 5000));
	assert_int_equal(rt_first_not(m + 100, 5000, 0xC3), 5000);
	assert_int_equal(m[99], want[99]);
	assert_int_equal(m[5100], want[5100]);
	ACL_OK(aclrtFree(m));
	free(back);
	free(want);
}

/* ... and so do copies and fills queued on a stream, in stream order. */
static void test_host_and_device_share_bytes_async(void **state)
{
	uint8_t *m;
	uint8_t *want = malloc(MIB);
	aclrtStream s;

	(void)state;
	assert_non_null(want);
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMemAllocManaged((void **)&m, 2 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	rt_fill_pattern(m, MIB, 3);
	memcpy(want, m, MIB);
	memset(m + MIB, 0, MIB);
	ACL_OK(aclrtMemcpyAsync(g_dev, MIB, m, MIB, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ACL_OK(aclrtMemcpyAsync(m + MIB, MIB, g_dev, MIB, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ACL_OK(aclrtMemsetAsync(m, 4096, 0x11, 4096, s));
	ACL_OK(aclrtSynchronizeStream(s));
	assert_memory_equal(m + MIB, want, MIB);
	assert_int_equal(rt_first_not(m, 4096, 0x11), 4096);
	assert_memory_equal(m + 4096, want + 4096, MIB - 4096);
	ACL_OK(aclrtFree(m));
	ACL_OK(aclrtDestroyStream(s));
	free(want);
}

static void test_free_rows(void **state)
{
	void *p;
	aclrtPtrAttributes a;

	(void)state;
	ACL_OK(aclrtMemAllocManaged(&p, MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	/* Not with aclrtFreeHost: the memory stays. */
	assert_int_equal(aclrtFreeHost(p), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("managed memory (free it with aclrtFree)");
	assert_int_equal(aclrtFreeHostWithDevSync(p), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtPointerGetAttributes(p, &a));
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED);
	/* Not from inside. */
	assert_int_equal(aclrtFree((char *)p + 4096), ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("not the start");
	ACL_OK(aclrtPointerGetAttributes(p, &a));
	assert_int_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED);
	ACL_OK(aclrtFree(p));
	/* Not twice. */
	assert_int_equal(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
	/* aclrtFreeWithDevSync frees it too. */
	ACL_OK(aclrtMemAllocManaged(&p, MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	ACL_OK(aclrtFreeWithDevSync(p));
	ACL_OK(aclrtPointerGetAttributes(p, &a));
	assert_int_not_equal(a.location.type, ACL_MEM_LOCATION_TYPE_MANAGED);
}

/*
 * aclrtFree gives the memory back: 24 rounds of 8 GiB are three times the
 * 64 GiB the pinned pool may hold, so a leak fails an allocation. Only
 * what is touched is ever backed by pages.
 */
static void test_free_returns_the_memory(void **state)
{
	(void)state;
	for (int i = 0; i < 24; i++) {
		char *p = NULL;

		ACL_OK(aclrtMemAllocManaged((void **)&p, 8ULL << 30, ACL_RT_MEM_ATTACH_GLOBAL));
		p[0] = (char)i;
		p[(8ULL << 30) - 1] = (char)i;
		ACL_OK(aclrtFree(p));
	}
	/* Over the 3 TiB per-process limit: refused up front. */
	void *p = NULL;

	assert_int_equal(aclrtMemAllocManaged(&p, (3ULL << 40) + 1, ACL_RT_MEM_ATTACH_GLOBAL),
			 ACL_ERROR_RT_MEMORY_ALLOCATION);
	assert_null(p);
	assert_int_equal(aclrtMemAllocManaged(&p, UINT64_MAX, ACL_RT_MEM_ATTACH_GLOBAL),
			 ACL_ERROR_RT_MEMORY_ALLOCATION);
	assert_null(p);
}

static void *alloc_without_context(void *arg)
{
	void *p = NULL;

	*(aclError *)arg = aclrtMemAllocManaged(&p, MIB, ACL_RT_MEM_ATTACH_GLOBAL);
	return NULL;
}

static void test_alloc_rows(void **state)
{
	void *p = NULL;
	aclError rc = ACL_SUCCESS;

	(void)state;
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	assert_int_equal(aclrtMemAllocManaged(NULL, MIB, ACL_RT_MEM_ATTACH_GLOBAL),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMemAllocManaged: ptr is NULL");
	/* ptr before flag, flag before size. */
	assert_int_equal(aclrtMemAllocManaged(NULL, 0, 7), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("ptr is NULL");
	assert_int_equal(aclrtMemAllocManaged(&p, MIB, 0), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("flag 0x0");
	assert_int_equal(aclrtMemAllocManaged(&p, 0, 2), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("flag 0x2");
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	/* The runtime layer: size 0 is 107000 and the thread's last error. */
	assert_int_equal(aclrtMemAllocManaged(&p, 0, ACL_RT_MEM_ATTACH_GLOBAL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("size is 0");
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
	assert_null(p);
	rt_run_in_thread(alloc_without_context, &rc);
	assert_int_equal(rc, ACL_ERROR_RT_CONTEXT_NULL);
}

/* Upstream fills only device and host memory. */
static void test_memset_d32_refuses_managed(void **state)
{
	void *p;

	(void)state;
	ACL_OK(aclrtMemAllocManaged(&p, MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	assert_int_equal(aclrtMemsetD32(p, MIB, 1, 16), ACL_ERROR_INVALID_PARAM);
	assert_msg_has("managed memory");
	ACL_OK(aclrtFree(p));
}

static void test_advise(void **state)
{
	void *p;
	aclrtMemManagedLocation dev0 = { ACL_MEM_LOCATIONTYPE_DEVICE, 0 };
	aclrtMemManagedLocation host = { ACL_MEM_LOCATIONTYPE_HOST, 0 };
	aclrtMemManagedLocation bad_type = { ACL_MEM_LOCATIONTYPE_INVALID, 0 };
	aclrtMemManagedLocation bad_dev = { ACL_MEM_LOCATIONTYPE_DEVICE, 99 };

	(void)state;
	ACL_OK(aclrtMemAllocManaged(&p, 2 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	for (int a = ACL_MEM_ADVISE_SET_READ_MOSTLY; a <= ACL_MEM_ADVISE_UNSET_ACCESSED_BY; a++) {
		ACL_OK(aclrtMemManagedAdvise(p, 2 * MIB, (aclrtMemManagedAdviseType)a, dev0));
		ACL_OK(aclrtMemManagedAdvise((char *)p + 4096, 4096, (aclrtMemManagedAdviseType)a,
					     host));
	}
	/* Read-mostly names no location. */
	ACL_OK(aclrtMemManagedAdvise(p, 64, ACL_MEM_ADVISE_SET_READ_MOSTLY, bad_type));
	assert_int_equal(aclrtMemManagedAdvise(NULL, 64, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMemManagedAdvise: ptr is NULL");
	assert_int_equal(aclrtMemManagedAdvise(p, 0, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedAdvise(p, 64, (aclrtMemManagedAdviseType)6, dev0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedAdvise(p, 64, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
					       bad_type),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedAdvise(p, 64, ACL_MEM_ADVISE_SET_ACCESSED_BY, bad_dev),
			 ACL_ERROR_RT_INVALID_DEVICEID);
	/* Ranges that are not managed memory. */
	assert_int_equal(aclrtMemManagedAdvise(p, 2 * MIB + 1, ACL_MEM_ADVISE_SET_READ_MOSTLY,
					       dev0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemManagedAdvise(g_dev, 64, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("not inside one aclrtMemAllocManaged allocation");
	ACL_OK(aclrtFree(p));
	assert_int_equal(aclrtMemManagedAdvise(p, 64, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0),
			 ACL_ERROR_RT_PARAM_INVALID);
}

/* One int32_t attribute of [p, p + len). */
static int32_t range_attr(void *p, size_t len, aclrtMemManagedRangeAttribute attr)
{
	int32_t v = 0x5a5a5a5a;

	ACL_OK(aclrtMemManagedGetAttr(attr, p, len, &v, sizeof(v)));
	return v;
}

/* The ACCESSED_BY list of [p, p + len), three entries. */
static void assert_accessed_by(void *p, size_t len, int32_t a, int32_t b, int32_t c)
{
	int32_t ids[3] = { 7, 7, 7 };

	ACL_OK(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, len, ids,
				      sizeof(ids)));
	assert_int_equal(ids[0], a);
	assert_int_equal(ids[1], b);
	assert_int_equal(ids[2], c);
}

static void test_range_attributes_report_the_advice(void **state)
{
	uint8_t *p;
	aclrtStream s;
	aclrtMemManagedLocation dev0 = { ACL_MEM_LOCATIONTYPE_DEVICE, 0 };
	aclrtMemManagedLocation host = { ACL_MEM_LOCATIONTYPE_HOST, 0 };
	aclrtMemManagedLocation numa3 = { ACL_MEM_LOCATIONTYPE_HOST_NUMA, 3 };

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMemAllocManaged((void **)&p, 4 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	/* Nothing advised yet: no location (-2, INVALID), nobody accessing. */
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), -2);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
			 ACL_MEM_LOCATIONTYPE_INVALID);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID), -2);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
			 -2);
	assert_accessed_by(p, 4 * MIB, -2, -2, -2);

	/* Read-mostly holds for a range only if it holds for all of it. */
	ACL_OK(aclrtMemManagedAdvise(p, 2 * MIB, ACL_MEM_ADVISE_SET_READ_MOSTLY, dev0));
	assert_int_equal(range_attr(p, 2 * MIB, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 1);
	assert_int_equal(range_attr(p + MIB, 64, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 1);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
	assert_int_equal(range_attr(p + 2 * MIB, 64, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
	ACL_OK(aclrtMemManagedAdvise(p + 4096, 4096, ACL_MEM_ADVISE_UNSET_READ_MOSTLY, dev0));
	assert_int_equal(range_attr(p, 2 * MIB, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
	assert_int_equal(range_attr(p, 4096, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 1);
	assert_int_equal(range_attr(p + 8192, 4096, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 1);

	/* A preferred location, then a different one for the last MiB. */
	ACL_OK(aclrtMemManagedAdvise(p, 4 * MIB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, dev0));
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), 0);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
			 ACL_MEM_LOCATIONTYPE_DEVICE);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID), 0);
	ACL_OK(aclrtMemManagedAdvise(p + 3 * MIB, MIB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
				     host));
	/* The host is one location, whatever id it was named with. */
	host.id = 5;
	ACL_OK(aclrtMemManagedAdvise(p + 3 * MIB + MIB / 2, MIB / 2,
				     ACL_MEM_ADVISE_SET_PREFERRED_LOCATION, host));
	host.id = 0;
	assert_int_equal(range_attr(p + 3 * MIB, MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), -1);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), -2);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
			 ACL_MEM_LOCATIONTYPE_INVALID);
	assert_int_equal(range_attr(p + 3 * MIB, 64, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION),
			 -1);
	assert_int_equal(range_attr(p + 3 * MIB, 64,
				    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
			 ACL_MEM_LOCATIONTYPE_HOST);
	ACL_OK(aclrtMemManagedAdvise(p + 3 * MIB, MIB, ACL_MEM_ADVISE_SET_PREFERRED_LOCATION,
				     numa3));
	assert_int_equal(range_attr(p + 3 * MIB, MIB,
				    ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
			 ACL_MEM_LOCATIONTYPE_HOST_NUMA);
	assert_int_equal(range_attr(p + 3 * MIB, MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID),
			 3);
	ACL_OK(aclrtMemManagedAdvise(p, 4 * MIB, ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION, dev0));
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), -2);

	/* Accessed-by: the locations set for the whole range, ascending, then -2. */
	ACL_OK(aclrtMemManagedAdvise(p, 4 * MIB, ACL_MEM_ADVISE_SET_ACCESSED_BY, dev0));
	ACL_OK(aclrtMemManagedAdvise(p, MIB, ACL_MEM_ADVISE_SET_ACCESSED_BY, host));
	ACL_OK(aclrtMemManagedAdvise(p, MIB, ACL_MEM_ADVISE_SET_ACCESSED_BY, host));
	assert_accessed_by(p, MIB, -1, 0, -2);
	assert_accessed_by(p, 4 * MIB, 0, -2, -2);
	ACL_OK(aclrtMemManagedAdvise(p, 4 * MIB, ACL_MEM_ADVISE_UNSET_ACCESSED_BY, dev0));
	assert_accessed_by(p, 64, -1, -2, -2);
	assert_accessed_by(p + MIB, 64, -2, -2, -2);

	/* The last prefetch queued, whether or not it ran yet. */
	ACL_OK(aclrtMemManagedPrefetchAsync(p, 4 * MIB, dev0, 0, s));
	ACL_OK(aclrtMemManagedPrefetchAsync(p + 2 * MIB, 64, host, 0, s));
	assert_int_equal(range_attr(p, 64, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), 0);
	assert_int_equal(range_attr(p, 64, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE),
			 ACL_MEM_LOCATIONTYPE_DEVICE);
	assert_int_equal(range_attr(p + 2 * MIB, 64,
				    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
			 -1);
	assert_int_equal(range_attr(p + 2 * MIB, 64,
				    ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID),
			 -1);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
			 -2);
	ACL_OK(aclrtSynchronizeStream(s));

	/* The vector form reads several at once. */
	aclrtMemManagedRangeAttribute attrs[3] = { ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						   ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY,
						   ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE };
	int32_t rm = 9, ids[2] = { 9, 9 }, type = 9;
	void *data[3] = { &rm, ids, &type };
	size_t sizes[3] = { sizeof(rm), sizeof(ids), sizeof(type) };

	ACL_OK(aclrtMemManagedGetAttrs(attrs, 3, p, 64, data, sizes));
	assert_int_equal(rm, 1);
	assert_int_equal(ids[0], -1);
	assert_int_equal(ids[1], -2);
	assert_int_equal(type, ACL_MEM_LOCATIONTYPE_DEVICE);

	/* A new allocation starts with no advice, wherever it lands. */
	ACL_OK(aclrtFree(p));
	ACL_OK(aclrtMemAllocManaged((void **)&p, 4 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), 0);
	assert_accessed_by(p, 4 * MIB, -2, -2, -2);
	assert_int_equal(range_attr(p, 4 * MIB, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
			 -2);
	ACL_OK(aclrtFree(p));
	ACL_OK(aclrtDestroyStream(s));
}

static void test_range_attribute_rows(void **state)
{
	uint8_t *p;
	int32_t v = 0x11, ids[2] = { 0x11, 0x11 };

	(void)state;
	ACL_OK(aclrtMemAllocManaged((void **)&p, 2 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	assert_int_equal(aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)0, p, 64, &v,
						sizeof(v)),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMemManagedGetAttr: attribute 0 is not one of ACL_MEM_RANGE_ATTRIBUTE_");
	assert_int_equal(aclrtMemManagedGetAttr((aclrtMemManagedRangeAttribute)9, p, 64, &v,
						sizeof(v)),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, NULL, 64, &v,
						sizeof(v)),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("ptr is NULL");
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 0, &v,
						sizeof(v)),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 64, NULL,
						sizeof(v)),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("data is NULL");
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 64, ids,
						sizeof(ids)),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("data size 8 is not 4");
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, 64, ids, 6),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("not a non-zero multiple of 4");
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, p, 64, ids, 0),
			 ACL_ERROR_INVALID_PARAM);
	/* Ranges that are not (one allocation of) managed memory. */
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 2 * MIB + 1,
						&v, sizeof(v)),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_msg_has("not inside one aclrtMemAllocManaged allocation");
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, g_dev, 64, &v,
						sizeof(v)),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Nothing was written by a failed call. */
	assert_int_equal(v, 0x11);
	assert_int_equal(ids[0], 0x11);

	aclrtMemManagedRangeAttribute attrs[2] = { ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						   ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY };
	aclrtMemManagedRangeAttribute bad_attrs[2] = { ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
						       (aclrtMemManagedRangeAttribute)42 };
	void *data[2] = { &v, ids };
	void *null_data[2] = { &v, NULL };
	size_t sizes[2] = { sizeof(v), sizeof(ids) };
	size_t bad_sizes[2] = { sizeof(v), 3 };

	assert_int_equal(aclrtMemManagedGetAttrs(NULL, 2, p, 64, data, sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 0, p, 64, data, sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, NULL, 64, data, sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, p, 0, data, sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, p, 64, NULL, sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, p, 64, data, NULL),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedGetAttrs(bad_attrs, 2, p, 64, data, sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("attributes[1] 42 is not one of");
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, p, 64, null_data, sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("data[1] is NULL");
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, p, 64, data, bad_sizes),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("data[1] size 3");
	assert_int_equal(aclrtMemManagedGetAttrs(attrs, 2, g_dev, 64, data, sizes),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Checked before anything is written: the first buffer is untouched. */
	assert_int_equal(v, 0x11);
	ACL_OK(aclrtFree(p));
	assert_int_equal(aclrtMemManagedGetAttr(ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, p, 64, &v,
						sizeof(v)),
			 ACL_ERROR_RT_PARAM_INVALID);
}

static void *prefetch_without_context(void *arg)
{
	aclrtMemManagedLocation dev0 = { ACL_MEM_LOCATIONTYPE_DEVICE, 0 };

	*(aclError *)arg = aclrtMemManagedPrefetchAsync(*(void **)arg, 64, dev0, 0, NULL);
	return NULL;
}

static void test_prefetch(void **state)
{
	uint8_t *p;
	aclrtStream s, dead;
	aclrtMemManagedLocation dev0 = { ACL_MEM_LOCATIONTYPE_DEVICE, 0 };
	aclrtMemManagedLocation host = { ACL_MEM_LOCATIONTYPE_HOST, 0 };
	aclrtMemManagedLocation bad_type = { (aclrtMemManagedLocationType)9, 0 };
	union {
		void *p;
		aclError rc;
	} arg;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMemAllocManaged((void **)&p, 2 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	memset(p, 0x77, 2 * MIB);
	ACL_OK(aclrtMemManagedPrefetchAsync(p, 2 * MIB, dev0, 0, s));
	ACL_OK(aclrtMemManagedPrefetchAsync(p + 64, 64, host, 0, NULL));
	ACL_OK(aclrtSynchronizeStream(s));
	/* Nothing moved or changed. */
	assert_int_equal(rt_first_not(p, 2 * MIB, 0x77), 2 * MIB);
	assert_int_equal(aclrtMemManagedPrefetchAsync(NULL, 64, dev0, 0, s),
			 ACL_ERROR_INVALID_PARAM);
	assert_msg_has("aclrtMemManagedPrefetchAsync: ptr is NULL");
	assert_int_equal(aclrtMemManagedPrefetchAsync(p, 0, dev0, 0, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedPrefetchAsync(p, 64, dev0, 1, s), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedPrefetchAsync(p, 64, bad_type, 0, s),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtMemManagedPrefetchAsync(g_dev, 64, dev0, 0, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtCreateStream(&dead));
	ACL_OK(aclrtDestroyStream(dead));
	assert_int_equal(aclrtMemManagedPrefetchAsync(p, 64, dev0, 0, dead),
			 ACL_ERROR_RT_INVALID_HANDLE);
	arg.p = p;
	rt_run_in_thread(prefetch_without_context, &arg);
	assert_int_equal(arg.rc, ACL_ERROR_RT_CONTEXT_NULL);
	ACL_OK(aclrtFree(p));
	ACL_OK(aclrtDestroyStream(s));
}

static void test_prefetch_batch(void **state)
{
	uint8_t *a, *b;
	aclrtStream s;
	aclrtMemManagedLocation locs[2] = { { ACL_MEM_LOCATIONTYPE_DEVICE, 0 },
					    { ACL_MEM_LOCATIONTYPE_HOST, 0 } };
	aclrtMemManagedLocation bad_dev[1] = { { ACL_MEM_LOCATIONTYPE_DEVICE, 99 } };
	size_t idx[2] = { 0, 2 };
	size_t bad_start[1] = { 1 };
	size_t not_increasing[2] = { 0, 0 };
	size_t past_count[2] = { 0, 3 };

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMemAllocManaged((void **)&a, 2 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	ACL_OK(aclrtMemAllocManaged((void **)&b, 2 * MIB, ACL_RT_MEM_ATTACH_GLOBAL));
	memset(a, 0x21, 2 * MIB);
	const void *ptrs[3] = { a, b, a + MIB };
	size_t sizes[3] = { 2 * MIB, 4096, MIB };
	size_t zero_size[3] = { 2 * MIB, 0, MIB };
	const void *null_ptr[3] = { a, NULL, a };
	const void *unmanaged[3] = { a, g_dev, a };

	ACL_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 2, 0, s));
	/* Ranges 0 and 1 go to prefetchLocs[0], range 2 (from index 2 on) to [1]. */
	assert_int_equal(range_attr(a, MIB, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), 0);
	assert_int_equal(range_attr(b, 4096, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), 0);
	assert_int_equal(range_attr(a + MIB, MIB, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
			 -1);
	ACL_OK(aclrtMemManagedPrefetchBatchAsync(ptrs, sizes, 3, locs, idx, 1, 0, NULL));
	assert_int_equal(range_attr(a, 2 * MIB, ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION), 0);
	ACL_OK(aclrtSynchronizeStream(s));
	assert_int_equal(rt_first_not(a, 2 * MIB, 0x21), 2 * MIB);
	const struct {
		const void **ptrs;
		size_t *sizes;
		size_t count;
		aclrtMemManagedLocation *locs;
		size_t *idx;
		size_t n_locs;
		uint64_t flags;
		aclError want;
		const char *msg;
	} rows[] = {
		{ NULL, sizes, 3, locs, idx, 2, 0, ACL_ERROR_INVALID_PARAM, "ptrs is NULL" },
		{ ptrs, NULL, 3, locs, idx, 2, 0, ACL_ERROR_INVALID_PARAM, "sizes is NULL" },
		{ ptrs, sizes, 0, locs, idx, 2, 0, ACL_ERROR_INVALID_PARAM, "count is 0" },
		{ ptrs, sizes, 3, NULL, idx, 2, 0, ACL_ERROR_INVALID_PARAM, "prefetchLocs is NULL" },
		{ ptrs, sizes, 3, locs, NULL, 2, 0, ACL_ERROR_INVALID_PARAM,
		  "prefetchLocIdxs is NULL" },
		{ ptrs, sizes, 3, locs, idx, 0, 0, ACL_ERROR_INVALID_PARAM, "numPrefetchLocs 0" },
		{ ptrs, sizes, 1, locs, idx, 2, 0, ACL_ERROR_INVALID_PARAM, "numPrefetchLocs 2" },
		{ ptrs, sizes, 3, locs, idx, 2, 1, ACL_ERROR_INVALID_PARAM, "flags 0x1" },
		{ ptrs, sizes, 3, locs, bad_start, 1, 0, ACL_ERROR_INVALID_PARAM,
		  "prefetchLocIdxs[0] = 1" },
		{ ptrs, sizes, 3, locs, not_increasing, 2, 0, ACL_ERROR_INVALID_PARAM,
		  "prefetchLocIdxs[1] = 0" },
		{ ptrs, sizes, 3, locs, past_count, 2, 0, ACL_ERROR_INVALID_PARAM,
		  "prefetchLocIdxs[1] = 3" },
		{ ptrs, sizes, 3, bad_dev, idx, 1, 0, ACL_ERROR_RT_INVALID_DEVICEID,
		  "prefetchLocs[0].id 99" },
		{ null_ptr, sizes, 3, locs, idx, 2, 0, ACL_ERROR_INVALID_PARAM, "ptrs[1] is NULL" },
		{ ptrs, zero_size, 3, locs, idx, 2, 0, ACL_ERROR_INVALID_PARAM, "sizes[1] is 0" },
		{ unmanaged, sizes, 3, locs, idx, 2, 0, ACL_ERROR_RT_PARAM_INVALID,
		  "not inside one aclrtMemAllocManaged allocation" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclError rc = aclrtMemManagedPrefetchBatchAsync(rows[i].ptrs, rows[i].sizes,
								rows[i].count, rows[i].locs,
								rows[i].idx, rows[i].n_locs,
								rows[i].flags, s);

		if (rc != rows[i].want)
			fail_msg("row %zu (%s): %d, expected %d", i, rows[i].msg, rc, rows[i].want);
		assert_msg_has(rows[i].msg);
	}
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
	ACL_OK(aclrtDestroyStream(s));
}

/* Threads allocate, use and free managed memory at once: each keeps its own bytes. */
#define N_THREADS 4
#define N_ROUNDS 50

static void *churn(void *arg)
{
	uint8_t seed = (uint8_t)(uintptr_t)arg;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return (void *)1;
	for (int i = 0; i < N_ROUNDS; i++) {
		uint8_t *p = NULL;
		aclrtPtrAttributes a;

		if (aclrtMemAllocManaged((void **)&p, MIB + (size_t)i * 4096,
					 ACL_RT_MEM_ATTACH_GLOBAL) != ACL_SUCCESS)
			return (void *)2;
		if (aclrtMemset(p, 2 * MIB, seed, 2 * MIB) != ACL_SUCCESS)
			return (void *)3;
		if (rt_first_not(p, 2 * MIB, seed) != 2 * MIB)
			return (void *)4;
		if (aclrtPointerGetAttributes(p + MIB, &a) != ACL_SUCCESS ||
		    a.location.type != ACL_MEM_LOCATION_TYPE_MANAGED)
			return (void *)5;
		if (aclrtFree(p) != ACL_SUCCESS)
			return (void *)6;
	}
	return aclrtResetDevice(0) == ACL_SUCCESS ? NULL : (void *)7;
}

static void test_concurrent_allocations(void **state)
{
	pthread_t t[N_THREADS];
	void *rc;

	(void)state;
	for (uintptr_t i = 0; i < N_THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
	for (int i = 0; i < N_THREADS; i++) {
		assert_int_equal(pthread_join(t[i], &rc), 0);
		if (rc != NULL)
			fail_msg("thread %d failed at step %d", i, (int)(uintptr_t)rc);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_size_rounds_up_to_2mib),
		cmocka_unit_test(test_pointer_attributes_say_managed),
		cmocka_unit_test(test_location_id_is_the_current_device),
		cmocka_unit_test(test_host_and_device_share_bytes_sync),
		cmocka_unit_test(test_host_and_device_share_bytes_async),
		cmocka_unit_test(test_free_rows),
		cmocka_unit_test(test_free_returns_the_memory),
		cmocka_unit_test(test_alloc_rows),
		cmocka_unit_test(test_memset_d32_refuses_managed),
		cmocka_unit_test(test_advise),
		cmocka_unit_test(test_prefetch),
		cmocka_unit_test(test_prefetch_batch),
		cmocka_unit_test(test_range_attributes_report_the_advice),
		cmocka_unit_test(test_range_attribute_rows),
		cmocka_unit_test(test_concurrent_allocations),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
