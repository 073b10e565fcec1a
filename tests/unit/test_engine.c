// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The copy engines (kmod/npu_sched.c, npu_engine.c) through rings, under
 * the mock kernel: in-order completion within a ring; rings progressing
 * concurrently; a ring parked on VALUE_WAIT released by a VALUE_WRITE of
 * another ring and by a host write while a third ring keeps going; the
 * four wait conditions, GEQ across the wrap-around; COPY2D data; REDUCE
 * arithmetic and its malformed descriptors; malformed
 * value and 2-D descriptors failing alone; COPY_INDIRECT reading its record
 * when it runs, and hostile records failing alone; COPY_DEREF loading its
 * slots when it runs, and hostile slots and offsets failing alone; -ECANCELED for what a parked
 * ring holds on RING_ABORT and RING_DESTROY; a copy large enough to be
 * split across engines, and shared with an engine that comes free while
 * it runs; translations cached for a batch that follow a free
 * and a new allocation at the same address; a ring streamed to without
 * reaping, left to gather descriptors, still running them without a
 * doorbell and taken at once by a waiter; and every object the driver
 * allocated gone at the end (leak counters).
 */
#include <fcntl.h>
#include <math.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "npu_ctx.h"
#include "npu_mem.h"
#include "npu_phys.h"
#include "npu_test_util.h"

static long live_before_load;

static int setup(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	return mockdev_module_load("hbm_mb=1024 engines=3");
}

static int teardown(void **state)
{
	(void)state;
	/* Opens the gates a failed test left closed, which would hold an engine. */
	mock_fail_reset();
	mockdev_module_unload();
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

static uint64_t alloc(struct file *f, uint64_t size)
{
	struct npu_mem_alloc a;

	assert_int_equal(t_alloc(f, size, NPU_POLICY_HUGE_FIRST, 0, &a), 0);
	return a.va;
}

static void fill(uint8_t *p, size_t n, unsigned int seed)
{
	uint32_t x = seed * 2654435761u + 7;

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (uint8_t)x;
	}
}

static struct npu_sqe value_write(uint64_t va, uint64_t value, uint64_t ud)
{
	struct npu_sqe s = { .opcode = NPU_OP_VALUE_WRITE, .dst = va, .value = value,
			     .user_data = ud };
	return s;
}

static struct npu_sqe value_wait(uint64_t va, uint64_t value, uint32_t cond, uint64_t ud)
{
	struct npu_sqe s = { .opcode = NPU_OP_VALUE_WAIT, .dst = va, .value = value,
			     .cond = cond, .len = 8, .user_data = ud };
	return s;
}

/* Waits (timeout_ms, 0: none) until min CQEs are in r's CQ: 0 or -ETIME. */
static long wait_cqes(struct file *f, struct t_ring *r, uint32_t min, uint64_t timeout_ms)
{
	struct npu_ring_enter e = {
		.ring_id = r->id, .min_complete = min, .flags = NPU_ENTER_GETEVENTS,
		.timeout_ns = timeout_ms * 1000000ULL,
	};

	return t_ioctl(f, NPU_IOCTL_RING_ENTER, &e);
}

static uint32_t cq_ready(struct t_ring *r)
{
	return __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE) - r->hdr->cq_head;
}

/* Publishes and rings the doorbell for everything pushed since the last call. */
static void submit(struct file *f, struct t_ring *r, uint32_t n)
{
	uint32_t submitted = 0;

	assert_int_equal(t_ring_enter(f, r, n, 0, 0, &submitted), 0);
}

static void host_write_u64(struct file *f, struct t_ring *r, uint64_t va, uint64_t v)
{
	struct npu_sqe s = t_copy(NPU_DIR_H2D, va, (uintptr_t)&v, 8);

	assert_int_equal(t_ring_run(f, r, &s), 0);
}

static uint64_t host_read_u64(struct file *f, struct t_ring *r, uint64_t va)
{
	uint64_t v = 0;
	struct npu_sqe s = t_copy(NPU_DIR_D2H, (uintptr_t)&v, va, 8);

	assert_int_equal(t_ring_run(f, r, &s), 0);
	return v;
}

/*
 * Ordering: a chain of 48 dependent descriptors (fill, then each copy
 * reads what the one before wrote); CQEs come back in submission order
 * and only in-order execution leaves the first bytes at the end.
 */
static void test_in_order_completion_within_a_ring(void **state)
{
	enum { LINKS = 16, BYTES = 64 * 1024 };
	uint8_t *src = malloc(BYTES), *back = malloc(BYTES);
	struct t_ring r;
	struct file *f;
	uint64_t buf[LINKS];
	uint32_t n = 0;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 64, 64), 0);
	for (int i = 0; i < LINKS; i++)
		buf[i] = alloc(f, BYTES);
	fill(src, BYTES, 3);
	struct npu_sqe s = t_copy(NPU_DIR_H2D, buf[0], (uintptr_t)src, BYTES);

	s.user_data = ++n;
	t_ring_push(&r, &s);
	for (int i = 1; i < LINKS; i++) {
		s = t_memset(NPU_DIR_H2D, buf[i], (uint8_t)i, BYTES);
		s.user_data = ++n;
		t_ring_push(&r, &s);
	}
	for (int i = 1; i < LINKS; i++) {
		s = t_copy(NPU_DIR_D2D, buf[i], buf[i - 1], BYTES);
		s.user_data = ++n;
		t_ring_push(&r, &s);
	}
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, buf[LINKS - 1], BYTES);
	s.user_data = ++n;
	t_ring_push(&r, &s);
	submit(f, &r, n);
	assert_int_equal(wait_cqes(f, &r, n, 10000), 0);
	for (uint32_t i = 1; i <= n; i++) {
		struct npu_cqe c;

		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, i);
		assert_int_equal(c.res, 0);
	}
	assert_memory_equal(back, src, BYTES);
	t_close(f);
	t_ring_unmap(&r);
	free(src);
	free(back);
}

/*
 * Ring A parks on a VALUE_WAIT; ring B runs 200 descriptors to completion
 * meanwhile; then B's VALUE_WRITE releases A, whose later copy runs.
 */
static void test_parked_ring_released_by_another_rings_write(void **state)
{
	uint8_t host[4096], back[4096];
	struct t_ring a, b;
	struct file *f;
	uint64_t word, x, y;
	struct npu_cqe c;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &a, 16, 16), 0);
	assert_int_equal(t_ring_create(f, &b, 256, 256), 0);
	word = alloc(f, 4096);
	x = alloc(f, 4096);
	y = alloc(f, 4096);
	host_write_u64(f, &b, word, 0);
	fill(host, sizeof(host), 4);
	struct npu_sqe s = t_copy(NPU_DIR_H2D, x, (uintptr_t)host, sizeof(host));

	assert_int_equal(t_ring_run(f, &b, &s), 0);

	s = value_wait(word, 1, NPU_WAIT_EQ, 1);
	t_ring_push(&a, &s);
	s = t_copy(NPU_DIR_D2D, y, x, sizeof(host));
	s.user_data = 2;
	t_ring_push(&a, &s);
	submit(f, &a, 2);

	for (int i = 0; i < 200; i++) {
		s = t_memset(NPU_DIR_H2D, x + 2048, (uint8_t)i, 16);
		s.user_data = 100 + i;
		t_ring_push(&b, &s);
	}
	submit(f, &b, 200);
	assert_int_equal(wait_cqes(f, &b, 200, 10000), 0);
	for (int i = 0; i < 200; i++) {
		assert_true(t_ring_pop(&b, &c));
		assert_int_equal(c.res, 0);
	}
	/* A is still held, and nothing of it ran. */
	assert_int_equal(wait_cqes(f, &a, 1, 50), -ETIME);
	assert_int_equal(cq_ready(&a), 0);

	s = value_write(word, 1, 300);
	assert_int_equal(t_ring_run(f, &b, &s), 0);
	assert_int_equal(wait_cqes(f, &a, 2, 10000), 0);
	assert_true(t_ring_pop(&a, &c));
	assert_int_equal(c.user_data, 1);
	assert_int_equal(c.res, 0);
	assert_true(t_ring_pop(&a, &c));
	assert_int_equal(c.user_data, 2);
	assert_int_equal(c.res, 0);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, y, sizeof(back));
	assert_int_equal(t_ring_run(f, &b, &s), 0);
	memset(host + 2048, 199, 16);
	assert_memory_equal(back, host, sizeof(back));
	t_close(f);
	t_ring_unmap(&a);
	t_ring_unmap(&b);
}

/* A third ring that keeps working in its own thread. */
struct busy {
	struct file *f;
	struct t_ring r;
	uint64_t va;
	int rounds;
	int failures;
};

static void *busy_thread(void *arg)
{
	struct busy *b = arg;

	for (int i = 0; i < b->rounds; i++) {
		struct npu_sqe s = t_memset(NPU_DIR_H2D, b->va, (uint8_t)i, 4096);
		int32_t res = -1;

		s.user_data = (uint64_t)i + 1;
		if (t_ring_try_run(b->f, &b->r, &s, &res) || res != 0)
			b->failures++;
	}
	return NULL;
}

