// SPDX-License-Identifier: GPL-2.0 OR MIT
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
#include "mockdev/mock.h"

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

/*
 * A reference model: the live ranges in an array sorted by start; every
 * question is answered by a linear scan.
 */
struct model {
	struct npu_vas_node **live;	/* sorted by start */
	unsigned int n;
	u64 base, size;
};

static void model_insert(struct model *m, struct npu_vas_node *node)
{
	unsigned int i = m->n;

	while (i && m->live[i - 1]->start > node->start) {
		m->live[i] = m->live[i - 1];
		i--;
	}
	m->live[i] = node;
	m->n++;
}

static void model_remove(struct model *m, struct npu_vas_node *node)
{
	unsigned int i;

	for (i = 0; m->live[i] != node; i++)
		;
	m->n--;
	for (; i < m->n; i++)
		m->live[i] = m->live[i + 1];
}

/* Gap i: before live[i] (i < n), or after the last range (i == n). */
static void model_gap(const struct model *m, unsigned int i, u64 *from, u64 *len)
{
	u64 lo = i ? m->live[i - 1]->start + m->live[i - 1]->size : m->base;
	u64 hi = i < m->n ? m->live[i]->start : m->base + m->size;

	*from = lo;
	*len = hi - lo;
}

/* The best fit for page-aligned ranges: smallest gap, lowest among equals. */
static bool model_best_fit(const struct model *m, u64 size, u64 *start)
{
	u64 best_len = ~0ULL, from, len;
	bool found = false;
	unsigned int i;

	for (i = 0; i <= m->n; i++) {
		model_gap(m, i, &from, &len);
		if (len >= size && len < best_len) {
			best_len = len;
			*start = from;
			found = true;
		}
	}
	return found;
}

static u64 model_largest_gap(const struct model *m)
{
	u64 best = 0, from, len;
	unsigned int i;

	for (i = 0; i <= m->n; i++) {
		model_gap(m, i, &from, &len);
		if (len > best)
			best = len;
	}
	return best;
}

static bool model_overlaps(const struct model *m, u64 start, u64 size)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		if (start < m->live[i]->start + m->live[i]->size &&
		    m->live[i]->start < start + size)
			return true;
	return false;
}

static struct npu_vas_node *model_lookup(const struct model *m, u64 addr)
{
	unsigned int i;

	for (i = 0; i < m->n; i++)
		if (addr >= m->live[i]->start && addr - m->live[i]->start < m->live[i]->size)
			return m->live[i];
	return NULL;
}

