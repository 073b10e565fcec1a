// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of the HBM backing store (kmod/npu_hbm.c) with the page-frame
 * allocator: frames never carry one owner's data to another, the same owner
 * gets its frames back without a scrub, idle chunks beyond the cap go back
 * to the host, and a failed populate unwinds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <mockdev/mock.h>
#include "npu_hbm.h"
#include "npu_pfa.h"

#define FRAMES_2M	(1U << NPU_ORDER_HUGE)
#define FRAMES_1G	(1U << NPU_ORDER_HUGE1G)
#define OWNER_A		1ULL
#define OWNER_B		2ULL

struct dev {
	struct npu_pfa pfa;
	struct npu_hbm hbm;
	long live_at_start;
};

struct alloc {
	struct npu_extent *ext;
	unsigned int nr;
	u64 owner;
};

static void dev_init(struct dev *d, u32 frames)
{
	mock_fail_reset();
	d->live_at_start = mock_live_objects();
	assert_int_equal(npu_pfa_init(&d->pfa, frames), 0);
	assert_int_equal(npu_hbm_init(&d->hbm, frames), 0);
}

static void dev_fini(struct dev *d)
{
	u32 i;

	for (i = 0; i < d->hbm.nr_chunks; i++)
		assert_int_equal(d->hbm.chunk[i].live, 0);
	npu_hbm_fini(&d->hbm);
	npu_pfa_fini(&d->pfa);
	assert_int_equal(mock_live_objects(), d->live_at_start);
}

/* What npu_phys_create() does: frames, then backing for their owner. */
static int dev_alloc(struct dev *d, u64 frames, unsigned int order, u64 owner, struct alloc *a)
{
	int ret = npu_pfa_alloc(&d->pfa, frames, order, &a->ext, &a->nr);

	if (ret)
		return ret;
	a->owner = owner;
	ret = npu_hbm_populate(&d->hbm, a->ext, a->nr, owner);
	if (ret) {
		npu_pfa_free(&d->pfa, a->ext, a->nr);
		kvfree(a->ext);
	}
	return ret;
}

/* What the last npu_phys_put() does. */
static void dev_free(struct dev *d, struct alloc *a)
{
	npu_hbm_release(&d->hbm, a->ext, a->nr, a->owner);
	npu_pfa_free(&d->pfa, a->ext, a->nr);
	kvfree(a->ext);
	a->ext = NULL;
}

static unsigned char *frame(struct dev *d, u32 pfn)
{
	unsigned char *p = npu_hbm_frame_addr(&d->hbm, pfn);

	assert_non_null(p);
	return p;
}

/* Fill every frame of an allocation (chunk by chunk: chunks are not contiguous). */
static void fill(struct dev *d, const struct alloc *a, unsigned char v)
{
	for (unsigned int i = 0; i < a->nr; i++) {
		u32 frames = 1U << a->ext[i].order;
		u32 step = frames < FRAMES_2M ? frames : FRAMES_2M;

		for (u32 f = 0; f < frames; f += step)
			memset(frame(d, a->ext[i].pfn + f), v, (size_t)step << NPU_PAGE_SHIFT);
	}
}