static void test_parked_ring_released_by_host_write_while_third_ring_runs(void **state)
{
	struct busy busy = { 0 };
	struct t_ring a, h;
	struct npu_cqe c;
	struct file *f;
	pthread_t t;
	uint64_t word;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &a, 8, 8), 0);
	assert_int_equal(t_ring_create(f, &h, 8, 8), 0);
	busy.f = f;
	busy.rounds = 2000;
	assert_int_equal(t_ring_create(f, &busy.r, 8, 8), 0);
	busy.va = alloc(f, 4096);
	word = alloc(f, 4096);
	host_write_u64(f, &h, word, 6);

	struct npu_sqe s = value_wait(word, 7, NPU_WAIT_EQ, 11);

	t_ring_push(&a, &s);
	submit(f, &a, 1);
	assert_int_equal(pthread_create(&t, NULL, busy_thread, &busy), 0);
	assert_int_equal(wait_cqes(f, &a, 1, 50), -ETIME);
	/* The host writes the word (an H2D copy on its own ring). */
	host_write_u64(f, &h, word, 7);
	assert_int_equal(wait_cqes(f, &a, 1, 10000), 0);
	assert_true(t_ring_pop(&a, &c));
	assert_int_equal(c.user_data, 11);
	assert_int_equal(c.res, 0);
	pthread_join(t, NULL);
	assert_int_equal(busy.failures, 0);
	t_close(f);
	t_ring_unmap(&a);
	t_ring_unmap(&h);
	t_ring_unmap(&busy.r);
}

/* Each condition: false with the first value, true with the second. */
static void test_all_four_wait_conditions(void **state)
{
	const struct {
		const char *what;
		uint32_t cond;
		uint64_t value, m_false, m_true;
	} rows[] = {
		{ "GEQ", NPU_WAIT_GEQ, 100, 99, 100 },
		{ "GEQ above", NPU_WAIT_GEQ, 100, 0, 1000 },
		/* Wrap-around: 5 is "after" 2^64 - 16, 2^64 - 32 is before it. */
		{ "GEQ wraps", NPU_WAIT_GEQ, ~0ULL - 15, ~0ULL - 31, 5 },
		/* ... and a huge m is "before" a small value. */
		{ "GEQ wraps back", NPU_WAIT_GEQ, 5, ~0ULL - 15, 6 },
		{ "EQ", NPU_WAIT_EQ, 42, 41, 42 },
		{ "AND", NPU_WAIT_AND, 0x0f00, 0xf0ff, 0x0100 },
		{ "NOR", NPU_WAIT_NOR, 0xf0, ~0xf0ULL, 0 },
	};
	struct t_ring a, h;
	struct npu_cqe c;
	struct file *f;
	uint64_t word;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &a, 8, 8), 0);
	assert_int_equal(t_ring_create(f, &h, 8, 8), 0);
	word = alloc(f, 4096);
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		host_write_u64(f, &h, word, rows[i].m_false);
		struct npu_sqe s = value_wait(word, rows[i].value, rows[i].cond, 50 + i);

		t_ring_push(&a, &s);
		submit(f, &a, 1);
		if (wait_cqes(f, &a, 1, 30) != -ETIME)
			fail_msg("%s: released while false", rows[i].what);
		host_write_u64(f, &h, word, rows[i].m_true);
		if (wait_cqes(f, &a, 1, 10000) != 0)
			fail_msg("%s: not released when true", rows[i].what);
		assert_true(t_ring_pop(&a, &c));
		assert_int_equal(c.user_data, 50 + i);
		assert_int_equal(c.res, 0);
		/* Already true: completes at once. */
		s.user_data = 80 + i;
		assert_int_equal(t_ring_run(f, &a, &s), 0);
	}
	t_close(f);
	t_ring_unmap(&a);
	t_ring_unmap(&h);
}

/* VALUE_WRITE stores the 64-bit value; VALUE_WAIT/WRITE and COPY2D reject bad fields alone. */
static void test_value_and_2d_descriptors_fail_alone(void **state)
{
	uint8_t host[256];
	struct t_ring r;
	struct file *f;
	uint64_t va;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 32, 32), 0);
	va = alloc(f, 8192);
	const uint64_t h = (uintptr_t)host;
	const struct {
		const char *what;
		struct npu_sqe s;
		int32_t res;
	} rows[] = {
		{ "wait cond 4", { .opcode = NPU_OP_VALUE_WAIT, .dst = va, .cond = NPU_WAIT_COUNT }, -EINVAL },
		{ "wait unaligned", { .opcode = NPU_OP_VALUE_WAIT, .dst = va + 4 }, -EINVAL },
		{ "wait len 4", { .opcode = NPU_OP_VALUE_WAIT, .dst = va, .len = 4 }, -EINVAL },
		{ "wait with src", { .opcode = NPU_OP_VALUE_WAIT, .dst = va, .src = h }, -EINVAL },
		{ "wait unmapped", { .opcode = NPU_OP_VALUE_WAIT, .dst = va + 16 * T_MIB }, -EFAULT },
		{ "wait on a host address", { .opcode = NPU_OP_VALUE_WAIT, .dst = h & ~7ULL }, -EFAULT },
		{ "write unaligned", { .opcode = NPU_OP_VALUE_WRITE, .dst = va + 1 }, -EINVAL },
		{ "write with cond", { .opcode = NPU_OP_VALUE_WRITE, .dst = va, .cond = 1 }, -EINVAL },
		{ "write with dir", { .opcode = NPU_OP_VALUE_WRITE, .dst = va, .dir = 1 }, -EINVAL },
		{ "write past the end", { .opcode = NPU_OP_VALUE_WRITE, .dst = va + 8192 * 64 }, -EFAULT },
		{ "timestamp with a value", { .opcode = NPU_OP_TIMESTAMP, .dst = va, .value = 1 }, -EINVAL },
		{ "timestamp unaligned", { .opcode = NPU_OP_TIMESTAMP, .dst = va + 4 }, -EINVAL },
		{ "timestamp len 4", { .opcode = NPU_OP_TIMESTAMP, .dst = va, .len = 4 }, -EINVAL },
		{ "timestamp with src", { .opcode = NPU_OP_TIMESTAMP, .dst = va, .src = h }, -EINVAL },
		{ "timestamp unmapped", { .opcode = NPU_OP_TIMESTAMP, .dst = va + 16 * T_MIB }, -EFAULT },
		{ "opcode past the last", { .opcode = NPU_OP_COUNT, .dst = va }, -EINVAL },
		{ "2d dpitch < width", { .opcode = NPU_OP_COPY2D, .dir = NPU_DIR_H2D, .dst = va, .src = h,
					 .len = 64, .value = 2, .dpitch = 63, .spitch = 64 }, -EINVAL },
		{ "2d spitch < width", { .opcode = NPU_OP_COPY2D, .dir = NPU_DIR_H2D, .dst = va, .src = h,
					 .len = 64, .value = 2, .dpitch = 64, .spitch = 32 }, -EINVAL },
		{ "2d height 0", { .opcode = NPU_OP_COPY2D, .dir = NPU_DIR_H2D, .dst = va, .src = h,
				   .len = 64, .value = 0, .dpitch = 64, .spitch = 64 }, -EINVAL },
		{ "2d past the end", { .opcode = NPU_OP_COPY2D, .dir = NPU_DIR_H2D, .dst = va, .src = h,
				       .len = 64, .value = 3, .dpitch = 4096, .spitch = 64 }, -EFAULT },
		{ "pitches on a copy", { .opcode = NPU_OP_COPY, .dir = NPU_DIR_H2D, .dst = va, .src = h,
					 .len = 64, .dpitch = 64 }, -EINVAL },
		{ "reduce op 3", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D, .dst = va + 4096,
				   .src = va + 6144, .len = 64,
				   .value = NPU_REDUCE_VALUE(NPU_REDUCE_OP_COUNT, NPU_REDUCE_F32) },
		  -EINVAL },
		{ "reduce type 6", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D, .dst = va + 4096,
				     .src = va + 6144, .len = 64,
				     .value = NPU_REDUCE_VALUE(NPU_REDUCE_SUM, NPU_REDUCE_TYPE_COUNT) },
		  -EINVAL },
		{ "reduce high value bits", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D,
					      .dst = va + 4096, .src = va + 6144, .len = 64,
					      .value = 1ULL << 16 }, -EINVAL },
		{ "reduce unaligned dst", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D, .dst = va + 4098,
					    .src = va + 6144, .len = 64,
					    .value = NPU_REDUCE_VALUE(NPU_REDUCE_SUM, NPU_REDUCE_F32) },
		  -EINVAL },
		{ "reduce part of an element", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D,
						 .dst = va + 4096, .src = va + 6144, .len = 63,
						 .value = NPU_REDUCE_VALUE(NPU_REDUCE_SUM,
									   NPU_REDUCE_S16) },
		  -EINVAL },
		{ "reduce len 0", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D, .dst = va + 4096,
				    .src = va + 6144 }, -EINVAL },
		{ "reduce H2D", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_H2D, .dst = va + 4096,
				  .src = h & ~7ULL, .len = 8 }, -EINVAL },
		{ "reduce past the end", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D, .dst = va + 4096,
					   .src = va, .len = 8192 }, -EFAULT },
		{ "reduce from the host", { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D, .dst = va + 4096,
					    .src = h & ~7ULL, .len = 8 }, -EFAULT },
	};

	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct npu_sqe good = value_write(va + 64, 0x1122334455667788ULL + i, 1000 + i);
		struct npu_sqe bad = rows[i].s;
		struct npu_sqe good2 = value_write(va + 72, i, 3000 + i);
		struct npu_cqe c1, c2, c3;

		bad.user_data = 2000 + i;
		t_ring_push(&r, &good);
		t_ring_push(&r, &bad);
		t_ring_push(&r, &good2);
		submit(f, &r, 3);
		assert_int_equal(wait_cqes(f, &r, 3, 10000), 0);
		assert_true(t_ring_pop(&r, &c1));
		assert_true(t_ring_pop(&r, &c2));
		assert_true(t_ring_pop(&r, &c3));
		assert_int_equal(c1.res, 0);
		assert_int_equal(c3.res, 0);
		assert_int_equal(c2.user_data, 2000 + i);
		if (c2.res != rows[i].res)
			fail_msg("%s: res %d, expected %d", rows[i].what, c2.res, rows[i].res);
		assert_int_equal(host_read_u64(f, &r, va + 64), 0x1122334455667788ULL + i);
		assert_int_equal(host_read_u64(f, &r, va + 72), i);
	}
	t_close(f);
	t_ring_unmap(&r);
}

