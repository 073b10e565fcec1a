// SPDX-License-Identifier: MIT
/*
 * context_pipeline: two contexts on one device hand work to each other,
 * written the way a CANN application is, against acl/acl.h only.
 *
 *   a producer context (aclrtCreateContext) uploads a pinned host buffer on
 *   its stream between two timed events and records a notify behind it;
 *   a consumer context (a second aclrtCreateContext) makes its stream wait
 *   for the notify (aclrtWaitAndResetNotify), copies device to device and
 *   back to pinned host memory, and then runs a host function
 *   (aclrtLaunchHostFunc) on its stream that checks every byte: stream
 *   order guarantees the copies are done when it runs. The host blocks
 *   only at the end; aclrtEventElapsedTime gives the upload's device time.
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

struct verify {
	const uint8_t *expected, *actual;
	size_t size;
	size_t first_bad; /* written by the host function */
	int ran;
};

/* Runs on the runtime's host-function thread, in the consumer's stream
 * order. It only reads host memory: host functions must not call ACL APIs
 * that wait, allocate or queue work. */
static void verify_on_stream(void *arg)
{
	struct verify *v = arg;

	v->first_bad = v->size;
	for (size_t i = 0; i < v->size; i++) {
		if (v->expected[i] != v->actual[i]) {
			v->first_bad = i;
			break;
		}
	}
	v->ran = 1;
}

int main(int argc, char *argv[])
{
	size_t size = 16u << 20;
	int32_t deviceId = 0;
	int inited = 0, deviceSet = 0, result = 1;
	uint8_t *in = NULL, *out = NULL;
	void *src = NULL, *dst = NULL;
	aclrtContext producer = NULL, consumer = NULL;
	aclrtStream up = NULL, down = NULL;
	aclrtEvent start = NULL, end = NULL;
	aclrtNotify ready = NULL;
	struct verify v = { 0 };
	float ms = 0;

	if (argc > 1) {
		char *endp;

		size = strtoull(argv[1], &endp, 0);
		if (*endp != '\0' || size == 0) {
			ERROR_LOG("usage: %s [size in bytes, at least 1]", argv[0]);
			return 1;
		}
	}

	CHECK_ACL(aclInit(NULL));
	inited = 1;
	CHECK_ACL(aclrtSetDevice(deviceId));
	deviceSet = 1;
	INFO_LOG("device %d set", deviceId);

	/* Memory belongs to the device: both contexts use these buffers. */
	CHECK_ACL(aclrtMallocHost((void **)&in, size));
	CHECK_ACL(aclrtMallocHost((void **)&out, size));
	CHECK_ACL(aclrtMalloc(&src, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK_ACL(aclrtMalloc(&dst, size, ACL_MEM_MALLOC_HUGE_FIRST));
	for (size_t i = 0; i < size; i++)
		in[i] = (uint8_t)(i * 131 + (i >> 12) + 5);
	memset(out, 0, size);

	/* The producer: upload between two timed events, then the notify. */
	CHECK_ACL(aclrtCreateContext(&producer, deviceId)); /* now current */
	CHECK_ACL(aclrtCreateStream(&up));
	CHECK_ACL(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE));
	CHECK_ACL(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE));
	CHECK_ACL(aclrtCreateNotify(&ready, ACL_NOTIFY_DEFAULT));
	INFO_LOG("[producer] context %p, stream %p", producer, up);

	/* The consumer's work is queued first: it waits on the device. */
	CHECK_ACL(aclrtCreateContext(&consumer, deviceId));
	CHECK_ACL(aclrtCreateStream(&down));
	CHECK_ACL(aclrtWaitAndResetNotify(ready, down, 0));
	CHECK_ACL(aclrtMemcpyAsync(dst, size, src, size, ACL_MEMCPY_DEVICE_TO_DEVICE, down));
	CHECK_ACL(aclrtMemcpyAsync(out, size, dst, size, ACL_MEMCPY_DEVICE_TO_HOST, down));
	v = (struct verify){ in, out, size, 0, 0 };
	CHECK_ACL(aclrtLaunchHostFunc(down, verify_on_stream, &v));
	INFO_LOG("[consumer] context %p, stream %p: wait, D2D, D2H, verify queued", consumer,
		 down);

	CHECK_ACL(aclrtSetCurrentContext(producer));
	CHECK_ACL(aclrtRecordEvent(start, up));
	CHECK_ACL(aclrtMemcpyAsync(src, size, in, size, ACL_MEMCPY_HOST_TO_DEVICE, up));
	CHECK_ACL(aclrtRecordEvent(end, up));
	CHECK_ACL(aclrtRecordNotify(ready, up));
	INFO_LOG("[producer] upload of %zu bytes and the notify queued", size);

	CHECK_ACL(aclrtSetCurrentContext(consumer));
	CHECK_ACL(aclrtSynchronizeStream(down));
	CHECK(v.ran, "[verify] the host function did not run");
	CHECK(v.first_bad == size, "[verify] byte %zu differs: wrote 0x%02x, read 0x%02x",
	      v.first_bad, in[v.first_bad], out[v.first_bad]);
	INFO_LOG("[verify] the host function checked all %zu bytes on the stream", size);

	CHECK_ACL(aclrtSynchronizeEvent(end));
	CHECK_ACL(aclrtEventElapsedTime(&ms, start, end));
	CHECK(ms >= 0, "[timing] negative elapsed time %f ms", (double)ms);
	INFO_LOG("[timing] upload took %.3f ms of device time (%.2f GB/s)", (double)ms,
		 ms > 0 ? (double)size / ((double)ms * 1e6) : 0.0);

	result = 0;
out:
	if (ready && aclrtDestroyNotify(ready) != ACL_SUCCESS)
		result = 1;
	if (start && aclrtDestroyEvent(start) != ACL_SUCCESS)
		result = 1;
	if (end && aclrtDestroyEvent(end) != ACL_SUCCESS)
		result = 1;
	/* Destroying a context destroys its streams after their work. */
	if (consumer && aclrtDestroyContext(consumer) != ACL_SUCCESS)
		result = 1;
	if (producer && aclrtDestroyContext(producer) != ACL_SUCCESS)
		result = 1;
	if (deviceSet)
		aclrtSetDevice(deviceId); /* a current context for the frees */
	if (src && aclrtFree(src) != ACL_SUCCESS)
		result = 1;
	if (dst && aclrtFree(dst) != ACL_SUCCESS)
		result = 1;
	if (in && aclrtFreeHost(in) != ACL_SUCCESS)
		result = 1;
	if (out && aclrtFreeHost(out) != ACL_SUCCESS)
		result = 1;
	if (deviceSet && aclrtResetDeviceForce(deviceId) != ACL_SUCCESS) {
		ERROR_LOG("aclrtResetDeviceForce failed");
		result = 1;
	}
	if (inited && aclFinalize() != ACL_SUCCESS) {
		ERROR_LOG("aclFinalize failed");
		result = 1;
	}
	if (result == 0)
		INFO_LOG("context_pipeline: all steps passed");
	else
		ERROR_LOG("context_pipeline: FAILED");
	return result;
}
