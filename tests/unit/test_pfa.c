// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the buddy page-frame allocator (kmod/npu_pfa.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "npu_pfa.h"

#define FRAMES_1G	(1U << NPU_ORDER_HUGE1G)
#define FRAMES_2M	(1U << NPU_ORDER_HUGE)

struct alloc {
	struct npu_extent *ext;
	unsigned int nr;
	u64 frames;
};

static u64 free_bytes(struct npu_pfa *pfa, int cls)
{
	struct npu_pfa_stats st;

	npu_pfa_stats(pfa, &st);
	return st.free[cls];
}

static u64 free_frames(struct npu_pfa *pfa)
{
	return free_bytes(pfa, NPU_CLASS_NORMAL) >> NPU_PAGE_SHIFT;
}

static u64 free_huge_blocks(struct npu_pfa *pfa)
{
	return free_bytes(pfa, NPU_CLASS_HUGE) >> (NPU_PAGE_SHIFT + NPU_ORDER_HUGE);
}

static u64 free_1g_blocks(struct npu_pfa *pfa)
{
	return free_bytes(pfa, NPU_CLASS_HUGE1G) >> (NPU_PAGE_SHIFT + NPU_ORDER_HUGE1G);
}

static int do_alloc(struct npu_pfa *pfa, u64 frames, unsigned int order, struct alloc *a)
{
	a->frames = frames;
	return npu_pfa_alloc(pfa, frames, order, &a->ext, &a->nr);
}

static void do_free(struct npu_pfa *pfa, struct alloc *a)
{
	npu_pfa_free(pfa, a->ext, a->nr);
	kvfree(a->ext);
	a->ext = NULL;
	a->nr = 0;
}

static void test_init_counts_every_frame_free_with_odd_arena(void **state)
{
	/* 2 GiB + 3 pageblocks + 7 frames: the tail is cut into smaller blocks. */
	u32 n = 2 * FRAMES_1G + 3 * FRAMES_2M + 7;
	struct npu_pfa pfa;
	struct npu_pfa_stats st;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, n), 0);
	npu_pfa_stats(&pfa, &st);
	assert_int_equal(st.total[NPU_CLASS_NORMAL], (u64)n << 12);
	assert_int_equal(st.free[NPU_CLASS_NORMAL], (u64)n << 12);
	assert_int_equal(st.total[NPU_CLASS_HUGE], (u64)(2 * 512 + 3) << 21);
	assert_int_equal(st.free[NPU_CLASS_HUGE], (u64)(2 * 512 + 3) << 21);
	assert_int_equal(st.total[NPU_CLASS_HUGE1G], 2ULL << 30);
	assert_int_equal(st.free[NPU_CLASS_HUGE1G], 2ULL << 30);
	npu_pfa_fini(&pfa);
}

static void test_init_rejects_empty_arena(void **state)
{
	struct npu_pfa pfa;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, 0), -EINVAL);
}

static void test_alloc_one_frame_splits_down_from_max_order(void **state)
{
	struct npu_pfa pfa;
	struct alloc a;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, FRAMES_1G), 0);
	assert_int_equal(do_alloc(&pfa, 1, 0, &a), 0);
	assert_int_equal(a.nr, 1);
	assert_int_equal(a.ext[0].pfn, 0);
	assert_int_equal(a.ext[0].order, 0);
	assert_int_equal(a.ext[0].index, 0);
	assert_int_equal(free_frames(&pfa), FRAMES_1G - 1);
	assert_int_equal(free_huge_blocks(&pfa), 511);
	assert_int_equal(free_1g_blocks(&pfa), 0);
	do_free(&pfa, &a);
	npu_pfa_fini(&pfa);
}

