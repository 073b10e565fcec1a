// SPDX-License-Identifier: MIT
/*
 * async_copy: asynchronous copies on streams with pinned host memory,
 * written the way a CANN application is, against acl/acl.h only.
 *
 *   allocate a pinned host buffer (aclrtMallocHost) and fill it, queue an
 *   H2D copy on stream 1 and record an event behind it, make stream 2 wait
 *   for the event, queue a D2D and a D2H copy (into a second pinned
 *   buffer) on stream 2, wait for the event and for stream 2, verify every
 *   byte, then release everything.
 *
 * Nothing is waited for between the queued copies: the event orders the
 * two streams on the device, and the host blocks only at the end.
 *
 * usage: main [size in bytes]   (default 16 MiB)
 * Exits 0 when every step passed, 1 otherwise.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "sample_log.h"

static void fill_pattern(uint8_t *buf, size_t size)
{
	for (size_t i = 0; i < size; i++)
		buf[i] = (uint8_t)(i * 167 + (i >> 11) + 3);
}

/* Index of the first byte that differs, or size when the buffers agree. */
static size_t first_mismatch(const uint8_t *a, const uint8_t *b, size_t size)
{
	for (size_t i = 0; i < size; i++)
		if (a[i] != b[i])
			return i;
	return size;
}

int main(int argc, char *argv[])
{
	size_t size = 16u << 20;
	int32_t deviceId = 0;
	int inited = 0, deviceSet = 0, result = 1;
	void *hostSrc = NULL, *hostDst = NULL, *devA = NULL, *devB = NULL;
	aclrtStream stream1 = NULL, stream2 = NULL;
	aclrtEvent h2dDone = NULL;
	aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	size_t bad;

	if (argc > 1) {
		char *end;

		size = strtoull(argv[1], &end, 0);
		if (*end != '\0' || size == 0) {
			ERROR_LOG("usage: %s [size in bytes, at least 1]", argv[0]);
			return 1;
		}
	}

	CHECK_ACL(aclInit(NULL));
	inited = 1;
	INFO_LOG("acl init success");
	CHECK_ACL(aclrtSetDevice(deviceId));
	deviceSet = 1;
	INFO_LOG("set device %d success", deviceId);

	/* Pinned host memory: the device copies it directly, asynchronously. */
	CHECK_ACL(aclrtMallocHost(&hostSrc, size));
	CHECK_ACL(aclrtMallocHost(&hostDst, size));
	INFO_LOG("[pinned] two host buffers of %zu bytes: %p, %p", size, hostSrc, hostDst);
	fill_pattern(hostSrc, size);
	memset(hostDst, 0, size);

	CHECK_ACL(aclrtMalloc(&devA, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK_ACL(aclrtMalloc(&devB, size, ACL_MEM_MALLOC_HUGE_FIRST));
	INFO_LOG("[allocate] two device buffers of %zu bytes: %p, %p", size, devA, devB);

	CHECK_ACL(aclrtCreateStream(&stream1));
	CHECK_ACL(aclrtCreateStream(&stream2));
	CHECK_ACL(aclrtCreateEvent(&h2dDone));
	INFO_LOG("[stream] created two streams and an event");

	/* Stream 1: H2D from pinned memory, then the event. */
	CHECK_ACL(aclrtMemcpyAsync(devA, size, hostSrc, size, ACL_MEMCPY_HOST_TO_DEVICE,
				   stream1));
	CHECK_ACL(aclrtRecordEvent(h2dDone, stream1));
	INFO_LOG("[H2D] queued %zu bytes host -> device on stream 1, event recorded", size);

	/* Stream 2: waits for the event on the device, then D2D and D2H. */
	CHECK_ACL(aclrtStreamWaitEvent(stream2, h2dDone));
	CHECK_ACL(aclrtMemcpyAsync(devB, size, devA, size, ACL_MEMCPY_DEVICE_TO_DEVICE,
				   stream2));
	CHECK_ACL(aclrtMemcpyAsync(hostDst, size, devB, size, ACL_MEMCPY_DEVICE_TO_HOST,
				   stream2));
	INFO_LOG("[D2D, D2H] queued on stream 2 behind the event");

	/* The host waits: first for the event, then for all of stream 2. */
	CHECK_ACL(aclrtSynchronizeEvent(h2dDone));
	CHECK_ACL(aclrtQueryEventStatus(h2dDone, &status));
	CHECK(status == ACL_EVENT_RECORDED_STATUS_COMPLETE,
	      "[event] status %d after aclrtSynchronizeEvent, expected complete", (int)status);
	INFO_LOG("[event] the H2D copy has completed");
	CHECK_ACL(aclrtSynchronizeStream(stream2));
	INFO_LOG("[sync] stream 2 has completed");

	bad = first_mismatch(hostSrc, hostDst, size);
	CHECK(bad == size, "[verify] byte %zu differs: wrote 0x%02x, read 0x%02x", bad,
	      ((uint8_t *)hostSrc)[bad], ((uint8_t *)hostDst)[bad]);
	INFO_LOG("[verify] all %zu bytes read back match", size);

	/* The source may change once the stream is done with it: copy again. */
	memset(hostSrc, 0x5A, size);
	CHECK_ACL(aclrtMemcpyAsync(devA, size, hostSrc, size, ACL_MEMCPY_HOST_TO_DEVICE,
				   stream1));
	CHECK_ACL(aclrtMemcpyAsync(hostDst, size, devA, size, ACL_MEMCPY_DEVICE_TO_HOST,
				   stream1));
	CHECK_ACL(aclrtSynchronizeStream(stream1));
	bad = first_mismatch(hostSrc, hostDst, size);
	CHECK(bad == size, "[verify] second round: byte %zu is 0x%02x, expected 0x5a", bad,
	      ((uint8_t *)hostDst)[bad]);
	INFO_LOG("[verify] second round on stream 1: all %zu bytes match", size);

	result = 0;
out:
	if (h2dDone && aclrtDestroyEvent(h2dDone) != ACL_SUCCESS)
		result = 1;
	if (stream2 && aclrtDestroyStream(stream2) != ACL_SUCCESS)
		result = 1;
	if (stream1 && aclrtDestroyStream(stream1) != ACL_SUCCESS)
		result = 1;
	if (devA && aclrtFree(devA) != ACL_SUCCESS)
		result = 1;
	if (devB && aclrtFree(devB) != ACL_SUCCESS)
		result = 1;
	if (hostSrc && aclrtFreeHost(hostSrc) != ACL_SUCCESS)
		result = 1;
	if (hostDst && aclrtFreeHost(hostDst) != ACL_SUCCESS)
		result = 1;
	if (deviceSet && aclrtResetDevice(deviceId) != ACL_SUCCESS) {
		ERROR_LOG("aclrtResetDevice failed");
		result = 1;
	}
	if (inited && aclFinalize() != ACL_SUCCESS) {
		ERROR_LOG("aclFinalize failed");
		result = 1;
	}
	if (result == 0)
		INFO_LOG("async_copy: all steps passed");
	else
		ERROR_LOG("async_copy: FAILED");
	return result;
}
