// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The futex doorbell of rings created with NPU_RING_CREATE_FUTEX, against
 * the driver under the mock kernel (the build npud runs): a ring runs and
 * completes with no RING_ENTER at all; the futex words are the
 * application's to scribble on and the driver never trusts them; a flood
 * of wakes with nothing to do costs the driver a bounded number of looks
 * and then takes the futex doorbell away from that ring (RING_ENTER still
 * works); a waiter that dies asleep leaves nothing behind. Nothing leaks
 * and nothing WARNs.
 */
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>

#include "npu_test_util.h"
#include "../common/ring_futex_client.h"

/* The driver's budget of empty wakes per ring (npu_sched.c). */
#define DB_BUDGET	64
/* The driver's futex-watched rings per context and per process (npu_sched.c). */
#define DB_PER_CTX	8
#define DB_PER_PROC	32
#define DB_MAX		127
#define FLOOD_WAKES	200000

static long live_before_load;
static unsigned long warns_before;

static int load(const char *params)
{
	mock_fail_reset();
	live_before_load = mock_live_objects();
	warns_before = mock_warn_count();
	return mockdev_module_load(params);
}

static int setup(void **state)
{
	(void)state;
	/* A short poll window: rings go to sleep, and need doorbells, soon. */
	return load("hbm_mb=256 engines=2 engine_poll_us=20");
}

/* As setup(), with one process allowed every watched ring of the device. */
static int setup_one_process_may_fill(void **state)
{
	(void)state;
	return load("hbm_mb=256 engines=2 engine_poll_us=20 db_per_proc=127");
}

static int teardown(void **state)
{
	(void)state;
	mockdev_module_unload();
	assert_int_equal(mock_live_objects(), live_before_load);
	assert_int_equal(mock_warn_count(), warns_before);
	return 0;
}

static struct file *open_ctx(void)
{
	struct file *f;

	assert_int_equal(t_open(&f), 0);
	assert_int_equal(t_setup_at(f, T_VA_BASE), 0);
	return f;
}

static bool futex_offered(struct file *f)
{
	struct npu_version v = { 0 };

	assert_int_equal(t_ioctl(f, NPU_IOCTL_GET_VERSION, &v), 0);
	return v.features & NPU_FEATURE_FUTEX_DOORBELL;
}

/* As t_ring_create(), with @flags. */
static long ring_create(struct file *f, struct t_ring *r, uint32_t entries, uint32_t flags)
{
	struct npu_ring_create c = { 0 };
	long ret;

	memset(r, 0, sizeof(*r));
	r->bytes = ((size_t)npu_ring_bytes(entries, entries) + 4095) & ~(size_t)4095;
	r->mem = t_map(r->bytes);
	c.addr = (uintptr_t)r->mem;
	c.size = r->bytes;
	c.sq_entries = entries;
	c.cq_entries = entries;
	c.flags = flags;
	ret = t_ioctl(f, NPU_IOCTL_RING_CREATE, &c);
	if (ret) {
		t_ring_unmap(r);
		return ret;
	}
	r->id = c.ring_id;
	r->sq_entries = entries;
	r->cq_entries = entries;
	r->hdr = r->mem;
	r->sqes = (struct npu_sqe *)((char *)r->mem + c.sqes_off);
	r->cqes = (struct npu_cqe *)((char *)r->mem + c.cqes_off);
	return 0;
}

static uint32_t hdr_flags(struct t_ring *r)
{
	return __atomic_load_n(&r->hdr->flags, __ATOMIC_ACQUIRE);
}

/* Publish @sqe and ring as a client of the futex doorbell does. */
static void push_and_ring(struct t_ring *r, const struct npu_sqe *sqe)
{
	uint32_t tail = r->hdr->sq_tail;

	r->sqes[tail & (r->sq_entries - 1)] = *sqe;
	__atomic_store_n(&r->hdr->sq_tail, tail + 1, __ATOMIC_SEQ_CST);
	if (hdr_flags(r) & NPU_RING_NEED_WAKEUP) {
		assert_true(hdr_flags(r) & NPU_RING_FUTEX);
		rfc_doorbell(r->hdr);
	}
}