/* TIMESTAMP stores the engine's CLOCK_MONOTONIC in ns when it runs, in ring order. */
static void test_timestamp_is_the_clock_when_it_runs(void **state)
{
	struct npu_sqe first = { .opcode = NPU_OP_TIMESTAMP, .len = 8, .user_data = 1 };
	struct npu_sqe second = { .opcode = NPU_OP_TIMESTAMP, .user_data = 3 };
	struct npu_sqe hold;
	struct npu_cqe c;
	struct t_ring r, io;	/* io: the host's reads and writes, beside the held ring */
	struct timespec ts;
	uint64_t va, before, released, t1, t2;
	struct file *f;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	assert_int_equal(t_ring_create(f, &io, 8, 8), 0);
	va = alloc(f, 4096);
	host_write_u64(f, &io, va + 16, 0);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	before = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	first.dst = va;
	second.dst = va + 8;
	hold = value_wait(va + 16, 1, NPU_WAIT_EQ, 2);
	t_ring_push(&r, &first);
	t_ring_push(&r, &hold);
	t_ring_push(&r, &second);
	submit(f, &r, 3);
	usleep(20000);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	released = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	host_write_u64(f, &io, va + 16, 1);
	assert_int_equal(wait_cqes(f, &r, 3, 10000), 0);
	for (int i = 0; i < 3; i++) {
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.res, 0);
	}
	t1 = host_read_u64(f, &io, va);
	t2 = host_read_u64(f, &io, va + 8);
	assert_true(t1 >= before && t1 <= released);
	assert_true(t2 >= released);
	t_close(f);
	t_ring_unmap(&r);
	t_ring_unmap(&io);
}

static void write_record(struct file *f, struct t_ring *r, uint64_t rec, uint64_t src,
			 uint64_t dst, uint64_t len, uint64_t rsvd)
{
	struct npu_copy_ind ind = { .src = src, .dst = dst, .len = len, .rsvd = rsvd };
	struct npu_sqe s = t_copy(NPU_DIR_H2D, rec, (uintptr_t)&ind, sizeof(ind));

	assert_int_equal(t_ring_run(f, r, &s), 0);
}

static struct npu_sqe copy_indirect(uint64_t rec, uint64_t ud)
{
	struct npu_sqe s = { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D, .src = rec,
			     .user_data = ud };
	return s;
}

/*
 * What the "reads ... when it runs" tests share: a context with a ring r
 * to hold and a ring io for the host's reads and writes, and two
 * allocations of big bytes: d filled from src, d2 all 0xBB.
 */
struct run_late {
	struct file *f;
	struct t_ring r, io;
	uint64_t d, d2;
	size_t big;
	uint8_t *src, *back;
};

static void run_late_init(struct run_late *t, size_t big, unsigned int seed)
{
	struct npu_sqe s;

	t->big = big;
	t->src = malloc(big);
	t->back = malloc(big);
	assert_non_null(t->src);
	assert_non_null(t->back);
	t->f = open_ctx();
	assert_int_equal(t_ring_create(t->f, &t->r, 8, 8), 0);
	assert_int_equal(t_ring_create(t->f, &t->io, 8, 8), 0);
	t->d = alloc(t->f, big);
	t->d2 = alloc(t->f, big);
	fill(t->src, big, seed);
	s = t_copy(NPU_DIR_H2D, t->d, (uintptr_t)t->src, big);
	assert_int_equal(t_ring_run(t->f, &t->io, &s), 0);
	s = t_memset(NPU_DIR_H2D, t->d2, 0xBB, big);
	assert_int_equal(t_ring_run(t->f, &t->io, &s), 0);
}

static void run_late_fini(struct run_late *t)
{
	t_close(t->f);
	t_ring_unmap(&t->r);
	t_ring_unmap(&t->io);
	free(t->src);
	free(t->back);
}

/* Queues s on r behind a VALUE_WAIT for 1 at flag (user_data 1), and lets r park on it. */
static void run_late_hold(struct run_late *t, uint64_t flag, const struct npu_sqe *s)
{
	struct npu_sqe hold = value_wait(flag, 1, NPU_WAIT_EQ, 1);

	t_ring_push(&t->r, &hold);
	t_ring_push(&t->r, s);
	submit(t->f, &t->r, 2);
	usleep(10000);
}

/* Writes 1 at flag: the held ring runs both; each completes with 0. */
static void run_late_release(struct run_late *t, uint64_t flag)
{
	struct npu_cqe c;

	host_write_u64(t->f, &t->io, flag, 1);
	assert_int_equal(wait_cqes(t->f, &t->r, 2, 10000), 0);
	for (int i = 0; i < 2; i++) {
		assert_true(t_ring_pop(&t->r, &c));
		assert_int_equal(c.res, 0);
	}
}

/*
 * d2 now holds src[soff, soff + n) at off, and 0xBB before it and in the
 * 64 bytes after it.
 */
static void run_late_check_window(struct run_late *t, size_t off, size_t soff, size_t n)
{
	struct npu_sqe s = t_copy(NPU_DIR_D2H, (uintptr_t)t->back, t->d2, t->big);

	assert_int_equal(t_ring_run(t->f, &t->io, &s), 0);
	for (size_t i = 0; i < off; i++)
		assert_int_equal(t->back[i], 0xBB);
	assert_memory_equal(t->back + off, t->src + soff, n);
	for (size_t i = off + n; i < off + n + 64; i++)
		assert_int_equal(t->back[i], 0xBB);
}

/* Runs s (a copy of all big bytes from d to d2: the split path) and checks d2. */
static void run_late_check_whole(struct run_late *t, const struct npu_sqe *s)
{
	struct npu_sqe back;

	assert_int_equal(t_ring_run(t->f, &t->r, s), 0);
	back = t_copy(NPU_DIR_D2H, (uintptr_t)t->back, t->d2, t->big);
	assert_int_equal(t_ring_run(t->f, &t->io, &back), 0);
	assert_memory_equal(t->back, t->src, t->big);
}

/* One malformed descriptor, alone on the ring, and the result it must complete with. */
struct sqe_row {
	const char *what;
	struct npu_sqe s;
	int32_t res;
};

static void run_sqe_rows(struct file *f, struct t_ring *r, const struct sqe_row *rows,
			 unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		int32_t res = t_ring_run(f, r, &rows[i].s);

		if (res != rows[i].res)
			fail_msg("%s: res %d, expected %d", rows[i].what, res, rows[i].res);
	}
}

/*
 * COPY_INDIRECT reads its record when it runs, not when it is queued: a
 * record rewritten while the ring is held decides the copy. Large copies
 * take the split path like any COPY.
 */
static void test_copy_indirect_reads_its_record_when_it_runs(void **state)
{
	enum { N = 3 * 4096 + 100, BIG = 12 << 20 };
	struct run_late t;
	struct npu_sqe s;
	uint64_t rec;

	(void)state;
	run_late_init(&t, BIG, 21);
	rec = alloc(t.f, 4096);
	host_write_u64(t.f, &t.io, rec + 64, 0);
	write_record(t.f, &t.io, rec, t.d, t.d2, N, 0);
	s = copy_indirect(rec, 2);
	run_late_hold(&t, rec + 64, &s);
	/* Queued already; the record changes before it runs. */
	write_record(t.f, &t.io, rec, t.d + 64, t.d2 + 128, N, 0);
	run_late_release(&t, rec + 64);
	run_late_check_window(&t, 128, 64, N);
	/* A record of BIG bytes: the split path. */
	write_record(t.f, &t.io, rec, t.d, t.d2, BIG, 0);
	s = copy_indirect(rec, 3);
	run_late_check_whole(&t, &s);
	run_late_fini(&t);
}