static void test_free_merges_buddies_up_to_max_order(void **state)
{
	struct npu_pfa pfa;
	struct alloc a[4];
	int i;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, 2 * FRAMES_1G), 0);
	/* Four single frames: 0, 1, 2, 3 of the first 1 GiB block. */
	for (i = 0; i < 4; i++) {
		assert_int_equal(do_alloc(&pfa, 1, 0, &a[i]), 0);
		assert_int_equal(a[i].ext[0].pfn, i);
	}
	assert_int_equal(free_1g_blocks(&pfa), 1);
	/* Freed out of order, they merge back into one 1 GiB block. */
	do_free(&pfa, &a[2]);
	do_free(&pfa, &a[0]);
	assert_int_equal(free_1g_blocks(&pfa), 1);
	do_free(&pfa, &a[3]);
	assert_int_equal(free_1g_blocks(&pfa), 1);
	do_free(&pfa, &a[1]);
	assert_int_equal(free_1g_blocks(&pfa), 2);
	assert_int_equal(free_huge_blocks(&pfa), 1024);
	/* And the whole block can be allocated again. */
	assert_int_equal(do_alloc(&pfa, 2 * FRAMES_1G, NPU_ORDER_HUGE1G, &a[0]), 0);
	assert_int_equal(a[0].nr, 2);
	assert_int_equal(free_frames(&pfa), 0);
	do_free(&pfa, &a[0]);
	npu_pfa_fini(&pfa);
}

static void test_merge_needs_buddy_of_same_order(void **state)
{
	struct npu_pfa pfa;
	struct alloc a, b, c;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, FRAMES_2M), 0);
	assert_int_equal(do_alloc(&pfa, 1, 0, &a), 0);	/* frame 0 */
	assert_int_equal(do_alloc(&pfa, 1, 0, &b), 0);	/* frame 1 */
	assert_int_equal(do_alloc(&pfa, 2, 0, &c), 0);	/* frames 2..3, order 1 */
	assert_int_equal(c.ext[0].pfn, 2);
	assert_int_equal(c.ext[0].order, 1);
	/* Frame 0 is free but its buddy (frame 1) is not: no merge. */
	do_free(&pfa, &a);
	assert_int_equal(free_huge_blocks(&pfa), 0);
	do_free(&pfa, &c);
	assert_int_equal(free_huge_blocks(&pfa), 0);
	do_free(&pfa, &b);
	assert_int_equal(free_huge_blocks(&pfa), 1);
	npu_pfa_fini(&pfa);
}

static void test_huge_extents_are_aligned_order9_blocks(void **state)
{
	struct npu_pfa pfa;
	struct alloc a;
	unsigned int i;
	u64 frames = 0;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, FRAMES_1G), 0);
	assert_int_equal(do_alloc(&pfa, 5 * FRAMES_2M, NPU_ORDER_HUGE, &a), 0);
	for (i = 0; i < a.nr; i++) {
		assert_true(a.ext[i].order >= NPU_ORDER_HUGE);
		assert_int_equal(a.ext[i].pfn % (1U << a.ext[i].order), 0);
		assert_int_equal(a.ext[i].index, frames);
		frames += 1U << a.ext[i].order;
	}
	assert_int_equal(frames, 5 * FRAMES_2M);
	do_free(&pfa, &a);
	assert_int_equal(free_1g_blocks(&pfa), 1);
	npu_pfa_fini(&pfa);
}

static void test_bad_requests_are_rejected(void **state)
{
	static const struct {
		u64 frames;
		unsigned int order;
		int err;
	} rows[] = {
		{ 0, 0, -EINVAL },			/* nothing */
		{ 100, NPU_ORDER_HUGE, -EINVAL },	/* not a multiple of the order */
		{ 1, NPU_MAX_ORDER + 1, -EINVAL },	/* no such order */
		{ FRAMES_1G + 1, 0, -ENOMEM },		/* more than the arena */
		{ ~0ULL, 0, -ENOMEM },			/* far more */
	};
	struct npu_pfa pfa;
	unsigned int i;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, FRAMES_1G), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct alloc a;

		assert_int_equal(do_alloc(&pfa, rows[i].frames, rows[i].order, &a), rows[i].err);
	}
	assert_int_equal(free_frames(&pfa), FRAMES_1G);
	npu_pfa_fini(&pfa);
}