/* Wait (up to 10 s) until cq_tail reaches @n, as the HAL does on a futex ring. */
static bool futex_wait_cq(struct t_ring *r, uint32_t n)
{
	return rfc_wait_cq(r->hdr, n, 10000000000ULL);
}

static void ring_stats(struct file *f, struct t_ring *r, struct npu_ring_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->ring_id = r->id;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_STATS, st), 0);
}

/* Until the engines let the ring sleep (NEED_WAKEUP), up to 10 s. */
static void wait_asleep(struct t_ring *r)
{
	int i;

	for (i = 0; i < 100000 && !(hdr_flags(r) & NPU_RING_NEED_WAKEUP); i++)
		usleep(100);
	assert_true(hdr_flags(r) & NPU_RING_NEED_WAKEUP);
}

static void test_flag_is_checked_and_reported(void **state)
{
	struct file *f = open_ctx();
	struct t_ring r;

	(void)state;
	if (!futex_offered(f)) {
		t_close(f);
		skip();
	}
	/* A flag nobody defined is refused. */
	assert_int_equal(ring_create(f, &r, 4, 1U << 7), -EINVAL);
	/* Without the flag: no futex doorbell, and nothing touches the words. */
	assert_int_equal(ring_create(f, &r, 4, 0), 0);
	assert_false(hdr_flags(&r) & NPU_RING_FUTEX);
	t_ring_unmap(&r);
	assert_int_equal(ring_create(f, &r, 4, NPU_RING_CREATE_FUTEX), 0);
	assert_int_equal(hdr_flags(&r), NPU_RING_NEED_WAKEUP | NPU_RING_FUTEX);
	t_close(f);
	t_ring_unmap(&r);
}

/* Many NOPs and copies, each rung and waited for through the futexes only. */
static void test_runs_with_no_ring_enter(void **state)
{
	static char src[4096], dst[4096];
	struct npu_mem_alloc a = { .size = 4096, .policy = NPU_POLICY_NORMAL_ONLY };
	struct npu_ring_stats st;
	struct file *f = open_ctx();
	struct t_ring r;
	uint32_t i;

	(void)state;
	if (!futex_offered(f)) {
		t_close(f);
		skip();
	}
	assert_int_equal(t_ioctl(f, NPU_IOCTL_MEM_ALLOC, &a), 0);
	assert_int_equal(ring_create(f, &r, 8, NPU_RING_CREATE_FUTEX), 0);
	for (i = 0; i < 200; i++) {
		struct npu_sqe h2d = t_copy(NPU_DIR_H2D, a.va, (uintptr_t)src, sizeof(src));
		struct npu_sqe d2h = t_copy(NPU_DIR_D2H, (uintptr_t)dst, a.va, sizeof(dst));
		struct npu_cqe cqe;

		memset(src, (int)i, sizeof(src));
		h2d.user_data = 2 * i + 1;
		d2h.user_data = 2 * i + 2;
		/* Every tenth round after the engines gave the ring up. */
		if (i % 10 == 0)
			wait_asleep(&r);
		push_and_ring(&r, &h2d);
		push_and_ring(&r, &d2h);
		assert_true(futex_wait_cq(&r, 2 * i + 2));
		assert_true(t_ring_pop(&r, &cqe));
		assert_int_equal(cqe.res, 0);
		assert_true(t_ring_pop(&r, &cqe));
		assert_int_equal(cqe.user_data, 2 * i + 2);
		assert_int_equal(cqe.res, 0);
		assert_memory_equal(dst, src, sizeof(src));
	}
	ring_stats(f, &r, &st);
	assert_int_equal(st.sqes, 400);
	assert_int_equal(st.doorbells, 0);
	assert_int_equal(st.waits, 0);
	/* At least the twenty rounds that began asleep were rung on the word. */
	assert_true(st.futex_checks >= 20);
	assert_true(hdr_flags(&r) & NPU_RING_FUTEX);
	/* RING_ENTER works on it as on any ring. */
	assert_int_equal(t_ring_run(f, &r, &(struct npu_sqe){ .opcode = NPU_OP_NOP,
							       .user_data = 1000 }), 0);
	t_close(f);
	t_ring_unmap(&r);
}

