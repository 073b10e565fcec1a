// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Rings whose shared memory is hostile, under the mock kernel: an sq_tail
 * one past a full SQ, 0xffffffff, or rewritten in a loop while the engines
 * run fails the ring with -EPROTO (a last CQE with NPU_CQE_RING_FAILED,
 * NPU_RING_FAILED in the flags, and every later RING_ENTER -EPROTO) without
 * executing anything; RING_ABORT and close return within 100 ms for a ring
 * full of VALUE_WAITs that never become true and for an impossible tail;
 * a ring of a remote client (npud's path) whose memory faults under the
 * daemon fails with -EFAULT, and so does a copy from registered host
 * memory that faults, while the other rings keep working. Every object
 * the driver allocated is gone at the end (leak counters).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>

#include "npu_test_util.h"

#include "npu_ctx.h"
#include "npu_ring.h"

#define PAGE		4096UL
#define QUICK_MS	100

static long live_before_load;
static struct mock_counters before;

static int setup(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	mock_counters_get(&before);
	return mockdev_module_load("hbm_mb=256 engines=2");
}

static int teardown(void **state)
{
	struct mock_counters now;

	(void)state;
	mockdev_module_unload();
	mock_counters_get(&now);
	assert_int_equal(now.pinned_pages, before.pinned_pages);
	assert_int_equal(now.vmaps, before.vmaps);
	assert_int_equal(mock_live_objects(), live_before_load);
	return 0;
}

static struct file *open_ctx(void)
{
	struct file *f;

	assert_int_equal(t_open(&f), 0);
	assert_int_equal(t_setup_at(f, T_VA_BASE), 0);
	return f;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct npu_sqe nop(uint64_t ud)
{
	struct npu_sqe s = { .opcode = NPU_OP_NOP, .user_data = ud };

	return s;
}

static long enter_wait(struct file *f, struct t_ring *r, uint32_t to_submit, uint32_t min)
{
	struct npu_ring_enter e = {
		.ring_id = r->id, .to_submit = to_submit, .min_complete = min,
		.flags = NPU_ENTER_GETEVENTS, .timeout_ns = 2000000000ULL,
	};

	return t_ioctl(f, NPU_IOCTL_RING_ENTER, &e);
}

static long ring_abort(struct file *f, struct t_ring *r)
{
	struct npu_ring_abort a = { .ring_id = r->id };

	return t_ioctl(f, NPU_IOCTL_RING_ABORT, &a);
}

static long ring_destroy(struct file *f, struct t_ring *r)
{
	struct npu_ring_destroy d = { .ring_id = r->id };

	return t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d);
}

/* A sane ring still runs a NOP. */
static void assert_ring_works(struct file *f, struct t_ring *r)
{
	struct npu_sqe s = nop(0x77);

	assert_int_equal(t_ring_run(f, r, &s), 0);
}

/*
 * The ring failed with -EPROTO: exactly one CQE (the failure's), the
 * FAILED flag, -EPROTO from every later RING_ENTER, nothing executed.
 */
static void assert_failed_eproto(struct file *f, struct t_ring *r, uint32_t cq_before)
{
	struct npu_cqe c;

	assert_int_equal(__atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE), cq_before + 1);
	r->hdr->cq_head = cq_before;
	assert_true(t_ring_pop(r, &c));
	assert_int_equal(c.res, -EPROTO);
	assert_int_equal(c.flags, NPU_CQE_RING_FAILED);
	assert_int_equal(c.user_data, 0);
	assert_true(__atomic_load_n(&r->hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_FAILED);
	assert_int_equal(enter_wait(f, r, 1, 1), -EPROTO);
	assert_int_equal(t_ring_enter(f, r, 0, 0, 0, NULL), -EPROTO);
	assert_int_equal(t_ring_enter(f, r, 1, 0, 0, NULL), -EPROTO);
}

/* Publish an sq_tail @ahead past the driver's head, with valid NOPs in every slot. */
static void publish_tail(struct t_ring *r, uint32_t ahead)
{
	uint32_t head = __atomic_load_n(&r->hdr->sq_head, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < r->sq_entries; i++)
		r->sqes[i] = nop(100 + i);
	__atomic_store_n(&r->hdr->sq_tail, head + ahead, __ATOMIC_RELEASE);
}

static void check_impossible_tail(uint32_t tail_from_head, bool absolute)
{
	struct t_ring r, other;
	struct file *f = open_ctx();
	uint32_t cq;

	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	assert_int_equal(t_ring_create(f, &other, 8, 8), 0);
	/* Some ordinary work first, so head is not 0. */
	for (int i = 0; i < 3; i++) {
		struct npu_sqe s = nop(i + 1);

		assert_int_equal(t_ring_run(f, &r, &s), 0);
	}
	/* A full SQ is fine. */
	publish_tail(&r, 8);
	assert_int_equal(enter_wait(f, &r, 8, 8), 0);
	assert_int_equal(__atomic_load_n(&r.hdr->cq_tail, __ATOMIC_ACQUIRE), 11);
	r.hdr->cq_head = 11;
	cq = 11;
	if (absolute) {
		for (uint32_t i = 0; i < r.sq_entries; i++)
			r.sqes[i] = nop(100 + i);
		__atomic_store_n(&r.hdr->sq_tail, tail_from_head, __ATOMIC_RELEASE);
	} else {
		publish_tail(&r, tail_from_head);
	}
	assert_int_equal(enter_wait(f, &r, 1, 1), -EPROTO);
	assert_failed_eproto(f, &r, cq);
	/* The driver's head did not move: nothing was consumed. */
	assert_int_equal(__atomic_load_n(&r.hdr->sq_head, __ATOMIC_ACQUIRE), 11);
	/* Abort of a failed ring has nothing to cancel and returns at once. */
	assert_int_equal(ring_abort(f, &r), 0);
	assert_ring_works(f, &other);
	assert_int_equal(ring_destroy(f, &r), 0);
	assert_ring_works(f, &other);
	t_close(f);
	t_ring_unmap(&r);
	t_ring_unmap(&other);
}

static void test_tail_one_past_a_full_sq_fails_the_ring(void **state)
{
	(void)state;
	check_impossible_tail(8 + 1, false);
}

static void test_tail_0xffffffff_fails_the_ring(void **state)
{
	(void)state;
	check_impossible_tail(0xffffffffu, true);
}

struct scribbler {
	struct t_ring *r;
	volatile bool stop;
	unsigned long rounds;	/* written by the scribbler, read atomically */
};

static void *scribble(void *arg)
{
	struct scribbler *sc = arg;
	uint32_t x = 12345;

	while (!sc->stop) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		__atomic_store_n(&sc->r->hdr->sq_tail, x, __ATOMIC_RELEASE);
		__atomic_store_n(&sc->r->hdr->sq_head, x >> 3, __ATOMIC_RELAXED);
		__atomic_store_n(&sc->r->hdr->cq_head, x * 7, __ATOMIC_RELEASE);
		__atomic_fetch_add(&sc->rounds, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

/*
 * Head and tail rewritten in a loop while the engines run the ring: it
 * fails with -EPROTO, having executed nothing but valid NOPs; abort and
 * close stay quick, and another ring is unaffected.
 */
static void test_indices_rewritten_while_the_engine_runs(void **state)
{
	struct scribbler sc;
	struct t_ring r, other;
	struct file *f = open_ctx();
	pthread_t th;
	double t0;
	long ret = 0;

	(void)state;
	assert_int_equal(t_ring_create(f, &r, 64, 64), 0);
	assert_int_equal(t_ring_create(f, &other, 8, 8), 0);
	for (uint32_t k = 0; k < r.sq_entries; k++)
		r.sqes[k] = nop(k + 1);
	sc.r = &r;
	sc.stop = false;
	sc.rounds = 0;
	assert_int_equal(pthread_create(&th, NULL, scribble, &sc), 0);
	/*
	 * Bounded by time, not by a count of entries: an entry costs well
	 * under a microsecond, and on a loaded machine the scribbler may not
	 * be scheduled at all during a few thousand of them.
	 */
	t0 = now_ms();
	while (!__atomic_load_n(&sc.rounds, __ATOMIC_RELAXED) && now_ms() - t0 < 10000)
		sched_yield();
	while (ret != -EPROTO && now_ms() - t0 < 10000) {
		ret = enter_wait(f, &r, 1, 1);
		assert_true(ret == 0 || ret == -EPROTO);
		assert_ring_works(f, &other);
	}
	sc.stop = true;
	pthread_join(th, NULL);
	assert_int_equal(ret, -EPROTO);
	assert_true(__atomic_load_n(&r.hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_FAILED);
	assert_int_equal(t_ring_enter(f, &r, 1, 0, 0, NULL), -EPROTO);
	t0 = now_ms();
	assert_int_equal(ring_abort(f, &r), 0);
	assert_true(now_ms() - t0 < QUICK_MS);
	assert_ring_works(f, &other);
	t0 = now_ms();
	t_close(f);
	assert_true(now_ms() - t0 < QUICK_MS);
	t_ring_unmap(&r);
	t_ring_unmap(&other);
}

/*
 * A ring full of VALUE_WAITs that never become true: RING_ABORT cancels
 * all of them (thousands) within 100 ms; filled again, closing the file
 * takes under 100 ms too.
 */
static void test_abort_and_close_of_a_ring_full_of_waits_are_quick(void **state)
{
	const uint32_t n = 4096;
	struct npu_mem_alloc a;
	struct t_ring r;
	struct npu_cqe c;
	struct file *f = open_ctx();
	double t0, took;
	uint32_t k;

	(void)state;
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_ring_create(f, &r, n, n), 0);
	for (int round = 0; round < 2; round++) {
		for (k = 0; k < n; k++) {
			struct npu_sqe s = { .opcode = NPU_OP_VALUE_WAIT, .dst = a.va,
					     .value = 1, .cond = NPU_WAIT_EQ, .len = 8,
					     .user_data = k + 1 };

			t_ring_push(&r, &s);
		}
		assert_int_equal(t_ring_enter(f, &r, n, 0, 0, NULL), 0);
		usleep(20000);
		assert_int_equal(__atomic_load_n(&r.hdr->cq_tail, __ATOMIC_ACQUIRE) -
				 r.hdr->cq_head, 0);
		t0 = now_ms();
		if (round == 0)
			assert_int_equal(ring_abort(f, &r), 0);
		else
			t_close(f);
		took = now_ms() - t0;
		if (took >= QUICK_MS)
			fail_msg("%s took %.1f ms", round ? "close" : "abort", took);
		for (k = 0; k < n; k++) {
			assert_true(t_ring_pop(&r, &c));
			assert_int_equal(c.user_data, k + 1);
			assert_int_equal(c.res, -ECANCELED);
		}
	}
	t_ring_unmap(&r);
}

/*
 * An abort while sq_tail says 2^31 - 1 SQEs are pending: at most a full
 * SQ is cancelled, the ring fails with -EPROTO, and the abort is quick.
 */
static void test_abort_with_an_impossible_tail_is_bounded(void **state)
{
	struct t_ring r;
	struct file *f = open_ctx();
	double t0, took;

	(void)state;
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	publish_tail(&r, 0x7fffffffu);
	t0 = now_ms();
	assert_int_equal(ring_abort(f, &r), 0);
	took = now_ms() - t0;
	if (took >= QUICK_MS)
		fail_msg("abort took %.1f ms", took);
	assert_int_equal(t_ring_enter(f, &r, 1, 0, 0, NULL), -EPROTO);
	assert_true(__atomic_load_n(&r.hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_FAILED);
	/* Bounded by the CQ: what was posted plus what overflowed. */
	assert_true(__atomic_load_n(&r.hdr->cq_tail, __ATOMIC_ACQUIRE) +
		    __atomic_load_n(&r.hdr->cq_overflow, __ATOMIC_ACQUIRE) <= 8 + 1 + 1);
	t0 = now_ms();
	t_close(f);
	assert_true(now_ms() - t0 < QUICK_MS);
	t_ring_unmap(&r);
}

/* A sealed memfd mapped shared, for a remote ring or registration. */
static void *sealed_map(size_t bytes, int *fd)
{
	void *p;

	*fd = memfd_create("bounds", MFD_ALLOW_SEALING);
	assert_true(*fd >= 0);
	assert_int_equal(ftruncate(*fd, (off_t)bytes), 0);
	assert_int_equal(fcntl(*fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
	assert_true(p != MAP_FAILED);
	return p;	/* *fd stays open until the child has inherited it */
}

struct remote_ring {
	struct t_ring r;
	struct npu_ring *ring;	/* the driver's, to reach its mapping */
};

static void remote_ring_create(struct t_child *c, struct file *f, struct remote_ring *rr,
			       void *mem, size_t bytes, uint32_t n)
{
	struct npu_ring_create rc = { .addr = (uintptr_t)mem, .size = bytes,
				      .sq_entries = n, .cq_entries = n };

	memset(rr, 0, sizeof(*rr));
	assert_int_equal(t_child_ioctl(c, f, NPU_IOCTL_RING_CREATE, &rc), 0);
	rr->r.mem = mem;
	rr->r.bytes = bytes;
	rr->r.id = rc.ring_id;
	rr->r.sq_entries = n;
	rr->r.cq_entries = n;
	rr->r.hdr = mem;
	rr->r.sqes = (struct npu_sqe *)((char *)mem + rc.sqes_off);
	rr->r.cqes = (struct npu_cqe *)((char *)mem + rc.cqes_off);
	rr->ring = idr_find(&((struct npu_ctx *)f->private_data)->rings, rc.ring_id);
	assert_non_null(rr->ring);
}

static long child_enter(struct t_child *c, struct file *f, struct t_ring *r, uint32_t to_submit)
{
	struct npu_ring_enter e = {
		.ring_id = r->id, .to_submit = to_submit, .min_complete = to_submit,
		.flags = NPU_ENTER_GETEVENTS, .timeout_ns = 2000000000ULL,
	};

	return t_child_ioctl(c, f, NPU_IOCTL_RING_ENTER, &e);
}

/* Make the daemon's mapping of one page of a pin fault, as a failed page would. */
static void break_page(void *daemon_addr)
{
	assert_int_equal(mprotect((void *)((uintptr_t)daemon_addr & ~(PAGE - 1)), PAGE, PROT_NONE),
			 0);
}

/*
 * A remote client's ring whose SQ page faults under the daemon: the ring
 * fails with -EFAULT (RING_ENTER says so from then on), the process lives
 * on, and the client's other ring and registered memory keep working;
 * then a copy from a registered page that faults fails alone with -EFAULT.
 */
static void test_remote_ring_and_host_memory_faults_fail_alone(void **state)
{
	struct npu_ctx_setup s = { .va_base = T_VA_BASE, .va_size = T_VA_SIZE };
	struct npu_host_register hr = { 0 };
	struct npu_mem_alloc ma = { .size = 8192, .policy = NPU_POLICY_NORMAL_ONLY };
	size_t bytes = (size_t)npu_ring_bytes(8, 8);
	struct remote_ring bad, good;
	struct npu_cqe c;
	struct t_child ch;
	struct file *f;
	void *bad_mem, *good_mem;
	int fds[3];
	char *host;

	(void)state;
	bytes = (bytes + PAGE - 1) & ~(PAGE - 1);
	bad_mem = sealed_map(bytes, &fds[0]);
	good_mem = sealed_map(bytes, &fds[1]);
	host = sealed_map(4 * PAGE, &fds[2]);
	t_child_start(&ch);
	for (int i = 0; i < 3; i++)
		close(fds[i]);	/* the child's copies are the ones that count */
	assert_int_equal(mockdev_file_open(t_misc(), ch.task, &f), 0);
	assert_int_equal(t_child_ioctl(&ch, f, NPU_IOCTL_CTX_SETUP, &s), 0);
	assert_int_equal(t_child_ioctl(&ch, f, NPU_IOCTL_MEM_ALLOC, &ma), 0);
	remote_ring_create(&ch, f, &bad, bad_mem, bytes, 8);
	remote_ring_create(&ch, f, &good, good_mem, bytes, 8);
	hr.addr = (uintptr_t)host;
	hr.size = 4 * PAGE;
	hr.fd = -1;
	assert_int_equal(t_child_ioctl(&ch, f, NPU_IOCTL_HOST_REGISTER, &hr), 0);

	/* Both work; then the bad ring's SQ page fails under the daemon. */
	struct npu_sqe sq = nop(5);

	t_ring_push(&bad.r, &sq);
	assert_int_equal(child_enter(&ch, f, &bad.r, 1), 0);
	assert_true(t_ring_pop(&bad.r, &c));
	assert_int_equal(c.res, 0);
	break_page((char *)bad.ring->vaddr + NPU_RING_SQES_OFF);
	sq = nop(6);
	t_ring_push(&bad.r, &sq);
	assert_int_equal(child_enter(&ch, f, &bad.r, 1), -EFAULT);
	assert_int_equal(child_enter(&ch, f, &bad.r, 0), -EFAULT);

	/* The good ring copies through registered memory. */
	memset(host, 0x42, PAGE);
	sq = t_copy(NPU_DIR_H2D, ma.va, (uintptr_t)host, PAGE);
	t_ring_push(&good.r, &sq);
	assert_int_equal(child_enter(&ch, f, &good.r, 1), 0);
	assert_true(t_ring_pop(&good.r, &c));
	assert_int_equal(c.res, 0);

	/* A registered page fails: that copy fails, the next one works. */
	void *kaddr;
	struct npu_host_reg *reg;

	kaddr = npu_host_get(f->private_data, (uintptr_t)host + PAGE, PAGE, &reg);
	assert_non_null(kaddr);
	npu_host_put(reg);
	break_page(kaddr);
	sq = t_copy(NPU_DIR_H2D, ma.va + PAGE, (uintptr_t)host + PAGE, PAGE);
	sq.user_data = 7;
	t_ring_push(&good.r, &sq);
	sq = t_copy(NPU_DIR_D2H, (uintptr_t)host + 2 * PAGE, ma.va + 0, PAGE);
	sq.user_data = 8;
	t_ring_push(&good.r, &sq);
	assert_int_equal(child_enter(&ch, f, &good.r, 2), 0);
	assert_true(t_ring_pop(&good.r, &c));
	assert_int_equal(c.user_data, 7);
	assert_int_equal(c.res, -EFAULT);
	assert_true(t_ring_pop(&good.r, &c));
	assert_int_equal(c.user_data, 8);
	assert_int_equal(c.res, 0);
	assert_int_equal((unsigned char)host[2 * PAGE + 100], 0x42);

	assert_int_equal(mockdev_file_release(f, ch.task), 0);
	t_child_stop(&ch);
	munmap(bad_mem, bytes);
	munmap(good_mem, bytes);
	munmap(host, 4 * PAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tail_one_past_a_full_sq_fails_the_ring, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_tail_0xffffffff_fails_the_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_indices_rewritten_while_the_engine_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_abort_and_close_of_a_ring_full_of_waits_are_quick,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_abort_with_an_impossible_tail_is_bounded, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_remote_ring_and_host_memory_faults_fail_alone,
						setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
