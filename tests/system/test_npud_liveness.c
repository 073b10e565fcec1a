// SPDX-License-Identifier: MIT
/*
 * No client can hang the driver's server or the other clients. A client
 * thread blocks in RING_ENTER (NPU_ENTER_GETEVENTS, no timeout) on a ring
 * whose head is a VALUE_WAIT that never comes true; then:
 *  - a caught signal ends its wait with EINTR at once;
 *  - SIGKILL of the client ends it at once, and the device forgets it;
 *  - 200 such threads in one client do not slow down another client;
 *  - npud stops within 2 s on SIGTERM with such clients (FUSE host only:
 *    the test starts a private npud, from NPUD_BIN, on NPU_LIVENESS_DIR).
 *
 * Clients use the raw ABI; the observer is this process's own file.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "npu_sys.h"

#define APERTURE_SIZE	(1ULL << 40)
#define RING_ENTRIES	8
#define WAIT_VALUE	0x5eed5eed5eed5eedULL	/* never in fresh device memory */
#define MANY_WAITERS	200

struct liveness_state {
	int fd;			/* observer */
	uint32_t base_contexts;
};

static struct liveness_state ls;

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* A client file on path with its context: fd or -errno. */
static int open_ctx_at(const char *path)
{
	return sys_open_ctx(path, O_CLOEXEC, APERTURE_SIZE);
}

struct ring {
	uint32_t id;
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqes;
	struct npu_cqe *cqes;
	uint64_t cqes_off;
};

static int ring_create(int fd, struct ring *r)
{
	struct npu_ring_create rc;
	void *mem = NULL;
	int ret;

	ret = sys_ring_create(fd, RING_ENTRIES, "liveness-ring", &mem, &rc);
	if (ret)
		return ret;
	r->id = rc.ring_id;
	r->hdr = mem;
	r->sqes = (struct npu_sqe *)((char *)mem + rc.sqes_off);
	r->cqes = (struct npu_cqe *)((char *)mem + rc.cqes_off);
	return 0;
}

/* Publish one SQE and ring the doorbell. */
static int ring_post(int fd, struct ring *r, const struct npu_sqe *sqe)
{
	struct npu_ring_enter re = { .ring_id = r->id, .to_submit = 1 };
	uint32_t tail = r->hdr->sq_tail;

	r->sqes[tail & (RING_ENTRIES - 1)] = *sqe;
	__atomic_store_n(&r->hdr->sq_tail, tail + 1, __ATOMIC_SEQ_CST);
	return sys_ioctl(fd, NPU_IOCTL_RING_ENTER, &re);
}

/* A client holding a ring stuck behind a VALUE_WAIT that never comes true. */
struct stuck_client {
	int fd;
	struct ring ring;
	uint64_t va;		/* the waited-on word's allocation */
};

static int stuck_client_open(const char *path, struct stuck_client *c)
{
	struct npu_mem_alloc ma = { .size = 4096, .policy = NPU_POLICY_NORMAL_ONLY };
	struct npu_sqe sqe = { 0 };
	int ret;

	c->fd = open_ctx_at(path);
	if (c->fd < 0)
		return c->fd;
	ret = sys_ioctl(c->fd, NPU_IOCTL_MEM_ALLOC, &ma);
	if (ret)
		return ret;
	c->va = ma.va;
	ret = ring_create(c->fd, &c->ring);
	if (ret)
		return ret;
	sqe.opcode = NPU_OP_VALUE_WAIT;
	sqe.dst = ma.va;
	sqe.value = WAIT_VALUE;
	sqe.cond = NPU_WAIT_EQ;
	sqe.user_data = 1;
	return ring_post(c->fd, &c->ring, &sqe);
}

/* One blocking wait for the stuck ring: 0 or -errno, no retry on EINTR. */
static int stuck_wait_once(struct stuck_client *c)
{
	struct npu_ring_enter re = {
		.ring_id = c->ring.id,
		.min_complete = 1,
		.flags = NPU_ENTER_GETEVENTS,
		.timeout_ns = 0,
	};

	return ioctl(c->fd, NPU_IOCTL_RING_ENTER, &re) < 0 ? -errno : 0;
}

