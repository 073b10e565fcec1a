// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A process killed with SIGKILL in the middle of copies into and out of
 * pinned host memory (aclrtMallocHost, which the runtime registers with the
 * device) leaves no pinned pages, no allocation and no context behind.
 * Built and run by scripts/vm/run.sh in the guest, on every backend, against
 * NPU_DEVICE.
 *
 * The victim is a forked child using the runtime; the parent watches the
 * driver from its own raw open of the device (DEVICE_INFO) and, on the
 * kernel module, from debugfs (npu/npu0/counters: pinned_pages), where it
 * also checks that the child really had pages pinned while it was copying.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "acl/acl.h"
#include <npu/npu_uapi.h>

#define COPY_BYTES	(32u << 20)
#define IDLE_TIMEOUT_MS	5000
#define COUNTERS	"/sys/kernel/debug/npu/npu0/counters"

static const char *device_path(void)
{
	const char *p = getenv("NPU_DEVICE");

	return p && *p ? p : "/dev/npu0";
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* pinned_pages of device 0 from debugfs, or -1 without it (not the module). */
static long long pinned_pages(void)
{
	char name[64];
	long long v, found = -1;
	FILE *f = fopen(COUNTERS, "r");

	if (!f)
		return -1;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (strcmp(name, "pinned_pages") == 0)
			found = v;
	}
	fclose(f);
	return found;
}

static int device_info(int fd, struct npu_device_info *info)
{
	memset(info, 0, sizeof(*info));
	return ioctl(fd, NPU_IOCTL_DEVICE_INFO, info) == 0 ? 0 : -errno;
}

/* The child: copy device <-> pinned host memory until killed. */
static void victim(int ready_fd)
{
	void *host = NULL, *dev = NULL;
	char c = 1;

	if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
	    aclrtMallocHost(&host, COPY_BYTES) != ACL_SUCCESS ||
	    aclrtMalloc(&dev, COPY_BYTES, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		_exit(2);
	memset(host, 0x5a, COPY_BYTES);
	if (aclrtMemcpy(dev, COPY_BYTES, host, COPY_BYTES, ACL_MEMCPY_HOST_TO_DEVICE) !=
	    ACL_SUCCESS)
		_exit(3);
	if (write(ready_fd, &c, 1) != 1)
		_exit(4);
	for (;;) {
		if (aclrtMemcpy(host, COPY_BYTES, dev, COPY_BYTES, ACL_MEMCPY_DEVICE_TO_HOST) !=
			    ACL_SUCCESS ||
		    aclrtMemcpy(dev, COPY_BYTES, host, COPY_BYTES, ACL_MEMCPY_HOST_TO_DEVICE) !=
			    ACL_SUCCESS)
			_exit(5);
	}
}

static void kill_mid_copy(long delay_ms)
{
	struct npu_device_info info;
	long long pinned0, pinned;
	int fds[2], status, obs, waited;
	uint32_t base_contexts;
	pid_t pid;
	char c;

	obs = open(device_path(), O_RDWR | O_CLOEXEC);
	assert_true(obs >= 0);
	assert_int_equal(device_info(obs, &info), 0);
	base_contexts = info.contexts;
	pinned0 = pinned_pages();

	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(obs);	/* the parent's context, not the child's */
		close(fds[0]);
		victim(fds[1]);
	}
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 1);
	close(fds[0]);

	/* While it copies, the child has its pinned buffer (and ring) registered. */
	if (pinned0 >= 0) {
		pinned = pinned_pages();
		assert_true(pinned >= pinned0 + (long long)(COPY_BYTES / 4096));
	}
	sleep_ms(delay_ms);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);

	/* Release of the dead child's file may finish a little later. */
	for (waited = 0;; waited += 10) {
		int idle = device_info(obs, &info) == 0 && info.hbm_free == info.hbm_total &&
			   info.allocations == 0 && info.contexts == base_contexts &&
			   (pinned0 < 0 || pinned_pages() == pinned0);

		if (idle)
			break;
		if (waited >= IDLE_TIMEOUT_MS) {
			fprintf(stderr,
				"not idle %d ms after SIGKILL: contexts %u (base %u), "
				"allocations %llu, hbm free %llu of %llu, pinned pages %lld (base %lld)\n",
				waited, info.contexts, base_contexts,
				(unsigned long long)info.allocations,
				(unsigned long long)info.hbm_free,
				(unsigned long long)info.hbm_total, pinned_pages(), pinned0);
			fail();
		}
		sleep_ms(10);
	}
	close(obs);
}

static void test_sigkill_at_once(void **state)
{
	(void)state;
	kill_mid_copy(0);
}

static void test_sigkill_during_copies(void **state)
{
	(void)state;
	kill_mid_copy(7);
	kill_mid_copy(40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_at_once),
		cmocka_unit_test(test_sigkill_during_copies),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
