// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of a context's device address space (kmod/npu_vas.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdlib.h>
#include <cmocka.h>

#include "npu_vas.h"

#define BASE	(16ULL << 40)	/* 16 TiB */
#define GIB	(1ULL << 30)
#define MIB	(1ULL << 20)

static void test_reserve_is_first_fit_from_base(void **state)
{
	struct npu_vas vas;
	struct npu_vas_node a, b, c;

	(void)state;
	npu_vas_init(&vas, BASE, GIB);
	assert_int_equal(npu_vas_reserve(&vas, &a, 4096, 4096), 0);
	assert_int_equal(a.start, BASE);
	assert_int_equal(a.size, 4096);
	assert_int_equal(npu_vas_reserve(&vas, &b, 8192, 4096), 0);
	assert_int_equal(b.start, BASE + 4096);
	/* A freed gap is reused by the next range that fits. */
	npu_vas_remove(&vas, &a);
	assert_int_equal(npu_vas_reserve(&vas, &c, 4096, 4096), 0);
	assert_int_equal(c.start, BASE);
	assert_int_equal(vas.used, 4096 + 8192);
	npu_vas_remove(&vas, &b);
	npu_vas_remove(&vas, &c);
	assert_int_equal(vas.used, 0);
	npu_vas_fini(&vas);
}

static void test_reserve_aligns_to_page_size(void **state)
{
	struct npu_vas vas;
	struct npu_vas_node small, huge, giant;

	(void)state;
	npu_vas_init(&vas, BASE, 4 * GIB);
	assert_int_equal(npu_vas_reserve(&vas, &small, 4096, 4096), 0);
	assert_int_equal(npu_vas_reserve(&vas, &huge, 2 * MIB, 2 * MIB), 0);
	assert_int_equal(huge.start, BASE + 2 * MIB);
	assert_int_equal(npu_vas_reserve(&vas, &giant, GIB, GIB), 0);
	assert_int_equal(giant.start, BASE + GIB);
	npu_vas_remove(&vas, &giant);
	npu_vas_remove(&vas, &huge);
	npu_vas_remove(&vas, &small);
	npu_vas_fini(&vas);
}

static void test_lookup_finds_containing_range_only(void **state)
{
	struct npu_vas vas;
	struct npu_vas_node a, b;
	static const struct {
		u64 addr;
		int which;	/* 0 none, 1 a, 2 b */
	} rows[] = {
		{ BASE - 1, 0 },
		{ BASE, 1 },
		{ BASE + 4095, 1 },
		{ BASE + 4096, 0 },		/* the alignment gap */
		{ BASE + 2 * MIB - 1, 0 },
		{ BASE + 2 * MIB, 2 },
		{ BASE + 4 * MIB - 1, 2 },
		{ BASE + 4 * MIB, 0 },
		{ 0, 0 },
		{ ~0ULL, 0 },
	};
	unsigned int i;

	(void)state;
	npu_vas_init(&vas, BASE, GIB);
	assert_int_equal(npu_vas_reserve(&vas, &a, 4096, 4096), 0);
	assert_int_equal(npu_vas_reserve(&vas, &b, 2 * MIB, 2 * MIB), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct npu_vas_node *n = npu_vas_lookup(&vas, rows[i].addr);

		assert_ptr_equal(n, rows[i].which == 1 ? &a : rows[i].which == 2 ? &b : NULL);
	}
	npu_vas_remove(&vas, &a);
	assert_null(npu_vas_lookup(&vas, BASE));
	assert_ptr_equal(npu_vas_lookup(&vas, BASE + 2 * MIB), &b);
	npu_vas_remove(&vas, &b);
	npu_vas_fini(&vas);
}