static int all_equal(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

static int holds(struct dev *d, const struct alloc *a, unsigned char v)
{
	for (unsigned int i = 0; i < a->nr; i++) {
		u32 frames = 1U << a->ext[i].order;
		u32 step = frames < FRAMES_2M ? frames : FRAMES_2M;

		for (u32 f = 0; f < frames; f += step)
			if (!all_equal(frame(d, a->ext[i].pfn + f), (size_t)step << NPU_PAGE_SHIFT, v))
				return 0;
	}
	return 1;
}

static void test_same_owner_gets_its_frames_back_without_a_scrub(void **state)
{
	struct dev d;
	struct alloc a;

	(void)state;
	dev_init(&d, 8 * FRAMES_2M);
	assert_int_equal(dev_alloc(&d, FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &a), 0);
	assert_true(holds(&d, &a, 0));
	fill(&d, &a, 0xa5);
	dev_free(&d, &a);
	assert_int_equal(dev_alloc(&d, FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &a), 0);
	assert_true(holds(&d, &a, 0xa5));
	assert_int_equal(atomic64_read(&d.hbm.nr_replaced), 0);
	assert_int_equal(atomic64_read(&d.hbm.scrubbed_bytes), 0);
	dev_free(&d, &a);
	dev_fini(&d);
}

static void test_another_owner_gets_huge_frames_zeroed(void **state)
{
	struct dev d;
	struct alloc a, b;

	(void)state;
	dev_init(&d, 8 * FRAMES_2M);
	assert_int_equal(dev_alloc(&d, 2 * FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &a), 0);
	fill(&d, &a, 0xa5);
	dev_free(&d, &a);
	assert_int_equal(dev_alloc(&d, 2 * FRAMES_2M, NPU_ORDER_HUGE, OWNER_B, &b), 0);
	assert_int_equal(b.ext[0].pfn, 0);	/* the same frames */
	assert_true(holds(&d, &b, 0));
	assert_int_equal(atomic64_read(&d.hbm.nr_replaced), 2);
	fill(&d, &b, 0x5a);
	dev_free(&d, &b);
	/* And back to A: B's data is gone too. */
	assert_int_equal(dev_alloc(&d, 2 * FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &a), 0);
	assert_true(holds(&d, &a, 0));
	dev_free(&d, &a);
	dev_fini(&d);
}

static void test_small_frames_of_two_owners_in_one_chunk(void **state)
{
	struct dev d;
	struct alloc a1, a2, b, a3;

	(void)state;
	dev_init(&d, 8 * FRAMES_2M);
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &a1), 0);
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &a2), 0);
	assert_int_equal(a1.ext[0].pfn, 0);
	assert_int_equal(a2.ext[0].pfn, 1);
	fill(&d, &a1, 0x11);
	fill(&d, &a2, 0x22);
	dev_free(&d, &a1);
	/* B gets frame 0 while A still uses frame 1: only B's frame is cleared. */
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_B, &b), 0);
	assert_int_equal(b.ext[0].pfn, 0);
	assert_true(holds(&d, &b, 0));
	assert_true(holds(&d, &a2, 0x22));
	assert_int_equal(atomic64_read(&d.hbm.scrubbed_bytes), 4096);
	fill(&d, &b, 0xbb);
	/*
	 * The chunk's free frames may hold A's data, and now B's: freeing
	 * costs nothing, the chunk is shared from now on.
	 */
	dev_free(&d, &b);
	assert_int_equal(atomic64_read(&d.hbm.scrubbed_bytes), 4096);
	/* A gets it back cleared: B's data never reaches it. */
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &a3), 0);
	assert_int_equal(a3.ext[0].pfn, 0);
	assert_true(holds(&d, &a3, 0));
	assert_int_equal(atomic64_read(&d.hbm.scrubbed_bytes), 8192);
	dev_free(&d, &a3);
	dev_free(&d, &a2);
	dev_fini(&d);
}

static void test_merged_small_blocks_are_zeroed_for_another_owner(void **state)
{
	struct dev d;
	struct alloc a[4], b;
	int i;

	(void)state;
	dev_init(&d, 8 * FRAMES_2M);
	/* A leaves data in small blocks that merge back into a 2 MiB block. */
	for (i = 0; i < 4; i++) {
		assert_int_equal(dev_alloc(&d, 1U << (i + 2), 0, OWNER_A, &a[i]), 0);
		fill(&d, &a[i], (unsigned char)(0x40 + i));
	}
	for (i = 3; i >= 0; i--)
		dev_free(&d, &a[i]);
	assert_int_equal(dev_alloc(&d, 8 * FRAMES_2M, NPU_ORDER_HUGE, OWNER_B, &b), 0);
	assert_true(holds(&d, &b, 0));
	dev_free(&d, &b);
	dev_fini(&d);
}

static void test_memory_that_became_shared_is_zeroed_for_its_creator_too(void **state)
{
	struct dev d;
	struct alloc a, s;

	(void)state;
	mock_log_clear();
	dev_init(&d, 8 * FRAMES_2M);
	/* A's own chunk, freed and taken again by A: it remembers A. */
	assert_int_equal(dev_alloc(&d, FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &a), 0);
	fill(&d, &a, 0xa5);
	dev_free(&d, &a);
	assert_int_equal(dev_alloc(&d, FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &s), 0);
	assert_true(holds(&d, &s, 0xa5));
	/* Exported meanwhile: it is freed as shared memory, and A gets zeros. */
	fill(&d, &s, 0x5e);
	s.owner = NPU_HBM_OWNER_SHARED;
	dev_free(&d, &s);
	assert_int_equal(dev_alloc(&d, FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &a), 0);
	assert_true(holds(&d, &a, 0));
	dev_free(&d, &a);
	/* The same for small frames: A gets zeros where shared memory was. */
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &a), 0);
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &s), 0);
	fill(&d, &a, 0x11);
	fill(&d, &s, 0x22);
	dev_free(&d, &a);
	s.owner = NPU_HBM_OWNER_SHARED;
	dev_free(&d, &s);
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &a), 0);
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &s), 0);
	assert_true(holds(&d, &a, 0));
	assert_true(holds(&d, &s, 0));
	dev_free(&d, &a);
	dev_free(&d, &s);
	assert_int_equal(mock_log_warnings(), 0);
	dev_fini(&d);
}

