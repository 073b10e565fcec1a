// SPDX-License-Identifier: MIT
/*
 * fork(): a device file belongs to the process that opened it, and a
 * forked child starts afresh.
 *
 *  - an ioctl from a forked child on its parent's file gets EBADF;
 *  - a child forked after aclInit/aclrtSetDevice/aclrtMalloc/streams may
 *    call aclInit and aclrtSetDevice and use the device with a context of
 *    its own; the parent's handles and pointers get the spec's errors in
 *    it; the parent's memory, streams and events are untouched;
 *  - a child killed in the middle of its work gives everything back;
 *  - a parent killed while a raw-forked child (no atfork handlers) still
 *    holds its file loses its context anyway, within a second;
 *  - the parent's pinned memory (aclrtMallocHost) is not mapped in a child.
 *
 * Runs on every file backend: FUSE on the host, the kernel module and CUSE
 * in the VM (device SYS_DEVICE of NPU_DEVICE).
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "acl/acl.h"

#include "npu_sys.h"

#define BUF_SIZE	(4u << 20)
#define RECLAIM_MS	1000	/* the opener's death reclaims its context within this */
#define IDLE_TIMEOUT_MS	5000

struct fork_state {
	int fd;			/* raw observer file of the test process */
};

static int setup(void **state)
{
	static struct fork_state st = { .fd = -1 };

	if (sys_device_path()) {
		st.fd = sys_open();
		if (st.fd < 0) {
			print_message("cannot open %s: %s\n", sys_device_path(), strerror(errno));
			return -1;
		}
	}
	*state = &st;
	return 0;
}

static int teardown(void **state)
{
	struct fork_state *st = *state;

	if (st->fd >= 0)
		close(st->fd);
	return 0;
}

/* The device-file cases need NPU_DEVICE=.../npu0 (FUSE, CUSE, the module). */
static void need_device_file(const struct fork_state *st)
{
	if (st->fd < 0) {
		print_message("NPU_DEVICE is not a device file: skipped\n");
		skip();
	}
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static int check(const unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != (unsigned char)(i * 31 + seed))
			return -1;
	}
	return 0;
}

