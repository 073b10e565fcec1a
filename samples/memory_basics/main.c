// SPDX-License-Identifier: MIT
/*
 * memory_basics: the basic device-memory scenarios of the ACL runtime API,
 * written the way a CANN application is, against acl/acl.h only.
 *
 *   allocate device memory, copy host -> device, device -> device and
 *   device -> host, verify the data, memset device memory and read it back,
 *   print the memory info, free everything and shut down.
 *
 * usage: main [size in bytes]   (default 16 MiB)
 * Exits 0 when every scenario passed, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "sample_log.h"

#define MIB (1024.0 * 1024.0)

static void fill_pattern(uint8_t *buf, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 12) + 7);
}

/* Index of the first byte that differs, or size when the buffers agree. */
static size_t first_mismatch(const uint8_t *a, const uint8_t *b, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if (a[i] != b[i])
			return i;
	return size;
}

/* Index of the first byte in [from, to) that is not value, or to. */
static size_t first_not(const uint8_t *buf, size_t from, size_t to, uint8_t value)
{
	for (size_t i = from; i < to; i++)
		if (buf[i] != value)
			return i;
	return to;
}

static int print_mem_info(const char *when, size_t *freeOut)
{
	size_t freeMem = 0, totalMem = 0;
	aclError ret = aclrtGetMemInfo(ACL_HBM_MEM, &freeMem, &totalMem);

	if (ret != ACL_SUCCESS) {
		const char *msg = aclGetRecentErrMsg();

		ERROR_LOG("aclrtGetMemInfo failed, error code %d: %s", (int)ret,
			  msg ? msg : "(no message)");
		return -1;
	}
	INFO_LOG("[memory info] %s: HBM free %zu bytes (%.1f MiB) of %zu bytes (%.1f MiB)",
		 when, freeMem, freeMem / MIB, totalMem, totalMem / MIB);
	if (totalMem == 0 || freeMem > totalMem) {
		ERROR_LOG("implausible memory info: free %zu, total %zu", freeMem, totalMem);
		return -1;
	}
	*freeOut = freeMem;
	return 0;
}

int main(int argc, char *argv[])
{
	size_t size = 16u << 20;
	int32_t deviceId = 0;
	int inited = 0, deviceSet = 0, result = 1;
	void *devA = NULL, *devB = NULL;
	uint8_t *hostSrc = NULL, *hostDst = NULL;
	size_t freeBefore = 0, freeAfter = 0, bad;

	if (argc > 1) {
		char *end;

		size = strtoull(argv[1], &end, 0);
		if (*end != '\0' || size < 4) {
			ERROR_LOG("usage: %s [size in bytes, at least 4]", argv[0]);
			return 1;
		}
	}

	CHECK_ACL(aclInit(NULL));
	inited = 1;
	INFO_LOG("acl init success");
	CHECK_ACL(aclrtSetDevice(deviceId));
	deviceSet = 1;
	INFO_LOG("set device %d success", deviceId);

	if (print_mem_info("before allocation", &freeBefore))
		goto out;

	/* Scenario: allocate device memory. */
	CHECK_ACL(aclrtMalloc(&devA, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK_ACL(aclrtMalloc(&devB, size, ACL_MEM_MALLOC_HUGE_FIRST));
	INFO_LOG("[allocate] two device buffers of %zu bytes: %p, %p", size, devA, devB);
	CHECK(devA != devB, "aclrtMalloc returned the same address twice");

	if (print_mem_info("after allocation", &freeAfter))
		goto out;
	CHECK(freeBefore - freeAfter >= 2 * size,
	      "free HBM dropped by %zu bytes, expected at least %zu",
	      freeBefore - freeAfter, 2 * size);

	hostSrc = malloc(size);
	hostDst = malloc(size);
	CHECK(hostSrc && hostDst, "out of host memory");
	fill_pattern(hostSrc, size);
	memset(hostDst, 0, size);

	/* Scenario: H2D, D2D, D2H. */
	CHECK_ACL(aclrtMemcpy(devA, size, hostSrc, size, ACL_MEMCPY_HOST_TO_DEVICE));
	INFO_LOG("[H2D] copied %zu bytes host -> device", size);
	CHECK_ACL(aclrtMemcpy(devB, size, devA, size, ACL_MEMCPY_DEVICE_TO_DEVICE));
	INFO_LOG("[D2D] copied %zu bytes device -> device", size);
	CHECK_ACL(aclrtMemcpy(hostDst, size, devB, size, ACL_MEMCPY_DEVICE_TO_HOST));
	INFO_LOG("[D2H] copied %zu bytes device -> host", size);

	/* Scenario: verify the data made the round trip. */
	bad = first_mismatch(hostSrc, hostDst, size);
	CHECK(bad == size, "[verify] byte %zu differs: wrote 0x%02x, read 0x%02x",
	      bad, hostSrc[bad], hostDst[bad]);
	INFO_LOG("[verify] all %zu bytes read back match", size);

	/*
	 * Scenario: memset. Fill devB with one value, then its middle half with
	 * another, and check that each byte holds the value last written there.
	 */
	CHECK_ACL(aclrtMemset(devB, size, 0xA5, size));
	CHECK_ACL(aclrtMemset((uint8_t *)devB + size / 4, size - size / 4, 0x3C, size / 2));
	CHECK_ACL(aclrtMemcpy(hostDst, size, devB, size, ACL_MEMCPY_DEVICE_TO_HOST));
	bad = first_not(hostDst, 0, size / 4, 0xA5);
	CHECK(bad == size / 4, "[memset] byte %zu is 0x%02x, expected 0xa5", bad, hostDst[bad]);
	bad = first_not(hostDst, size / 4, size / 4 + size / 2, 0x3C);
	CHECK(bad == size / 4 + size / 2, "[memset] byte %zu is 0x%02x, expected 0x3c",
	      bad, hostDst[bad]);
	bad = first_not(hostDst, size / 4 + size / 2, size, 0xA5);
	CHECK(bad == size, "[memset] byte %zu is 0x%02x, expected 0xa5", bad, hostDst[bad]);
	INFO_LOG("[memset] filled %zu bytes with 0xa5 and %zu bytes with 0x3c, read back ok",
		 size, size / 2);

	/* devA still holds the pattern: memset on devB must not have touched it. */
	CHECK_ACL(aclrtMemcpy(hostDst, size, devA, size, ACL_MEMCPY_DEVICE_TO_HOST));
	bad = first_mismatch(hostSrc, hostDst, size);
	CHECK(bad == size, "[verify] first buffer changed at byte %zu", bad);

	CHECK_ACL(aclrtFree(devA));
	devA = NULL;
	CHECK_ACL(aclrtFree(devB));
	devB = NULL;
	INFO_LOG("[free] device buffers freed");
	if (print_mem_info("after free", &freeAfter))
		goto out;
	CHECK(freeAfter == freeBefore, "free HBM is %zu bytes after free, was %zu before",
	      freeAfter, freeBefore);

	result = 0;
out:
	if (devA)
		(void)aclrtFree(devA);
	if (devB)
		(void)aclrtFree(devB);
	free(hostSrc);
	free(hostDst);
	if (deviceSet && aclrtResetDevice(deviceId) != ACL_SUCCESS) {
		ERROR_LOG("aclrtResetDevice failed");
		result = 1;
	}
	if (inited && aclFinalize() != ACL_SUCCESS) {
		ERROR_LOG("aclFinalize failed");
		result = 1;
	}
	if (result == 0)
		INFO_LOG("memory_basics: all scenarios passed");
	else
		ERROR_LOG("memory_basics: FAILED");
	return result;
}