/*
 * Hostile records and descriptors: each fails alone with -EINVAL or
 * -EFAULT, and nothing outside the context's allocations is touched (the
 * host buffer a record names stays as it was).
 */
static void test_copy_indirect_rejects_hostile_records(void **state)
{
	uint8_t host[4096];
	struct t_ring r;
	struct file *f;
	uint64_t d, d2, rec;

	(void)state;
	memset(host, 0x5C, sizeof(host));
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	d = alloc(f, 8192);
	d2 = alloc(f, 8192);
	rec = alloc(f, 4096);
	const uint64_t h = (uintptr_t)host;
	const struct {
		const char *what;
		uint64_t src, dst, len, rsvd;
		int32_t res;
	} records[] = {
		{ "len 0", d, d2, 0, 0, -EINVAL },
		{ "rsvd set", d, d2, 64, 1, -EINVAL },
		{ "src past the end", d + 8192 * 64, d2, 64, 0, -EFAULT },
		{ "len past dst's end", d, d2 + 8000, 8192, 0, -EFAULT },
		{ "len wraps", d, d2, UINT64_MAX, 0, -EFAULT },
		{ "dst a host address", d, h, 64, 0, -EFAULT },
		{ "src a host address", h, d2, 64, 0, -EFAULT },
		{ "dst unmapped", d, d2 + 64 * T_MIB, 64, 0, -EFAULT },
		{ "src 0", 0, d2, 64, 0, -EFAULT },
	};
	for (unsigned int i = 0; i < sizeof(records) / sizeof(records[0]); i++) {
		struct npu_sqe s = copy_indirect(rec, 100 + i);
		int32_t res;

		write_record(f, &r, rec, records[i].src, records[i].dst, records[i].len,
			     records[i].rsvd);
		res = t_ring_run(f, &r, &s);
		if (res != records[i].res)
			fail_msg("record %s: res %d, expected %d", records[i].what, res,
				 records[i].res);
	}
	const struct sqe_row sqes[] = {
		{ "record unaligned", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D,
					.src = rec + 8 }, -EINVAL },
		{ "record unmapped", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D,
				       .src = rec + 64 * T_MIB }, -EFAULT },
		{ "record in host memory", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D,
					     .src = h & ~31ULL }, -EFAULT },
		{ "dir H2D", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_H2D, .src = rec },
		  -EINVAL },
		{ "dst set", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D, .src = rec,
			       .dst = d2 }, -EINVAL },
		{ "len set", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D, .src = rec,
			       .len = 64 }, -EINVAL },
		{ "value set", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D, .src = rec,
				 .value = 1 }, -EINVAL },
		{ "pitches set", { .opcode = NPU_OP_COPY_INDIRECT, .dir = NPU_DIR_D2D, .src = rec,
				   .dpitch = 64 }, -EINVAL },
	};
	write_record(f, &r, rec, d, d2, 64, 0);
	run_sqe_rows(f, &r, sqes, sizeof(sqes) / sizeof(sqes[0]));
	for (size_t i = 0; i < sizeof(host); i++)
		assert_int_equal(host[i], 0x5C);
	t_close(f);
	t_ring_unmap(&r);
}

static struct npu_sqe copy_deref(uint64_t dslot, uint64_t doff, uint64_t sslot, uint64_t soff,
				 uint64_t len, uint64_t ud)
{
	struct npu_sqe s = { .opcode = NPU_OP_COPY_DEREF, .dir = NPU_DIR_D2D, .dst = dslot,
			     .src = sslot, .len = len, .dst_off = doff, .src_off = soff,
			     .user_data = ud };
	return s;
}

/*
 * COPY_DEREF loads its two slots when it runs, not when it is queued:
 * slots rewritten while the ring is held decide the copy, at the
 * descriptor's offsets. Large copies take the split path like any COPY.
 */
static void test_copy_deref_reads_its_slots_when_it_runs(void **state)
{
	enum { N = 3 * 4096 + 100, BIG = 12 << 20 };
	struct run_late t;
	struct npu_sqe s;
	uint64_t slots;

	(void)state;
	run_late_init(&t, BIG, 31);
	slots = alloc(t.f, 4096);
	host_write_u64(t.f, &t.io, slots + 64, 0);
	host_write_u64(t.f, &t.io, slots, t.d2);
	host_write_u64(t.f, &t.io, slots + 8, t.d);
	s = copy_deref(slots, 128, slots + 8, 64, N, 2);
	run_late_hold(&t, slots + 64, &s);
	/* Queued already; the bases change before it runs. */
	host_write_u64(t.f, &t.io, slots, t.d2 + 4096);
	host_write_u64(t.f, &t.io, slots + 8, t.d + 8192);
	run_late_release(&t, slots + 64);
	run_late_check_window(&t, 4096 + 128, 8192 + 64, N);
	/* BIG bytes: the split path. */
	host_write_u64(t.f, &t.io, slots, t.d2);
	host_write_u64(t.f, &t.io, slots + 8, t.d);
	s = copy_deref(slots, 0, slots + 8, 0, BIG, 3);
	run_late_check_whole(&t, &s);
	run_late_fini(&t);
}

/*
 * Hostile slot values and descriptors: each fails alone with -EINVAL or
 * -EFAULT, and nothing is written (the destination allocation and the
 * host buffer a slot names stay as they were).
 */
static void test_copy_deref_rejects_hostile_slots(void **state)
{
	uint8_t host[4096], back[8192];
	struct t_ring r;
	struct file *f;
	uint64_t d, d2, slots;

	(void)state;
	memset(host, 0x5C, sizeof(host));
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	d = alloc(f, 8192);
	d2 = alloc(f, 8192);
	slots = alloc(f, 4096);
	struct npu_sqe m = t_memset(NPU_DIR_H2D, d2, 0xBB, 8192);

	assert_int_equal(t_ring_run(f, &r, &m), 0);
	const uint64_t h = (uintptr_t)host;
	const struct {
		const char *what;
		uint64_t dbase, doff, sbase, soff, len;
		int32_t res;
	} rows[] = {
		{ "dst base + offset wraps", d2, UINT64_MAX - d2 + 1, d, 0, 64, -EINVAL },
		{ "src base + offset wraps", d2, 0, d, UINT64_MAX, 64, -EINVAL },
		{ "both offsets wrap to the bases", d2, UINT64_MAX, d, UINT64_MAX, 64, -EINVAL },
		{ "dst past its end", d2, 8192 - 32, d, 0, 64, -EFAULT },
		{ "src past its end", d2, 0, d, 8192 - 32, 64, -EFAULT },
		{ "len wraps the range", d2, 0, d, 0, UINT64_MAX, -EFAULT },
		{ "dst base a host address", h, 0, d, 0, 64, -EFAULT },
		{ "src base a host address", d2, 0, h, 0, 64, -EFAULT },
		{ "dst base unmapped", d2 + 64 * T_MIB, 0, d, 0, 64, -EFAULT },
		{ "bases 0", 0, 0, 0, 0, 64, -EFAULT },
	};
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct npu_sqe s = copy_deref(slots, rows[i].doff, slots + 8, rows[i].soff,
					      rows[i].len, 100 + i);
		int32_t res;

		host_write_u64(f, &r, slots, rows[i].dbase);
		host_write_u64(f, &r, slots + 8, rows[i].sbase);
		res = t_ring_run(f, &r, &s);
		if (res != rows[i].res)
			fail_msg("slots %s: res %d, expected %d", rows[i].what, res, rows[i].res);
	}
	host_write_u64(f, &r, slots, d2);
	host_write_u64(f, &r, slots + 8, d);
	const struct sqe_row sqes[] = {
		{ "dst slot unaligned", copy_deref(slots + 4, 0, slots + 8, 0, 64, 1), -EINVAL },
		{ "src slot unaligned", copy_deref(slots, 0, slots + 9, 0, 64, 1), -EINVAL },
		{ "dst slot unmapped", copy_deref(slots + 64 * T_MIB, 0, slots + 8, 0, 64, 1),
		  -EFAULT },
		{ "src slot unmapped", copy_deref(slots, 0, slots + 64 * T_MIB, 0, 64, 1),
		  -EFAULT },
		{ "dst slot in host memory", copy_deref(h & ~7ULL, 0, slots + 8, 0, 64, 1),
		  -EFAULT },
		{ "src slot in host memory", copy_deref(slots, 0, h & ~7ULL, 0, 64, 1), -EFAULT },
		{ "len 0", copy_deref(slots, 0, slots + 8, 0, 0, 1), -EINVAL },
	};
	run_sqe_rows(f, &r, sqes, sizeof(sqes) / sizeof(sqes[0]));
	const struct {
		const char *what;
		struct npu_sqe s;
	} malformed[] = {
		{ "dir H2D", { .opcode = NPU_OP_COPY_DEREF, .dir = NPU_DIR_H2D, .dst = slots,
			       .src = slots + 8, .len = 64 } },
		{ "cond set", { .opcode = NPU_OP_COPY_DEREF, .dir = NPU_DIR_D2D, .dst = slots,
				.src = slots + 8, .len = 64, .cond = 1 } },
		{ "rsvd2 set", { .opcode = NPU_OP_COPY_DEREF, .dir = NPU_DIR_D2D, .dst = slots,
				 .src = slots + 8, .len = 64, .rsvd2 = 1 } },
		{ "flags set", { .opcode = NPU_OP_COPY_DEREF, .dir = NPU_DIR_D2D, .dst = slots,
				 .src = slots + 8, .len = 64, .flags = 1 } },
	};
	for (unsigned int i = 0; i < sizeof(malformed) / sizeof(malformed[0]); i++) {
		int32_t res = t_ring_run(f, &r, &malformed[i].s);

		if (res != -EINVAL)
			fail_msg("%s: res %d, expected %d", malformed[i].what, res, -EINVAL);
	}
	struct npu_sqe s = t_copy(NPU_DIR_D2H, (uintptr_t)back, d2, sizeof(back));

	assert_int_equal(t_ring_run(f, &r, &s), 0);
	for (size_t i = 0; i < sizeof(back); i++)
		assert_int_equal(back[i], 0xBB);
	for (size_t i = 0; i < sizeof(host); i++)
		assert_int_equal(host[i], 0x5C);
	/* The slots as they are now: the copy runs. */
	s = copy_deref(slots, 0, slots + 8, 0, 64, 9);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	t_close(f);
	t_ring_unmap(&r);
}

