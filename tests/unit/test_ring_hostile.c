// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Rings of a hostile application, cases the driver fuzzer (tests/fuzz)
 * found: an abort cancels at most one SQ of descriptors however far ahead
 * the application wrote sq_tail; a host-to-host copy whose length is near
 * 2^64 completes with an error instead of leaving the engine that split it
 * waiting forever; closing a file whose ring an engine keeps running (its
 * tail written far ahead) returns instead of waiting for a pause that never
 * comes. Nothing leaks and nothing WARNs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "npu_test_util.h"

static long live_before_load;
static unsigned long warns_before;

static int setup(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	warns_before = mock_warn_count();
	/* Two engines: a large copy is split when one of them is idle. */
	return mockdev_module_load("hbm_mb=256 engines=2");
}

/* One engine: it takes a ring that has work straight back. */
static int setup_one_engine(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	warns_before = mock_warn_count();
	return mockdev_module_load("hbm_mb=256 engines=1 engine_poll_us=0");
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

/*
 * The abort returns once the published descriptors are cancelled. The
 * engine then goes on consuming the SQ, as it would for any application
 * that keeps publishing, until the ring is destroyed; but the cancel
 * itself stops after one SQ, so by the time RING_ABORT returns only a
 * few batches were consumed, never the 2^24 the tail claims.
 */
static void test_abort_cancels_at_most_one_sq_for_a_tail_far_ahead(void **state)
{
	struct npu_ring_abort ab = { 0 };
	struct npu_ring_stats st = { 0 };
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 7 };
	struct file *f = open_ctx();
	struct t_ring r;
	uint32_t i;

	(void)state;
	assert_int_equal(t_ring_create(f, &r, 4, 4), 0);
	for (i = 0; i < 4; i++)
		t_ring_push(&r, &nop);
	/* What no SQ can hold: 2^24 descriptors "published". */
	__atomic_store_n(&r.hdr->sq_tail, 1U << 24, __ATOMIC_RELEASE);
	ab.ring_id = r.id;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ABORT, &ab), 0);
	st.ring_id = r.id;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_STATS, &st), 0);
	assert_true(st.sqes < (1U << 22));
	t_close(f);
	t_ring_unmap(&r);
}

static void test_h2h_copy_of_length_near_2_64_fails_without_hanging(void **state)
{
	struct npu_sqe copy = t_copy(NPU_DIR_H2H, 0, 0, 0xffffffffff000000ULL);
	struct npu_cqe cqe = { 0 };
	struct file *f = open_ctx();
	struct t_ring r;
	uint32_t submitted = 0;
	struct npu_ring_enter e;

	(void)state;
	assert_int_equal(t_ring_create(f, &r, 4, 4), 0);
	t_ring_push(&r, &copy);
	/* With a timeout: before the fix, the engine never completed it. */
	e = (struct npu_ring_enter){ .ring_id = r.id, .to_submit = 1, .min_complete = 1,
				     .flags = NPU_ENTER_GETEVENTS, .timeout_ns = 5000000000ULL };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), 0);
	submitted = e.submitted;
	assert_int_equal(submitted, 1);
	assert_true(t_ring_pop(&r, &cqe));
	assert_int_equal(cqe.user_data, copy.user_data);
	assert_int_equal(cqe.res, -EFAULT);
	t_close(f);
	t_ring_unmap(&r);
}

static void test_close_detaches_a_ring_its_engine_keeps_running(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP, .user_data = 9 };
	struct file *f = open_ctx();
	struct t_ring r;
	long ret;
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		assert_int_equal(t_ring_create(f, &r, 1, 1), 0);
		t_ring_push(&r, &nop);
		/*
		 * Always "more" to run, were the tail believed: such a ring
		 * fails (-EPROTO) as soon as the driver reads its tail, maybe
		 * before this doorbell returns; either way the destroy below
		 * must not wait for an engine that keeps taking it back.
		 */
		__atomic_store_n(&r.hdr->sq_tail, 1U << 30, __ATOMIC_RELEASE);
		ret = t_ring_enter(f, &r, 1, 0, 0, NULL);
		assert_true(ret == 0 || ret == -EPROTO);
		usleep(2000);
		struct npu_ring_destroy d = { .ring_id = r.id };

		assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), 0);
		t_ring_unmap(&r);
	}
	t_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_abort_cancels_at_most_one_sq_for_a_tail_far_ahead, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_h2h_copy_of_length_near_2_64_fails_without_hanging, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_close_detaches_a_ring_its_engine_keeps_running, setup_one_engine,
			teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