static void test_oom_when_arena_full(void **state)
{
	struct npu_pfa pfa;
	struct alloc all, one;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, 3 * FRAMES_2M), 0);
	assert_int_equal(do_alloc(&pfa, 3 * FRAMES_2M, 0, &all), 0);
	assert_int_equal(free_frames(&pfa), 0);
	assert_int_equal(do_alloc(&pfa, 1, 0, &one), -ENOMEM);
	assert_int_equal(do_alloc(&pfa, FRAMES_2M, NPU_ORDER_HUGE, &one), -ENOMEM);
	do_free(&pfa, &all);
	assert_int_equal(free_huge_blocks(&pfa), 3);
	npu_pfa_fini(&pfa);
}

static void test_huge_oom_when_only_fragments_are_free(void **state)
{
	enum { N = 4 * FRAMES_2M };
	struct npu_pfa pfa;
	struct alloc *single, a;
	unsigned int i;

	(void)state;
	single = calloc(N, sizeof(*single));
	assert_non_null(single);
	assert_int_equal(npu_pfa_init(&pfa, N), 0);
	for (i = 0; i < N; i++)
		assert_int_equal(do_alloc(&pfa, 1, 0, &single[i]), 0);
	/* Free every other frame: half the memory, no free 2 MiB block. */
	for (i = 0; i < N; i += 2)
		do_free(&pfa, &single[i]);
	assert_int_equal(free_frames(&pfa), N / 2);
	assert_int_equal(free_huge_blocks(&pfa), 0);
	assert_int_equal(do_alloc(&pfa, FRAMES_2M, NPU_ORDER_HUGE, &a), -ENOMEM);
	/* Normal allocations still get all of it, as many single extents. */
	assert_int_equal(do_alloc(&pfa, N / 2, 0, &a), 0);
	assert_int_equal(a.nr, N / 2);
	assert_int_equal(free_frames(&pfa), 0);
	do_free(&pfa, &a);
	for (i = 1; i < N; i += 2)
		do_free(&pfa, &single[i]);
	assert_int_equal(free_huge_blocks(&pfa), 4);
	npu_pfa_fini(&pfa);
	free(single);
}

static void test_single_frame_does_not_break_the_only_1g_block(void **state)
{
	struct npu_pfa pfa;
	struct alloc small, big, more;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, FRAMES_1G + FRAMES_2M), 0);
	/* The tail pageblock takes the frame; the 1 GiB block stays whole. */
	assert_int_equal(do_alloc(&pfa, 1, 0, &small), 0);
	assert_true(small.ext[0].pfn >= FRAMES_1G);
	assert_int_equal(free_1g_blocks(&pfa), 1);
	assert_int_equal(do_alloc(&pfa, FRAMES_1G, NPU_ORDER_HUGE1G, &big), 0);
	assert_int_equal(big.nr, 1);
	assert_int_equal(big.ext[0].pfn, 0);
	assert_int_equal(do_alloc(&pfa, FRAMES_2M, NPU_ORDER_HUGE, &more), -ENOMEM);
	do_free(&pfa, &big);
	do_free(&pfa, &small);
	assert_int_equal(free_frames(&pfa), FRAMES_1G + FRAMES_2M);
	npu_pfa_fini(&pfa);
}