/* COPY2D: rows at their pitches, gaps untouched; H2D, D2D and D2H. */
static void test_copy2d_moves_rows(void **state)
{
	enum { W = 300, H = 20, SP = 512, DP = 1024 };
	uint8_t *src = malloc(SP * H), *back = malloc(DP * H), *out = malloc(SP * H);
	struct t_ring r;
	struct file *f;
	uint64_t d, d2;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	d = alloc(f, DP * H);
	d2 = alloc(f, DP * H);
	fill(src, SP * H, 9);
	struct npu_sqe s = t_memset(NPU_DIR_H2D, d, 0xAA, DP * H);

	assert_int_equal(t_ring_run(f, &r, &s), 0);
	s = t_memset(NPU_DIR_H2D, d2, 0xBB, DP * H);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	s = (struct npu_sqe){ .opcode = NPU_OP_COPY2D, .dir = NPU_DIR_H2D, .dst = d,
			      .src = (uintptr_t)src, .len = W, .value = H, .dpitch = DP,
			      .spitch = SP, .user_data = 1 };
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	s = (struct npu_sqe){ .opcode = NPU_OP_COPY2D, .dir = NPU_DIR_D2D, .dst = d2, .src = d,
			      .len = W, .value = H, .dpitch = DP, .spitch = DP, .user_data = 2 };
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, d2, DP * H);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	for (int row = 0; row < H; row++) {
		assert_memory_equal(back + row * DP, src + row * SP, W);
		for (int i = W; i < DP; i++)
			assert_int_equal(back[row * DP + i], 0xBB);
	}
	memset(out, 0xCC, SP * H);
	s = (struct npu_sqe){ .opcode = NPU_OP_COPY2D, .dir = NPU_DIR_D2H, .dst = (uintptr_t)out,
			      .src = d2, .len = W, .value = H, .dpitch = SP, .spitch = DP,
			      .user_data = 3 };
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	for (int row = 0; row < H; row++) {
		assert_memory_equal(out + row * SP, src + row * SP, W);
		if (row + 1 < H)
			assert_int_equal(out[row * SP + W], 0xCC);
	}
	t_close(f);
	t_ring_unmap(&r);
	free(src);
	free(back);
	free(out);
}

/* Runs one REDUCE of n bytes of the given op and type from s into d. */
static int32_t run_reduce(struct file *f, struct t_ring *r, uint64_t d, uint64_t s, uint64_t n,
			  uint32_t op, uint32_t type)
{
	struct npu_sqe q = { .opcode = NPU_OP_REDUCE, .dir = NPU_DIR_D2D, .dst = d, .src = s,
			     .len = n, .value = NPU_REDUCE_VALUE(op, type), .user_data = 77 };

	return t_ring_run(f, r, &q);
}

static void put(struct file *f, struct t_ring *r, uint64_t va, const void *p, size_t n)
{
	struct npu_sqe s = t_copy(NPU_DIR_H2D, va, (uintptr_t)p, n);

	assert_int_equal(t_ring_run(f, r, &s), 0);
}

static void get(struct file *f, struct t_ring *r, void *p, uint64_t va, size_t n)
{
	struct npu_sqe s = t_copy(NPU_DIR_D2H, (uintptr_t)p, va, n);

	assert_int_equal(t_ring_run(f, r, &s), 0);
}

static uint16_t f16_bits(_Float16 h)
{
	uint16_t b;

	memcpy(&b, &h, sizeof(b));
	return b;
}

/*
 * REDUCE combines each element with the one it lands on: sums that round
 * (binary16 computed in single precision, as the host's _Float16 does),
 * subnormals, overflow to infinity, MAX and MIN with a NaN on either side,
 * products, wrapping integer sums and products; and a reduction of more than one FPU piece and
 * across the pages of a huge allocation.
 */
static void test_reduce_combines_elements(void **state)
{
	enum { N = 1 << 20 };
	static const float fd[] = { 1.0f, -2.5f, 3.0e38f, 1.0e-45f, 0.1f, -0.0f, NAN, 5.0f };
	static const float fs[] = { 2.0f, 0.25f, 3.0e38f, 1.0e-45f, 0.2f, 0.0f, 1.0f, NAN };
	static const _Float16 hd[] = { 1.0f16, 65504.0f16, 0.000061035f16, 0.1f16, -3.0f16, 2.0f16 };
	static const _Float16 hs[] = { 0.0009765625f16, 65504.0f16, -0.00006103f16, 0.2f16, 1.5f16,
				       0.00048828125f16 };
	const int8_t bd[] = { 127, -128, 5, -7 }, bs[] = { 1, -1, -9, 7 };
	const int32_t id[] = { INT32_MAX, -5, 40 }, is[] = { 1, 7, -41 };
	float fo[8];
	_Float16 ho[6];
	int8_t bo[4];
	int32_t io[3];
	uint16_t bf[4] = { 0x3f80, 0x4000, 0xc040, 0x7f80 }, bfs[4] = { 0x3f80, 0x4000, 0x3f80, 0x3f80 };
	float *big = malloc(N * sizeof(float)), *big2 = malloc(N * sizeof(float));
	struct t_ring r;
	struct file *f;
	uint64_t d, s;

	(void)state;
	assert_non_null(big);
	assert_non_null(big2);
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	d = alloc(f, N * sizeof(float));
	s = alloc(f, N * sizeof(float));

	for (uint32_t op = 0; op < NPU_REDUCE_OP_COUNT; op++) {
		put(f, &r, d, fd, sizeof(fd));
		put(f, &r, s, fs, sizeof(fs));
		assert_int_equal(run_reduce(f, &r, d, s, sizeof(fd), op, NPU_REDUCE_F32), 0);
		get(f, &r, fo, d, sizeof(fo));
		for (unsigned int i = 0; i < 8; i++) {
			float want = op == NPU_REDUCE_SUM ? fd[i] + fs[i] :
				     op == NPU_REDUCE_PROD ? fd[i] * fs[i] :
				     isnan(fd[i]) || isnan(fs[i]) ? NAN :
				     op == NPU_REDUCE_MAX ? (fs[i] > fd[i] ? fs[i] : fd[i]) :
							    (fs[i] < fd[i] ? fs[i] : fd[i]);

			if (isnan(want) ? !isnan(fo[i]) : memcmp(&want, &fo[i], sizeof(want)))
				fail_msg("f32 op %u element %u: %a, want %a", op, i, fo[i], want);
		}

		put(f, &r, d, hd, sizeof(hd));
		put(f, &r, s, hs, sizeof(hs));
		assert_int_equal(run_reduce(f, &r, d, s, sizeof(hd), op, NPU_REDUCE_F16), 0);
		get(f, &r, ho, d, sizeof(ho));
		for (unsigned int i = 0; i < 6; i++) {
			_Float16 want = op == NPU_REDUCE_SUM ? (_Float16)((float)hd[i] + (float)hs[i]) :
					op == NPU_REDUCE_PROD ? (_Float16)((float)hd[i] * (float)hs[i]) :
					op == NPU_REDUCE_MAX ? (hs[i] > hd[i] ? hs[i] : hd[i]) :
							       (hs[i] < hd[i] ? hs[i] : hd[i]);

			if (f16_bits(want) != f16_bits(ho[i]))
				fail_msg("f16 op %u element %u: %#x, want %#x", op, i, f16_bits(ho[i]),
					 f16_bits(want));
		}

		put(f, &r, d, bd, sizeof(bd));
		put(f, &r, s, bs, sizeof(bs));
		assert_int_equal(run_reduce(f, &r, d, s, sizeof(bd), op, NPU_REDUCE_S8), 0);
		get(f, &r, bo, d, sizeof(bo));
		for (unsigned int i = 0; i < 4; i++) {
			int8_t want = op == NPU_REDUCE_SUM ? (int8_t)(uint8_t)(bd[i] + bs[i]) :
				      op == NPU_REDUCE_PROD ? (int8_t)(uint8_t)(bd[i] * bs[i]) :
				      op == NPU_REDUCE_MAX ? (bs[i] > bd[i] ? bs[i] : bd[i]) :
							     (bs[i] < bd[i] ? bs[i] : bd[i]);

			assert_int_equal(bo[i], want);
		}

		put(f, &r, d, id, sizeof(id));
		put(f, &r, s, is, sizeof(is));
		assert_int_equal(run_reduce(f, &r, d, s, sizeof(id), op, NPU_REDUCE_S32), 0);
		get(f, &r, io, d, sizeof(io));
		for (unsigned int i = 0; i < 3; i++) {
			int32_t want = op == NPU_REDUCE_SUM ? (int32_t)((uint32_t)id[i] + (uint32_t)is[i]) :
				       op == NPU_REDUCE_PROD ? (int32_t)((uint32_t)id[i] * (uint32_t)is[i]) :
				       op == NPU_REDUCE_MAX ? (is[i] > id[i] ? is[i] : id[i]) :
							      (is[i] < id[i] ? is[i] : id[i]);

			assert_int_equal(io[i], want);
		}
	}

	/* bfloat16: 1+1, 2+2, -3+1, inf+1. */
	put(f, &r, d, bf, sizeof(bf));
	put(f, &r, s, bfs, sizeof(bfs));
	assert_int_equal(run_reduce(f, &r, d, s, sizeof(bf), NPU_REDUCE_SUM, NPU_REDUCE_BF16), 0);
	get(f, &r, bf, d, sizeof(bf));
	assert_int_equal(bf[0], 0x4000);
	assert_int_equal(bf[1], 0x4080);
	assert_int_equal(bf[2], 0xc000);
	assert_int_equal(bf[3], 0x7f80);

	/* 4 MiB: many FPU pieces, both 2 MiB pages. */
	for (unsigned int i = 0; i < N; i++) {
		big[i] = (float)i;
		big2[i] = 0.5f;
	}
	put(f, &r, d, big, N * sizeof(float));
	put(f, &r, s, big2, N * sizeof(float));
	assert_int_equal(run_reduce(f, &r, d, s, N * sizeof(float), NPU_REDUCE_SUM, NPU_REDUCE_F32), 0);
	get(f, &r, big, d, N * sizeof(float));
	for (unsigned int i = 0; i < N; i++)
		if (big[i] != (float)i + 0.5f)
			fail_msg("element %u: %a", i, big[i]);
	t_close(f);
	t_ring_unmap(&r);
	free(big);
	free(big2);
}

