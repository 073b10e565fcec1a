// SPDX-License-Identifier: MIT
/*
 * libascend_hal.so, CANN's driver memory API: every function's behaviour
 * (data read back, exact codes) and its refusals, with no acl call: the
 * library opens the devices it is asked for.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "driver/ascend_hal.h"
#include "rt_test.h"

#define MiB (1024UL * 1024UL)
#define DRV_OK(expr)                                                              \
	do {                                                                      \
		drvError_t drv_ok_rc_ = (expr);                                   \
		if (drv_ok_rc_ != DRV_ERROR_NONE) {                               \
			const char *m_ = aclGetRecentErrMsg();                    \
			fail_msg("%s = %d (%s)", #expr, (int)drv_ok_rc_, m_ ? m_ : "no message"); \
		}                                                                 \
	} while (0)

static void check_device_round_trip(void *dev, size_t n, uint32_t seed)
{
	unsigned char *src = malloc(n), *dst = calloc(1, n);
	struct memcpy_info h2d = { DRV_MEMCPY_HOST_TO_DEVICE, 0, { 0, 0 } };
	struct memcpy_info d2h = { DRV_MEMCPY_DEVICE_TO_HOST, 0, { 0, 0 } };

	assert_non_null(src);
	assert_non_null(dst);
	rt_fill_pattern(src, n, seed);
	DRV_OK(halMemcpy(dev, n, src, n, &h2d));
	DRV_OK(halMemcpy(dst, n, dev, n, &d2h));
	assert_memory_equal(dst, src, n);
	free(src);
	free(dst);
}

static void test_devices(void **state)
{
	uint32_t n = 0, phys = 99, logic = 99;
	int64_t v = -1;

	(void)state;
	DRV_OK(drvGetDevNum(&n));
	assert_true(n >= 1);
	assert_int_equal(drvGetDevNum(NULL), DRV_ERROR_INVALID_VALUE);
	DRV_OK(drvGetDevIDByLocalDevID(0, &phys));
	DRV_OK(drvGetLocalDevIDByHostDevID(phys, &logic));
	assert_int_equal(logic, 0);
	DRV_OK(drvGetPhyIdByIndex(0, &logic));
	assert_int_equal(logic, phys);
	DRV_OK(drvGetIndexByPhyId(phys, &logic));
	assert_int_equal(logic, 0);
	assert_int_equal(drvGetDevIDByLocalDevID(n + 64, &phys), DRV_ERROR_INVALID_DEVICE);
	assert_int_equal(drvGetLocalDevIDByHostDevID(0, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(drvGetPhyIdByIndex(0, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(drvGetIndexByPhyId(0, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(drvGetDevIDByLocalDevID(0, NULL), DRV_ERROR_INVALID_VALUE);

	DRV_OK(halGetDeviceInfo(0, MODULE_TYPE_SYSTEM, INFO_TYPE_PHY_CHIP_ID, &v));
	DRV_OK(drvGetDevIDByLocalDevID(0, &phys));
	assert_int_equal(v, phys);
	DRV_OK(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM, &v));
	assert_true(v > 0);
	DRV_OK(halGetDeviceInfo(0, MODULE_TYPE_SYSTEM, INFO_TYPE_SERVER_ID, &v));
	assert_int_equal(v, 0);
	assert_int_equal(halGetDeviceInfo(0, MODULE_TYPE_PCIE, INFO_TYPE_IP, &v),
			 DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halGetDeviceInfo(n, MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM, &v),
			 DRV_ERROR_INVALID_DEVICE);
	assert_int_equal(halGetDeviceInfo(0, MODULE_TYPE_AICORE, INFO_TYPE_CORE_NUM, NULL),
			 DRV_ERROR_INVALID_VALUE);
	assert_true(drvDeviceGetBareTgid() > 0);
}

static void test_alloc_and_copies(void **state)
{
	void *dev = NULL, *dev2 = NULL, *host = NULL;
	unsigned char buf[4096], back[4096];
	DVdeviceptr base = 0;
	size_t size = 0;

	(void)state;
	DRV_OK(halMemAlloc(&dev, 4 * MiB, MEM_DEV | MEM_PAGE_HUGE | 0));
	DRV_OK(halMemAlloc(&dev2, 4 * MiB, MEM_SVM_NORMAL | MEM_ADVISE_P2P));
	DRV_OK(halMemAlloc(&host, 64 * 1024, MEM_HOST));
	check_device_round_trip(dev, 4 * MiB, 1);

	DRV_OK(halMemGetAddressRange((uintptr_t)dev + 4096, &base, &size));
	assert_int_equal(base, (uintptr_t)dev);
	assert_true(size >= 4 * MiB);

	/* drvMemcpy finds the direction from the addresses. */
	rt_fill_pattern(buf, sizeof(buf), 2);
	DRV_OK(drvMemcpy((uintptr_t)dev2, 4 * MiB, (uintptr_t)buf, sizeof(buf)));
	DRV_OK(drvMemcpy((uintptr_t)dev, 4 * MiB, (uintptr_t)dev2, sizeof(buf)));
	DRV_OK(drvMemcpy((uintptr_t)host, 64 * 1024, (uintptr_t)dev, sizeof(buf)));
	assert_memory_equal(host, buf, sizeof(buf));
	DRV_OK(halMemcpy(back, sizeof(back), dev, sizeof(back), NULL));
	assert_memory_equal(back, buf, sizeof(buf));

	/* drvMemsetD8 */
	DRV_OK(drvMemsetD8((uintptr_t)dev, 4 * MiB, 0xa5, 1000));
	DRV_OK(drvMemcpy((uintptr_t)back, sizeof(back), (uintptr_t)dev, sizeof(back)));
	assert_int_equal(rt_first_not(back, 1000, 0xa5), 1000);
	assert_int_equal(back[1000], buf[1000]);

	/* halMemcpy2D: 8 rows of 100 bytes, pitches 128 (host) and 256 (device). */
	{
		unsigned char rows[8 * 128], out[8 * 128];
		struct MEMCPY2D c;

		rt_fill_pattern(rows, sizeof(rows), 3);
		memset(&c, 0, sizeof(c));
		c.type = DEVMM_MEMCPY2D_SYNC;
		c.copy2d.dst = dev;
		c.copy2d.dpitch = 256;
		c.copy2d.src = (unsigned long long *)rows;
		c.copy2d.spitch = 128;
		c.copy2d.width = 100;
		c.copy2d.height = 8;
		c.copy2d.direction = DRV_MEMCPY_HOST_TO_DEVICE;
		DRV_OK(halMemcpy2D(&c));
		assert_int_equal(c.copy2d.fixed_size, 800);
		memset(out, 0, sizeof(out));
		c.copy2d.dst = (unsigned long long *)out;
		c.copy2d.dpitch = 128;
		c.copy2d.src = dev;
		c.copy2d.spitch = 256;
		c.copy2d.direction = DRV_MEMCPY_DEVICE_TO_HOST;
		DRV_OK(halMemcpy2D(&c));
		for (int r = 0; r < 8; r++)
			assert_memory_equal(out + r * 128, rows + r * 128, 100);
		c.type = DEVMM_MEMCPY2D_ASYNC_CONVERT;
		assert_int_equal(halMemcpy2D(&c), DRV_ERROR_NOT_SUPPORT);
		c.type = DEVMM_MEMCPY2D_TYPE_MAX;
		assert_int_equal(halMemcpy2D(&c), DRV_ERROR_INVALID_VALUE);
		c.type = DEVMM_MEMCPY2D_SYNC;
		c.copy2d.direction = 7;
		assert_int_equal(halMemcpy2D(&c), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemcpy2D(NULL), DRV_ERROR_INVALID_VALUE);
	}

	/* halMemcpyBatch: two host-to-device pieces, read back. */
	{
		unsigned char a[512], b[300];
		uint64_t dst[2] = { (uintptr_t)dev2, (uintptr_t)dev2 + 1024 };
		uint64_t src[2] = { (uintptr_t)a, (uintptr_t)b };
		size_t sz[2] = { sizeof(a), sizeof(b) };

		rt_fill_pattern(a, sizeof(a), 4);
		rt_fill_pattern(b, sizeof(b), 5);
		DRV_OK(halMemcpyBatch(dst, src, sz, 2));
		DRV_OK(drvMemcpy((uintptr_t)back, sizeof(back), (uintptr_t)dev2, 2048));
		assert_memory_equal(back, a, sizeof(a));
		assert_memory_equal(back + 1024, b, sizeof(b));
		assert_int_equal(halMemcpyBatch(dst, src, sz, 0), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemcpyBatch(dst, src, sz, DEVMM_MEMCPY_BATCH_MAX_COUNT + 1),
				 DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemcpyBatch(NULL, src, sz, 2), DRV_ERROR_INVALID_VALUE);
		sz[1] = 0;
		assert_int_equal(halMemcpyBatch(dst, src, sz, 2), DRV_ERROR_INVALID_VALUE);
	}

	/* Refusals. */
	{
		struct memcpy_info bad = { DRV_MEMCPY_HOST_TO_DEVICE, 0, { 1, 0 } };

		assert_int_equal(halMemcpy(dev, 10, buf, 11, NULL), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemcpy(NULL, 10, buf, 10, NULL), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemcpy(dev, 10, buf, 10, &bad), DRV_ERROR_INVALID_VALUE);
		bad.reserve[0] = 0;
		bad.dir = (drvMemcpyKind_t)9;
		assert_int_equal(halMemcpy(dev, 10, buf, 10, &bad), DRV_ERROR_INVALID_VALUE);
		bad.dir = DRV_MEMCPY_HOST_TO_DEVICE;
		bad.devid = 4096;
		assert_int_equal(halMemcpy(dev, 10, buf, 10, &bad), DRV_ERROR_INVALID_DEVICE);
		assert_int_equal(drvMemcpy(0, 10, (uintptr_t)buf, 10), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(drvMemcpy((uintptr_t)dev, 10, (uintptr_t)buf, 11),
				 DRV_ERROR_INVALID_VALUE);
		assert_int_equal(drvMemsetD8((uintptr_t)dev, 10, 0, 11), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(drvMemsetD8(0, 10, 0, 1), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemGetAddressRange(0, &base, &size), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemcpySumbit((struct DMA_ADDR *)buf, 0), DRV_ERROR_NOT_SUPPORT);
		assert_int_equal(halMemcpyWait((struct DMA_ADDR *)buf), DRV_ERROR_NOT_SUPPORT);
		assert_int_equal(halMemcpySumbit(NULL, 0), DRV_ERROR_INVALID_VALUE);
		assert_int_equal(halMemcpyWait(NULL), DRV_ERROR_INVALID_VALUE);
	}
	assert_int_equal(halMemAlloc(NULL, MiB, MEM_DEV), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAlloc(&dev2, 0, MEM_DEV), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAlloc(&dev2, MiB, MEM_RESERVE), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halMemAlloc(&dev2, MiB, 9UL << MEM_VIRT_BIT), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAlloc(&dev2, MiB, MEM_DEV | MEM_READONLY), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halMemAlloc(&dev2, MiB, MEM_DEV | 1000), DRV_ERROR_INVALID_DEVICE);

	DRV_OK(halMemFree(dev));
	DRV_OK(halMemFree(host));
	assert_int_equal(halMemFree(NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_not_equal(halMemFree(buf), DRV_ERROR_NONE);
	assert_int_not_equal(halMemFree(dev), DRV_ERROR_NONE); /* twice */
	(void)aclGetRecentErrMsg();
	DRV_OK(halMemFree(dev2));
}

static void prop_of(struct drv_mem_prop *p, uint32_t side, uint32_t id, uint32_t pg,
		    uint32_t type)
{
	memset(p, 0, sizeof(*p));
	p->side = side;
	p->devid = id;
	p->pg_type = pg;
	p->mem_type = type;
}

static void test_vmm(void **state)
{
	struct drv_mem_prop prop, back;
	drv_mem_handle_t *hd = NULL, *hh = NULL, *hr = NULL;
	struct drv_mem_access_desc desc;
	struct drv_mem_location loc;
	uint64_t flags = 0;
	size_t g = 0;
	void *va = NULL;

	(void)state;
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_HUGE_PAGE_TYPE, MEM_HBM_TYPE);
	DRV_OK(halMemGetAllocationGranularity(&prop, MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	assert_int_equal(g, 2 * MiB);
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_GIANT_PAGE_TYPE, MEM_HBM_TYPE);
	DRV_OK(halMemGetAllocationGranularity(&prop, MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
	assert_int_equal(g, 1024 * MiB);
	prop_of(&prop, MEM_HOST_NUMA_SIDE, UINT32_MAX, MEM_HUGE_PAGE_TYPE, MEM_P2P_DDR_TYPE);
	DRV_OK(halMemGetAllocationGranularity(&prop, MEM_ALLOC_GRANULARITY_MINIMUM, &g));
	assert_int_equal(g, 2 * MiB);
	assert_int_equal(halMemGetAllocationGranularity(&prop, MEM_ALLOC_GRANULARITY_INVALID, &g),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemGetAllocationGranularity(NULL, MEM_ALLOC_GRANULARITY_MINIMUM, &g),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemGetAllocationGranularity(&prop, MEM_ALLOC_GRANULARITY_MINIMUM, NULL),
			 DRV_ERROR_INVALID_VALUE);

	/* One reservation: device memory in the first half, host memory in the second. */
	DRV_OK(halMemAddressReserve(&va, 4 * MiB, 0, NULL, MEM_HUGE_PAGE_TYPE));
	assert_non_null(va);
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_HUGE_PAGE_TYPE, MEM_HBM_TYPE);
	prop.reserve = 0x77;
	DRV_OK(halMemCreate(&hd, 2 * MiB, &prop, 0));
	prop_of(&prop, MEM_HOST_NUMA_SIDE, UINT32_MAX, MEM_HUGE_PAGE_TYPE, MEM_P2P_DDR_TYPE);
	DRV_OK(halMemCreate(&hh, 2 * MiB, &prop, 0));
	DRV_OK(halMemMap(va, 2 * MiB, 0, hd, 0));
	DRV_OK(halMemMap((char *)va + 2 * MiB, 2 * MiB, 0, hh, 0));
	memset(&desc, 0, sizeof(desc));
	desc.type = MEM_ACCESS_TYPE_READWRITE;
	desc.location.side = MEM_DEV_SIDE;
	desc.location.id = 0;
	DRV_OK(halMemSetAccess(va, 2 * MiB, &desc, 1));
	loc.side = MEM_DEV_SIDE;
	loc.id = 0;
	DRV_OK(halMemGetAccess(va, &loc, &flags));
	assert_int_equal(flags, MEM_ACCESS_TYPE_READWRITE);
	check_device_round_trip(va, 4 * MiB, 7);

	DRV_OK(halMemGetAllocationPropertiesFromHandle(&back, hd));
	assert_int_equal(back.side, MEM_DEV_SIDE);
	assert_int_equal(back.devid, 0);
	assert_int_equal(back.pg_type, MEM_HUGE_PAGE_TYPE);
	assert_int_equal(back.mem_type, MEM_HBM_TYPE);
	assert_int_equal(back.reserve, 0x77);
	DRV_OK(halMemRetainAllocationHandle(&hr, (char *)va + 2 * MiB + 4096));
	DRV_OK(halMemGetAllocationPropertiesFromHandle(&back, hr));
	assert_int_equal(back.side, MEM_HOST_SIDE);
	assert_int_equal(back.mem_type, MEM_P2P_DDR_TYPE);
	DRV_OK(halMemRelease(hr));

	/* Refusals. */
	desc.type = MEM_ACCESS_TYPE_READ;
	assert_int_equal(halMemSetAccess(va, 2 * MiB, &desc, 1), DRV_ERROR_NOT_SUPPORT);
	desc.type = (drv_mem_access_type)5;
	assert_int_equal(halMemSetAccess(va, 2 * MiB, &desc, 1), DRV_ERROR_INVALID_VALUE);
	desc.type = MEM_ACCESS_TYPE_READWRITE;
	desc.location.side = MEM_MAX_SIDE;
	assert_int_equal(halMemSetAccess(va, 2 * MiB, &desc, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemSetAccess(va, 2 * MiB, NULL, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemSetAccess(va, 2 * MiB, &desc, 0), DRV_ERROR_INVALID_VALUE);
	loc.side = MEM_MAX_SIDE;
	assert_int_equal(halMemGetAccess(va, &loc, &flags), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemGetAccess(va, NULL, &flags), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemMap(va, 2 * MiB, 0, hd, 0), DRV_ERROR_INVALID_VALUE); /* mapped */
	assert_int_equal(halMemMap(va, 2 * MiB, 4096, hd, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemMap(va, 2 * MiB, 0, hd, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemMap(NULL, 2 * MiB, 0, hd, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemMap(va, 0, 0, hd, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAddressFree(va), DRV_ERROR_INVALID_VALUE); /* still mapped */
	assert_int_equal(halMemUnmap(NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemRetainAllocationHandle(NULL, va), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemGetAllocationPropertiesFromHandle(NULL, hd), DRV_ERROR_INVALID_VALUE);
	(void)aclGetRecentErrMsg();

	DRV_OK(halMemUnmap(va));
	DRV_OK(halMemUnmap((char *)va + 2 * MiB));
	assert_int_equal(halMemUnmap(va), DRV_ERROR_INVALID_VALUE);
	DRV_OK(halMemRelease(hd));
	DRV_OK(halMemRelease(hh));
	assert_int_equal(halMemRelease(hd), DRV_ERROR_INVALID_HANDLE);
	assert_int_equal(halMemRelease(NULL), DRV_ERROR_INVALID_VALUE);
	DRV_OK(halMemAddressFree(va));
	assert_int_equal(halMemAddressFree(va), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAddressFree(NULL), DRV_ERROR_INVALID_VALUE);
	(void)aclGetRecentErrMsg();

	assert_int_equal(halMemAddressReserve(NULL, MiB, 0, NULL, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAddressReserve(&va, 0, 0, NULL, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAddressReserve(&va, MiB, 3, NULL, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemAddressReserve(&va, MiB, 0, NULL, 1UL << 20),
			 DRV_ERROR_INVALID_VALUE);
	/* An alignment above the reservation's own is honoured. */
	DRV_OK(halMemAddressReserve(&va, 2 * MiB, 1UL << 30, NULL, 0));
	assert_int_equal((uintptr_t)va % (1UL << 30), 0);
	DRV_OK(halMemAddressFree(va));
	DRV_OK(halMemAddressReserve(&va, 2 * MiB, 4 * MiB, NULL, 0));
	assert_int_equal((uintptr_t)va % (4 * MiB), 0);
	DRV_OK(halMemAddressFree(va));
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_HUGE_PAGE_TYPE, MEM_HBM_TYPE);
	assert_int_equal(halMemCreate(NULL, 2 * MiB, &prop, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemCreate(&hd, 0, &prop, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemCreate(&hd, 2 * MiB, NULL, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemCreate(&hd, 2 * MiB, &prop, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemCreate(&hd, MiB, &prop, 0), DRV_ERROR_INVALID_VALUE);
	prop.side = MEM_MAX_SIDE;
	assert_int_equal(halMemCreate(&hd, 2 * MiB, &prop, 0), DRV_ERROR_INVALID_VALUE);
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_MAX_PAGE_TYPE, MEM_HBM_TYPE);
	assert_int_equal(halMemCreate(&hd, 2 * MiB, &prop, 0), DRV_ERROR_INVALID_VALUE);
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_HUGE_PAGE_TYPE, MEM_TS_DDR_TYPE);
	assert_int_equal(halMemCreate(&hd, 2 * MiB, &prop, 0), DRV_ERROR_NOT_SUPPORT);
	prop_of(&prop, MEM_HOST_NUMA_SIDE, 4096, MEM_HUGE_PAGE_TYPE, MEM_DDR_TYPE);
	assert_int_equal(halMemCreate(&hd, 2 * MiB, &prop, 0), DRV_ERROR_INVALID_VALUE);
	(void)aclGetRecentErrMsg();
}

/* Reservations far beyond one device's memory cost nothing until mapped. */
static void test_large_window(void **state)
{
	const size_t TiB = 1024UL * 1024 * MiB;
	struct drv_mem_prop prop;
	drv_mem_handle_t *h = NULL;
	void *va = NULL, *fixed = NULL;
	uint32_t n = 0;

	(void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* Their shadow memory takes the range: the devices get 1 TiB anywhere. */
	skip();
#endif
	DRV_OK(drvGetDevNum(&n));
	if (n > 2) /* less than 34 TiB each */
		skip();
	DRV_OK(halMemAddressReserve(&va, 32 * TiB, 0, NULL, 0));
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_HUGE_PAGE_TYPE, MEM_HBM_TYPE);
	DRV_OK(halMemCreate(&h, 2 * MiB, &prop, 0));
	DRV_OK(halMemMap((char *)va + 20 * TiB, 2 * MiB, 0, h, 0));
	check_device_round_trip((char *)va + 20 * TiB, 2 * MiB, 9);
	DRV_OK(halMemUnmap((char *)va + 20 * TiB));
	DRV_OK(halMemRelease(h));
	DRV_OK(halMemAddressFree(va));
	/* At a fixed address of the layout: 40 TiB, as a transfer library's window asks for. */
	DRV_OK(halMemAddressReserve(&fixed, 2 * TiB, 0, (void *)(40 * TiB), 0));
	assert_ptr_equal(fixed, (void *)(40 * TiB));
	DRV_OK(halMemAddressFree(fixed));
}

/*
 * A fixed address in another open device's window, from a thread on device
 * 1: the reservation is that device's, and device 1's memory maps there.
 */
static void test_fixed_address_any_device(void **state)
{
	struct drv_mem_prop prop;
	drv_mem_handle_t *h = NULL;
	uint32_t n = 0;
	void *d0 = NULL, *fixed = NULL;

	(void)state;
	DRV_OK(drvGetDevNum(&n));
	if (n < 2)
		skip();
	DRV_OK(halMemAlloc(&d0, 2 * MiB, MEM_DEV | 0)); /* device 0 is open */
	ACL_OK(aclrtSetDevice(1));
	/* 64 MiB past device 0's allocation: in its window, free. */
	DRV_OK(halMemAddressReserve(&fixed, 4 * MiB, 0, (char *)d0 + 64 * MiB, 0));
	assert_ptr_equal(fixed, (char *)d0 + 64 * MiB);
	prop_of(&prop, MEM_DEV_SIDE, 1, MEM_HUGE_PAGE_TYPE, MEM_HBM_TYPE);
	DRV_OK(halMemCreate(&h, 2 * MiB, &prop, 0));
	DRV_OK(halMemMap(fixed, 2 * MiB, 0, h, 0));
	check_device_round_trip(fixed, 2 * MiB, 13);
	DRV_OK(halMemUnmap(fixed));
	DRV_OK(halMemRelease(h));
	DRV_OK(halMemAddressFree(fixed));
	ACL_OK(aclrtResetDevice(1));
	DRV_OK(halMemFree(d0));
}

static void test_shareable_handles(void **state)
{
	struct drv_mem_prop prop;
	drv_mem_handle_t *h1 = NULL, *h2 = NULL, *imp = NULL;
	struct MemShareHandle sh, bad;
	struct ShareHandleAttr attr;
	struct ShareHandleGetInfo info;
	uint64_t s1 = 0, s2 = 0;
	uint32_t server = 99, phys = 0;
	int me = getpid();

	(void)state;
	prop_of(&prop, MEM_DEV_SIDE, 0, MEM_HUGE_PAGE_TYPE, MEM_HBM_TYPE);
	DRV_OK(halMemCreate(&h1, 2 * MiB, &prop, 0));
	DRV_OK(halMemCreate(&h2, 2 * MiB, &prop, 0));

	/* V1: a whitelist, which SetAttribute cannot drop. */
	DRV_OK(halMemExportToShareableHandle(h1, MEM_HANDLE_TYPE_NONE, 0, &s1));
	assert_int_not_equal(s1, 0);
	memset(&attr, 0, sizeof(attr));
	DRV_OK(halMemShareHandleGetAttribute(s1, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, &attr));
	assert_int_equal(attr.enableFlag, SHR_HANDLE_WLIST_ENABLE);
	attr.enableFlag = SHR_HANDLE_NO_WLIST_ENABLE;
	assert_int_equal(halMemShareHandleSetAttribute(s1, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, attr),
			 DRV_ERROR_NOT_SUPPORT);
	DRV_OK(halMemSetPidToShareableHandle(s1, &me, 1));
	assert_int_equal(halMemShareHandleSetAttribute(s1, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, attr),
			 DRV_ERROR_OPER_NOT_PERMITTED);
	assert_int_equal(halMemExportToShareableHandle(h1, MEM_HANDLE_TYPE_NONE, 0, &s1),
			 DRV_ERROR_INVALID_VALUE); /* exported already */
	(void)aclGetRecentErrMsg();

	/* V2: no whitelist. */
	DRV_OK(halMemExportToShareableHandleV2(h2, MEM_HANDLE_TYPE_FABRIC, 0, &sh));
	DRV_OK(halMemTransShareableHandle(MEM_HANDLE_TYPE_FABRIC, &sh, &server, &s2));
	assert_int_equal(server, 0);
	assert_int_not_equal(s2, 0);
	DRV_OK(halMemShareHandleSetAttribute(s2, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, attr));
	DRV_OK(halMemShareHandleGetAttribute(s2, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, &attr));
	assert_int_equal(attr.enableFlag, SHR_HANDLE_NO_WLIST_ENABLE);
	assert_int_equal(halMemSetPidToShareableHandle(s2, &me, 1), DRV_ERROR_OPER_NOT_PERMITTED);
	DRV_OK(halMemShareHandleInfoGet(s2, &info));
	DRV_OK(drvGetDevIDByLocalDevID(0, &phys));
	assert_int_equal(info.phyDevid, phys);

	/* Refusals. */
	assert_int_equal(halMemTransShareableHandle(MEM_HANDLE_TYPE_NONE, &sh, &server, &s2),
			 DRV_ERROR_INVALID_VALUE); /* exported as FABRIC */
	memset(&bad, 0x5a, sizeof(bad));
	assert_int_equal(halMemTransShareableHandle(MEM_HANDLE_TYPE_FABRIC, &bad, &server, &s2),
			 DRV_ERROR_INVALID_HANDLE);
	assert_int_equal(halMemImportFromShareableHandleV2(MEM_HANDLE_TYPE_FABRIC, &bad, 0, &imp),
			 DRV_ERROR_INVALID_HANDLE);
	assert_int_equal(halMemImportFromShareableHandleV2(MEM_HANDLE_TYPE_MAX, &sh, 0, &imp),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemImportFromShareableHandleV2(MEM_HANDLE_TYPE_FABRIC, NULL, 0, &imp),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemImportFromShareableHandleV2(MEM_HANDLE_TYPE_FABRIC, &sh, 0, NULL),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemImportFromShareableHandle(s1, 0, NULL), DRV_ERROR_INVALID_VALUE);
	/* An exporter cannot import its own handle. */
	assert_int_not_equal(halMemImportFromShareableHandle(s1, 0, &imp), DRV_ERROR_NONE);
	assert_int_equal(halMemImportFromShareableHandle(s1, 4096, &imp), DRV_ERROR_INVALID_DEVICE);
	assert_int_equal(halMemTransShareableHandle(MEM_HANDLE_TYPE_FABRIC, &sh, NULL, &s2),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemExportToShareableHandleV2(h1, MEM_HANDLE_TYPE_POSIX, 0, &sh),
			 DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halMemExportToShareableHandleV2(h1, MEM_HANDLE_TYPE_MAX, 0, &sh),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemExportToShareableHandleV2(h1, MEM_HANDLE_TYPE_NONE, 1, &sh),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemExportToShareableHandleV2(NULL, MEM_HANDLE_TYPE_NONE, 0, &sh),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemExportToShareableHandle(h1, MEM_HANDLE_TYPE_FABRIC, 0, &s1),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemExportToShareableHandle(h1, MEM_HANDLE_TYPE_NONE, 1, &s1),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemSetPidToShareableHandle(s1, NULL, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemSetPidToShareableHandle(s1, &me, 0), DRV_ERROR_INVALID_VALUE);
	attr.enableFlag = SHR_HANDLE_WLIST_ENABLE;
	assert_int_equal(halMemShareHandleSetAttribute(s2, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, attr),
			 DRV_ERROR_NOT_SUPPORT);
	attr.enableFlag = 7;
	assert_int_equal(halMemShareHandleSetAttribute(s2, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, attr),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemShareHandleSetAttribute(s2, SHR_HANDLE_ATTR_TYPE_MAX, attr),
			 DRV_ERROR_INVALID_VALUE);
	attr.enableFlag = SHR_HANDLE_NO_WLIST_ENABLE;
	assert_int_equal(halMemShareHandleSetAttribute(12345, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, attr),
			 DRV_ERROR_OPER_NOT_PERMITTED);
	assert_int_equal(halMemShareHandleGetAttribute(s2, SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER, NULL),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemShareHandleInfoGet(s2, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemShareHandleInfoGet(12345, &info), DRV_ERROR_NOT_SUPPORT);
	(void)aclGetRecentErrMsg();

	DRV_OK(halMemRelease(h1));
	DRV_OK(halMemRelease(h2));
}

static void test_shmem(void **state)
{
	void *dev = NULL;
	char name[65] = { 0 };
	int me = getpid();
	DVdeviceptr p = 0;
	uint64_t a = 0;
	struct ShmemGetInfo info;

	(void)state;
	DRV_OK(halMemAlloc(&dev, 2 * MiB, MEM_DEV));
	DRV_OK(halShmemCreateHandle((uintptr_t)dev, 2 * MiB, name, sizeof(name)));
	assert_true(strlen(name) > 0);
	DRV_OK(halShmemSetPidHandle(name, &me, 1));
	assert_int_equal(halShmemSetAttribute(name, SHMEM_ATTR_TYPE_NO_WLIST_IN_SERVER,
					      SHMEM_NO_WLIST_ENABLE),
			 DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halShmemSetAttribute(name, SHMEM_ATTR_TYPE_NO_WLIST_IN_SERVER, 5),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemSetAttribute(name, SHMEM_ATTR_TYPE_MEM_MAP, 9),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemSetAttribute(name, SHMEM_ATTR_TYPE_MAX, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemGetAttribute(name, SHMEM_ATTR_TYPE_MEM_MAP, &a),
			 DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halShmemGetAttribute(name, SHMEM_ATTR_TYPE_MEM_MAP, NULL),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemInfoGet(name, &info), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halShmemInfoGet(name, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemSetPodPid(name, 0, &me, 1), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halShmemSetPodPid(name, 0, NULL, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemSetPidHandle(name, NULL, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemSetPidHandle(name, &me, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemSetPidHandle(NULL, &me, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemSetPidHandle("", &me, 1), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemOpenHandle(name, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemOpenHandleByDevId(0, NULL, &p), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemOpenHandleByDevId(4096, name, &p), DRV_ERROR_INVALID_DEVICE);
	assert_int_equal(halShmemOpenHandle("no-such-name", &p), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemCloseHandle((uintptr_t)dev), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemCloseHandle(0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemCreateHandle(0, 2 * MiB, name, sizeof(name)),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halShmemCreateHandle((uintptr_t)dev, 0, name, sizeof(name)),
			 DRV_ERROR_INVALID_VALUE);
	(void)aclGetRecentErrMsg();
	DRV_OK(halShmemDestroyHandle(name));
	assert_int_not_equal(halShmemDestroyHandle(name), DRV_ERROR_NONE);
	assert_int_equal(halShmemDestroyHandle(NULL), DRV_ERROR_INVALID_VALUE);
	(void)aclGetRecentErrMsg();
	DRV_OK(halMemFree(dev));
}

static void test_host_register(void **state)
{
	const size_t n = 2 * MiB;
	unsigned char *host = aligned_alloc(4096, n), *out = malloc(4096);
	void *mapped = NULL, *dev = NULL;

	(void)state;
	assert_non_null(host);
	assert_non_null(out);
	rt_fill_pattern(host, n, 11);
	DRV_OK(halHostRegister(host, n, HOST_MEM_MAP_DEV, 0, &mapped));
	assert_non_null(mapped);
	/* The device reads the host memory through the mapped address. */
	DRV_OK(halMemAlloc(&dev, n, MEM_DEV));
	DRV_OK(drvMemcpy((uintptr_t)dev, n, (uintptr_t)mapped, n));
	DRV_OK(drvMemcpy((uintptr_t)out, 4096, (uintptr_t)dev + 8192, 4096));
	assert_memory_equal(out, host + 8192, 4096);
	assert_int_not_equal(halHostRegister(host, n, HOST_MEM_MAP_DEV, 0, &mapped),
			     DRV_ERROR_NONE); /* twice */
	(void)aclGetRecentErrMsg();
	DRV_OK(halHostUnregister(host, 0));
	assert_int_not_equal(halHostUnregister(host, 0), DRV_ERROR_NONE);
	(void)aclGetRecentErrMsg();
	DRV_OK(halHostRegister(host, n, HOST_MEM_MAP_DEV_V2, 0, &mapped));
	DRV_OK(halHostUnregisterEx(host, 0, HOST_MEM_MAP_DEV_V2));

	assert_int_equal(halHostRegister(host, n, DEV_SVM_MAP_HOST, 0, &mapped),
			 DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halHostRegister(host, n, HOST_REGISTER_MAX_TPYE, 0, &mapped),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halHostRegister(host, n, 1U << 20, 0, &mapped), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halHostRegister(NULL, n, HOST_MEM_MAP_DEV, 0, &mapped),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halHostRegister(host, 0, HOST_MEM_MAP_DEV, 0, &mapped),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halHostRegister(host, n, HOST_MEM_MAP_DEV, 0, NULL),
			 DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halHostRegister(host, n, HOST_MEM_MAP_DEV, 4096, &mapped),
			 DRV_ERROR_INVALID_DEVICE);
	assert_int_equal(halHostUnregister(NULL, 0), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halHostUnregisterEx(host, 0, DEV_MEM_MAP_HOST), DRV_ERROR_NOT_SUPPORT);
	DRV_OK(halMemFree(dev));
	free(host);
	free(out);
}

static void test_mem_info(void **state)
{
	struct MemInfo info;
	void *dev = NULL;
	DVdeviceptr a[2];
	DVdeviceptr *addrs[2] = { &a[0], &a[1] };
	int local = 0;

	(void)state;
	memset(&info, 0, sizeof(info));
	DRV_OK(halMemGetInfo(0, MEM_INFO_TYPE_HBM_SIZE, &info));
	assert_true(info.phy_info.total > 0);
	assert_true(info.phy_info.free <= info.phy_info.total);
	DRV_OK(halMemGetInfoEx(0, MEM_INFO_TYPE_HBM_P2P_SIZE, &info));
	assert_true(info.phy_info.total > 0);

	DRV_OK(halMemAlloc(&dev, 2 * MiB, MEM_DEV));
	a[0] = (uintptr_t)dev;
	a[1] = (uintptr_t)dev + 4096;
	memset(&info, 0, sizeof(info));
	info.addr_info.addr = addrs;
	info.addr_info.cnt = 2;
	info.addr_info.mem_type = MEM_SVM_TYPE | MEM_DEV_TYPE;
	DRV_OK(halMemGetInfo(0, MEM_INFO_TYPE_ADDR_CHECK, &info));
	assert_int_equal(info.addr_info.flag, 1);
	a[1] = (uintptr_t)&local;
	DRV_OK(halMemGetInfo(0, MEM_INFO_TYPE_ADDR_CHECK, &info));
	assert_int_equal(info.addr_info.flag, 0);
	info.addr_info.cnt = 0;
	assert_int_equal(halMemGetInfo(0, MEM_INFO_TYPE_ADDR_CHECK, &info), DRV_ERROR_INVALID_VALUE);
	DRV_OK(halMemFree(dev));

	assert_int_equal(halMemGetInfo(0, MEM_INFO_TYPE_SVM_GRP_INFO, &info), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halMemGetInfo(0, 0, &info), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemGetInfo(0, MEM_INFO_TYPE_MAX, &info), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemGetInfo(0, MEM_INFO_TYPE_HBM_SIZE, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halMemGetInfo(4096, MEM_INFO_TYPE_HBM_SIZE, &info),
			 DRV_ERROR_INVALID_DEVICE);
	(void)aclGetRecentErrMsg();
}

static void test_unsupported(void **state)
{
	struct halSqCqQueryInfo q;
	char any[256];

	(void)state;
	memset(&q, 0, sizeof(q));
	assert_int_equal(halSqCqQuery(0, &q), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halSqCqQuery(0, NULL), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halSqCqAllocate(0, (void *)any, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halSqCqAllocate(0, NULL, (void *)any), DRV_ERROR_INVALID_VALUE);
	assert_int_equal(halSqCqFree(0, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halSqCqConfig(0, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halSqTaskSend(0, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halCqReportRecv(0, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halResourceIdAlloc(0, (void *)any, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halResourceIdFree(0, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halResourceConfig(0, (void *)any, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(halResourceIdRestore((void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(drvNotifyIdAddrOffset(0, (void *)any), DRV_ERROR_NOT_SUPPORT);
	assert_int_equal(drvNotifyIdAddrOffset(0, NULL), DRV_ERROR_INVALID_VALUE);
}

/* The loaders of the clients find every name they ask for, by the library's name. */
/* A refusal of the library itself leaves its reason for aclGetRecentErrMsg. */
static void assert_refusal_explained(drvError_t got, drvError_t want, const char *api,
				     const char *reason)
{
	const char *m = aclGetRecentErrMsg();

	assert_int_equal(got, want);
	assert_non_null(m);
	if (!strstr(m, api) || !strstr(m, reason))
		fail_msg("message \"%s\" names neither %s nor \"%s\"", m, api, reason);
	/* Taking the message cleared it. */
	assert_null(aclGetRecentErrMsg());
}

static void test_refusals_explained(void **state)
{
	char name[] = "";
	void *p = NULL;

	(void)state;
	(void)aclGetRecentErrMsg();
	assert_refusal_explained(drvGetDevNum(NULL), DRV_ERROR_INVALID_VALUE, "drvGetDevNum",
				 "num_dev is NULL");
	assert_refusal_explained(halMemAlloc(&p, 0, 0), DRV_ERROR_INVALID_VALUE, "halMemAlloc",
				 "size is 0");
	assert_null(p);
	assert_refusal_explained(halMemcpy2D(NULL), DRV_ERROR_INVALID_VALUE, "halMemcpy2D",
				 "p_copy is NULL");
	assert_refusal_explained(halShmemCreateHandle(0, 4096, name, sizeof(name)),
				 DRV_ERROR_INVALID_VALUE,
				 "halShmemCreateHandle", "vptr is 0");
	assert_refusal_explained(halMemCreate(NULL, 2 * MiB, NULL, 0), DRV_ERROR_INVALID_VALUE,
				 "halMemCreate", "handle is NULL");
}

static void test_loader_names(void **state)
{
	static const char *const names[] = {
		/* a symmetric-heap library's loader */
		"halMemAddressReserve", "halMemAddressFree", "halMemCreate", "halMemRelease",
		"halMemMap", "halMemUnmap", "halMemExportToShareableHandleV2",
		"halMemImportFromShareableHandleV2", "halMemShareHandleSetAttribute",
		"halMemTransShareableHandle", "halMemGetAllocationGranularity",
		/* a memory-fabric library's loader, besides those */
		"drvNotifyIdAddrOffset", "halCqReportRecv", "halHostRegister", "halHostUnregisterEx",
		"halMemSetAccess", "halResourceConfig", "halResourceIdAlloc", "halResourceIdFree",
		"halSqCqAllocate", "halSqCqFree", "halSqCqQuery", "halSqTaskSend",
		/* a transfer library's */
		"halHostUnregister", "halSqCqConfig", "halResourceIdRestore",
		"drvGetLocalDevIDByHostDevID",
	};
	void *lib = dlopen("libascend_hal.so", RTLD_NOW);

	(void)state;
	assert_non_null(lib);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (dlsym(lib, names[i]) == NULL)
			fail_msg("libascend_hal.so does not export %s", names[i]);
	}
	dlclose(lib);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_alloc_and_copies),
		cmocka_unit_test(test_vmm),
		cmocka_unit_test(test_large_window),
		cmocka_unit_test(test_fixed_address_any_device),
		cmocka_unit_test(test_shareable_handles),
		cmocka_unit_test(test_shmem),
		cmocka_unit_test(test_host_register),
		cmocka_unit_test(test_mem_info),
		cmocka_unit_test(test_unsupported),
		cmocka_unit_test(test_refusals_explained),
		cmocka_unit_test(test_loader_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