/* Waits the driver has put to sleep on the stuck ring. */
static uint64_t stuck_sleeps(struct stuck_client *c)
{
	struct npu_ring_stats st = { .ring_id = c->ring.id };

	if (sys_ioctl(c->fd, NPU_IOCTL_RING_STATS, &st))
		return 0;
	return st.waits;
}

/* Wait until the stuck ring has had n sleepers; false after timeout_ms. */
static bool stuck_await_sleepers(struct stuck_client *c, uint64_t base, uint64_t n, long timeout_ms)
{
	long end = now_ms() + timeout_ms;

	while (stuck_sleeps(c) < base + n) {
		if (now_ms() > end)
			return false;
		sys_sleep_ms(5);
	}
	return true;
}

/*
 * The waiter of a stuck client's thread: waits until the process dies,
 * taking EINTR as "wait again" and EAGAIN (npud declined: too many waits
 * of this process already) as "wait again later", as the runtime does
 * (the runtime's pause grows to 20 ms; a slower one keeps the polling of
 * 200 threads from loading a slow machine, e.g. CUSE in an emulated VM).
 */
static void *stuck_waiter(void *arg)
{
	struct stuck_client *c = arg;
	int ret;

	for (;;) {
		ret = stuck_wait_once(c);
		if (ret == -EAGAIN)
			sys_sleep_ms(100);
		else if (ret && ret != -EINTR)
			return NULL;
	}
}

/* Reap pid within timeout_ms: true if it was, with *status. */
static bool reap_within(pid_t pid, long timeout_ms, int *status)
{
	long end = now_ms() + timeout_ms;

	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return true;
		if (r < 0 || now_ms() > end)
			return false;
		sys_sleep_ms(2);
	}
}

/* Read one byte within timeout_ms. */
static bool read_within(int fd, char *c, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && read(fd, c, 1) == 1;
}

/* Fork a client that blocks `threads` threads on a stuck ring, holding
 * `objects` extra allocations; returns its pid once it is set up. */
static pid_t stuck_spawn(const char *path, unsigned int threads, unsigned int objects)
{
	int p[2];
	pid_t pid;
	char c = 0;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct stuck_client sc;
		pthread_t t;
		unsigned int i;
		uint64_t base;

		close(p[0]);
		if (stuck_client_open(path, &sc))
			_exit(10);
		for (i = 0; i < objects; i++) {
			struct npu_mem_alloc ma = { .size = 4096,
						    .policy = NPU_POLICY_NORMAL_ONLY };

			if (sys_ioctl(sc.fd, NPU_IOCTL_MEM_ALLOC, &ma))
				_exit(11);
		}
		base = stuck_sleeps(&sc);
		for (i = 0; i < threads; i++) {
			if (pthread_create(&t, NULL, stuck_waiter, &sc))
				_exit(12);
		}
		/* At least one is asleep in the driver (all of them, after a while). */
		if (threads && !stuck_await_sleepers(&sc, base, 1, 5000))
			_exit(13);
		sys_sleep_ms(threads > 1 ? 300 : 0);
		if (write(p[1], "r", 1) != 1)
			_exit(14);
		for (;;)
			pause();
	}
	close(p[1]);
	/* A server whose workers are all taken never lets it get ready. */
	if (pid < 0 || !read_within(p[0], &c, 10000) || c != 'r') {
		if (pid > 0) {
			int status;

			kill(pid, SIGKILL);
			reap_within(pid, 2000, &status);
		}
		pid = -1;
	}
	close(p[0]);
	return pid;
}

static void assert_idle_within(long timeout_ms)
{
	struct npu_device_info info;

	if (sys_wait_idle(ls.fd, ls.base_contexts, timeout_ms, &info))
		fail_msg("not idle after %ld ms: free %llu of %llu, %llu allocations, "
			 "%u contexts (want %u)", timeout_ms,
			 (unsigned long long)info.hbm_free, (unsigned long long)info.hbm_total,
			 (unsigned long long)info.allocations, info.contexts, ls.base_contexts);
}

/* (a) A caught signal ends a wait without timeout with EINTR. */

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int sig)
{
	(void)sig;
	usr1_seen = 1;
}

struct one_wait {
	struct stuck_client *c;
	int ret;
	long end_ms;
	volatile bool done;
};