static void test_small_allocations_fill_broken_pageblocks_first(void **state)
{
	struct npu_pfa pfa;
	struct alloc a[512], b, c;
	unsigned int i;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, FRAMES_1G), 0);
	assert_int_equal(do_alloc(&pfa, 1, 0, &a[0]), 0);
	assert_int_equal(free_huge_blocks(&pfa), 511);
	/* The rest of that pageblock serves the next 511 frames. */
	for (i = 1; i < 512; i++) {
		assert_int_equal(do_alloc(&pfa, 1, 0, &a[i]), 0);
		assert_true(a[i].ext[0].pfn < FRAMES_2M);
	}
	assert_int_equal(free_huge_blocks(&pfa), 511);
	/* A hole in a broken pageblock is reused before a new one breaks. */
	do_free(&pfa, &a[100]);
	assert_int_equal(do_alloc(&pfa, 1, 0, &b), 0);
	assert_int_equal(b.ext[0].pfn, 100);
	assert_int_equal(free_huge_blocks(&pfa), 511);
	/* Normal multi-frame allocations also use fragments before whole blocks. */
	do_free(&pfa, &a[3]);
	do_free(&pfa, &a[7]);
	assert_int_equal(do_alloc(&pfa, 2, 0, &c), 0);
	assert_int_equal(c.nr, 2);
	assert_int_equal(c.ext[0].pfn, 3);
	assert_int_equal(c.ext[1].pfn, 7);
	assert_int_equal(free_huge_blocks(&pfa), 511);
	do_free(&pfa, &c);
	do_free(&pfa, &b);
	for (i = 0; i < 512; i++) {
		if (a[i].ext)
			do_free(&pfa, &a[i]);
	}
	assert_int_equal(free_1g_blocks(&pfa), 1);
	npu_pfa_fini(&pfa);
}

static void test_huge_blocks_taken_before_1g_block_breaks(void **state)
{
	struct npu_pfa pfa;
	struct alloc small, h[511], more;
	unsigned int i;

	(void)state;
	assert_int_equal(npu_pfa_init(&pfa, 2 * FRAMES_1G), 0);
	assert_int_equal(do_alloc(&pfa, 1, 0, &small), 0);
	assert_int_equal(free_1g_blocks(&pfa), 1);
	for (i = 0; i < 511; i++) {
		assert_int_equal(do_alloc(&pfa, FRAMES_2M, NPU_ORDER_HUGE, &h[i]), 0);
		assert_true(h[i].ext[0].pfn < FRAMES_1G);
	}
	/* The first 1 GiB block is full; the second one is still whole. */
	assert_int_equal(free_1g_blocks(&pfa), 1);
	assert_int_equal(do_alloc(&pfa, FRAMES_2M, NPU_ORDER_HUGE, &more), 0);
	assert_int_equal(free_1g_blocks(&pfa), 0);
	do_free(&pfa, &more);
	for (i = 0; i < 511; i++)
		do_free(&pfa, &h[i]);
	do_free(&pfa, &small);
	assert_int_equal(free_1g_blocks(&pfa), 2);
	npu_pfa_fini(&pfa);
}

/*
 * Randomized run against a reference model: one byte per frame, set while
 * the frame is allocated. Every allocation must consist of naturally
 * aligned, in-arena, non-overlapping extents of at least the requested
 * order; the allocator must fail exactly when the model says the request
 * cannot be met; and the free counters must equal what the model counts.
 */
#define RAND_FRAMES	(2 * FRAMES_1G + 5 * FRAMES_2M + 77)
#define RAND_LIVE	256
#define RAND_OPS	20000

struct model {
	unsigned char *used;	/* per frame */
	u32 *pb_used;		/* used frames per 2 MiB pageblock */
	u64 free;
};

static void model_set(struct model *m, u32 pfn, unsigned char v)
{
	assert_int_not_equal(m->used[pfn], v);	/* no overlap, no double free */
	m->used[pfn] = v;
	if (v)
		m->pb_used[pfn >> NPU_ORDER_HUGE]++;
	else
		m->pb_used[pfn >> NPU_ORDER_HUGE]--;
}

/* Free naturally aligned blocks of @order (9 or 18) lying inside the arena. */
static u64 model_free_blocks(const struct model *m, unsigned int order)
{
	u32 per = 1U << (order - NPU_ORDER_HUGE);
	u32 pbs = RAND_FRAMES >> NPU_ORDER_HUGE;
	u64 count = 0;
	u32 b, p;

	for (b = 0; b + per <= pbs; b += per) {
		for (p = 0; p < per && !m->pb_used[b + p]; p++)
			;
		if (p == per)
			count++;
	}
	return count;
}

