// SPDX-License-Identifier: MIT
/*
 * The futex doorbell of npud's rings (NPU_RING_CREATE_FUTEX) from client
 * processes, whose futex words are as hostile as the rest of their ring
 * memory: a client killed while it sleeps on its completion word leaves
 * npud serving and the device idle; a client flooding wakes on its
 * doorbell costs npud a bounded number of looks before it loses the futex
 * doorbell, and its ring still works through RING_ENTER; scribbled words
 * change nothing but the client's own wake-ups.
 *
 * The kernel module has no futex doorbell: it must refuse the flag
 * (-EINVAL) and not report NPU_FEATURE_FUTEX_DOORBELL; the other cases are
 * then skipped.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "npu_sys.h"
#include "../common/ring_futex_client.h"

#define IDLE_TIMEOUT_MS	10000
#define APERTURE_SIZE	(1ULL << 40)
#define ENTRIES		8
/* The driver's budget of wakes with nothing to do, per ring. */
#define DB_BUDGET	64
/* The driver's futex-watched rings per context (npu_sched.c). */
#define DB_PER_CTX	8
#define FLOOD_WAKES	200000

static int watch_fd;
static uint32_t base_contexts;
static bool futex_offered;

struct ring {
	int fd;
	uint32_t id;
	void *mem;
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqes;
	struct npu_cqe *cqes;
};

/* A ring on context @fd (not closed on failure). */
static int ring_open_on(int fd, struct ring *r, uint32_t flags)
{
	struct npu_ring_create rc;
	size_t bytes = ((size_t)npu_ring_bytes(ENTRIES, ENTRIES) + 4095) & ~(size_t)4095;
	int ret;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->mem = sys_shared_memory("doorbell", bytes, NULL);
	if (r->mem == MAP_FAILED)
		return -errno;
	memset(&rc, 0, sizeof(rc));
	rc.addr = (uint64_t)(uintptr_t)r->mem;
	rc.size = bytes;
	rc.sq_entries = ENTRIES;
	rc.cq_entries = ENTRIES;
	rc.flags = flags;
	ret = sys_ioctl(r->fd, NPU_IOCTL_RING_CREATE, &rc);
	if (ret) {
		munmap(r->mem, bytes);
		return ret;
	}
	r->id = rc.ring_id;
	r->hdr = r->mem;
	r->sqes = (struct npu_sqe *)((char *)r->mem + rc.sqes_off);
	r->cqes = (struct npu_cqe *)((char *)r->mem + rc.cqes_off);
	return 0;
}

static int ring_open(struct ring *r, uint32_t flags)
{
	int fd = sys_open_ctx(sys_device_path(), O_CLOEXEC, APERTURE_SIZE);
	int ret;

	if (fd < 0)
		return fd;
	ret = ring_open_on(fd, r, flags);
	if (ret)
		close(fd);
	return ret;
}

static void ring_close(struct ring *r)
{
	close(r->fd);
}

static uint32_t hdr_flags(struct ring *r)
{
	return __atomic_load_n(&r->hdr->flags, __ATOMIC_ACQUIRE);
}

/* Publish @sqe; ring by the futex word if the engine sleeps. */
static void push_and_ring(struct ring *r, const struct npu_sqe *sqe)
{
	uint32_t tail = r->hdr->sq_tail;

	r->sqes[tail & (ENTRIES - 1)] = *sqe;
	__atomic_store_n(&r->hdr->sq_tail, tail + 1, __ATOMIC_SEQ_CST);
	if ((hdr_flags(r) & (NPU_RING_NEED_WAKEUP | NPU_RING_FUTEX)) ==
	    (NPU_RING_NEED_WAKEUP | NPU_RING_FUTEX)) {
		rfc_doorbell(r->hdr);
	}
}

/* Wait (up to 10 s) until cq_tail reaches @n, as the HAL does on a futex ring. */
static bool wait_cq(struct ring *r, uint32_t n)
{
	return rfc_wait_cq(r->hdr, n, 10000000000ULL);
}

static void ring_stats(struct ring *r, struct npu_ring_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->ring_id = r->id;
	assert_int_equal(sys_ioctl(r->fd, NPU_IOCTL_RING_STATS, st), 0);
}

static void assert_serving_and_idle(void)
{
	struct npu_device_info info;
	struct npu_nop nop = { .cookie = 0x5a5a1234ULL };
	int fd;

	if (sys_wait_idle(watch_fd, base_contexts, IDLE_TIMEOUT_MS, &info))
		fail_msg("not idle: %llu allocations, %u contexts (want %u)",
			 (unsigned long long)info.allocations, info.contexts, base_contexts);
	fd = sys_open_ctx(sys_device_path(), O_CLOEXEC, APERTURE_SIZE);
	assert_true(fd >= 0);
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_NOP, &nop), 0);
	assert_int_equal(nop.out, nop.cookie);
	close(fd);
}

