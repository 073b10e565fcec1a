// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The mock's IDR: the kernel's allocation rules and error codes. */
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/idr.h>
#include <linux/slab.h>

#include "mock_test.h"

static int a, b, c;

static void test_alloc_returns_lowest_free_id_in_range(void **state)
{
	DEFINE_IDR(idr);

	(void)state;
	assert_int_equal(idr_alloc(&idr, &a, 0, 0, GFP_KERNEL), 0);
	assert_int_equal(idr_alloc(&idr, &b, 0, 0, GFP_KERNEL), 1);
	assert_int_equal(idr_alloc(&idr, &c, 5, 10, GFP_KERNEL), 5);
	assert_ptr_equal(idr_find(&idr, 0), &a);
	assert_ptr_equal(idr_find(&idr, 5), &c);
	assert_null(idr_find(&idr, 2));
	assert_ptr_equal(idr_remove(&idr, 0), &a);
	assert_null(idr_find(&idr, 0));
	assert_null(idr_remove(&idr, 0));
	/* The hole is reused. */
	assert_int_equal(idr_alloc(&idr, &a, 0, 0, GFP_KERNEL), 0);
	/* end is exclusive: [5, 6) is taken. */
	assert_int_equal(idr_alloc(&idr, &a, 5, 6, GFP_KERNEL), -ENOSPC);
	assert_int_equal(idr_alloc(&idr, &a, INT_MAX, 0, GFP_KERNEL), INT_MAX);
	assert_int_equal(idr_alloc(&idr, &a, INT_MAX, 0, GFP_KERNEL), -ENOSPC);
	assert_ptr_equal(idr_replace(&idr, &b, 5), &c);
	assert_ptr_equal(idr_find(&idr, 5), &b);
	assert_ptr_equal(idr_replace(&idr, &b, 7), ERR_PTR(-ENOENT));
	idr_destroy(&idr);
	assert_true(idr_is_empty(&idr));
}

static void test_cyclic_alloc_moves_on_then_wraps(void **state)
{
	struct idr idr;

	(void)state;
	idr_init(&idr);
	assert_int_equal(idr_alloc_cyclic(&idr, &a, 1, 4, GFP_KERNEL), 1);
	assert_int_equal(idr_alloc_cyclic(&idr, &a, 1, 4, GFP_KERNEL), 2);
	idr_remove(&idr, 1);
	assert_int_equal(idr_alloc_cyclic(&idr, &a, 1, 4, GFP_KERNEL), 3);
	/* Past the end: back to the start, where 1 is free again. */
	assert_int_equal(idr_alloc_cyclic(&idr, &a, 1, 4, GFP_KERNEL), 1);
	assert_int_equal(idr_alloc_cyclic(&idr, &a, 1, 4, GFP_KERNEL), -ENOSPC);
	idr_destroy(&idr);
}

static void test_base_and_iteration(void **state)
{
	struct idr idr;
	void *entry;
	int id, n = 0;

	(void)state;
	idr_init_base(&idr, 1);
	assert_int_equal(idr_alloc(&idr, &a, 0, 0, GFP_KERNEL), 1);
	assert_int_equal(idr_alloc(&idr, NULL, 0, 0, GFP_KERNEL), 2);
	assert_int_equal(idr_alloc(&idr, &c, 0, 0, GFP_KERNEL), 3);
	/* NULL entries reserve the ID but are skipped by iteration. */
	idr_for_each_entry(&idr, entry, id) {
		assert_true(id == 1 || id == 3);
		n++;
	}
	assert_int_equal(n, 2);
	idr_destroy(&idr);
}

static void test_randomised_against_a_bitmap(void **state)
{
	enum { N = 5000 };
	static void *model[N];
	DEFINE_IDR(idr);
	int i, step;

	(void)state;
	srand(777);
	for (step = 0; step < 40000; step++) {
		int start = rand() % N;
		int end = start + 1 + rand() % 300;
		int expect = -ENOSPC;

		if (end > N)
			end = N;
		if (rand() % 3) {
			for (i = start; i < end; i++) {
				if (!model[i]) {
					expect = i;
					break;
				}
			}
			assert_int_equal(idr_alloc(&idr, &model[start], start, end,
						   GFP_KERNEL), expect);
			if (expect >= 0)
				model[expect] = &model[start];
		} else {
			assert_ptr_equal(idr_remove(&idr, start), model[start]);
			model[start] = NULL;
		}
	}
	for (i = 0; i < N; i++)
		assert_ptr_equal(idr_find(&idr, i), model[i]);
	for (i = 0; i < N; i++)
		idr_remove(&idr, i);
	/* Empty nodes are freed at once: nothing left, even without destroy. */
	assert_true(idr_is_empty(&idr));
}

static void test_node_allocation_failure_is_enomem(void **state)
{
	DEFINE_IDR(idr);

	(void)state;
	mock_fail_alloc_nth(1);
	assert_int_equal(idr_alloc(&idr, &a, 0, 0, GFP_KERNEL), -ENOMEM);
	assert_true(idr_is_empty(&idr));
	/* A failure on a deeper node leaves nothing behind either. */
	mock_fail_alloc_nth(3);
	assert_int_equal(idr_alloc(&idr, &a, 0, 0, GFP_KERNEL), -ENOMEM);
	assert_true(idr_is_empty(&idr));
	assert_int_equal(idr_alloc(&idr, &a, 0, 0, GFP_KERNEL), 0);
	idr_destroy(&idr);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MOCK_TEST(test_alloc_returns_lowest_free_id_in_range),
		MOCK_TEST(test_cyclic_alloc_moves_on_then_wraps),
		MOCK_TEST(test_base_and_iteration),
		MOCK_TEST(test_randomised_against_a_bitmap),
		MOCK_TEST(test_node_allocation_failure_is_enomem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