static void test_random_operations_match_reference_model(void **state)
{
	struct model m = {
		.used = calloc(RAND_FRAMES, 1),
		.pb_used = calloc((RAND_FRAMES >> NPU_ORDER_HUGE) + 1, sizeof(u32)),
		.free = RAND_FRAMES,
	};
	struct alloc live[RAND_LIVE] = { 0 };
	struct npu_pfa pfa;
	unsigned int op, i, e, f;

	(void)state;
	assert_non_null(m.used);
	assert_non_null(m.pb_used);
	srand(20240601);
	assert_int_equal(npu_pfa_init(&pfa, RAND_FRAMES), 0);
	for (op = 0; op < RAND_OPS; op++) {
		struct alloc *a = &live[rand() % RAND_LIVE];

		if (a->ext) {
			for (e = 0; e < a->nr; e++)
				for (f = 0; f < (1U << a->ext[e].order); f++)
					model_set(&m, a->ext[e].pfn + f, 0);
			m.free += a->frames;
			do_free(&pfa, a);
		} else {
			int kind = rand() % 16;
			unsigned int order = kind < 12 ? 0 : kind < 15 ? NPU_ORDER_HUGE :
					     NPU_ORDER_HUGE1G;
			u64 frames = order == 0 ? (u64)(1 + rand() % (rand() % 4 ? 64 : 4096)) :
				     order == NPU_ORDER_HUGE ? (u64)(1 + rand() % 24) << order :
				     1ULL << order;
			u64 avail = order == 0 ? m.free : model_free_blocks(&m, order) << order;
			u64 got = 0;
			int ret = do_alloc(&pfa, frames, order, a);

			if (avail < frames) {
				assert_int_equal(ret, -ENOMEM);
				a->ext = NULL;
				continue;
			}
			assert_int_equal(ret, 0);
			for (e = 0; e < a->nr; e++) {
				const struct npu_extent *x = &a->ext[e];

				assert_true(x->order >= order);
				assert_int_equal(x->pfn % (1U << x->order), 0);
				assert_true(x->pfn + (1U << x->order) <= RAND_FRAMES);
				assert_int_equal(x->index, got);
				for (f = 0; f < (1U << x->order); f++)
					model_set(&m, x->pfn + f, 1);
				got += 1U << x->order;
			}
			assert_int_equal(got, frames);
			m.free -= frames;
		}
		if (op % 100 == 0) {
			assert_int_equal(free_frames(&pfa), m.free);
			assert_int_equal(free_huge_blocks(&pfa),
					 model_free_blocks(&m, NPU_ORDER_HUGE));
			assert_int_equal(free_1g_blocks(&pfa),
					 model_free_blocks(&m, NPU_ORDER_HUGE1G));
		}
	}
	for (i = 0; i < RAND_LIVE; i++) {
		if (live[i].ext)
			do_free(&pfa, &live[i]);
	}
	assert_int_equal(free_frames(&pfa), RAND_FRAMES);
	assert_int_equal(free_1g_blocks(&pfa), 2);
	assert_int_equal(free_huge_blocks(&pfa), 2 * 512 + 5);
	npu_pfa_fini(&pfa);
	free(m.pb_used);
	free(m.used);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_counts_every_frame_free_with_odd_arena),
		cmocka_unit_test(test_init_rejects_empty_arena),
		cmocka_unit_test(test_alloc_one_frame_splits_down_from_max_order),
		cmocka_unit_test(test_free_merges_buddies_up_to_max_order),
		cmocka_unit_test(test_merge_needs_buddy_of_same_order),
		cmocka_unit_test(test_huge_extents_are_aligned_order9_blocks),
		cmocka_unit_test(test_bad_requests_are_rejected),
		cmocka_unit_test(test_oom_when_arena_full),
		cmocka_unit_test(test_huge_oom_when_only_fragments_are_free),
		cmocka_unit_test(test_single_frame_does_not_break_the_only_1g_block),
		cmocka_unit_test(test_small_allocations_fill_broken_pageblocks_first),
		cmocka_unit_test(test_huge_blocks_taken_before_1g_block_breaks),
		cmocka_unit_test(test_random_operations_match_reference_model),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
