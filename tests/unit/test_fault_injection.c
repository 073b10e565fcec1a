// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Every error path of the driver frees what it took: a full lifecycle of
 * device files (contexts, every allocation policy, rings, every descriptor
 * kind, release with objects still held) runs with the n-th allocation,
 * user copy or page pin failing, for n = 1, 2, ... until a run sees no
 * injected failure. Each operation must succeed or fail with the errno the
 * injected failure implies, and after the files are closed and the module
 * unloaded the mock kernel's live-object counters must be back where they
 * started.
 */
#include <stdio.h>
#include <stdlib.h>

#include "npu_test_util.h"

#define MAX_RUNS	5000
#define BUF_SIZE	(3 * T_MIB + 123)

enum inject { INJECT_ALLOC, INJECT_COPY_FROM, INJECT_COPY_TO, INJECT_PIN };

struct run {
	long err;	/* what a failing ioctl must return */
	int32_t res;	/* what a failing descriptor must complete with (0: none may) */
	bool failed;	/* something failed in this run */
};

static void check_ret(struct run *run, long ret)
{
	if (ret != run->err)
		fail_msg("operation failed with %ld, expected %ld", ret, run->err);
	run->failed = true;
}

#define STEP(run, expr)					\
	do {						\
		long _ret = (expr);			\
		if (_ret) {				\
			check_ret(run, _ret);		\
			goto out;			\
		}					\
	} while (0)

static const struct {
	uint64_t size;
	uint32_t policy;
	uint32_t flags;
} allocs[] = {
	{ 4096, NPU_POLICY_NORMAL_ONLY, 0 },
	{ BUF_SIZE, NPU_POLICY_NORMAL_ONLY, 0 },
	{ BUF_SIZE, NPU_POLICY_HUGE_FIRST, NPU_MEM_P2P },
	{ 4 * T_MIB, NPU_POLICY_HUGE_ONLY, 0 },
	{ 4096, NPU_POLICY_HUGE_ONLY, NPU_MEM_READONLY },
	{ 1, NPU_POLICY_HUGE1G_ONLY, 0 },
};
#define NR_ALLOCS (sizeof(allocs) / sizeof(allocs[0]))

static void scenario(struct run *run)
{
	unsigned char *src = malloc(BUF_SIZE), *dst = calloc(1, BUF_SIZE);
	struct npu_mem_alloc a[NR_ALLOCS], extra;
	struct t_ring r = { 0 }, r2 = { 0 };
	struct file *f = NULL, *g = NULL;
	struct npu_device_info info;
	struct npu_mem_query q;
	struct npu_mem_info mi;
	struct npu_ring_destroy d;
	struct npu_sqe s[7];
	struct npu_cqe c = { 0 };
	uint32_t submitted, i;
	bool data_ok = true;

	assert_non_null(src);
	assert_non_null(dst);
	for (i = 0; i < BUF_SIZE; i++)
		src[i] = (unsigned char)(i * 7 + 1);

	STEP(run, t_open(&f));
	STEP(run, t_ioctl(f, NPU_IOCTL_DEVICE_INFO, &info));
	STEP(run, t_setup_at(f, T_VA_BASE));
	for (i = 0; i < NR_ALLOCS; i++)
		STEP(run, t_alloc(f, allocs[i].size, allocs[i].policy, allocs[i].flags, &a[i]));
	q = (struct npu_mem_query){ .va = a[1].va + 5 };
	STEP(run, t_ioctl(f, NPU_IOCTL_MEM_QUERY, &q));
	STEP(run, t_ioctl(f, NPU_IOCTL_MEM_INFO, &mi));

	STEP(run, t_ring_create(f, &r, 8, 16));
	s[0] = t_copy(NPU_DIR_H2D, a[1].va, (uintptr_t)src, BUF_SIZE);
	s[1] = t_copy(NPU_DIR_D2D, a[2].va, a[1].va, BUF_SIZE);
	s[2] = t_copy(NPU_DIR_D2D, a[5].va + T_GIB - BUF_SIZE, a[2].va, BUF_SIZE);
	s[3] = t_copy(NPU_DIR_D2H, (uintptr_t)dst, a[5].va + T_GIB - BUF_SIZE, BUF_SIZE);
	s[4] = t_memset(NPU_DIR_H2D, a[3].va, 0x11, 4 * T_MIB);
	s[5] = t_memset(NPU_DIR_H2H, (uintptr_t)dst + BUF_SIZE - 8, 0, 8);
	s[6] = t_copy(NPU_DIR_H2H, (uintptr_t)dst + BUF_SIZE - 8, (uintptr_t)src, 8);
	for (i = 0; i < 7; i++) {
		s[i].user_data = i;
		t_ring_push(&r, &s[i]);
	}
	STEP(run, t_ring_enter(f, &r, 7, 7, NPU_ENTER_GETEVENTS, &submitted));
	assert_int_equal(submitted, 7);
	for (i = 0; i < 7; i++) {
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, i);
		if (c.res) {
			if (!run->res || c.res != run->res)
				fail_msg("descriptor %u completed with %d, expected 0 or %d",
					 i, c.res, run->res);
			run->failed = true;
			data_ok = false;
		}
	}
	if (data_ok) {
		assert_memory_equal(dst, src, BUF_SIZE - 8);
		assert_memory_equal(dst + BUF_SIZE - 8, src, 8);
	}

	STEP(run, t_free(f, a[0].va));
	d = (struct npu_ring_destroy){ .ring_id = r.id };
	STEP(run, t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d));
	/* Objects left to release(): a ring and allocations in a second file too. */
	STEP(run, t_ring_create(f, &r2, 4, 4));
	STEP(run, t_open(&g));
	STEP(run, t_setup_at(g, T_VA_BASE));
	STEP(run, t_alloc(g, 2 * T_MIB, NPU_POLICY_HUGE_FIRST, 0, &extra));