/*
 * Every word scribbled: the doorbell moved without a wake, the completion
 * word and the waiter count set to anything. The driver only ever
 * sleeps and wakes on them: work still runs, and what it writes to
 * cq_futex is its own count, not the application's value plus one.
 */
/*
 * A client that calls synchronously in a loop (publish one, wait for it,
 * publish the next: the HAL's synchronous calls) finds the ring polled by
 * the engine that ran the previous one, even when a poller shares its CPU
 * with the client: the calls after the first need no doorbell, nor any
 * RING_ENTER. The poll window is made 10 ms here, so that only a client
 * descheduled that long on a loaded machine finds the ring asleep.
 */
static void test_sync_calls_find_the_ring_polled(void **state)
{
	enum { CALLS = 200 };
	struct npu_sqe nop = { .opcode = NPU_OP_NOP };
	struct npu_ring_stats st0, st1;
	struct file *f;
	struct t_ring r;
	uint32_t i, rang = 0;

	(void)state;
	/* This test's own poll window: 10 ms, far longer than one call. */
	mockdev_module_unload();
	assert_int_equal(mockdev_module_load("hbm_mb=256 engines=2 engine_poll_us=10000"), 0);
	f = open_ctx();
	if (!futex_offered(f)) {
		t_close(f);
		skip();
	}
	assert_int_equal(ring_create(f, &r, 8, NPU_RING_CREATE_FUTEX), 0);
	ring_stats(f, &r, &st0);
	for (i = 0; i < CALLS; i++) {
		uint32_t tail = r.hdr->sq_tail;

		nop.user_data = i + 1;
		r.sqes[tail & (r.sq_entries - 1)] = nop;
		__atomic_store_n(&r.hdr->sq_tail, tail + 1, __ATOMIC_SEQ_CST);
		if (hdr_flags(&r) & NPU_RING_NEED_WAKEUP) {
			rfc_doorbell(r.hdr);
			rang++;
		}
		assert_true(futex_wait_cq(&r, i + 1));
		assert_int_equal(r.cqes[i & (r.cq_entries - 1)].user_data, i + 1);
		__atomic_store_n(&r.hdr->cq_head, i + 1, __ATOMIC_RELEASE);
	}
	ring_stats(f, &r, &st1);
	assert_int_equal(st1.sqes - st0.sqes, CALLS);
	/* The first call rang; a few more may, after a stall of 10 ms. */
	assert_true(rang >= 1);
	assert_true(rang <= CALLS / 10);
	assert_int_equal(st1.doorbells - st0.doorbells, 0);
	assert_int_equal(st1.waits - st0.waits, 0);
	t_close(f);
	t_ring_unmap(&r);
}

static void test_scribbled_words_are_not_trusted(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP };
	struct npu_ring_stats st;
	struct file *f = open_ctx();
	struct t_ring r;
	uint32_t i, j;

	(void)state;
	if (!futex_offered(f)) {
		t_close(f);
		skip();
	}
	assert_int_equal(ring_create(f, &r, 4, NPU_RING_CREATE_FUTEX), 0);
	for (i = 1; i <= 50; i++) {
		__atomic_store_n(&r.hdr->sq_doorbell, 0xdead0000 + i * 7919, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r.hdr->cq_futex, 0xffffffffU - i, __ATOMIC_SEQ_CST);
		__atomic_store_n(&r.hdr->cq_waiters, i % 2 ? 0x12345678U : 0x7fffffffU,
				 __ATOMIC_SEQ_CST);
		nop.user_data = i;
		if (i % 5 == 0)
			wait_asleep(&r);
		push_and_ring(&r, &nop);
		assert_true(futex_wait_cq(&r, i));
		struct npu_cqe cqe;

		assert_true(t_ring_pop(&r, &cqe));
		assert_int_equal(cqe.user_data, i);
		assert_int_equal(cqe.res, 0);
		/*
		 * The driver wakes the word right after cq_tail moved: it
		 * writes its own count of wakes, never near what we wrote.
		 */
		for (j = 0; j < 100000 && __atomic_load_n(&r.hdr->cq_futex, __ATOMIC_ACQUIRE) ==
						0xffffffffU - i; j++)
			usleep(100);
		if (__atomic_load_n(&r.hdr->cq_futex, __ATOMIC_ACQUIRE) >= 0x10000000U)
			fail_msg("round %u: cq_futex %#x", i, __atomic_load_n(&r.hdr->cq_futex, __ATOMIC_ACQUIRE));
	}
	ring_stats(f, &r, &st);
	assert_int_equal(st.doorbells, 0);
	assert_int_equal(st.sqes, 50);
	assert_false(hdr_flags(&r) & NPU_RING_FAILED);
	t_close(f);
	t_ring_unmap(&r);
}