static u64 rnd(u64 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* In the index: every live range, by its start, and nothing else. */
static void check_index(const struct npu_vas *vas, const struct model *m)
{
	unsigned int i;

	assert_int_equal(vas->hashed, m->n);
	for (i = 0; i < m->n; i++) {
		assert_false(hlist_unhashed(&m->live[i]->hash));
		assert_ptr_equal(npu_vas_lookup((struct npu_vas *)vas, m->live[i]->start),
				 m->live[i]);
	}
}

/*
 * Random reserve, reserve_at, remove and lookup against the model:
 * page-aligned reservations are exactly the model's best fit and fail
 * only when no gap is big enough; aligned ones are aligned and fail only
 * when no gap holds size + align - 1; nothing ever overlaps.
 */
static void test_matches_reference_model(void **state)
{
	enum { SLOTS = 400, OPS = 60000, PHASE = 5000 };
	const u64 size = 64 * MIB;
	struct npu_vas_node *nodes = calloc(SLOTS, sizeof(*nodes));
	bool *used = calloc(SLOTS, sizeof(*used));
	struct model m = { calloc(SLOTS, sizeof(*m.live)), 0, BASE, size };
	struct npu_vas vas;
	u64 x = 0x9e3779b97f4a7c15ULL;
	unsigned int op;

	(void)state;
	assert_non_null(nodes);
	assert_non_null(used);
	assert_non_null(m.live);
	npu_vas_init(&vas, BASE, size);
	for (op = 0; op < OPS; op++) {
		unsigned int slot = rnd(&x) % SLOTS, kind = rnd(&x) % 8;
		struct npu_vas_node *node = &nodes[slot];
		u64 len = 4096 * (1 + rnd(&x) % (rnd(&x) % 4 ? 16 : 1024));
		/*
		 * Phases: mixed, then drain (removals only), so that the
		 * index grows and shrinks with moves pending between lookups.
		 */
		bool drain = (op / PHASE) % 3 == 2;

		if (drain && op % PHASE == 0)
			check_index(&vas, &m);
		if (used[slot]) {
			if (kind < 5 || drain) {
				model_remove(&m, node);
				npu_vas_remove(&vas, node);
				used[slot] = false;
			}
		} else if (drain) {
			/* nothing comes in */
		} else if (kind < 4) {
			u64 want = 0;
			bool fits = model_best_fit(&m, len, &want);
			int ret = npu_vas_reserve(&vas, node, len, 4096);

			assert_int_equal(ret, fits ? 0 : -ENOMEM);
			if (!ret) {
				assert_int_equal(node->start, want);
				model_insert(&m, node);
				used[slot] = true;
			}
		} else if (kind < 6) {
			u64 align = 4096ULL << (rnd(&x) % 10);
			u64 largest = model_largest_gap(&m);
			int ret = npu_vas_reserve(&vas, node, len, align);

			if (ret) {
				assert_int_equal(ret, -ENOMEM);
				assert_true(largest < len + align - 1);
			} else {
				assert_int_equal(node->start % align, 0);
				assert_int_equal(node->size, len);
				assert_true(node->start >= BASE &&
					    node->start + len <= BASE + size);
				assert_false(model_overlaps(&m, node->start, len));
				model_insert(&m, node);
				used[slot] = true;
			}
		} else {
			u64 start = BASE + 4096 * (rnd(&x) % (size / 4096 + 8)) - 4096;
			bool inside = start >= BASE && start + len <= BASE + size;
			int want = !inside ? -EINVAL : model_overlaps(&m, start, len) ? -EEXIST : 0;

			assert_int_equal(npu_vas_reserve_at(&vas, node, start, len), want);
			if (!want) {
				assert_int_equal(node->start, start);
				model_insert(&m, node);
				used[slot] = true;
			}
		}
		if (op % 16 == 0) {
			u64 addr = BASE - 4096 + rnd(&x) % (size + 8192);

			assert_ptr_equal(npu_vas_lookup(&vas, addr), model_lookup(&m, addr));
		}
		/* The start of a live, removed or reused range, and just inside. */
		if (op % 4 == 0) {
			u64 addr = nodes[rnd(&x) % SLOTS].start;

			assert_ptr_equal(npu_vas_lookup(&vas, addr), model_lookup(&m, addr));
			assert_ptr_equal(npu_vas_lookup(&vas, addr + 4095),
					 model_lookup(&m, addr + 4095));
		}
		if (drain && op % PHASE == PHASE - 1) {
			/* Drained: the index shrank back near its inline size. */
			assert_int_equal(m.n, 0);
			assert_int_equal(vas.hashed, 0);
			assert_true(vas.index.bits <= NPU_VAS_INDEX_MIN_BITS + 2);
		}
	}
	check_index(&vas, &m);
	/* In-order walk == the model; then everything goes back. */
	{
		struct npu_vas_node *n = npu_vas_first(&vas);
		unsigned int i;

		for (i = 0; i < m.n; i++, n = npu_vas_next(n))
			assert_ptr_equal(n, m.live[i]);
		assert_null(n);
	}
	for (op = 0; op < SLOTS; op++)
		if (used[op])
			npu_vas_remove(&vas, &nodes[op]);
	assert_int_equal(vas.used, 0);
	/* All holes merged again: the whole aperture fits in one range. */
	assert_int_equal(npu_vas_reserve(&vas, &nodes[0], size, 4096), 0);
	assert_int_equal(nodes[0].start, BASE);
	npu_vas_remove(&vas, &nodes[0]);
	npu_vas_fini(&vas);
	free(m.live);
	free(used);
	free(nodes);
}

/*
 * The index by start follows removal and reuse of the same start: a lookup
 * never finds a range that was removed, and finds the new one at once.
 */
static void test_lookup_after_reuse_of_start(void **state)
{
	struct npu_vas_node a = { 0 }, b = { 0 }, c = { 0 };
	const u64 s = BASE + 64 * 4096;
	struct npu_vas vas;

	(void)state;
	npu_vas_init(&vas, BASE, GIB);
	assert_int_equal(npu_vas_reserve_at(&vas, &a, s, 4096), 0);
	assert_ptr_equal(npu_vas_lookup(&vas, s), &a);
	npu_vas_remove(&vas, &a);
	assert_null(npu_vas_lookup(&vas, s));
	assert_true(hlist_unhashed(&a.hash));
	/* Another range over the same start, then one starting inside it. */
	assert_int_equal(npu_vas_reserve_at(&vas, &b, s - 4096, 3 * 4096), 0);
	assert_ptr_equal(npu_vas_lookup(&vas, s), &b);
	assert_ptr_equal(npu_vas_lookup(&vas, s - 4096), &b);
	npu_vas_remove(&vas, &b);
	assert_null(npu_vas_lookup(&vas, s));
	assert_int_equal(npu_vas_reserve_at(&vas, &c, s, 4096), 0);
	assert_int_equal(npu_vas_reserve_at(&vas, &a, s + 4096, 4096), 0);
	assert_ptr_equal(npu_vas_lookup(&vas, s), &c);
	assert_ptr_equal(npu_vas_lookup(&vas, s + 4096), &a);
	assert_null(npu_vas_lookup(&vas, s - 4096));
	npu_vas_remove(&vas, &c);
	npu_vas_remove(&vas, &a);
	assert_int_equal(vas.hashed, 0);
	npu_vas_fini(&vas);
}

/*
 * When the index cannot grow (no memory for a bigger table), ranges beyond
 * two a bucket stay out of it and are found through the tree; removing
 * them all leaves nothing behind.
 */
static void test_index_without_memory(void **state)
{
	enum { N = 200 };
	struct npu_vas_node *nodes = calloc(N, sizeof(*nodes)), extra = { 0 };
	long live = mock_live_objects();
	struct npu_vas vas;
	unsigned int i;

	(void)state;
	assert_non_null(nodes);
	npu_vas_init(&vas, BASE, GIB);
	for (i = 0; i < N; i++) {
		mock_fail_alloc_nth(1);
		assert_int_equal(npu_vas_reserve(&vas, &nodes[i], 4096, 4096), 0);
	}
	mock_fail_reset();
	assert_int_equal(vas.index.bits, NPU_VAS_INDEX_MIN_BITS);
	assert_int_equal(vas.hashed, 2 * NPU_VAS_INDEX_MIN);
	assert_true(hlist_unhashed(&nodes[N - 1].hash));
	for (i = 0; i < N; i++) {
		assert_ptr_equal(npu_vas_lookup(&vas, nodes[i].start), &nodes[i]);
		assert_ptr_equal(npu_vas_lookup(&vas, nodes[i].start + 4095), &nodes[i]);
	}
	/* With memory again, the index grows; the early ranges move with it. */
	assert_int_equal(npu_vas_reserve(&vas, &extra, 4096, 4096), 0);
	assert_int_equal(vas.index.bits, NPU_VAS_INDEX_MIN_BITS + 1);
	assert_false(hlist_unhashed(&extra.hash));
	for (i = 0; i < N; i++)
		assert_ptr_equal(npu_vas_lookup(&vas, nodes[i].start), &nodes[i]);
	assert_ptr_equal(npu_vas_lookup(&vas, extra.start), &extra);
	npu_vas_remove(&vas, &extra);
	for (i = 0; i < N; i++)
		npu_vas_remove(&vas, &nodes[i]);
	assert_int_equal(vas.hashed, 0);
	npu_vas_fini(&vas);
	assert_int_equal(mock_live_objects(), live);
	free(nodes);
}

/*
 * A million live ranges: each reservation is a tree descent, so this runs
 * in well under a second (a walk over the ranges per reservation would
 * need hours). Freeing every other one and reserving again reuses exactly
 * those holes.
 */
static void test_million_live_ranges(void **state)
{
	enum { N = 1000000 };
	struct npu_vas_node *nodes = calloc(N, sizeof(*nodes));
	struct npu_vas vas;
	unsigned int i;

	(void)state;
	assert_non_null(nodes);
	npu_vas_init(&vas, BASE, 8ULL * N * 4096);
	for (i = 0; i < N; i++)
		assert_int_equal(npu_vas_reserve(&vas, &nodes[i], 4096, 4096), 0);
	for (i = 0; i < N; i += 2)
		npu_vas_remove(&vas, &nodes[i]);
	for (i = 0; i < N; i += 2) {
		assert_int_equal(npu_vas_reserve(&vas, &nodes[i], 4096, 4096), 0);
		assert_int_equal(nodes[i].start, BASE + (u64)i * 4096);
	}
	assert_ptr_equal(npu_vas_lookup(&vas, BASE + 4096ULL * (N - 1)), &nodes[N - 1]);
	/* All in the index, sized for them: at most one range a bucket. */
	assert_int_equal(vas.hashed, N);
	assert_true(1U << vas.index.bits >= N && 1U << vas.index.bits < 4 * N);
	for (i = 0; i < N; i += 7)
		assert_ptr_equal(npu_vas_lookup(&vas, nodes[i].start), &nodes[i]);
	for (i = 0; i < N; i++)
		npu_vas_remove(&vas, &nodes[i]);
	assert_int_equal(vas.used, 0);
	assert_int_equal(vas.hashed, 0);
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
		cmocka_unit_test(test_matches_reference_model),
		cmocka_unit_test(test_lookup_after_reuse_of_start),
		cmocka_unit_test(test_index_without_memory),
		cmocka_unit_test(test_million_live_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