/* What a parked ring holds is cancelled, and the ring keeps working. */
static void test_abort_and_destroy_cancel_a_parked_ring(void **state)
{
	uint8_t back[64];
	struct t_ring a, h;
	struct npu_cqe c;
	struct file *f;
	uint64_t word, x;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &a, 16, 16), 0);
	assert_int_equal(t_ring_create(f, &h, 8, 8), 0);
	word = alloc(f, 4096);
	x = alloc(f, 4096);
	host_write_u64(f, &h, word, 0);
	struct npu_sqe s = t_memset(NPU_DIR_H2D, x, 0x11, 64);

	assert_int_equal(t_ring_run(f, &h, &s), 0);

	for (int round = 0; round < 2; round++) {
		s = value_wait(word, 9, NPU_WAIT_EQ, 1);
		t_ring_push(&a, &s);
		for (int i = 0; i < 5; i++) {
			s = t_memset(NPU_DIR_H2D, x, 0x22, 64);
			s.user_data = 2 + i;
			t_ring_push(&a, &s);
		}
		submit(f, &a, 6);
		assert_int_equal(wait_cqes(f, &a, 1, 30), -ETIME);
		if (round == 0) {
			struct npu_ring_abort ab = { .ring_id = a.id };

			assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ABORT, &ab), 0);
		} else {
			struct npu_ring_destroy d = { .ring_id = a.id };

			assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), 0);
		}
		/* Every one of them, in order, is in the CQ when the call returns. */
		assert_int_equal(cq_ready(&a), 6);
		for (int i = 0; i < 6; i++) {
			assert_true(t_ring_pop(&a, &c));
			assert_int_equal(c.user_data, 1 + i);
			assert_int_equal(c.res, -ECANCELED);
		}
		/* None of the memsets ran. */
		s = t_copy(NPU_DIR_D2H, (uintptr_t)back, x, 64);
		assert_int_equal(t_ring_run(f, &h, &s), 0);
		assert_int_equal(back[0], 0x11);
		assert_int_equal(back[63], 0x11);
		if (round == 0) {
			/* After an abort the ring runs new work as usual. */
			s = t_memset(NPU_DIR_H2D, x + 64, 0x33, 8);
			s.user_data = 77;
			assert_int_equal(t_ring_run(f, &a, &s), 0);
			assert_int_equal(host_read_u64(f, &h, x + 64), 0x3333333333333333ULL);
			/* Nothing pending: an abort is a no-op. */
			struct npu_ring_abort ab = { .ring_id = a.id };

			assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ABORT, &ab), 0);
			assert_int_equal(cq_ready(&a), 0);
		}
	}
	/* Destroyed: the id is gone. */
	struct npu_ring_abort ab = { .ring_id = a.id };

	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ABORT, &ab), -ENOENT);
	t_close(f);
	t_ring_unmap(&a);
	t_ring_unmap(&h);
}

/* Copies past NPU_ENGINE_SPLIT_MIN run in chunks on the idle engines. */
static void test_split_large_copy_keeps_data(void **state)
{
	const size_t n = 40 * T_MIB + 12345;
	uint8_t *src = malloc(n), *back = malloc(n);
	struct t_ring r;
	struct file *f;
	uint64_t d, d2;

	(void)state;
	assert_non_null(src);
	assert_non_null(back);
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	d = alloc(f, n);
	d2 = alloc(f, n + 4096);
	fill(src, n, 12);
	struct npu_sqe s = t_copy(NPU_DIR_H2D, d, (uintptr_t)src, n);

	assert_int_equal(t_ring_run(f, &r, &s), 0);
	s = t_copy(NPU_DIR_D2D, d2 + 3, d, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	memset(back, 0, n);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, d2 + 3, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	assert_memory_equal(back, src, n);
	/* A large fill too. */
	s = t_memset(NPU_DIR_H2D, d, 0x6B, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, d, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	for (size_t i = 0; i < n; i += 4093)
		assert_int_equal(back[i], 0x6B);
	assert_int_equal(back[n - 1], 0x6B);
	/* A split copy that faults part way fails as a whole, alone. */
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, d, n + 8 * T_MIB);
	assert_int_equal(t_ring_run(f, &r, &s), -EFAULT);
	s = t_copy(NPU_DIR_D2D, d2, d, 4096);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	t_close(f);
	t_ring_unmap(&r);
	free(src);
	free(back);
}

/* Counter @name of debugfs file npu/npu0/@file (lines "name value"). */
static long debugfs_count(const char *file, const char *name)
{
	char path[64], buf[256] = "\n", key[32], *p;
	long n = -1;

	snprintf(path, sizeof(path), "npu/npu0/%s", file);
	/* A line starts after a newline: read the file behind one. */
	snprintf(key, sizeof(key), "\n%s ", name);
	assert_true(mock_debugfs_read(path, buf + 1, sizeof(buf) - 1) > 0);
	p = strstr(buf, key);
	assert_non_null(p);
	assert_int_equal(sscanf(p + strlen(key), "%ld", &n), 1);
	return n;
}

/* A counter of debugfs npu/npu0/engines: "split", "helped" or "nudged". */
static long engines_stat(const char *name)
{
	return debugfs_count("engines", name);
}

/* Up to ten seconds for @n copies to wait at gate @id; false on timeout. */
static bool wait_at_gate(int id, unsigned long n)
{
	for (int i = 0; i < 100000; i++) {
		if (mock_gate_waiting(id) == n)
			return true;
		usleep(100);
	}
	return false;
}

/* Up to ten seconds for a helping engine to run a chunk after @before. */
static bool wait_helped(long before)
{
	for (int i = 0; i < 100000; i++) {
		if (engines_stat("helped") > before)
			return true;
		usleep(100);
	}
	return false;
}

/*
 * An engine that comes free while another runs a large copy takes chunks
 * of it, although no engine was idle when the copy began. Of the three
 * engines (setup), two are held in small copies on rings of their own and
 * the third in the first chunk of the large copy (gates on their host
 * buffers); one of the two is let go, and must take a chunk while the
 * large copy's own engine is still held.
 */
static void test_split_copy_is_shared_with_an_engine_that_comes_free(void **state)
{
	enum { SMALL = 4096, HELD = 2 };
	const size_t n = 16 * T_MIB;
	uint8_t *src = malloc(n), *back = malloc(n), *small[HELD];
	struct t_ring big, other[HELD];
	struct npu_sqe s;
	struct npu_cqe c;
	uint64_t d, d_small[HELD];
	uint32_t submitted = 0;
	int g_small[HELD], g_big;
	long helped;
	struct file *f;

	(void)state;
	assert_non_null(src);
	assert_non_null(back);
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &big, 4, 4), 0);
	d = alloc(f, n);
	fill(src, n, 21);
	for (int i = 0; i < HELD; i++) {
		small[i] = malloc(SMALL);
		assert_non_null(small[i]);
		fill(small[i], SMALL, 22 + i);
		assert_int_equal(t_ring_create(f, &other[i], 4, 4), 0);
		d_small[i] = alloc(f, SMALL);
		g_small[i] = mock_gate_close(small[i], SMALL);
		assert_true(g_small[i] >= 0);
	}
	g_big = mock_gate_close(src, 1);
	assert_true(g_big >= 0);
	helped = engines_stat("helped");

	/* Doorbells without waiting: the engines run the rings. */
	for (int i = 0; i < HELD; i++) {
		s = t_copy(NPU_DIR_H2D, d_small[i], (uintptr_t)small[i], SMALL);
		t_ring_push(&other[i], &s);
		assert_int_equal(t_ring_enter(f, &other[i], 1, 0, 0, &submitted), 0);
		assert_true(wait_at_gate(g_small[i], 1));
	}
	s = t_copy(NPU_DIR_H2D, d, (uintptr_t)src, n);
	s.user_data = 2;
	t_ring_push(&big, &s);
	assert_int_equal(t_ring_enter(f, &big, 1, 0, 0, &submitted), 0);
	assert_true(wait_at_gate(g_big, 1));

	mock_gate_open(g_small[0]);
	assert_true(t_ring_wait_completed(&other[0], 1));
	assert_true(wait_helped(helped));
	assert_false(t_ring_pop(&big, &c));
	mock_gate_open(g_big);
	mock_gate_open(g_small[1]);
	assert_true(t_ring_wait_completed(&big, 1));
	assert_true(t_ring_pop(&big, &c));
	assert_int_equal(c.user_data, 2);
	assert_int_equal(c.res, 0);

	memset(back, 0, n);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, d, n);
	assert_int_equal(t_ring_run(f, &big, &s), 0);
	assert_memory_equal(back, src, n);
	for (int i = 0; i < HELD; i++) {
		assert_true(t_ring_wait_completed(&other[i], 1));
		assert_true(t_ring_pop(&other[i], &c));
		assert_int_equal(c.res, 0);
		s = t_copy(NPU_DIR_D2H, (uintptr_t)back, d_small[i], SMALL);
		assert_int_equal(t_ring_run(f, &big, &s), 0);
		assert_memory_equal(back, small[i], SMALL);
	}
	t_close(f);
	t_ring_unmap(&big);
	for (int i = 0; i < HELD; i++) {
		t_ring_unmap(&other[i]);
		free(small[i]);
	}
	free(src);
	free(back);
}