/*
 * A client floods wakes (moving the word each time) with nothing
 * published. The driver looks at the ring at most once per wake and stops
 * after its budget: the ring loses the futex doorbell (NPU_RING_FUTEX
 * cleared), the flood then costs the driver nothing, and the ring still
 * works through RING_ENTER. An honest ring of the same device keeps its
 * futex doorbell.
 */
static void test_flooded_wakes_are_bounded(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 77 };
	struct npu_ring_stats st, st2;
	struct file *f = open_ctx();
	struct t_ring r, honest;
	uint64_t t0, ms;
	char buf[512];
	uint32_t i;

	(void)state;
	if (!futex_offered(f)) {
		t_close(f);
		skip();
	}
	assert_int_equal(ring_create(f, &r, 4, NPU_RING_CREATE_FUTEX), 0);
	assert_int_equal(ring_create(f, &honest, 4, NPU_RING_CREATE_FUTEX), 0);
	t0 = rfc_now_ns();
	for (i = 0; i < FLOOD_WAKES; i++) {
		__atomic_fetch_add(&r.hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
		rfc_futex_wake(&r.hdr->sq_doorbell);
	}
	/* The doorbell thread catches up and gives the ring up, within 10 s. */
	for (i = 0; i < 100000 && (hdr_flags(&r) & NPU_RING_FUTEX); i++)
		usleep(100);
	ms = (rfc_now_ns() - t0) / 1000000 + 1;
	assert_false(hdr_flags(&r) & NPU_RING_FUTEX);
	ring_stats(f, &r, &st);
	/* The budget, and what grew back meanwhile (one a millisecond). */
	assert_true(st.futex_checks >= DB_BUDGET);
	assert_true(st.futex_checks <= DB_BUDGET + ms);
	/* Demoted for good: more wakes are not even looked at. */
	for (i = 0; i < 10000; i++) {
		__atomic_fetch_add(&r.hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
		rfc_futex_wake(&r.hdr->sq_doorbell);
	}
	usleep(20000);
	ring_stats(f, &r, &st2);
	assert_int_equal(st2.futex_checks, st.futex_checks);
	assert_true(mock_debugfs_read("npu/npu0/engines", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "db_demoted 1\n"));
	/* RING_ENTER still runs it. */
	assert_int_equal(t_ring_run(f, &r, &nop), 0);
	/* The other ring was not touched by it. */
	wait_asleep(&honest);
	push_and_ring(&honest, &nop);
	assert_true(futex_wait_cq(&honest, 1));
	assert_true(hdr_flags(&honest) & NPU_RING_FUTEX);
	/*
	 * The demoted ring no longer counts against the context's cap: with
	 * honest, DB_PER_CTX - 1 more get the futex doorbell, and no more.
	 */
	{
		static struct t_ring more[DB_PER_CTX];

		for (i = 0; i < DB_PER_CTX; i++) {
			assert_int_equal(ring_create(f, &more[i], 1, NPU_RING_CREATE_FUTEX), 0);
			assert_int_equal(!!(hdr_flags(&more[i]) & NPU_RING_FUTEX),
					 i < DB_PER_CTX - 1);
		}
		t_close(f);
		for (i = 0; i < DB_PER_CTX; i++)
			t_ring_unmap(&more[i]);
	}
	t_ring_unmap(&r);
	t_ring_unmap(&honest);
}

/*
 * A waiter killed asleep leaves its count in cq_waiters: the driver keeps
 * waking cq_futex for nobody (no harm), the ring works, and closing the
 * file frees all of it (teardown: no object left).
 */
static void test_waiter_killed_asleep_leaves_nothing(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP };
	struct file *f = open_ctx();
	struct t_ring r;
	uint32_t i, before;

	(void)state;
	if (!futex_offered(f)) {
		t_close(f);
		skip();
	}
	assert_int_equal(ring_create(f, &r, 4, NPU_RING_CREATE_FUTEX), 0);
	/* What a waiter killed in FUTEX_WAIT leaves: its count, nobody asleep. */
	__atomic_fetch_add(&r.hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
	before = __atomic_load_n(&r.hdr->cq_futex, __ATOMIC_ACQUIRE);
	for (i = 1; i <= 20; i++) {
		struct npu_cqe cqe;

		nop.user_data = i;
		if (i % 5 == 0)
			wait_asleep(&r);
		push_and_ring(&r, &nop);
		assert_true(futex_wait_cq(&r, i));
		assert_true(t_ring_pop(&r, &cqe));
		assert_int_equal(cqe.user_data, i);
	}
	/* The driver did wake the dead waiter's word, for nobody. */
	assert_true(__atomic_load_n(&r.hdr->cq_futex, __ATOMIC_ACQUIRE) != before);
	assert_int_equal(__atomic_load_n(&r.hdr->cq_waiters, __ATOMIC_ACQUIRE), 1);
	t_close(f);
	t_ring_unmap(&r);
}

/* The doorbell thread watches a bounded set; rings past it keep RING_ENTER. */
/*
 * One context gets the futex doorbell on at most DB_PER_CTX rings; its
 * further rings are created all the same, with RING_ENTER as doorbell, and
 * work. Another context still gets futex rings, and a slot the first one
 * frees (RING_DESTROY) is its again.
 */
static void test_rings_past_the_context_cap_use_ring_enter(void **state)
{
	enum { N = DB_PER_CTX + 4 };
	static struct t_ring r[N], other[2];
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 5 };
	struct file *f = open_ctx(), *g;
	struct npu_ring_destroy d = { 0 };
	int i, with = 0;

	(void)state;
	if (!futex_offered(f)) {
		t_close(f);
		skip();
	}
	g = open_ctx();
	for (i = 0; i < N; i++) {
		assert_int_equal(ring_create(f, &r[i], 1, NPU_RING_CREATE_FUTEX), 0);
		if (hdr_flags(&r[i]) & NPU_RING_FUTEX)
			with++;
		/* The first DB_PER_CTX get it, the others not. */
		assert_int_equal(!!(hdr_flags(&r[i]) & NPU_RING_FUTEX), i < DB_PER_CTX);
	}
	assert_int_equal(with, DB_PER_CTX);
	/* Past the cap: RING_ENTER is the doorbell, and it works. */
	assert_int_equal(t_ring_run(f, &r[N - 1], &nop), 0);

	/* Another context is not held back by the first. */
	assert_int_equal(ring_create(g, &other[0], 1, NPU_RING_CREATE_FUTEX), 0);
	assert_true(hdr_flags(&other[0]) & NPU_RING_FUTEX);
	push_and_ring(&other[0], &nop);
	assert_true(futex_wait_cq(&other[0], 1));
	assert_int_equal(other[0].cqes[0].res, 0);

	/* A futex ring of the first context goes: its next ring gets the slot. */
	d.ring_id = r[0].id;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), 0);
	assert_int_equal(ring_create(f, &other[1], 1, NPU_RING_CREATE_FUTEX), 0);
	assert_true(hdr_flags(&other[1]) & NPU_RING_FUTEX);

	t_close(g);
	t_close(f);
	for (i = 0; i < N; i++)
		t_ring_unmap(&r[i]);
	t_ring_unmap(&other[0]);
	t_ring_unmap(&other[1]);
}

