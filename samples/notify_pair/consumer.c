// SPDX-License-Identifier: MIT
/*
 * notify_pair, consumer: waits on the device for the producer's data.
 *
 *   imports the producer's device memory (aclrtIpcMemImportByKey), makes a
 *   notify and exports it (aclrtNotifyGetExportKey), queues on its stream
 *   a wait for the notify (aclrtWaitAndResetNotify), a copy of the imported
 *   memory into pinned host memory and a host function that checks it
 *   (aclrtLaunchHostFunc), then records an IPC event behind them
 *   (aclrtCreateEventExWithFlag(ACL_EVENT_IPC)) and hands the notify key and
 *   the event handle to the producer. Nothing runs until the producer
 *   records the notify; the producer learns the consumer is done from the
 *   event.
 *
 * usage: consumer RENDEZVOUS_DIR     (run.sh starts both processes)
 */
#include "rendezvous.h"

#define PAIR_BYTES (4u << 20)

struct check {
	const unsigned char *data;
	int ok;
};

/* Host function: runs on the runtime's thread in stream order, after the
 * copy; reads host memory only. */
static void check_data(void *arg)
{
	struct check *c = arg;

	c->ok = 1;
	for (size_t i = 0; i < PAIR_BYTES; i++) {
		if (c->data[i] != (unsigned char)(i * 13 + 1)) {
			c->ok = 0;
			break;
		}
	}
}

int main(int argc, char **argv)
{
	char mem_key[65], notify_key[65], done;
	void *shared = NULL;
	unsigned char *host = NULL;
	aclrtStream s = NULL;
	aclrtNotify ready = NULL;
	aclrtEvent consumed = NULL;
	aclrtIpcEventHandle handle;
	struct check c = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: %s RENDEZVOUS_DIR\n", argv[0]);
		return 2;
	}
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateStream(&s));
	get_file(argv[1], "mem.key", mem_key, sizeof(mem_key));
	CHECK(aclrtIpcMemImportByKey(&shared, mem_key, 0));
	CHECK(aclrtMallocHost((void **)&host, PAIR_BYTES));
	memset(host, 0, PAIR_BYTES);

	CHECK(aclrtCreateNotify(&ready, ACL_NOTIFY_DEFAULT));
	CHECK(aclrtNotifyGetExportKey(ready, notify_key, sizeof(notify_key),
				      ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	CHECK(aclrtCreateEventExWithFlag(&consumed, ACL_EVENT_IPC));
	CHECK(aclrtIpcGetEventHandle(consumed, &handle));

	/* All of it waits on the device for the producer's record. */
	CHECK(aclrtWaitAndResetNotify(ready, s, 0));
	CHECK(aclrtMemcpyAsync(host, PAIR_BYTES, shared, PAIR_BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s));
	c.data = host;
	CHECK(aclrtLaunchHostFunc(s, check_data, &c));
	CHECK(aclrtRecordEvent(consumed, s));
	printf("[INFO]  consumer: wait, copy, check and event queued; handing over\n");
	put_file(argv[1], "notify.key", notify_key, sizeof(notify_key));
	put_file(argv[1], "event.handle", &handle, sizeof(handle));

	CHECK(aclrtSynchronizeStream(s));
	if (!c.ok) {
		fprintf(stderr, "[ERROR] consumer: the data read back differs\n");
		return 1;
	}
	printf("[INFO]  consumer: the host function checked %u bytes\n", PAIR_BYTES);
	/* The producer keeps the memory until it has seen the event. */
	get_file(argv[1], "producer.done", &done, 1);
	CHECK(aclrtDestroyEvent(consumed));
	CHECK(aclrtDestroyNotify(ready));
	CHECK(aclrtIpcMemClose(mem_key)); /* the import */
	CHECK(aclrtFreeHost(host));
	CHECK(aclrtDestroyStream(s));
	CHECK(aclrtResetDeviceForce(0));
	CHECK(aclFinalize());
	printf("[INFO]  consumer: done\n");
	return 0;
}