/*
 * A translation cache hit lends the slot's reference instead of taking
 * one, so a slot must not be refilled while a range borrows it: the
 * memory of an allocation freed meanwhile lives on in that reference
 * alone. Driven directly, as an engine does for the two operands of a
 * copy: a hit on x, then misses on y and z, then x is freed; x's bytes
 * must still be read through the borrowed range, and everything is
 * released when the range is put and the cache emptied.
 */
static void test_translation_lent_to_a_range_is_not_refilled(void **state)
{
	enum { BYTES = 4096 };
	uint8_t host[BYTES];
	struct npu_mem_xlate xl = { 0 };
	struct npu_mem_range rx, ry, rz, first;
	struct npu_ctx *ctx;
	struct t_ring r;
	struct npu_sqe s;
	struct npu_phys *px;
	uint64_t x, y, z;
	u64 len;
	void *k;
	struct file *f;

	(void)state;
	f = open_ctx();
	ctx = f->private_data;
	assert_int_equal(t_ring_create(f, &r, 4, 4), 0);
	x = alloc(f, BYTES);
	y = alloc(f, BYTES);
	z = alloc(f, BYTES);
	fill(host, BYTES, 31);
	s = t_copy(NPU_DIR_H2D, x, (uintptr_t)host, BYTES);
	assert_int_equal(t_ring_run(f, &r, &s), 0);

	/* A miss fills a slot; the range holds its own reference. */
	assert_int_equal(npu_mem_range_get_cached(ctx, &xl, x, BYTES, false, &first), 0);
	assert_null(first.lender);
	npu_mem_range_put(&first);
	/* A hit borrows it. */
	assert_int_equal(npu_mem_range_get_cached(ctx, &xl, x, BYTES, false, &rx), 0);
	assert_non_null(rx.lender);
	px = rx.part[0].phys;
	assert_int_equal(rx.lender->lent, 1);
	/* Two misses: both go to the other slot, never to x's. */
	assert_int_equal(npu_mem_range_get_cached(ctx, &xl, y, BYTES, true, &ry), 0);
	assert_int_equal(npu_mem_range_get_cached(ctx, &xl, z, BYTES, true, &rz), 0);
	assert_ptr_equal(rx.lender->phys, px);
	assert_int_equal(rx.lender->start, x);

	/* x freed: its memory stays readable through the loan. */
	assert_int_equal(t_free(f, x), 0);
	k = npu_mem_range_seg(&rx, 0, &len);
	assert_non_null(k);
	assert_true(len >= BYTES);
	assert_memory_equal(k, host, BYTES);

	npu_mem_range_put(&rz);
	npu_mem_range_put(&ry);
	npu_mem_range_put(&rx);
	assert_null(rx.lender);
	npu_mem_xlate_drop(&xl);
	t_close(f);
	t_ring_unmap(&r);
}

/* Rings run by their submitters so far (debugfs npu/npu0/doorbells). */
static long inline_runs(void)
{
	return debugfs_count("doorbells", "inline");
}

/*
 * A submitter that waits runs the ring in its own thread: async work
 * published before (no doorbell) runs first, in order, and the CQEs are
 * there when RING_ENTER returns. When the head is a VALUE_WAIT that is
 * false, the run stops there and the engines take the ring over: a write
 * from another ring releases it, and what follows still runs in order.
 */
static void test_sync_enter_runs_earlier_work_first_in_the_caller(void **state)
{
	enum { BYTES = 8192 };
	uint8_t src[BYTES], back[BYTES];
	struct t_ring r, w;
	struct npu_sqe s;
	struct npu_cqe c;
	uint64_t a, b, flag;
	uint32_t submitted = 0;
	long before;
	struct file *f;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 16, 16), 0);
	assert_int_equal(t_ring_create(f, &w, 4, 4), 0);
	a = alloc(f, BYTES);
	b = alloc(f, BYTES);
	flag = alloc(f, 4096);
	fill(src, BYTES, 11);

	/* Published as async work, no doorbell: nothing runs it yet. */
	s = t_copy(NPU_DIR_H2D, a, (uintptr_t)src, BYTES);
	s.user_data = 1;
	t_ring_push(&r, &s);
	s = t_copy(NPU_DIR_D2D, b, a, BYTES);
	s.user_data = 2;
	t_ring_push(&r, &s);
	usleep(20000);
	assert_int_equal(cq_ready(&r), 0);
	/* Then a synchronous copy that reads what they wrote. */
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, b, BYTES);
	s.user_data = 3;
	t_ring_push(&r, &s);
	before = inline_runs();
	assert_int_equal(t_ring_enter(f, &r, 3, 3, NPU_ENTER_GETEVENTS, &submitted), 0);
	assert_int_equal(submitted, 3);
	assert_int_equal(inline_runs(), before + 1);
	for (uint64_t i = 1; i <= 3; i++) {
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, i);
		assert_int_equal(c.res, 0);
	}
	assert_memory_equal(back, src, BYTES);

	/* A false VALUE_WAIT at the head: the engines take the rest over. */
	host_write_u64(f, &w, flag, 0);
	memset(back, 0, sizeof(back));
	s = value_wait(flag, 1, NPU_WAIT_EQ, 4);
	t_ring_push(&r, &s);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, b, BYTES);
	s.user_data = 5;
	t_ring_push(&r, &s);
	before = inline_runs();
	{
		struct npu_ring_enter e = {
			.ring_id = r.id, .to_submit = 2, .min_complete = 1,
			.flags = NPU_ENTER_GETEVENTS, .timeout_ns = 20 * 1000000ULL,
		};

		/* A failed RING_ENTER writes nothing back (submitted included). */
		assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), -ETIME);
	}
	assert_true(inline_runs() >= before + 1);
	assert_int_equal(cq_ready(&r), 0);
	host_write_u64(f, &w, flag, 1);
	assert_int_equal(wait_cqes(f, &r, 2, 10000), 0);
	for (uint64_t i = 4; i <= 5; i++) {
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, i);
		assert_int_equal(c.res, 0);
	}
	assert_memory_equal(back, src, BYTES);
	t_close(f);
	t_ring_unmap(&r);
	t_ring_unmap(&w);
}