static void *one_wait_thread(void *arg)
{
	struct one_wait *w = arg;

	w->ret = stuck_wait_once(w->c);
	w->end_ms = now_ms();
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void test_caught_signal_ends_a_wait_with_eintr(void **state)
{
	struct sigaction sa, old;
	struct stuck_client c;
	struct one_wait w = { .c = &c, .ret = 1 };
	struct npu_ring_abort ra = { 0 };
	pthread_t t;
	uint64_t base;
	long sent;

	(void)state;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;	/* no SA_RESTART */
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGUSR1, &sa, &old), 0);
	usr1_seen = 0;

	assert_int_equal(stuck_client_open(sys_device_path(), &c), 0);
	base = stuck_sleeps(&c);
	assert_int_equal(pthread_create(&t, NULL, one_wait_thread, &w), 0);
	assert_true(stuck_await_sleepers(&c, base, 1, 5000));
	sys_sleep_ms(20);
	assert_false(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE));

	sent = now_ms();
	assert_int_equal(pthread_kill(t, SIGUSR1), 0);
	while (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE) && now_ms() - sent < 2000)
		sys_sleep_ms(1);
	if (!__atomic_load_n(&w.done, __ATOMIC_ACQUIRE)) {
		/* Release the thread before failing. */
		ra.ring_id = c.ring.id;
		sys_ioctl(c.fd, NPU_IOCTL_RING_ABORT, &ra);
		pthread_join(t, NULL);
		fail_msg("the wait did not end on SIGUSR1 within 2 s (then: %d)", w.ret);
	}
	pthread_join(t, NULL);
	assert_int_equal(w.ret, -EINTR);
	assert_true(usr1_seen);
	if (w.end_ms - sent > 100)
		fail_msg("EINTR took %ld ms (limit 100)", w.end_ms - sent);
	print_message("EINTR %ld ms after SIGUSR1\n", w.end_ms - sent);

	/* The ring still works: the VALUE_WAIT is still held until aborted. */
	ra.ring_id = c.ring.id;
	assert_int_equal(sys_ioctl(c.fd, NPU_IOCTL_RING_ABORT, &ra), 0);
	assert_int_equal(__atomic_load_n(&c.ring.hdr->cq_tail, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(c.ring.cqes[0].res, -ECANCELED);
	close(c.fd);
	assert_int_equal(sigaction(SIGUSR1, &old, NULL), 0);
	assert_idle_within(5000);
}

/* (b) SIGKILL of a client blocked in a wait: reaped and forgotten at once. */

static void test_sigkill_of_a_waiting_client_is_reaped_at_once(void **state)
{
	struct npu_device_info info;
	int status;
	long sent;
	pid_t pid;

	(void)state;
	pid = stuck_spawn(sys_device_path(), 1, 16);
	assert_true(pid > 0);
	assert_int_equal(sys_info(ls.fd, &info), 0);
	assert_true(info.contexts > ls.base_contexts);
	assert_true(info.allocations >= 17);

	sent = now_ms();
	assert_int_equal(kill(pid, SIGKILL), 0);
	if (!reap_within(pid, 1000, &status))
		fail_msg("the killed client was not reaped within 1 s");
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	assert_idle_within(1000);
	print_message("reaped and idle %ld ms after SIGKILL\n", now_ms() - sent);
}

/* (c) 200 waiting threads in one client; another is served at once. */

struct observer {
	long took_ms[4];
	int ret[4];
	volatile int done;	/* steps finished */
};

static int observer_sync_copy(int fd, struct ring *r, uint64_t va, unsigned char *buf,
			      size_t len, int dir, uint64_t tag)
{
	struct npu_ring_enter re = {
		.ring_id = r->id,
		.to_submit = 1,
		.min_complete = 1,
		.flags = NPU_ENTER_GETEVENTS,
	};
	uint32_t tail = r->hdr->sq_tail, head = r->hdr->cq_head;
	struct npu_sqe *sqe = &r->sqes[tail & (RING_ENTRIES - 1)];
	int ret;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = NPU_OP_COPY;
	sqe->dir = (uint8_t)dir;
	sqe->dst = dir == NPU_DIR_H2D ? va : (uint64_t)(uintptr_t)buf;
	sqe->src = dir == NPU_DIR_H2D ? (uint64_t)(uintptr_t)buf : va;
	sqe->len = len;
	sqe->user_data = tag;
	__atomic_store_n(&r->hdr->sq_tail, tail + 1, __ATOMIC_SEQ_CST);
	do {
		ret = sys_ioctl(fd, NPU_IOCTL_RING_ENTER, &re);
		re.to_submit = 0;
		if (ret == -EAGAIN)
			sys_sleep_ms(1);
	} while ((ret == 0 || ret == -EAGAIN) &&
		 __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE) == head);
	if (ret && ret != -EAGAIN)
		return ret;
	if (r->cqes[head & (RING_ENTRIES - 1)].user_data != tag)
		return -EIO;
	ret = r->cqes[head & (RING_ENTRIES - 1)].res;
	__atomic_store_n(&r->hdr->cq_head, head + 1, __ATOMIC_RELEASE);
	return ret;
}

