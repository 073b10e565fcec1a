// SPDX-License-Identifier: MIT
/*
 * A client outlives its npud. This process opens device 0 through a
 * private `npud --fuse DIR/dev` (NPUD_BIN, NPU_RESTART_DIR), which is then
 * killed with SIGKILL; a new npud starts on the same directory (it must
 * see that the old mount is dead, although the kernel still caches its
 * attributes), and then:
 *  - a call on the old device file fails with ACL_ERROR_RT_NO_DEVICE and
 *    a message that names the restart and the way back;
 *  - aclrtResetDevice + aclrtSetDevice open the device again, and a round
 *    trip of data through the new npud works.
 * Needs root and /dev/fuse; skipped (77) otherwise. Not run in the VM
 * guest, which has no npud binary of its own to restart.
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
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "acl/acl.h"

#define SIZE	(1u << 20)

static const char *npud_bin, *top;
static char dev_dir[4096], dev0[4200];
static pid_t npud_pid;

/* Start npud --fuse DIR/dev; return once it says it serves (10 s at most). */
static void npud_start(const char *log)
{
	char line[512];
	int pipefd[2], i;
	FILE *f;

	assert_int_equal(pipe(pipefd), 0);
	npud_pid = fork();
	assert_true(npud_pid >= 0);
	if (npud_pid == 0) {
		dup2(pipefd[1], 2);
		close(pipefd[0]);
		close(pipefd[1]);
		execl(npud_bin, npud_bin, "--fuse", dev_dir, "--hbm-size", "64M", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	f = fdopen(pipefd[0], "r");
	assert_non_null(f);
	for (i = 0; fgets(line, sizeof(line), f); i++) {
		fprintf(stderr, "[%s] %s", log, line);
		if (strstr(line, "npud: serving"))
			break;
	}
	/* The rest of its log is not read: npud must not block on it. */
	if (fcntl(pipefd[0], F_SETFL, O_NONBLOCK) != 0)
		fail();
	assert_non_null(strstr(line, "npud: serving"));
}

static void npud_kill(int sig)
{
	int status;

	if (npud_pid <= 0)
		return;
	kill(npud_pid, sig);
	waitpid(npud_pid, &status, 0);
	npud_pid = 0;
}

static void round_trip(void)
{
	static unsigned char src[SIZE], dst[SIZE];
	void *dev = NULL;
	size_t i;

	for (i = 0; i < SIZE; i++)
		src[i] = (unsigned char)(i * 7 + 3);
	memset(dst, 0, SIZE);
	assert_int_equal(aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(dev, SIZE, src, SIZE, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(dst, SIZE, dev, SIZE, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	assert_memory_equal(src, dst, SIZE);
	assert_int_equal(aclrtFree(dev), ACL_SUCCESS);
}

static void test_client_survives_restart(void **state)
{
	void *dev = NULL;
	const char *msg;
	aclError ret;

	(void)state;
	npud_start("npud 1");
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	round_trip();

	/* A second npud on the same directory is refused while the first serves. */
	{
		pid_t pid = fork();
		int status;

		assert_true(pid >= 0);
		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 2);
			execl(npud_bin, npud_bin, "--fuse", dev_dir, (char *)NULL);
			_exit(127);
		}
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 1);
	}

	npud_kill(SIGKILL);
	/* The old mount is dead, but its attributes are still cached. */
	npud_start("npud 2");

	ret = aclrtMalloc(&dev, SIZE, ACL_MEM_MALLOC_HUGE_FIRST);
	msg = aclGetRecentErrMsg();
	fprintf(stderr, "after the restart: %d, %s\n", ret, msg ? msg : "(no message)");
	assert_int_equal(ret, ACL_ERROR_RT_NO_DEVICE);
	assert_non_null(msg);
	assert_non_null(strstr(msg, "restarted"));
	assert_non_null(strstr(msg, "aclrtResetDevice"));

	assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(0), ACL_SUCCESS);
	round_trip();
	assert_int_equal(aclrtResetDevice(0), ACL_SUCCESS);
	npud_kill(SIGTERM);
}

/*
 * npud_restart_client --open: only aclrtSetDevice(0) on NPU_DEVICE; prints
 * the code and aclGetRecentErrMsg(), exit 0 when the device opened
 * (npud-container.sh pidns checks the message of a refused open).
 */
static int open_only(void)
{
	aclError ret;
	const char *msg;

	if (aclInit(NULL) != ACL_SUCCESS)
		return 2;
	ret = aclrtSetDevice(0);
	msg = aclGetRecentErrMsg();
	printf("aclrtSetDevice: %d %s\n", ret, ret && msg ? msg : "");
	if (ret == ACL_SUCCESS)
		aclrtResetDevice(0);
	aclFinalize();
	return ret == ACL_SUCCESS ? 0 : 1;
}

int main(int argc, char **argv)
{
	static const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_survives_restart),
	};
	int ret;

	if (argc == 2 && !strcmp(argv[1], "--open"))
		return open_only();

	npud_bin = getenv("NPUD_BIN");
	top = getenv("NPU_RESTART_DIR");
	if (!npud_bin || !top || access(npud_bin, X_OK) || geteuid() != 0 ||
	    access("/dev/fuse", R_OK | W_OK)) {
		printf("needs root, /dev/fuse, NPUD_BIN and NPU_RESTART_DIR: skipped\n");
		return 77;
	}
	snprintf(dev_dir, sizeof(dev_dir), "%s/dev", top);
	snprintf(dev0, sizeof(dev0), "%s/npu0", dev_dir);
	mkdir(top, 0755);
	/* A stale mount of an earlier failed run is npud's to remove. */
	setenv("NPU_DEVICE", dev0, 1);
	signal(SIGPIPE, SIG_IGN);
	if (aclInit(NULL) != ACL_SUCCESS)
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	npud_kill(SIGKILL);
	umount2(dev_dir, MNT_DETACH);
	aclFinalize();
	return ret;
}
