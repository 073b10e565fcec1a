// SPDX-License-Identifier: MIT
/*
 * notify_pair, producer: fills device memory that a consumer process reads.
 *
 *   works in a context of its own (aclrtCreateContext), exports a device
 *   buffer (aclrtIpcMemGetExportKey), imports the consumer's notify
 *   (aclrtNotifyImportByKey) and opens its IPC event
 *   (aclrtIpcOpenEventHandle); then uploads a pattern into the buffer
 *   between two timed events and records the notify behind the upload, which
 *   releases the consumer's stream. It waits for the consumer's event before
 *   it frees the buffer, and reports the upload's device time
 *   (aclrtEventElapsedTime).
 *
 * usage: producer RENDEZVOUS_DIR     (run.sh starts both processes)
 */
#include "rendezvous.h"

#define PAIR_BYTES (4u << 20)

int main(int argc, char **argv)
{
	char mem_key[65], notify_key[65];
	void *buf = NULL;
	unsigned char *host = NULL;
	aclrtContext ctx = NULL;
	aclrtStream s = NULL;
	aclrtNotify ready = NULL;
	aclrtEvent consumed = NULL, start = NULL, end = NULL;
	aclrtIpcEventHandle handle;
	float ms = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: %s RENDEZVOUS_DIR\n", argv[0]);
		return 2;
	}
	CHECK(aclInit(NULL));
	CHECK(aclrtCreateContext(&ctx, 0)); /* brings device 0 up, and is current */
	CHECK(aclrtCreateStream(&s));
	CHECK(aclrtMalloc(&buf, PAIR_BYTES, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtIpcMemGetExportKey(buf, PAIR_BYTES, mem_key, sizeof(mem_key),
				      ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	put_file(argv[1], "mem.key", mem_key, sizeof(mem_key));

	get_file(argv[1], "notify.key", notify_key, sizeof(notify_key));
	get_file(argv[1], "event.handle", &handle, sizeof(handle));
	CHECK(aclrtNotifyImportByKey(&ready, notify_key, 0));
	CHECK(aclrtIpcOpenEventHandle(handle, &consumed));

	CHECK(aclrtMallocHost((void **)&host, PAIR_BYTES));
	for (size_t i = 0; i < PAIR_BYTES; i++)
		host[i] = (unsigned char)(i * 13 + 1);
	CHECK(aclrtCreateEventWithFlag(&start, ACL_EVENT_TIME_LINE));
	CHECK(aclrtCreateEventWithFlag(&end, ACL_EVENT_TIME_LINE));
	CHECK(aclrtRecordEvent(start, s));
	CHECK(aclrtMemcpyAsync(buf, PAIR_BYTES, host, PAIR_BYTES, ACL_MEMCPY_HOST_TO_DEVICE, s));
	CHECK(aclrtRecordEvent(end, s));
	CHECK(aclrtRecordNotify(ready, s)); /* releases the consumer's stream */
	printf("[INFO]  producer: upload and notify queued\n");

	CHECK(aclrtSynchronizeEvent(end));
	CHECK(aclrtEventElapsedTime(&ms, start, end));
	printf("[INFO]  producer: the upload took %.3f ms of device time\n", (double)ms);
	CHECK(aclrtSynchronizeEvent(consumed)); /* the consumer has read it */
	printf("[INFO]  producer: the consumer's event completed\n");
	put_file(argv[1], "producer.done", "d", 1);

	CHECK(aclrtDestroyEvent(consumed));
	CHECK(aclrtDestroyNotify(ready));
	CHECK(aclrtDestroyEvent(start));
	CHECK(aclrtDestroyEvent(end));
	CHECK(aclrtIpcMemClose(mem_key)); /* the export */
	CHECK(aclrtFree(buf));
	CHECK(aclrtFreeHost(host));
	CHECK(aclrtDestroyStream(s));
	CHECK(aclrtDestroyContext(ctx));
	CHECK(aclFinalize());
	printf("[INFO]  producer: done\n");
	return 0;
}