static void *observer_thread(void *arg)
{
	struct observer *o = arg;
	struct npu_device_info info;
	struct npu_mem_alloc ma = { .size = 1u << 20, .policy = NPU_POLICY_NORMAL_ONLY };
	struct npu_mem_free mf = { 0 };
	static unsigned char src[256u << 10], dst[256u << 10];
	struct ring r;
	long t0;
	size_t i;
	int fd;

	fd = open_ctx_at(sys_device_path());
	if (fd < 0 || ring_create(fd, &r))
		return NULL;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (unsigned char)(i * 7 + 3);

	t0 = now_ms();
	o->ret[0] = sys_info(ls.fd, &info);
	o->took_ms[0] = now_ms() - t0;
	o->done = 1;

	t0 = now_ms();
	o->ret[1] = sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma);
	o->took_ms[1] = now_ms() - t0;
	o->done = 2;

	t0 = now_ms();
	o->ret[2] = observer_sync_copy(fd, &r, ma.va, src, sizeof(src), NPU_DIR_H2D, 1);
	if (!o->ret[2])
		o->ret[2] = observer_sync_copy(fd, &r, ma.va, dst, sizeof(dst), NPU_DIR_D2H, 2);
	if (!o->ret[2] && memcmp(src, dst, sizeof(src)))
		o->ret[2] = -EIO;
	o->took_ms[2] = now_ms() - t0;
	o->done = 3;

	t0 = now_ms();
	mf.va = ma.va;
	o->ret[3] = sys_ioctl(fd, NPU_IOCTL_MEM_FREE, &mf);
	o->took_ms[3] = now_ms() - t0;
	o->done = 4;
	close(fd);
	return NULL;
}

static void test_many_waiting_threads_do_not_starve_another_client(void **state)
{
	static const char *const steps[] = {
		"DEVICE_INFO", "MEM_ALLOC", "H2D + D2H copy", "MEM_FREE",
	};
	struct observer o = { .done = 0 };
	struct timespec end;
	pthread_t t;
	int status, i;
	pid_t pid;

	(void)state;
	pid = stuck_spawn(sys_device_path(), MANY_WAITERS, 0);
	if (pid <= 0)
		fail_msg("a client starting %d waiting threads was not served within 10 s",
			 MANY_WAITERS);

	assert_int_equal(pthread_create(&t, NULL, observer_thread, &o), 0);
	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += 5;
	if (pthread_timedjoin_np(t, NULL, &end)) {
		kill(pid, SIGKILL);
		fail_msg("another client's calls hang behind %d waiting threads (step %d done)",
			 MANY_WAITERS, o.done);
	}
	print_message("next to %d waiting threads: %s %ld ms, %s %ld ms, %s %ld ms, %s %ld ms\n",
		      MANY_WAITERS, steps[0], o.took_ms[0], steps[1], o.took_ms[1],
		      steps[2], o.took_ms[2], steps[3], o.took_ms[3]);
	/*
	 * Starved, these calls took 10 s and more. The limit leaves room for a
	 * loaded machine (a TCG guest next to other jobs has taken 540 ms for
	 * the copy) and still tells service from starvation. The client is
	 * killed before any failure, so that its waiting threads do not
	 * outlive this test and fail the next ones.
	 */
	for (i = 0; i < 4; i++) {
		if (o.ret[i]) {
			kill(pid, SIGKILL);
			fail_msg("%s failed: %d", steps[i], o.ret[i]);
		}
		if (o.took_ms[i] > 2000) {
			kill(pid, SIGKILL);
			fail_msg("%s took %ld ms (limit 2000)", steps[i], o.took_ms[i]);
		}
	}

	/* Killing the client ends all its waits. */
	assert_int_equal(kill(pid, SIGKILL), 0);
	if (!reap_within(pid, 2000, &status))
		fail_msg("the client with %d waiting threads was not reaped within 2 s",
			 MANY_WAITERS);
	assert_idle_within(2000);
}