/*
 * Contexts of one process that each stay within their cap: the first
 * DB_PER_PROC rings get the futex doorbell, the process's next ones keep
 * RING_ENTER (and work) whichever file they are on, until one of its futex
 * rings goes.
 */
static void test_rings_past_the_process_cap_use_ring_enter(void **state)
{
	enum { CTXS = DB_PER_PROC / DB_PER_CTX + 1, N = DB_PER_PROC };
	static struct t_ring r[N], past, again;
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 5 };
	struct npu_ring_destroy d = { 0 };
	struct file *f[CTXS];
	int c, i;

	(void)state;
	for (c = 0; c < CTXS; c++)
		f[c] = open_ctx();
	if (!futex_offered(f[0])) {
		for (c = 0; c < CTXS; c++)
			t_close(f[c]);
		skip();
	}
	for (i = 0; i < N; i++) {
		assert_int_equal(ring_create(f[i / DB_PER_CTX], &r[i], 1, NPU_RING_CREATE_FUTEX), 0);
		assert_true(hdr_flags(&r[i]) & NPU_RING_FUTEX);
	}
	/* A file with none of its own, of the same process: past the cap. */
	assert_int_equal(ring_create(f[CTXS - 1], &past, 1, NPU_RING_CREATE_FUTEX), 0);
	assert_false(hdr_flags(&past) & NPU_RING_FUTEX);
	assert_int_equal(t_ring_run(f[CTXS - 1], &past, &nop), 0);
	/* One of the process's futex rings goes: its next ring gets the slot. */
	d.ring_id = r[0].id;
	assert_int_equal(t_ioctl(f[0], NPU_IOCTL_RING_DESTROY, &d), 0);
	assert_int_equal(ring_create(f[CTXS - 1], &again, 1, NPU_RING_CREATE_FUTEX), 0);
	assert_true(hdr_flags(&again) & NPU_RING_FUTEX);
	push_and_ring(&again, &nop);
	assert_true(futex_wait_cq(&again, 1));
	assert_int_equal(again.cqes[0].res, 0);

	for (c = 0; c < CTXS; c++)
		t_close(f[c]);
	for (i = 0; i < N; i++)
		t_ring_unmap(&r[i]);
	t_ring_unmap(&past);
	t_ring_unmap(&again);
}