static int wait_exit(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Wait (up to timeout_ms) until the device is back to the level of base:
 * the same contexts, allocations and free HBM. Releases of a dead
 * process's files reach npud asynchronously, hence the polling.
 */
static int sys_wait_idle_at(int fd, const struct npu_device_info *base, long timeout_ms,
			    struct npu_device_info *info)
{
	long waited;

	for (waited = 0;; waited += 10) {
		if (sys_info(fd, info) == 0 && info->contexts == base->contexts &&
		    info->allocations == base->allocations && info->hbm_free == base->hbm_free)
			return 0;
		if (waited >= timeout_ms) {
			print_message("not back to base after %ld ms: contexts %u/%u, allocations "
				      "%llu/%llu, hbm_free %llu/%llu\n", timeout_ms,
				      info->contexts, base->contexts,
				      (unsigned long long)info->allocations,
				      (unsigned long long)base->allocations,
				      (unsigned long long)info->hbm_free,
				      (unsigned long long)base->hbm_free);
			return -1;
		}
		sys_sleep_ms(10);
	}
}

static int recent_msg_ok(void)
{
	const char *m = aclGetRecentErrMsg();

	return m && *m;
}

/* The parent's runtime: device, a buffer holding a pattern, a stream, an event. */
struct parent_rt {
	void *dev;
	unsigned char *host;
	aclrtStream stream;
	aclrtEvent event;
};

static void parent_rt_init(struct parent_rt *p, unsigned int seed)
{
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(SYS_DEVICE), ACL_SUCCESS);
	p->host = malloc(BUF_SIZE);
	assert_non_null(p->host);
	fill(p->host, BUF_SIZE, seed);
	assert_int_equal(aclrtMalloc(&p->dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	assert_int_equal(aclrtMemcpy(p->dev, BUF_SIZE, p->host, BUF_SIZE,
				     ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclrtCreateStream(&p->stream), ACL_SUCCESS);
	assert_int_equal(aclrtCreateEvent(&p->event), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(p->event, p->stream), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeEvent(p->event), ACL_SUCCESS);
}

/* The parent's buffer still holds its pattern, its stream and event work. */
static void parent_rt_check(struct parent_rt *p, unsigned int seed)
{
	unsigned char *back = calloc(1, BUF_SIZE);

	assert_non_null(back);
	assert_int_equal(aclrtMemcpyAsync(back, BUF_SIZE, p->dev, BUF_SIZE,
					  ACL_MEMCPY_DEVICE_TO_HOST, p->stream), ACL_SUCCESS);
	assert_int_equal(aclrtRecordEvent(p->event, p->stream), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeEvent(p->event), ACL_SUCCESS);
	assert_int_equal(aclrtSynchronizeStream(p->stream), ACL_SUCCESS);
	assert_int_equal(check(back, BUF_SIZE, seed), 0);
	free(back);
}

static void parent_rt_fini(struct parent_rt *p)
{
	assert_int_equal(aclrtDestroyEvent(p->event), ACL_SUCCESS);
	assert_int_equal(aclrtDestroyStream(p->stream), ACL_SUCCESS);
	assert_int_equal(aclrtFree(p->dev), ACL_SUCCESS);
	assert_int_equal(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
	free(p->host);
}

/* An ioctl from a forked child on the parent's file: EBADF, every command. */
static void test_child_ioctl_on_parent_file_is_ebadf(void **state)
{
	struct fork_state *st = *state;
	struct npu_device_info info;
	pid_t pid;

	need_device_file(st);
	assert_int_equal(sys_info(st->fd, &info), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct npu_version v = { 0 };
		struct npu_mem_alloc ma = { .size = 4096 };
		struct npu_nop nop = { .cookie = 7 };

		if (sys_info(st->fd, &info) != -EBADF)
			_exit(1);
		if (sys_ioctl(st->fd, NPU_IOCTL_GET_VERSION, &v) != -EBADF)
			_exit(2);
		if (sys_ioctl(st->fd, NPU_IOCTL_MEM_ALLOC, &ma) != -EBADF)
			_exit(3);
		if (sys_ioctl(st->fd, NPU_IOCTL_NOP, &nop) != -EBADF)
			_exit(4);
		_exit(0);
	}
	assert_int_equal(wait_exit(pid), 0);
	/* The parent's file is unaffected. */
	assert_int_equal(sys_info(st->fd, &info), 0);
}

/* What a child forked after the parent's set-up does; 0 when all went right. */
static int child_fresh_runtime(struct parent_rt *p, int ready_fd)
{
	aclrtEventRecordedStatus status;
	unsigned char *mine, *back;
	void *dev = NULL;

	/* A fresh runtime: aclInit is the first one of this process. */
	if (aclInit(NULL) != ACL_SUCCESS)
		return 10;
	if (aclrtSetDevice(SYS_DEVICE) != ACL_SUCCESS)
		return 11;
	/* The parent's handles and pointers are unknown here. */
	if (aclrtSynchronizeStream(p->stream) != ACL_ERROR_RT_INVALID_HANDLE || !recent_msg_ok())
		return 20;
	if (aclrtSynchronizeEvent(p->event) != ACL_ERROR_RT_INVALID_HANDLE || !recent_msg_ok())
		return 21;
	if (aclrtQueryEventStatus(p->event, &status) != ACL_ERROR_RT_INVALID_HANDLE)
		return 22;
	if (aclrtFree(p->dev) != ACL_ERROR_RT_PARAM_INVALID || !recent_msg_ok())
		return 23;
	if (aclrtDestroyStream(p->stream) != ACL_ERROR_RT_INVALID_HANDLE)
		return 24;
	/* Its own context works. */
	mine = malloc(BUF_SIZE);
	back = calloc(1, BUF_SIZE);
	if (!mine || !back)
		return 30;
	fill(mine, BUF_SIZE, 0x77);
	if (aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return 31;
	if (write(ready_fd, "r", 1) != 1)
		return 32;
	if (aclrtMemcpy(dev, BUF_SIZE, mine, BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
		return 33;
	if (aclrtMemcpy(back, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
		return 34;
	if (check(back, BUF_SIZE, 0x77))
		return 35;
	if (aclrtFree(dev) != ACL_SUCCESS)
		return 36;
	if (aclrtResetDevice(SYS_DEVICE) != ACL_SUCCESS || aclFinalize() != ACL_SUCCESS)
		return 37;
	return 0;
}

static void test_child_after_init_has_its_own_context(void **state)
{
	struct fork_state *st = *state;
	struct npu_device_info before, after;
	struct parent_rt p;
	int pipefd[2];
	char b;
	pid_t pid;

	need_device_file(st);
	parent_rt_init(&p, 0x11);
	assert_int_equal(sys_info(st->fd, &before), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		_exit(child_fresh_runtime(&p, pipefd[1]));
	}
	close(pipefd[1]);
	/* While the child works: the parent's memory, stream and event are intact. */
	if (read(pipefd[0], &b, 1) == 1)
		parent_rt_check(&p, 0x11);
	close(pipefd[0]);
	assert_int_equal(wait_exit(pid), 0);
	/* And after: the same, and the child left nothing behind. */
	parent_rt_check(&p, 0x11);
	assert_int_equal(sys_wait_idle_at(st->fd, &before, IDLE_TIMEOUT_MS, &after), 0);
	parent_rt_fini(&p);
}

/* Allocate, then copy back and forth until killed. */
static int child_copy_loop(int ready_fd)
{
	unsigned char *host = malloc(BUF_SIZE);
	void *dev;

	if (!host || aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(SYS_DEVICE) != ACL_SUCCESS)
		return 10;
	memset(host, 0xa5, BUF_SIZE);
	if (aclrtMalloc(&dev, BUF_SIZE, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return 11;
	if (write(ready_fd, "r", 1) != 1)
		return 13;
	for (;;) {
		if (aclrtMemcpy(dev, BUF_SIZE, host, BUF_SIZE, ACL_MEMCPY_HOST_TO_DEVICE) !=
		    ACL_SUCCESS)
			return 12;
		if (aclrtMemcpy(host, BUF_SIZE, dev, BUF_SIZE, ACL_MEMCPY_DEVICE_TO_HOST) !=
		    ACL_SUCCESS)
			return 12;
	}
}

static void test_child_killed_midwork_gives_all_back(void **state)
{
	struct fork_state *st = *state;
	struct npu_device_info before, during, after;
	struct parent_rt p;
	int pipefd[2];
	char b;
	pid_t pid;

	need_device_file(st);
	parent_rt_init(&p, 0x22);
	assert_int_equal(sys_info(st->fd, &before), 0);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		_exit(child_copy_loop(pipefd[1]));
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &b, 1), 1);
	close(pipefd[0]);
	sys_sleep_ms(50);
	assert_int_equal(sys_info(st->fd, &during), 0);
	assert_true(during.allocations > before.allocations);
	assert_true(during.hbm_free < before.hbm_free);
	assert_int_equal(kill(pid, SIGKILL), 0);
	assert_int_equal(wait_exit(pid), 128 + SIGKILL);
	/* Back to the parent's level: contexts, allocations, HBM. */
	assert_int_equal(sys_wait_idle_at(st->fd, &before, IDLE_TIMEOUT_MS, &after), 0);
	parent_rt_check(&p, 0x22);
	parent_rt_fini(&p);
}

/*
 * The victim: allocates, raw-forks a child that inherits its device files
 * (no atfork handler runs: syscall(SYS_fork)) and only sleeps, reports the
 * child's pid, then copies until it is killed (so that the teardown races
 * with calls in flight).
 */
static int victim_with_raw_child(int ready_fd)
{
	unsigned char *host;
	void *dev;
	pid_t child;

	if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(SYS_DEVICE) != ACL_SUCCESS)
		return 10;
	if (aclrtMalloc(&dev, 64u << 20, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return 11;
	if (aclrtMemset(dev, 64u << 20, 0x3c, 64u << 20) != ACL_SUCCESS)
		return 12;
	child = (pid_t)syscall(SYS_fork);
	if (child < 0)
		return 13;
	if (child == 0) {
		/* Nothing but the inherited files: not the test's output. */
		close(ready_fd);
		close(STDOUT_FILENO);
		close(STDERR_FILENO);
		for (;;)
			pause();
	}
	host = malloc(64u << 20);
	if (!host)
		return 15;
	memset(host, 0x4b, 64u << 20);
	if (write(ready_fd, &child, sizeof(child)) != (ssize_t)sizeof(child))
		return 14;
	for (;;) {
		if (aclrtMemcpy(dev, 64u << 20, host, 64u << 20, ACL_MEMCPY_HOST_TO_DEVICE) !=
		    ACL_SUCCESS)
			return 16;
		if (aclrtMemcpy(host, 64u << 20, dev, 64u << 20, ACL_MEMCPY_DEVICE_TO_HOST) !=
		    ACL_SUCCESS)
			return 16;
	}
}

static void test_parent_killed_while_raw_child_holds_file(void **state)
{
	struct fork_state *st = *state;
	struct npu_device_info before, during, after;
	long waited;
	int pipefd[2];
	pid_t victim, child;

	need_device_file(st);
	/* The raw child is reparented to us when the victim dies. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
	assert_int_equal(sys_info(st->fd, &before), 0);
	assert_int_equal(pipe(pipefd), 0);
	victim = fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		close(pipefd[0]);
		_exit(victim_with_raw_child(pipefd[1]));
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &child, sizeof(child)), (ssize_t)sizeof(child));
	close(pipefd[0]);
	assert_int_equal(sys_info(st->fd, &during), 0);
	assert_true(during.allocations > before.allocations);

	sys_sleep_ms(30);	/* in the middle of a copy */
	assert_int_equal(kill(victim, SIGKILL), 0);
	assert_int_equal(wait_exit(victim), 128 + SIGKILL);
	/* The child still holds the victim's file: its context goes anyway. */
	for (waited = 0;; waited += 10) {
		assert_int_equal(sys_info(st->fd, &after), 0);
		if (after.allocations == before.allocations && after.hbm_free == before.hbm_free) {
			print_message("the opener's context was reclaimed within %ld ms of its "
				      "death\n", waited + 10);
			break;
		}
		if (waited >= RECLAIM_MS) {
			print_message("after %d ms: allocations %llu (before %llu), hbm_free %llu "
				      "(before %llu)\n", RECLAIM_MS,
				      (unsigned long long)after.allocations,
				      (unsigned long long)before.allocations,
				      (unsigned long long)after.hbm_free,
				      (unsigned long long)before.hbm_free);
			kill(child, SIGKILL);
			wait_exit(child);
			prctl(PR_SET_CHILD_SUBREAPER, 0);
			fail();
		}
		sys_sleep_ms(10);
	}
	assert_int_equal(kill(child, 0), 0);	/* the holder is still alive */
	assert_int_equal(kill(child, SIGKILL), 0);
	assert_int_equal(wait_exit(child), 128 + SIGKILL);
	assert_int_equal(sys_wait_idle_at(st->fd, &before, IDLE_TIMEOUT_MS, &after), 0);
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

/* aclrtMallocHost memory of the parent is not mapped in a child. */
static void test_pinned_memory_not_in_child(void **state)
{
	struct fork_state *st = *state;
	struct npu_device_info before, after;
	unsigned char *pinned;
	int pipefd[2];
	pid_t pid;

	need_device_file(st);
	assert_int_equal(aclInit(NULL), ACL_SUCCESS);
	assert_int_equal(aclrtSetDevice(SYS_DEVICE), ACL_SUCCESS);
	assert_int_equal(sys_info(st->fd, &before), 0);
	assert_int_equal(aclrtMallocHost((void **)&pinned, 1u << 20), ACL_SUCCESS);
	memset(pinned, 0x6b, 1u << 20);
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* write() reads the buffer: EFAULT when it is not mapped. */
		ssize_t n = write(pipefd[1], pinned, 16);

		_exit(n < 0 && errno == EFAULT ? 0 : 1);
	}
	assert_int_equal(wait_exit(pid), 0);
	close(pipefd[0]);
	close(pipefd[1]);
	/* Still the parent's, unchanged. */
	assert_int_equal(pinned[12345], 0x6b);
	assert_int_equal(aclrtFreeHost(pinned), ACL_SUCCESS);
	assert_int_equal(sys_wait_idle_at(st->fd, &before, IDLE_TIMEOUT_MS, &after), 0);
	assert_int_equal(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
	assert_int_equal(aclFinalize(), ACL_SUCCESS);
}

/*
 * The in-process device (NPU_DEVICE=inproc) is the parent's: a child forked
 * after it was loaded may call aclInit, but aclrtSetDevice fails cleanly
 * (not supported, with a message naming npud and the kernel module), and
 * the parent is not disturbed.
 */
static void test_inproc_child_refuses_cleanly(void **state)
{
	const char *dev = getenv("NPU_DEVICE");
	struct parent_rt p;
	pid_t pid;

	(void)state;
	if (!dev || strcmp(dev, "inproc") != 0) {
		print_message("NPU_DEVICE is not inproc: skipped\n");
		skip();
	}
	parent_rt_init(&p, 0x33);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		const char *msg;

		if (aclInit(NULL) != ACL_SUCCESS)
			_exit(10);
		if (aclrtSetDevice(SYS_DEVICE) != ACL_ERROR_RT_FEATURE_NOT_SUPPORT)
			_exit(11);
		msg = aclGetRecentErrMsg();
		if (!msg || !strstr(msg, "npud") || !strstr(msg, "kernel module"))
			_exit(12);
		if (aclrtSynchronizeStream(p.stream) == ACL_SUCCESS)
			_exit(13);
		_exit(aclFinalize() == ACL_SUCCESS ? 0 : 14);
	}
	assert_int_equal(wait_exit(pid), 0);
	parent_rt_check(&p, 0x33);
	parent_rt_fini(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_child_ioctl_on_parent_file_is_ebadf),
		cmocka_unit_test(test_child_after_init_has_its_own_context),
		cmocka_unit_test(test_child_killed_midwork_gives_all_back),
		cmocka_unit_test(test_parent_killed_while_raw_child_holds_file),
		cmocka_unit_test(test_pinned_memory_not_in_child),
		cmocka_unit_test(test_inproc_child_refuses_cleanly),
	};

	/* One case alone, e.g. NPU_TEST_FILTER=test_pinned_*. */
	if (getenv("NPU_TEST_FILTER"))
		cmocka_set_test_filter(getenv("NPU_TEST_FILTER"));
	return cmocka_run_group_tests(tests, setup, teardown);
}
