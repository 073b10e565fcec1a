// SPDX-License-Identifier: MIT
/*
 * A process killed with SIGKILL while it holds device memory leaves the
 * FUSE device with all its HBM free again, and npud keeps serving.
 *
 * The victims are forked children that use the runtime (aclrtSetDevice,
 * aclrtMalloc, aclrtMemcpy); the parent watches the driver's accounting
 * through its own raw open of the FUSE file.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "acl/acl.h"

#include "npu_sys.h"

#define IDLE_TIMEOUT_MS	5000

static const size_t victim_sizes[] = {
	1, 4096, 12345, 2u << 20, (2u << 20) + 1, 32u << 20, 64u << 20,
};

struct kill_state {
	int fd;			/* raw observer file */
	uint32_t base_contexts;	/* contexts with only the observer open */
};

/* Allocate victim_sizes, fill each from the host, tell the parent. */
static int victim_hold(int ready_fd)
{
	void *dev[sizeof(victim_sizes) / sizeof(victim_sizes[0])];
	unsigned char *host = malloc(64u << 20);
	size_t i;

	if (!host || aclrtSetDevice(SYS_DEVICE) != ACL_SUCCESS)
		return 10;
	memset(host, 0x5a, 64u << 20);
	for (i = 0; i < sizeof(victim_sizes) / sizeof(victim_sizes[0]); i++) {
		if (aclrtMalloc(&dev[i], victim_sizes[i], ACL_MEM_MALLOC_HUGE_FIRST) !=
		    ACL_SUCCESS)
			return 11;
		if (aclrtMemcpy(dev[i], victim_sizes[i], host, victim_sizes[i],
				ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
			return 12;
	}
	if (write(ready_fd, "r", 1) != 1)
		return 13;
	return 0;
}

/* Allocate, then copy 64 MiB back and forth until killed. */
static int victim_copy_loop(int ready_fd)
{
	unsigned char *host = malloc(64u << 20);
	void *dev;

	if (!host || aclrtSetDevice(SYS_DEVICE) != ACL_SUCCESS)
		return 10;
	memset(host, 0xa5, 64u << 20);
	if (aclrtMalloc(&dev, 64u << 20, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return 11;
	if (write(ready_fd, "r", 1) != 1)
		return 13;
	for (;;) {
		if (aclrtMemcpy(dev, 64u << 20, host, 64u << 20,
				ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
			return 12;
		if (aclrtMemcpy(host, 64u << 20, dev, 64u << 20,
				ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
			return 12;
	}
}

/* A fresh client: allocate, H2D, D2H, compare, free. Exit status 0 = ok. */
static int fresh_client(void)
{
	const size_t size = (1u << 20) + 17;
	unsigned char *src = malloc(size), *dst = malloc(size);
	void *dev;
	size_t i;

	if (!src || !dst || aclrtSetDevice(SYS_DEVICE) != ACL_SUCCESS)
		return 10;
	for (i = 0; i < size; i++)
		src[i] = (unsigned char)(i * 131 + 7);
	memset(dst, 0, size);
	if (aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return 11;
	if (aclrtMemcpy(dev, size, src, size, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS ||
	    aclrtMemcpy(dst, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
		return 12;
	if (memcmp(src, dst, size) != 0)
		return 13;
	if (aclrtFree(dev) != ACL_SUCCESS || aclrtResetDevice(SYS_DEVICE) != ACL_SUCCESS)
		return 14;
	return 0;
}

static pid_t spawn(int (*fn)(int), int *ready_rd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		_exit(fn(p[1]));
	}
	close(p[1]);
	*ready_rd = p[0];
	return pid;
}

/* Wait for the child's "ready" byte; fail the test if it exited instead. */
static void await_ready(pid_t pid, int ready_rd)
{
	char c = 0;
	int status;

	if (read(ready_rd, &c, 1) != 1) {
		waitpid(pid, &status, 0);
		fail_msg("victim exited early: status %d", WIFEXITED(status) ?
			 WEXITSTATUS(status) : -WTERMSIG(status));
	}
	close(ready_rd);
	assert_int_equal(c, 'r');
}

static void assert_recovers(struct kill_state *st)
{
	struct npu_device_info info;
	int status;
	pid_t pid;

	if (sys_wait_idle(st->fd, st->base_contexts, IDLE_TIMEOUT_MS, &info))
		fail_msg("not idle after the kill: free %llu of %llu, %llu allocations, "
			 "%u contexts (want %u)", (unsigned long long)info.hbm_free,
			 (unsigned long long)info.hbm_total,
			 (unsigned long long)info.allocations, info.contexts,
			 st->base_contexts);

	/* npud still serves a new client, and it too leaves nothing behind. */
	pid = fork();
	if (pid == 0)
		_exit(fresh_client());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(sys_wait_idle(st->fd, st->base_contexts, IDLE_TIMEOUT_MS, &info), 0);
}

static void assert_killed(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
}

/* Hold everything until the parent's SIGKILL arrives. */
static int victim_hold_then_wait(int ready_fd)
{
	int ret = victim_hold(ready_fd);

	if (ret)
		return ret;
	for (;;)
		pause();
}

static void test_sigkill_by_parent_frees_all_hbm(void **state)
{
	struct kill_state *st = *state;
	struct npu_device_info info;
	int ready = -1;
	pid_t pid;

	pid = spawn(victim_hold_then_wait, &ready);
	assert_true(pid > 0);
	await_ready(pid, ready);

	/* The victim really holds memory: the test could fail. */
	assert_int_equal(sys_info(st->fd, &info), 0);
	assert_true(info.allocations >= sizeof(victim_sizes) / sizeof(victim_sizes[0]));
	assert_true(info.hbm_free + (64u << 20) <= info.hbm_total);
	assert_true(info.contexts > st->base_contexts);

	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_killed(pid);
	assert_recovers(st);
}

static int victim_hold_then_suicide(int ready_fd)
{
	int ret = victim_hold(ready_fd);

	if (ret)
		return ret;
	raise(SIGKILL);
	return 20;
}

static void test_sigkill_self_while_holding_frees_all_hbm(void **state)
{
	struct kill_state *st = *state;
	int ready = -1;
	pid_t pid;

	pid = spawn(victim_hold_then_suicide, &ready);
	assert_true(pid > 0);
	await_ready(pid, ready);
	assert_killed(pid);
	assert_recovers(st);
}

static void test_sigkill_during_copies_frees_all_hbm(void **state)
{
	struct kill_state *st = *state;
	int ready = -1;
	pid_t pid;

	pid = spawn(victim_copy_loop, &ready);
	assert_true(pid > 0);
	await_ready(pid, ready);
	sys_sleep_ms(50);	/* well inside a 64 MiB copy */
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_killed(pid);
	assert_recovers(st);
}

static int setup(void **state)
{
	static struct kill_state st;

	if (sys_open_watched(&st.fd, &st.base_contexts, true))
		return -1;
	*state = &st;
	return 0;
}

static int teardown(void **state)
{
	struct kill_state *st = *state;

	close(st->fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_by_parent_frees_all_hbm),
		cmocka_unit_test(test_sigkill_self_while_holding_frees_all_hbm),
		cmocka_unit_test(test_sigkill_during_copies_frees_all_hbm),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