static void test_1g_block_of_another_owner_is_zeroed(void **state)
{
	struct dev d;
	struct alloc a, b;
	long vm;
	struct mock_counters c;

	(void)state;
	dev_init(&d, FRAMES_1G);
	assert_int_equal(dev_alloc(&d, FRAMES_1G, NPU_ORDER_HUGE1G, OWNER_A, &a), 0);
	assert_int_equal(d.hbm.nr_populated, 512);
	/* Data in the first, a middle and the last chunk. */
	memset(frame(&d, 0), 0xa1, 4096);
	memset(frame(&d, 256 * FRAMES_2M + 7), 0xa2, 4096);
	memset(frame(&d, FRAMES_1G - 1), 0xa3, 4096);
	dev_free(&d, &a);
	/* The chunks went idle: all but the cap went back to the host. */
	assert_int_equal(d.hbm.nr_populated, NPU_HBM_IDLE_CHUNKS);
	assert_int_equal(d.hbm.nr_idle, NPU_HBM_IDLE_CHUNKS);
	assert_int_equal(atomic64_read(&d.hbm.nr_released), 512 - NPU_HBM_IDLE_CHUNKS);
	mock_counters_get(&c);
	vm = c.vmalloc;
	assert_int_equal(dev_alloc(&d, FRAMES_1G, NPU_ORDER_HUGE1G, OWNER_B, &b), 0);
	assert_true(all_equal(frame(&d, 0), 4096, 0));
	assert_true(all_equal(frame(&d, 256 * FRAMES_2M + 7), 4096, 0));
	assert_true(all_equal(frame(&d, FRAMES_1G - 1), 4096, 0));
	/* The idle chunks still populated were A's: each was swapped. */
	assert_int_equal(atomic64_read(&d.hbm.nr_replaced), NPU_HBM_IDLE_CHUNKS);
	mock_counters_get(&c);
	assert_int_equal(c.vmalloc, vm + 512 - NPU_HBM_IDLE_CHUNKS);
	dev_free(&d, &b);
	dev_fini(&d);
}

static void test_idle_chunks_beyond_the_cap_go_back_to_the_host(void **state)
{
	struct dev d;
	struct alloc a, b;
	struct mock_counters c;
	long vm;

	(void)state;
	dev_init(&d, 64 * FRAMES_2M);
	mock_counters_get(&c);
	vm = c.vmalloc;
	assert_int_equal(dev_alloc(&d, 48 * FRAMES_2M, NPU_ORDER_HUGE, OWNER_A, &a), 0);
	mock_counters_get(&c);
	assert_int_equal(c.vmalloc, vm + 48);
	assert_int_equal(dev_alloc(&d, 1, 0, OWNER_A, &b), 0);
	dev_free(&d, &a);
	mock_counters_get(&c);
	assert_int_equal(c.vmalloc, vm + 1 + NPU_HBM_IDLE_CHUNKS);
	assert_int_equal(d.hbm.nr_idle, NPU_HBM_IDLE_CHUNKS);
	/* A chunk with a live frame is never idle. */
	dev_free(&d, &b);
	assert_int_equal(d.hbm.nr_idle, NPU_HBM_IDLE_CHUNKS);
	assert_int_equal(d.hbm.nr_populated, NPU_HBM_IDLE_CHUNKS);
	dev_fini(&d);
}

static void test_failed_populate_unwinds_at_every_allocation(void **state)
{
	struct dev d;
	struct alloc a, b;
	unsigned long n;

	(void)state;
	for (n = 1;; n++) {
		unsigned long calls;
		int ret;

		dev_init(&d, 16 * FRAMES_2M);
		/* B's dirty chunk among them, so the swap path is exercised too. */
		assert_int_equal(dev_alloc(&d, FRAMES_2M, NPU_ORDER_HUGE, OWNER_B, &b), 0);
		fill(&d, &b, 0xbb);
		dev_free(&d, &b);
		mock_fail_reset();
		mock_fail_alloc_nth(n);
		ret = dev_alloc(&d, 8 * FRAMES_2M + 3, 0, OWNER_A, &a);
		calls = mock_alloc_calls();
		mock_fail_reset();
		if (!ret) {
			assert_true(holds(&d, &a, 0));
			dev_free(&d, &a);
			dev_fini(&d);
			assert_true(calls < n);
			assert_true(n > 5);
			break;
		}
		assert_int_equal(ret, -ENOMEM);
		for (u32 i = 0; i < d.hbm.nr_chunks; i++)
			assert_int_equal(d.hbm.chunk[i].live, 0);
		/* Whatever is still populated is zero or was only ever B's. */
		dev_fini(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_owner_gets_its_frames_back_without_a_scrub),
		cmocka_unit_test(test_another_owner_gets_huge_frames_zeroed),
		cmocka_unit_test(test_small_frames_of_two_owners_in_one_chunk),
		cmocka_unit_test(test_merged_small_blocks_are_zeroed_for_another_owner),
		cmocka_unit_test(test_memory_that_became_shared_is_zeroed_for_its_creator_too),
		cmocka_unit_test(test_1g_block_of_another_owner_is_zeroed),
		cmocka_unit_test(test_idle_chunks_beyond_the_cap_go_back_to_the_host),
		cmocka_unit_test(test_failed_populate_unwinds_at_every_allocation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