static void test_flag_is_offered_or_refused(void **state)
{
	struct ring r;
	int ret;

	(void)state;
	ret = ring_open(&r, NPU_RING_CREATE_FUTEX);
	if (!futex_offered) {
		/* The kernel module: refused, and a ring without it still works. */
		assert_int_equal(ret, -EINVAL);
		assert_int_equal(ring_open(&r, 0), 0);
		assert_false(hdr_flags(&r) & NPU_RING_FUTEX);
		ring_close(&r);
		return;
	}
	assert_int_equal(ret, 0);
	assert_true(hdr_flags(&r) & NPU_RING_FUTEX);
	ring_close(&r);
	/* A flag nobody defined: refused everywhere. */
	assert_int_equal(ring_open(&r, 1U << 9), -EINVAL);
	assert_serving_and_idle();
}

/* NOPs rung and waited for through the words only: no RING_ENTER at all. */
static void test_runs_without_ring_enter(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP };
	struct npu_ring_stats st;
	struct ring r;
	uint32_t i;

	(void)state;
	if (!futex_offered)
		skip();
	assert_int_equal(ring_open(&r, NPU_RING_CREATE_FUTEX), 0);
	for (i = 1; i <= 100; i++) {
		struct npu_cqe *c;

		if (i % 10 == 1)
			sys_sleep_ms(2);	/* past the engines' poll window */
		nop.user_data = i;
		push_and_ring(&r, &nop);
		assert_true(wait_cq(&r, i));
		c = &r.cqes[(i - 1) & (ENTRIES - 1)];
		assert_int_equal(c->user_data, i);
		assert_int_equal(c->res, 0);
		__atomic_store_n(&r.hdr->cq_head, i, __ATOMIC_RELEASE);
	}
	ring_stats(&r, &st);
	assert_int_equal(st.sqes, 100);
	assert_int_equal(st.doorbells, 0);
	assert_int_equal(st.waits, 0);
	assert_true(st.futex_checks >= 1);
	ring_close(&r);
	assert_serving_and_idle();
}

/*
 * A child holds its ring with a VALUE_WAIT that never comes true, counts
 * itself in cq_waiters and sleeps on cq_futex; it is killed there.
 */