static void test_exhaustion_gives_enomem(void **state)
{
	struct npu_vas vas;
	struct npu_vas_node a, b, c;

	(void)state;
	npu_vas_init(&vas, BASE, GIB);
	assert_int_equal(npu_vas_reserve(&vas, &a, GIB + 4096, 4096), -ENOMEM);
	assert_int_equal(npu_vas_reserve(&vas, &a, GIB - 4096, 4096), 0);
	assert_int_equal(npu_vas_reserve(&vas, &b, 4096, 4096), 0);
	assert_int_equal(b.start, BASE + GIB - 4096);	/* the very last page */
	assert_int_equal(npu_vas_reserve(&vas, &c, 4096, 4096), -ENOMEM);
	npu_vas_remove(&vas, &b);
	/* A free page, but not 2 MiB aligned room for a huge page. */
	assert_int_equal(npu_vas_reserve(&vas, &c, 2 * MIB, 2 * MIB), -ENOMEM);
	npu_vas_remove(&vas, &a);
	assert_int_equal(npu_vas_reserve(&vas, &c, GIB, GIB), 0);
	npu_vas_remove(&vas, &c);
	npu_vas_fini(&vas);
}

static void test_bad_arguments_are_rejected(void **state)
{
	static const struct {
		u64 size, align;
		int err;
	} rows[] = {
		{ 0, 4096, -EINVAL },
		{ 4096, 0, -EINVAL },
		{ 4096, 3 * 4096, -EINVAL },
		{ ~0ULL, 4096, -ENOMEM },
		{ 4096, 1ULL << 63, -ENOMEM },
	};
	struct npu_vas vas;
	unsigned int i;

	(void)state;
	npu_vas_init(&vas, BASE, GIB);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct npu_vas_node n;

		assert_int_equal(npu_vas_reserve(&vas, &n, rows[i].size, rows[i].align),
				 rows[i].err);
	}
	assert_int_equal(vas.used, 0);
	npu_vas_fini(&vas);
}

static void test_aperture_at_top_of_address_space(void **state)
{
	/* The last GiB below 2^64: end arithmetic must not wrap. */
	u64 base = 0ULL - 2 * GIB;
	struct npu_vas vas;
	struct npu_vas_node a, b;

	(void)state;
	npu_vas_init(&vas, base, GIB);
	assert_int_equal(npu_vas_reserve(&vas, &a, GIB, GIB), 0);
	assert_int_equal(a.start, base);
	assert_int_equal(npu_vas_reserve(&vas, &b, 4096, 4096), -ENOMEM);
	assert_ptr_equal(npu_vas_lookup(&vas, base + GIB - 1), &a);
	assert_null(npu_vas_lookup(&vas, base + GIB));
	npu_vas_remove(&vas, &a);
	npu_vas_fini(&vas);
}

static void test_many_ranges_stay_sorted_and_disjoint(void **state)
{
	enum { N = 2000 };
	struct npu_vas_node *nodes = calloc(N, sizeof(*nodes));
	struct npu_vas vas;
	unsigned int i;

	(void)state;
	assert_non_null(nodes);
	npu_vas_init(&vas, BASE, GIB);
	for (i = 0; i < N; i++)
		assert_int_equal(npu_vas_reserve(&vas, &nodes[i], 4096 * (1 + i % 3), 4096), 0);
	/* Remove every third, reserve again: gaps refill, nothing overlaps. */
	for (i = 0; i < N; i += 3)
		npu_vas_remove(&vas, &nodes[i]);
	for (i = 0; i < N; i += 3)
		assert_int_equal(npu_vas_reserve(&vas, &nodes[i], 4096, 4096), 0);
	for (i = 0; i < N; i++) {
		assert_ptr_equal(npu_vas_lookup(&vas, nodes[i].start), &nodes[i]);
		assert_ptr_equal(npu_vas_lookup(&vas, nodes[i].start + nodes[i].size - 1),
				 &nodes[i]);
	}
	for (i = 0; i < N; i++)
		npu_vas_remove(&vas, &nodes[i]);
	assert_int_equal(vas.used, 0);
	npu_vas_fini(&vas);
	free(nodes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserve_is_first_fit_from_base),
		cmocka_unit_test(test_reserve_aligns_to_page_size),
		cmocka_unit_test(test_lookup_finds_containing_range_only),
		cmocka_unit_test(test_exhaustion_gives_enomem),
		cmocka_unit_test(test_bad_arguments_are_rejected),
		cmocka_unit_test(test_aperture_at_top_of_address_space),
		cmocka_unit_test(test_many_ranges_stay_sorted_and_disjoint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
