// SPDX-License-Identifier: MIT
/*
 * IPC events (aclrtIpcGetEventHandle, aclrtIpcOpenEventHandle) and IPC
 * notifies (aclrtNotifyGetExportKey, aclrtNotifySetImportPid,
 * aclrtNotifyImportByKey): opened in the same process on every backend,
 * and in a child process on the shared devices (FUSE, CUSE, the module;
 * the in-process device belongs to one process). The child is this
 * program again (exec), so it starts with a fresh runtime.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"

enum { kSize = 4 << 20 };

static const char *g_self;

static int shared_device(void)
{
	const char *backend = getenv("NPU_DEVICE");

	return !(backend && !strcmp(backend, "inproc"));
}

static void expect_status(aclrtStream s, aclrtStreamStatus want)
{
	aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;

	ACL_OK(aclrtStreamQuery(s, &st));
	assert_int_equal(st, want);
}

/* An opened event orders another stream after the exporter's record. */
static void test_event_opened_in_the_same_process(void **state)
{
	aclrtEvent ev = NULL, opened = NULL;
	aclrtIpcEventHandle h, h2;
	aclrtStream s1 = NULL, s2 = NULL;
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;
	void *a = NULL, *b = NULL;
	static uint8_t out[kSize];

	(void)state;
	ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
	ACL_OK(aclrtIpcGetEventHandle(ev, &h));
	ACL_OK(aclrtIpcGetEventHandle(ev, &h2));
	assert_memory_equal(&h, &h2, sizeof(h)); /* one export per event */
	ACL_OK(aclrtIpcOpenEventHandle(h, &opened));
	/* Never recorded: complete, and a wait on it waits for nothing. */
	ACL_OK(aclrtQueryEventStatus(opened, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

	ACL_OK(aclrtCreateStream(&s1));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtMalloc(&a, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, kSize, ACL_MEM_MALLOC_HUGE_FIRST));
	for (int i = 0; i < 8; i++)
		ACL_OK(aclrtMemsetAsync(a, kSize, 0x60 + i, kSize, s1));
	ACL_OK(aclrtRecordEvent(ev, s1));
	ACL_OK(aclrtStreamWaitEvent(s2, opened));
	ACL_OK(aclrtMemcpyAsync(b, kSize, a, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
	ACL_OK(aclrtSynchronizeStream(s2));
	ACL_OK(aclrtMemcpy(out, kSize, b, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(out, kSize, 0x67), kSize);
	ACL_OK(aclrtSynchronizeEvent(opened));
	ACL_OK(aclrtQueryEventStatus(opened, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);

	/* The opener records it too, and the exporter's handle sees that
	 * record: a stream waiting on ev runs after the work before it. */
	for (int i = 0; i < 8; i++)
		ACL_OK(aclrtMemsetAsync(b, kSize, 0x70 + i, kSize, s2));
	ACL_OK(aclrtRecordEvent(opened, s2));
	ACL_OK(aclrtStreamWaitEvent(s1, ev));
	ACL_OK(aclrtMemcpyAsync(a, kSize, b, kSize, ACL_MEMCPY_DEVICE_TO_DEVICE, s1));
	ACL_OK(aclrtSynchronizeStream(s1));
	ACL_OK(aclrtMemcpy(out, kSize, a, kSize, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(rt_first_not(out, kSize, 0x77), kSize);
	ACL_OK(aclrtSynchronizeEvent(ev));
	ACL_OK(aclrtQueryEventStatus(ev, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	/* Then the exporter records again after it: the epochs keep rising. */
	ACL_OK(aclrtRecordEvent(ev, s1));
	ACL_OK(aclrtSynchronizeEvent(opened));
	ACL_OK(aclrtQueryEventStatus(opened, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	/* An opened event is not exported again. */
	assert_int_equal(aclrtIpcGetEventHandle(opened, &h2), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDestroyEvent(opened));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtDestroyStream(s2));
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
}

/*
 * Destroying an exported event whose record is still queued returns at
 * once, even when the record waits behind something that may never come
 * (here a notify wait): the exported words stay mapped for the record and
 * for importers, and the stream runs on when released.
 */
static void test_destroy_exported_event_with_a_queued_record(void **state)
{
	aclrtEvent ev = NULL, opened = NULL;
	aclrtNotify gate = NULL;
	aclrtIpcEventHandle h;
	aclrtStream s = NULL;
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateNotify(&gate, 0));
	ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
	ACL_OK(aclrtIpcGetEventHandle(ev, &h));
	ACL_OK(aclrtIpcOpenEventHandle(h, &opened));
	ACL_OK(aclrtWaitAndResetNotify(gate, s, 0));
	ACL_OK(aclrtRecordEvent(ev, s));
	ACL_OK(aclrtDestroyEvent(ev)); /* would block until the gate opens */
	ACL_OK(aclrtQueryEventStatus(opened, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_NOT_READY);
	ACL_OK(aclrtRecordNotify(gate, NULL));
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtSynchronizeEvent(opened));
	ACL_OK(aclrtQueryEventStatus(opened, &st));
	assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	ACL_OK(aclrtDestroyEvent(opened));
	ACL_OK(aclrtDestroyNotify(gate));
	ACL_OK(aclrtDestroyStream(s));
}

/* An imported notify is the exporter's: a record through either releases
 * a wait through the other. */
static void test_notify_imported_in_the_same_process(void **state)
{
	aclrtNotify n = NULL, m = NULL;
	aclrtStream s1 = NULL, s2 = NULL;
	char key[65], again[65];

	(void)state;
	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof(key),
				       ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	assert_int_equal(strlen(key), 64);
	ACL_OK(aclrtNotifyGetExportKey(n, again, sizeof(again), 0));
	assert_string_equal(key, again);
	ACL_OK(aclrtNotifyImportByKey(&m, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
	ACL_OK(aclrtCreateStream(&s1));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtWaitAndResetNotify(n, s2, 0));
	usleep(20 * 1000);
	expect_status(s2, ACL_STREAM_STATUS_NOT_READY);
	ACL_OK(aclrtRecordNotify(m, s1));
	ACL_OK(aclrtSynchronizeStream(s2));
	/* And the other way round. */
	ACL_OK(aclrtWaitAndResetNotify(m, s2, 0));
	ACL_OK(aclrtRecordNotify(n, s1));
	ACL_OK(aclrtSynchronizeStream(s2));
	ACL_OK(aclrtDestroyNotify(m));
	ACL_OK(aclrtDestroyNotify(n));
	/* The key died with its exporter. */
	assert_int_equal(aclrtNotifyImportByKey(&m, key, 0), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDestroyStream(s1));
	ACL_OK(aclrtDestroyStream(s2));
}

/* Child: import the notify, record it, exit 0. Tries the import first
 * (expected to fail while it is not whitelisted) when probe is set, then
 * tells the parent so on fd (a socket) and waits for its go byte. */
static int child_notify(const char *key, int fd, int probe)
{
	aclrtNotify n = NULL;
	aclrtStream s = NULL;
	char go;

	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return 10;
	if (probe && aclrtNotifyImportByKey(&n, key, 0) == ACL_SUCCESS)
		return 11; /* not whitelisted yet: must fail */
	if (write(fd, "p", 1) != 1)
		return 17;
	if (read(fd, &go, 1) != 1)
		return 12;
	if (aclrtNotifyImportByKey(&n, key, 0) != ACL_SUCCESS) {
		fprintf(stderr, "import: %s\n", aclGetRecentErrMsg());
		return 13;
	}
	if (aclrtCreateStream(&s) != ACL_SUCCESS || aclrtRecordNotify(n, s) != ACL_SUCCESS ||
	    aclrtSynchronizeStream(s) != ACL_SUCCESS)
		return 14;
	if (aclrtDestroyStream(s) != ACL_SUCCESS || aclrtDestroyNotify(n) != ACL_SUCCESS)
		return 15;
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : 16;
}

/* Child: open the event, see it pending, tell the parent, wait for it. */
static int child_event(const char *key, int fd)
{
	aclrtIpcEventHandle h;
	aclrtEvent ev = NULL;
	aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_COMPLETE;

	memset(&h, 0, sizeof(h));
	memcpy(h.reserved, key, strlen(key));
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return 20;
	if (aclrtIpcOpenEventHandle(h, &ev) != ACL_SUCCESS) {
		fprintf(stderr, "open: %s\n", aclGetRecentErrMsg());
		return 21;
	}
	if (aclrtQueryEventStatus(ev, &st) != ACL_SUCCESS ||
	    st != ACL_EVENT_RECORDED_STATUS_NOT_READY)
		return 22; /* the parent's record is held back */
	if (write(fd, "r", 1) != 1)
		return 23;
	if (aclrtSynchronizeEventWithTimeout(ev, 30000) != ACL_SUCCESS)
		return 24;
	if (aclrtQueryEventStatus(ev, &st) != ACL_SUCCESS ||
	    st != ACL_EVENT_RECORDED_STATUS_COMPLETE)
		return 25;
	/* The process that opened the event records it too. */
	{
		aclrtStream s = NULL;

		if (aclrtCreateStream(&s) != ACL_SUCCESS)
			return 28;
		if (aclrtRecordEvent(ev, s) != ACL_SUCCESS) {
			fprintf(stderr, "record: %s\n", aclGetRecentErrMsg());
			return 29;
		}
		if (aclrtSynchronizeEventWithTimeout(ev, 30000) != ACL_SUCCESS ||
		    aclrtDestroyStream(s) != ACL_SUCCESS)
			return 30;
	}
	if (aclrtDestroyEvent(ev) != ACL_SUCCESS)
		return 26;
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : 27;
}

static pid_t spawn(const char *mode, const char *key, int fd)
{
	char fdtext[16];
	pid_t pid;

	snprintf(fdtext, sizeof(fdtext), "%d", fd);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execl(g_self, g_self, mode, key, fdtext, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int reap(pid_t pid)
{
	int status = 0;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_notify_between_processes(void **state)
{
	aclrtNotify n = NULL;
	aclrtStream s = NULL;
	char key[65], probed;
	int sv[2];

	(void)state;
	if (!shared_device())
		skip();
	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof(key), ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtWaitAndResetNotify(n, s, 0));
	/* The child tries its import before the whitelist, however long it
	 * takes to start (a loaded VM guest takes seconds), then says so. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid_t pid = spawn("--child-notify", key, sv[1]);
	close(sv[1]);
	assert_int_equal(read(sv[0], &probed, 1), 1);
	expect_status(s, ACL_STREAM_STATUS_NOT_READY);
	int32_t tgid = (int32_t)pid;
	ACL_OK(aclrtNotifySetImportPid(n, &tgid, 1));
	assert_int_equal(write(sv[0], "g", 1), 1);
	close(sv[0]);
	assert_int_equal(reap(pid), 0);
	ACL_OK(aclrtSynchronizeStream(s)); /* released by the child's record */
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyNotify(n));
}

static void test_event_between_processes(void **state)
{
	aclrtEvent ev = NULL;
	aclrtIpcEventHandle h;
	aclrtStream s = NULL, s2 = NULL;
	void *gate = NULL;
	char key[65], ready;
	int fds[2];

	(void)state;
	if (!shared_device())
		skip();
	ACL_OK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
	ACL_OK(aclrtIpcGetEventHandle(ev, &h));
	memcpy(key, h.reserved, 64);
	key[64] = '\0';
	assert_int_equal(strlen(key), 64);
	/* The record waits behind a device word only this process writes. */
	ACL_OK(aclrtMalloc(&gate, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemset(gate, 4096, 0, 4096));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtCreateStream(&s2));
	ACL_OK(aclrtValueWait(gate, 1, ACL_STREAM_WAIT_VALUE_GEQ, s));
	ACL_OK(aclrtRecordEvent(ev, s));
	assert_int_equal(pipe(fds), 0);
	pid_t pid = spawn("--child-event", key, fds[1]);
	close(fds[1]);
	assert_int_equal(read(fds[0], &ready, 1), 1);
	close(fds[0]);
	ACL_OK(aclrtValueWrite(gate, 1, 0, s2));
	assert_int_equal(reap(pid), 0);
	ACL_OK(aclrtSynchronizeStream(s));
	/* The child's record executed: the exporter's handle sees it complete. */
	{
		aclrtEventRecordedStatus st = ACL_EVENT_RECORDED_STATUS_NOT_READY;

		ACL_OK(aclrtSynchronizeEvent(ev));
		ACL_OK(aclrtQueryEventStatus(ev, &st));
		assert_int_equal(st, ACL_EVENT_RECORDED_STATUS_COMPLETE);
	}
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyStream(s2));
	ACL_OK(aclrtDestroyEvent(ev));
	ACL_OK(aclrtFree(gate));
}

static void *no_context_thread(void *p)
{
	aclError *rc = p;
	aclrtIpcEventHandle h;
	aclrtEvent ev = NULL;
	aclrtNotify n = NULL;
	char key[65];

	memset(&h, 'a', sizeof(h));
	memset(key, 'a', 64);
	key[64] = '\0';
	rc[0] = aclrtIpcOpenEventHandle(h, &ev);
	rc[1] = aclrtNotifyImportByKey(&n, key, 0);
	return NULL;
}

static void test_bad_inputs(void **state)
{
	aclrtEvent plain = NULL, ipc = NULL, out = NULL;
	aclrtIpcEventHandle h;
	aclrtNotify n = NULL, waited = NULL, m = NULL;
	aclrtStream s = NULL;
	char key[65], unknown[65];
	int32_t pid = (int32_t)getpid();
	aclError rc[2];

	(void)state;
	ACL_OK(aclrtCreateEventWithFlag(&plain, ACL_EVENT_SYNC));
	ACL_OK(aclrtCreateEventExWithFlag(&ipc, ACL_EVENT_IPC));
	assert_int_equal(aclrtIpcGetEventHandle(ipc, NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcGetEventHandle(NULL, &h), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtIpcGetEventHandle(plain, &h), ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "ACL_EVENT_IPC"));
	assert_int_equal(aclrtIpcGetEventHandle((aclrtEvent)(uintptr_t)0x55, &h),
			 ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtIpcOpenEventHandle(h, NULL), ACL_ERROR_INVALID_PARAM);
	memset(&h, 0, sizeof(h));
	assert_int_equal(aclrtIpcOpenEventHandle(h, &out), ACL_ERROR_RT_PARAM_INVALID);
	memset(&h, 'z', sizeof(h));
	assert_int_not_equal(aclrtIpcOpenEventHandle(h, &out), ACL_SUCCESS);
	assert_null(out);

	ACL_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
	assert_int_equal(aclrtNotifyGetExportKey(NULL, key, sizeof(key), 0),
			 ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtNotifyGetExportKey(n, NULL, sizeof(key), 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtNotifyGetExportKey(n, key, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtNotifyGetExportKey(n, key, sizeof(key), 1),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtNotifyGetExportKey(n, key, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
	/* Not exported yet: no whitelist to add to. */
	assert_int_equal(aclrtNotifySetImportPid(n, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtNotifyGetExportKey(n, key, sizeof(key), 0));
	assert_int_equal(aclrtNotifySetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtNotifySetImportPid(n, NULL, 1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtNotifySetImportPid(n, &pid, 0), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtNotifySetImportPid(n, &pid, 1));
	assert_int_equal(aclrtNotifyImportByKey(NULL, key, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtNotifyImportByKey(&m, NULL, 0), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtNotifyImportByKey(&m, key, 4), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtNotifyImportByKey(&m, "short", 0), ACL_ERROR_RT_PARAM_INVALID);
	memset(unknown, 'q', 64);
	unknown[64] = '\0';
	assert_int_equal(aclrtNotifyImportByKey(&m, unknown, 0), ACL_ERROR_RT_PARAM_INVALID);
	/* An imported notify is not exported again. */
	ACL_OK(aclrtNotifyImportByKey(&m, key, 0));
	assert_int_equal(aclrtNotifyGetExportKey(m, key, sizeof(key), 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtNotifySetImportPid(m, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtDestroyNotify(m));
	/* A notify with a queued wait cannot move to shared memory. */
	ACL_OK(aclrtCreateNotify(&waited, ACL_NOTIFY_DEFAULT));
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtWaitAndResetNotify(waited, s, 0));
	assert_int_equal(aclrtNotifyGetExportKey(waited, key, sizeof(key), 0),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtRecordNotify(waited, NULL));
	ACL_OK(aclrtSynchronizeStream(s));
	ACL_OK(aclrtDestroyStream(s));
	ACL_OK(aclrtDestroyNotify(waited));
	ACL_OK(aclrtDestroyNotify(n));
	ACL_OK(aclrtDestroyEvent(plain));
	ACL_OK(aclrtDestroyEvent(ipc));
	rt_run_in_thread(no_context_thread, rc);
	assert_int_equal(rc[0], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(rc[1], ACL_ERROR_RT_CONTEXT_NULL);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_opened_in_the_same_process),
		cmocka_unit_test(test_destroy_exported_event_with_a_queued_record),
		cmocka_unit_test(test_notify_imported_in_the_same_process),
		cmocka_unit_test(test_notify_between_processes),
		cmocka_unit_test(test_event_between_processes),
		cmocka_unit_test(test_bad_inputs),
	};

	g_self = argv[0];
	if (argc == 4 && !strcmp(argv[1], "--child-notify"))
		return child_notify(argv[2], atoi(argv[3]), 1);
	if (argc == 4 && !strcmp(argv[1], "--child-event"))
		return child_event(argv[2], atoi(argv[3]));
	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