/* (d) SIGTERM stops npud within 2 s, whatever its clients do. */

static bool is_mounted(const char *dir)
{
	char real[4096], line[8192], mnt[4096];
	bool found = false;
	FILE *f;

	if (!realpath(dir, real))
		return false;
	f = fopen("/proc/mounts", "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %4095s", mnt) == 1 && strcmp(mnt, real) == 0)
			found = true;
	}
	fclose(f);
	return found;
}

static void test_sigterm_stops_npud_with_stuck_clients(void **state)
{
	const char *npud = getenv("NPUD_BIN"), *dir = getenv("NPU_LIVENESS_DIR");
	char path[4200];
	pid_t server, waiters, hoarder, stopped;
	int status;
	long sent, waited;

	(void)state;
	if (!npud || !*npud || !dir || !*dir || access(npud, X_OK)) {
		print_message("skipped: needs NPUD_BIN and NPU_LIVENESS_DIR (a FUSE host)\n");
		skip();
	}
	if (is_mounted(dir))
		assert_int_equal(system("fusermount3 -u \"$NPU_LIVENESS_DIR\""), 0);
	mkdir(dir, 0755);
	snprintf(path, sizeof(path), "%s/npu0", dir);

	server = fork();
	if (server == 0) {
		execl(npud, npud, "--fuse", dir, "--devices", "1", "--hbm-size", "1G",
		      (char *)NULL);
		_exit(127);
	}
	assert_true(server > 0);
	for (waited = 0; access(path, F_OK); waited += 10) {
		if (waited > 10000 || waitpid(server, &status, WNOHANG) == server)
			fail_msg("the private npud did not come up");
		sys_sleep_ms(10);
	}

	/* Blocked waits, thousands of objects, a stopped client in a wait. */
	waiters = stuck_spawn(path, 4, 16);
	hoarder = stuck_spawn(path, 1, 3000);
	stopped = stuck_spawn(path, 1, 0);
	assert_true(waiters > 0 && hoarder > 0 && stopped > 0);
	assert_int_equal(kill(stopped, SIGSTOP), 0);

	sent = now_ms();
	assert_int_equal(kill(server, SIGTERM), 0);
	if (!reap_within(server, 2000, &status)) {
		kill(server, SIGKILL);
		waitpid(server, &status, 0);
		if (is_mounted(dir))
			(void)!system("fusermount3 -u \"$NPU_LIVENESS_DIR\" || umount -l \"$NPU_LIVENESS_DIR\"");
		kill(waiters, SIGKILL);
		kill(hoarder, SIGKILL);
		kill(stopped, SIGKILL);
		fail_msg("npud did not exit within 2 s of SIGTERM");
	}
	print_message("npud exited %ld ms after SIGTERM\n", now_ms() - sent);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_false(is_mounted(dir));

	kill(waiters, SIGKILL);
	kill(hoarder, SIGKILL);
	kill(stopped, SIGKILL);
	assert_true(reap_within(waiters, 2000, &status));
	assert_true(reap_within(hoarder, 2000, &status));
	assert_true(reap_within(stopped, 2000, &status));
}

static int setup(void **state)
{
	(void)state;
	return sys_open_watched(&ls.fd, &ls.base_contexts, true);
}

static int teardown(void **state)
{
	(void)state;
	close(ls.fd);
	return 0;
}

int main(void)
{
	const char *only = getenv("NPU_TEST_FILTER");	/* e.g. "*eintr*" */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caught_signal_ends_a_wait_with_eintr),
		cmocka_unit_test(test_sigkill_of_a_waiting_client_is_reaped_at_once),
		cmocka_unit_test(test_many_waiting_threads_do_not_starve_another_client),
		cmocka_unit_test(test_sigterm_stops_npud_with_stuck_clients),
	};

	if (only && *only)
		cmocka_set_test_filter(only);
	return cmocka_run_group_tests(tests, setup, teardown);
}