static void test_client_killed_while_waiting(void **state)
{
	int pipefd[2];
	pid_t pid;
	char c;

	(void)state;
	if (!futex_offered)
		skip();
	assert_int_equal(pipe(pipefd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct npu_mem_alloc ma = { .size = 4096, .policy = NPU_POLICY_NORMAL_ONLY };
		struct npu_sqe w = { .opcode = NPU_OP_VALUE_WAIT, .value = 1,
				     .cond = NPU_WAIT_GEQ, .user_data = 1 };
		struct ring r;
		uint32_t val;

		close(pipefd[0]);
		if (ring_open(&r, NPU_RING_CREATE_FUTEX) ||
		    sys_ioctl(r.fd, NPU_IOCTL_MEM_ALLOC, &ma))
			_exit(1);
		w.dst = ma.va;
		push_and_ring(&r, &w);
		__atomic_fetch_add(&r.hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
		val = __atomic_load_n(&r.hdr->cq_futex, __ATOMIC_SEQ_CST);
		if (write(pipefd[1], "w", 1) != 1)
			_exit(1);
		for (;;)
			rfc_futex_wait(&r.hdr->cq_futex, val, 1000000000ULL);
	}
	close(pipefd[1]);
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	close(pipefd[0]);
	sys_sleep_ms(20);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	assert_serving_and_idle();
}

/*
 * A flood of wakes (the word moved each time) with nothing published: at
 * most one look per wake, the budget and what grew back meanwhile, then
 * the ring loses the futex doorbell and more wakes are not looked at.
 */
static void test_flooded_wakes_are_bounded(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 9 };
	struct npu_ring_enter re = { .to_submit = 1, .min_complete = 1,
				     .flags = NPU_ENTER_GETEVENTS, .timeout_ns = 5000000000ULL };
	struct npu_ring_stats st, st2;
	struct ring r;
	uint64_t t0, ms;
	uint32_t i;

	(void)state;
	if (!futex_offered)
		skip();
	assert_int_equal(ring_open(&r, NPU_RING_CREATE_FUTEX), 0);
	t0 = rfc_now_ns();
	for (i = 0; i < FLOOD_WAKES; i++) {
		__atomic_fetch_add(&r.hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
		rfc_futex_wake(&r.hdr->sq_doorbell);
	}
	for (i = 0; i < 1000 && (hdr_flags(&r) & NPU_RING_FUTEX); i++)
		sys_sleep_ms(10);
	ms = (rfc_now_ns() - t0) / 1000000 + 1;
	assert_false(hdr_flags(&r) & NPU_RING_FUTEX);
	ring_stats(&r, &st);
	assert_true(st.futex_checks >= DB_BUDGET);
	assert_true(st.futex_checks <= DB_BUDGET + ms);
	for (i = 0; i < 10000; i++) {
		__atomic_fetch_add(&r.hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
		rfc_futex_wake(&r.hdr->sq_doorbell);
	}
	sys_sleep_ms(20);
	ring_stats(&r, &st2);
	assert_int_equal(st2.futex_checks, st.futex_checks);
	/* RING_ENTER is its doorbell now. */
	r.sqes[0] = nop;
	__atomic_store_n(&r.hdr->sq_tail, 1, __ATOMIC_RELEASE);
	re.ring_id = r.id;
	assert_int_equal(sys_ioctl(r.fd, NPU_IOCTL_RING_ENTER, &re), 0);
	assert_int_equal(__atomic_load_n(&r.hdr->cq_tail, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(r.cqes[0].user_data, 9);
	ring_close(&r);
	assert_serving_and_idle();
}

/*
 * One context gets the futex doorbell on at most DB_PER_CTX rings; its
 * further rings work through RING_ENTER, and another context still gets
 * futex rings that run with no RING_ENTER.
 */
static void test_context_cap(void **state)
{
	enum { N = DB_PER_CTX + 2 };
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 11 };
	struct npu_ring_enter re = { .to_submit = 1, .min_complete = 1,
				     .flags = NPU_ENTER_GETEVENTS, .timeout_ns = 5000000000ULL };
	struct npu_ring_stats st;
	struct ring r[N], other;
	int fd, fd2, i;

	(void)state;
	if (!futex_offered)
		skip();
	fd = sys_open_ctx(sys_device_path(), O_CLOEXEC, APERTURE_SIZE);
	fd2 = sys_open_ctx(sys_device_path(), O_CLOEXEC, APERTURE_SIZE);
	assert_true(fd >= 0 && fd2 >= 0);
	for (i = 0; i < N; i++) {
		assert_int_equal(ring_open_on(fd, &r[i], NPU_RING_CREATE_FUTEX), 0);
		assert_int_equal(!!(hdr_flags(&r[i]) & NPU_RING_FUTEX), i < DB_PER_CTX);
	}
	/* Past the cap: RING_ENTER runs it. */
	r[N - 1].sqes[0] = nop;
	__atomic_store_n(&r[N - 1].hdr->sq_tail, 1, __ATOMIC_RELEASE);
	re.ring_id = r[N - 1].id;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_RING_ENTER, &re), 0);
	assert_int_equal(__atomic_load_n(&r[N - 1].hdr->cq_tail, __ATOMIC_ACQUIRE), 1);
	assert_int_equal(r[N - 1].cqes[0].user_data, 11);
	/* The other context's ring: the futex word only. */
	assert_int_equal(ring_open_on(fd2, &other, NPU_RING_CREATE_FUTEX), 0);
	assert_true(hdr_flags(&other) & NPU_RING_FUTEX);
	push_and_ring(&other, &nop);
	assert_true(wait_cq(&other, 1));
	assert_int_equal(other.cqes[0].user_data, 11);
	ring_stats(&other, &st);
	assert_int_equal(st.doorbells, 0);
	assert_int_equal(st.waits, 0);
	close(fd2);
	close(fd);
	assert_serving_and_idle();
}

/* Every word scribbled on: work still runs, npud does not fail the ring. */
static void test_scribbled_words(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP };
	struct ring r;
	uint32_t i;

	(void)state;
	if (!futex_offered)
		skip();
	assert_int_equal(ring_open(&r, NPU_RING_CREATE_FUTEX), 0);
	for (i = 1; i <= 30; i++) {
		__atomic_store_n(&r.hdr->sq_doorbell, 0xbad00000 + i * 31, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r.hdr->cq_futex, ~i, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r.hdr->cq_waiters, 0x40000000U + i, __ATOMIC_SEQ_CST);
		nop.user_data = i;
		push_and_ring(&r, &nop);
		assert_true(wait_cq(&r, i));
		assert_int_equal(r.cqes[(i - 1) & (ENTRIES - 1)].user_data, i);
		__atomic_store_n(&r.hdr->cq_head, i, __ATOMIC_RELEASE);
	}
	assert_false(hdr_flags(&r) & NPU_RING_FAILED);
	ring_close(&r);
	assert_serving_and_idle();
}

static int setup(void **state)
{
	struct npu_version v = { 0 };

	(void)state;
	if (sys_open_watched(&watch_fd, &base_contexts, false))
		return -1;
	if (sys_ioctl(watch_fd, NPU_IOCTL_GET_VERSION, &v))
		return -1;
	futex_offered = v.features & NPU_FEATURE_FUTEX_DOORBELL;
	fprintf(stderr, "futex doorbell: %s\n", futex_offered ? "offered" : "not offered");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(watch_fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flag_is_offered_or_refused),
		cmocka_unit_test(test_runs_without_ring_enter),
		cmocka_unit_test(test_client_killed_while_waiting),
		cmocka_unit_test(test_flooded_wakes_are_bounded),
		cmocka_unit_test(test_context_cap),
		cmocka_unit_test(test_scribbled_words),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