/*
 * Contexts that each stay within their cap fill the device's watched set
 * (127 rings); rings past it keep RING_ENTER and work. One process plays
 * all of them, allowed the whole set (db_per_proc=127).
 */
static void test_rings_past_the_watched_set_use_ring_enter(void **state)
{
	enum { CTXS = 17, PER = DB_PER_CTX, N = CTXS * PER };
	static struct t_ring r[N];
	struct file *f[CTXS];
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 5 };
	int c, i, n = 0, with = 0;

	(void)state;
	for (c = 0; c < CTXS; c++)
		f[c] = open_ctx();
	if (!futex_offered(f[0]))
		goto out;
	for (i = 0; i < N; i++) {
		if (ring_create(f[i / PER], &r[i], 1, NPU_RING_CREATE_FUTEX))
			break;
		n++;
		if (hdr_flags(&r[i]) & NPU_RING_FUTEX)
			with++;
	}
	if (n < N)
		goto out;	/* the process's ring limit came first: nothing to see */
	assert_int_equal(with, DB_MAX);
	assert_false(hdr_flags(&r[N - 1]) & NPU_RING_FUTEX);
	assert_int_equal(t_ring_run(f[CTXS - 1], &r[N - 1], &nop), 0);
out:
	for (c = 0; c < CTXS; c++)
		t_close(f[c]);
	for (i = 0; i < n; i++)
		t_ring_unmap(&r[i]);
	if (n < N)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_flag_is_checked_and_reported, setup, teardown),
		cmocka_unit_test_setup_teardown(test_runs_with_no_ring_enter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sync_calls_find_the_ring_polled, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_scribbled_words_are_not_trusted, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_flooded_wakes_are_bounded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waiter_killed_asleep_leaves_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rings_past_the_context_cap_use_ring_enter,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rings_past_the_process_cap_use_ring_enter,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_rings_past_the_watched_set_use_ring_enter,
						setup_one_process_may_fill, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