out:
	if (g)
		t_close(g);
	if (f)
		t_close(f);
	if (r.mem)
		t_ring_unmap(&r);
	if (r2.mem)
		t_ring_unmap(&r2);
	free(src);
	free(dst);
}

static void arm(enum inject what, unsigned long n)
{
	switch (what) {
	case INJECT_ALLOC:
		mock_fail_alloc_nth(n);
		break;
	case INJECT_COPY_FROM:
		mock_fail_copy_from_user_nth(n);
		break;
	case INJECT_COPY_TO:
		mock_fail_copy_to_user_nth(n);
		break;
	case INJECT_PIN:
		mock_fail_pin_nth(n);
		break;
	}
}

/*
 * Whether the armed failure fired. A failed allocation does not always
 * surface (HUGE_FIRST falls back to 4 KiB pages on -ENOMEM), so for
 * allocations count the calls; a failed copy or pin always surfaces.
 */
static bool fired(enum inject what, const struct run *run, unsigned long calls_at_arm,
		  unsigned long n)
{
	if (what == INJECT_ALLOC)
		return mock_alloc_calls() - calls_at_arm >= n;
	return run->failed;
}

static void run_injection(enum inject what, long err, int32_t res, unsigned long min_runs)
{
	unsigned long n;

	for (n = 1; n <= MAX_RUNS; n++) {
		struct run run = { .err = err, .res = res };
		unsigned long calls_at_arm;
		bool injected;
		long base;

		mock_fail_reset();
		base = mock_live_objects();
		assert_int_equal(mockdev_module_load("hbm_mb=2048"), 0);
		calls_at_arm = mock_alloc_calls();
		arm(what, n);
		scenario(&run);
		injected = fired(what, &run, calls_at_arm, n);
		mock_fail_reset();
		mockdev_module_unload();
		if (mock_live_objects() != base)
			fail_msg("n=%lu: %ld live objects leaked", n, mock_live_objects() - base);
		if (!injected) {
			/* The n-th call was past the end: every path ran. */
			print_message("%lu injected failures, all unwound\n", n - 1);
			assert_true(n > min_runs);
			return;
		}
	}
	fail_msg("still failing after %d runs", MAX_RUNS);
}

static void test_alloc_failures_unwind_without_leaks(void **state)
{
	(void)state;
	run_injection(INJECT_ALLOC, -ENOMEM, 0, 30);
}

static void test_copy_from_user_failures_unwind_without_leaks(void **state)
{
	(void)state;
	run_injection(INJECT_COPY_FROM, -EFAULT, -EFAULT, 10);
}

static void test_copy_to_user_failures_unwind_without_leaks(void **state)
{
	(void)state;
	run_injection(INJECT_COPY_TO, -EFAULT, -EFAULT, 10);
}

static void test_pin_failures_unwind_without_leaks(void **state)
{
	(void)state;
	run_injection(INJECT_PIN, -EFAULT, 0, 2);
}

static void test_module_load_alloc_failures_unwind_without_leaks(void **state)
{
	unsigned long n;

	(void)state;
	for (n = 1; n <= MAX_RUNS; n++) {
		long base;
		int ret;

		mock_fail_reset();
		base = mock_live_objects();
		mock_fail_alloc_nth(n);
		ret = mockdev_module_load("devices=3 hbm_mb=2048");
		mock_fail_reset();
		if (ret == 0) {
			/* The n-th allocation was past the end of module init. */
			assert_true(n > 1);
			mockdev_module_unload();
			assert_int_equal(mock_live_objects(), base);
			return;
		}
		assert_int_equal(ret, -ENOMEM);
		if (mock_live_objects() != base)
			fail_msg("n=%lu: %ld live objects leaked", n, mock_live_objects() - base);
	}
	fail_msg("module load still failing after %d runs", MAX_RUNS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alloc_failures_unwind_without_leaks),
		cmocka_unit_test(test_copy_from_user_failures_unwind_without_leaks),
		cmocka_unit_test(test_copy_to_user_failures_unwind_without_leaks),
		cmocka_unit_test(test_pin_failures_unwind_without_leaks),
		cmocka_unit_test(test_module_load_alloc_failures_unwind_without_leaks),
	};

	/*
	 * Every run loads the module afresh and touches few bytes of the HBM
	 * chunks it makes: clearing each 2 MiB at allocation was most of the
	 * time of this test, and far more beside other tests (mock.h).
	 */
	mock_vmalloc_huge_populate(false);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