/*
 * Translations an engine keeps for a batch: an allocation freed while the
 * batch runs, and a new one placed at its address, must not be reached
 * through the old translation. The batch is held in the middle by a copy
 * from host memory whose page is not there yet (userfaultfd, user-mode
 * faults only: no privilege needed); meanwhile the test frees the cached
 * allocation and allocates again at the same address. The next descriptor
 * of the same batch must write the new allocation; and a small copy within
 * it after that must not use the kernel-contiguous run the engine
 * remembered for the old one (descriptor 2 made it remember one), whose
 * frame another allocation (z) took.
 */
static void test_batch_translations_follow_a_free_and_reallocation(void **state)
{
	enum { BYTES = 4096 };
	uint8_t host[BYTES], back[BYTES], zero[BYTES] = { 0 };
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { 0 };
	struct uffdio_copy uc = { 0 };
	struct uffd_msg msg;
	struct pollfd pfd;
	struct t_ring r, w;
	struct npu_sqe s;
	struct npu_cqe c;
	uint64_t src, x, guard, y, z;
	long page = sysconf(_SC_PAGESIZE);
	uint8_t *lazy, *filler;
	struct file *f;
	int uffd;

	(void)state;
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api)) {
		print_message("userfaultfd unavailable (errno %d): skipped\n", errno);
		if (uffd >= 0)
			close(uffd);
		skip();
	}
	lazy = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	filler = aligned_alloc(page, page);
	assert_true(lazy != MAP_FAILED && filler);
	reg.range.start = (uintptr_t)lazy;
	reg.range.len = page;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	assert_int_equal(ioctl(uffd, UFFDIO_REGISTER, &reg), 0);

	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 16, 16), 0);
	assert_int_equal(t_ring_create(f, &w, 4, 4), 0);
	src = alloc(f, BYTES);
	x = alloc(f, BYTES);
	guard = alloc(f, BYTES);	/* keeps x's hole exactly x's size */
	fill(host, BYTES, 21);
	s = t_copy(NPU_DIR_H2D, src, (uintptr_t)host, BYTES);
	assert_int_equal(t_ring_run(f, &w, &s), 0);

	/*
	 * 1 caches src and x; 2, a small copy within x, remembers x's run;
	 * 3 blocks on the missing page; 4 writes x's address (a new
	 * translation in x's slot); 5 copies 64 bytes within it.
	 */
	s = t_copy(NPU_DIR_D2D, x, src, BYTES);
	s.user_data = 1;
	t_ring_push(&r, &s);
	s = t_copy(NPU_DIR_D2D, x + 64, x, 64);
	s.user_data = 2;
	t_ring_push(&r, &s);
	s = t_copy(NPU_DIR_H2D, guard, (uintptr_t)lazy, (uint64_t)page < BYTES ? page : BYTES);
	s.user_data = 3;
	t_ring_push(&r, &s);
	s = t_copy(NPU_DIR_H2D, x, (uintptr_t)host, BYTES);
	s.user_data = 4;
	t_ring_push(&r, &s);
	s = t_copy(NPU_DIR_D2D, x + 2048, x, 64);
	s.user_data = 5;
	t_ring_push(&r, &s);
	submit(f, &r, 5);

	pfd.fd = uffd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 10000), 1);
	assert_int_equal(read(uffd, &msg, sizeof(msg)), sizeof(msg));
	assert_int_equal(msg.event, UFFD_EVENT_PAGEFAULT);
	/* The engine is inside the batch, after descriptor 1. */
	assert_int_equal(t_free(f, x), 0);
	z = alloc(f, 2 * BYTES);	/* too big for x's hole: it may take x's frame */
	y = alloc(f, BYTES);
	assert_int_equal(y, x);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, y, BYTES);
	assert_int_equal(t_ring_run(f, &w, &s), 0);
	assert_memory_equal(back, zero, BYTES);	/* scrubbed, not x's bytes */

	memset(filler, 0x5a, page);
	uc.dst = (uintptr_t)lazy;
	uc.src = (uintptr_t)filler;
	uc.len = page;
	assert_int_equal(ioctl(uffd, UFFDIO_COPY, &uc), 0);
	assert_int_equal(wait_cqes(f, &r, 5, 10000), 0);
	for (uint64_t i = 1; i <= 5; i++) {
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, i);
		assert_int_equal(c.res, 0);
	}
	memcpy(host + 2048, host, 64);	/* what 5 did */
	s = t_copy(NPU_DIR_D2H, (uintptr_t)back, y, BYTES);
	assert_int_equal(t_ring_run(f, &w, &s), 0);
	assert_memory_equal(back, host, BYTES);
	/* z still holds what it was given: zeros, however its frames came. */
	for (uint64_t off = 0; off < 2 * BYTES; off += BYTES) {
		s = t_copy(NPU_DIR_D2H, (uintptr_t)back, z + off, BYTES);
		assert_int_equal(t_ring_run(f, &w, &s), 0);
		assert_memory_equal(back, zero, BYTES);
	}

	t_close(f);
	t_ring_unmap(&r);
	t_ring_unmap(&w);
	munmap(lazy, page);
	free(filler);
	close(uffd);
}

static int setup_coalesce(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	return mockdev_module_load("hbm_mb=64 engines=2 engine_poll_us=10000 engine_coalesce_us=5000");
}

/* Push n NOPs numbered from *ud; as a producer does, ring only if the ring sleeps. */
static void push_nops(struct file *f, struct t_ring *r, uint32_t n, uint64_t *ud)
{
	for (uint32_t i = 0; i < n; i++) {
		struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = (*ud)++ };

		t_ring_push(r, &nop);
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&r->hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_NEED_WAKEUP)
		submit(f, r, n);
}

/*
 * Completions nobody reaps (at least 16 in the CQ): the engine leaves the
 * ring alone for engine_coalesce_us (5 ms here) after a batch, to take
 * what gathered in one batch. Descriptors published meanwhile still run
 * without a doorbell once the pause is over, in order; and a waiter that
 * enters the driver takes the ring at once instead of sitting out the
 * pause.
 */
static void test_streamed_ring_gathers_but_a_waiter_takes_it_at_once(void **state)
{
	struct file *f = open_ctx();
	struct t_ring r;
	struct npu_cqe cqe;
	uint64_t ud = 1, want = 1;
	long nudged;

	(void)state;
	assert_int_equal(t_ring_create(f, &r, 256, 256), 0);
	push_nops(f, &r, 32, &ud);
	submit(f, &r, 32);
	assert_true(t_ring_wait_completed(&r, 32));
	/* 32 unreaped: the ring gathers; these run when the pause ends. */
	push_nops(f, &r, 32, &ud);
	assert_true(t_ring_wait_completed(&r, 64));
	assert_int_equal(cq_ready(&r), 64);

	/*
	 * 64 unreaped, gathering again: a waiter does not wait for the pause.
	 * Not timed (a loaded machine takes longer than the pause to schedule
	 * an engine): the driver counts the rings a waiter took out of their
	 * pause. The waiter may come after a pause ended (a round in which it
	 * was not scheduled for 5 ms, as under qemu-user beside other tests),
	 * so rounds, each reaping 32 and leaving 64, go on until one counts.
	 * A late round waits no longer for it: the waiter takes the ring
	 * then too, uncounted.
	 */
	nudged = engines_stat("nudged");
	for (int round = 0; round < 200 && engines_stat("nudged") == nudged; round++) {
		push_nops(f, &r, 32, &ud);
		assert_int_equal(wait_cqes(f, &r, 96, 10000), 0);
		assert_int_equal(cq_ready(&r), 96);
		for (int i = 0; i < 32; i++, want++) {
			assert_true(t_ring_pop(&r, &cqe));
			assert_int_equal(cqe.user_data, want);
			assert_int_equal(cqe.res, 0);
		}
	}
	assert_true(engines_stat("nudged") > nudged);

	for (; want < ud; want++) {
		assert_true(t_ring_pop(&r, &cqe));
		assert_int_equal(cqe.user_data, want);
		assert_int_equal(cqe.res, 0);
	}
	assert_false(t_ring_pop(&r, &cqe));
	t_close(f);
	t_ring_unmap(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_in_order_completion_within_a_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parked_ring_released_by_another_rings_write,
						setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_parked_ring_released_by_host_write_while_third_ring_runs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_four_wait_conditions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_and_2d_descriptors_fail_alone, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_timestamp_is_the_clock_when_it_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copy2d_moves_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reduce_combines_elements, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_indirect_reads_its_record_when_it_runs,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_indirect_rejects_hostile_records, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copy_deref_reads_its_slots_when_it_runs, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_copy_deref_rejects_hostile_slots, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_abort_and_destroy_cancel_a_parked_ring, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_split_large_copy_keeps_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_copy_is_shared_with_an_engine_that_comes_free,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_translation_lent_to_a_range_is_not_refilled,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_enter_runs_earlier_work_first_in_the_caller,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_translations_follow_a_free_and_reallocation,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_streamed_ring_gathers_but_a_waiter_takes_it_at_once,
						setup_coalesce, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
