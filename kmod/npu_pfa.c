// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Buddy page-frame allocator over the 4 KiB frames of a device's HBM.
 *
 * Orders 0..NPU_MAX_ORDER, so 4 KiB (order 0), 2 MiB (order 9) and 1 GiB
 * (order 18) pages are all buddy blocks. The buddy of the block of order o
 * at frame pfn is pfn ^ (1 << o); two blocks merge only when the buddy is
 * free with the same order.
 *
 * The metadata lives outside the arena (whose backing is populated lazily):
 * per order, a bitmap of the free blocks and a summary bitmap of its
 * non-zero words, so the lowest free block of an order is found by scanning
 * a few words. That is about two bits per frame in total.
 *
 * Against fragmentation, blocks are picked in tiers: small allocations use
 * the free space of 2 MiB pageblocks that are already broken before they
 * break a whole free pageblock, and every allocation uses the pieces of
 * already broken 1 GiB blocks before it breaks a whole one.
 */
#include "npu_internal.h"
#include "npu_pfa.h"

#define NPU_PFA_BITS	BITS_PER_LONG

/* Tiers of block orders, in the order the allocator prefers them. */
static const unsigned int npu_pfa_tier_lo[] = { 0, NPU_PAGEBLOCK_ORDER, NPU_MAX_ORDER };
static const unsigned int npu_pfa_tier_hi[] = { NPU_PAGEBLOCK_ORDER - 1, NPU_MAX_ORDER - 1,
						NPU_MAX_ORDER };

static u32 npu_pfa_nbits(const struct npu_pfa *pfa, unsigned int order)
{
	return DIV_ROUND_UP(pfa->nr_frames, 1U << order);
}

static bool npu_pfa_is_free(const struct npu_pfa *pfa, u32 pfn, unsigned int order)
{
	u32 bit = pfn >> order;

	if (bit >= npu_pfa_nbits(pfa, order))
		return false;
	return pfa->map[order][bit / NPU_PFA_BITS] & BIT(bit % NPU_PFA_BITS);
}

static void npu_pfa_insert(struct npu_pfa *pfa, u32 pfn, unsigned int order)
{
	u32 bit = pfn >> order;
	u32 word = bit / NPU_PFA_BITS;

	lockdep_assert_held(&pfa->lock);
	WARN_ON_ONCE(pfa->map[order][word] & BIT(bit % NPU_PFA_BITS));
	pfa->map[order][word] |= BIT(bit % NPU_PFA_BITS);
	pfa->sum[order][word / NPU_PFA_BITS] |= BIT(word % NPU_PFA_BITS);
	if (word / NPU_PFA_BITS < pfa->hint[order])
		pfa->hint[order] = word / NPU_PFA_BITS;
	pfa->nr_free[order]++;
}

static void npu_pfa_remove(struct npu_pfa *pfa, u32 pfn, unsigned int order)
{
	u32 bit = pfn >> order;
	u32 word = bit / NPU_PFA_BITS;

	lockdep_assert_held(&pfa->lock);
	pfa->map[order][word] &= ~BIT(bit % NPU_PFA_BITS);
	if (!pfa->map[order][word])
		pfa->sum[order][word / NPU_PFA_BITS] &= ~BIT(word % NPU_PFA_BITS);
	pfa->nr_free[order]--;
}

/* The lowest free block of @order; the caller checked nr_free[order]. */
static u32 npu_pfa_first(struct npu_pfa *pfa, unsigned int order)
{
	u32 nsum = DIV_ROUND_UP(DIV_ROUND_UP(npu_pfa_nbits(pfa, order),
					     NPU_PFA_BITS), NPU_PFA_BITS);
	u32 s, word;

	for (s = pfa->hint[order]; s < nsum; s++) {
		if (pfa->sum[order][s])
			break;
	}
	pfa->hint[order] = s;
	if (WARN_ON(s == nsum))
		return 0;
	word = s * NPU_PFA_BITS + __ffs(pfa->sum[order][s]);
	return (word * NPU_PFA_BITS + __ffs(pfa->map[order][word])) << order;
}

/*
 * Choose the order of the block to take for an extent of at most 2^want
 * frames and at least 2^min_order frames: the largest block that fits,
 * from the lowest tier that has one; else the smallest larger block, to
 * be split. Returns -1 when nothing is free.
 */
static int npu_pfa_pick(const struct npu_pfa *pfa, unsigned int want,
			unsigned int min_order)
{
	unsigned int t;
	int o;

	for (t = 0; t < ARRAY_SIZE(npu_pfa_tier_lo); t++) {
		int lo = max(min_order, npu_pfa_tier_lo[t]);

		for (o = min(want, npu_pfa_tier_hi[t]); o >= lo; o--) {
			if (pfa->nr_free[o])
				return o;
		}
	}
	for (o = want + 1; o <= NPU_MAX_ORDER; o++) {
		if (pfa->nr_free[o])
			return o;
	}
	return -1;
}

/* Take a free block of @order and split it down to @want; returns its pfn. */
static u32 npu_pfa_take(struct npu_pfa *pfa, unsigned int order, unsigned int want)
{
	u32 pfn = npu_pfa_first(pfa, order);

	npu_pfa_remove(pfa, pfn, order);
	while (order > want) {
		order--;
		npu_pfa_insert(pfa, pfn + (1U << order), order);
	}
	return pfn;
}

static void npu_pfa_free_block(struct npu_pfa *pfa, u32 pfn, unsigned int order)
{
	while (order < NPU_MAX_ORDER) {
		u32 buddy = pfn ^ (1U << order);

		if (!npu_pfa_is_free(pfa, buddy, order))
			break;
		npu_pfa_remove(pfa, buddy, order);
		pfn &= ~(1U << order);
		order++;
	}
	npu_pfa_insert(pfa, pfn, order);
}

/* Frames that allocations with blocks of at least @min_order could get. */
static u64 npu_pfa_avail(const struct npu_pfa *pfa, unsigned int min_order)
{
	u64 frames = 0;
	unsigned int o;

	for (o = min_order; o <= NPU_MAX_ORDER; o++)
		frames += (u64)pfa->nr_free[o] << o;
	return frames;
}

/**
 * npu_pfa_init() - set up an allocator with every frame free
 * @pfa: the allocator
 * @nr_frames: frames of the arena, > 0 (need not be a power of two)
 *
 * Return: 0 or -ENOMEM.
 */
int npu_pfa_init(struct npu_pfa *pfa, u32 nr_frames)
{
	unsigned int o;
	u32 pfn;

	memset(pfa, 0, sizeof(*pfa));
	if (!nr_frames)
		return -EINVAL;
	pfa->nr_frames = nr_frames;
	mutex_init(&pfa->lock);
	for (o = 0; o <= NPU_MAX_ORDER; o++) {
		u32 words = DIV_ROUND_UP(npu_pfa_nbits(pfa, o), NPU_PFA_BITS);

		pfa->map[o] = kvcalloc(words, sizeof(unsigned long), GFP_KERNEL);
		pfa->sum[o] = kvcalloc(DIV_ROUND_UP(words, NPU_PFA_BITS),
				       sizeof(unsigned long), GFP_KERNEL);
		if (!pfa->map[o] || !pfa->sum[o])
			goto err_free_maps;
	}

	/* Cut the arena into the largest naturally aligned blocks. */
	mutex_lock(&pfa->lock);
	for (pfn = 0; pfn < nr_frames; ) {
		o = NPU_MAX_ORDER;
		while (!IS_ALIGNED(pfn, 1U << o) || nr_frames - pfn < (1U << o))
			o--;
		npu_pfa_insert(pfa, pfn, o);
		pfn += 1U << o;
	}
	mutex_unlock(&pfa->lock);
	return 0;

err_free_maps:
	npu_pfa_fini(pfa);
	return -ENOMEM;
}

/**
 * npu_pfa_fini() - free the allocator's metadata
 * @pfa: the allocator; every allocation must have been freed
 */
void npu_pfa_fini(struct npu_pfa *pfa)
{
	unsigned int o;

	for (o = 0; o <= NPU_MAX_ORDER; o++) {
		kvfree(pfa->map[o]);
		kvfree(pfa->sum[o]);
		pfa->map[o] = NULL;
		pfa->sum[o] = NULL;
	}
	if (pfa->nr_frames)
		mutex_destroy(&pfa->lock);
	pfa->nr_frames = 0;
}

static int npu_extents_grow(struct npu_extent **extents, unsigned int *cap)
{
	unsigned int ncap = *cap ? *cap * 2 : 8;
	struct npu_extent *n;

	if (ncap < *cap)
		return -ENOMEM;
	n = kvmalloc_array(ncap, sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	if (*extents)
		memcpy(n, *extents, *cap * sizeof(*n));
	kvfree(*extents);
	*extents = n;
	*cap = ncap;
	return 0;
}

/**
 * npu_pfa_alloc() - allocate frames as extents of at least 2^min_order
 * @pfa: the allocator
 * @nr_frames: frames wanted, a non-zero multiple of 2^min_order
 * @min_order: the page order of the allocation (0, 9 or 18)
 * @extents: out: a kvmalloc'ed array of the extents, in allocation order;
 *	the caller kvfree()s it after npu_pfa_free()
 * @nr_extents: out: entries of @extents
 *
 * All or nothing: either every frame is allocated, or nothing is.
 *
 * Return: 0, -EINVAL for a bad request, -ENOMEM when there is not enough
 * free memory in blocks of @min_order or when the extent array cannot grow.
 */
int npu_pfa_alloc(struct npu_pfa *pfa, u64 nr_frames, unsigned int min_order,
		  struct npu_extent **extents, unsigned int *nr_extents)
{
	struct npu_extent *ext = NULL;
	unsigned int nr = 0, cap = 0;
	u64 left = nr_frames;
	int ret = 0;

	if (!nr_frames || min_order > NPU_MAX_ORDER ||
	    !IS_ALIGNED(nr_frames, 1ULL << min_order))
		return -EINVAL;
	if (nr_frames > pfa->nr_frames)
		return -ENOMEM;

	mutex_lock(&pfa->lock);
	/* Checked first, so that the loop below cannot run out of blocks. */
	if (npu_pfa_avail(pfa, min_order) < nr_frames) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	while (left) {
		unsigned int want = min_t(unsigned int, ilog2(left), NPU_MAX_ORDER);
		int order = npu_pfa_pick(pfa, want, min_order);

		if (WARN_ON(order < 0)) {
			ret = -ENOMEM;
			goto err_free_extents;
		}
		if (nr == cap) {
			ret = npu_extents_grow(&ext, &cap);
			if (ret)
				goto err_free_extents;
		}
		want = min_t(unsigned int, want, order);
		ext[nr].pfn = npu_pfa_take(pfa, order, want);
		ext[nr].index = nr_frames - left;
		ext[nr].order = want;
		nr++;
		left -= 1ULL << want;
	}
	mutex_unlock(&pfa->lock);
	*extents = ext;
	*nr_extents = nr;
	return 0;

err_free_extents:
	while (nr--)
		npu_pfa_free_block(pfa, ext[nr].pfn, ext[nr].order);
	kvfree(ext);
out_unlock:
	mutex_unlock(&pfa->lock);
	return ret;
}

/**
 * npu_pfa_free() - return the frames of an allocation
 * @pfa: the allocator
 * @extents: what npu_pfa_alloc() returned (not freed here)
 * @nr_extents: its entries
 */
void npu_pfa_free(struct npu_pfa *pfa, const struct npu_extent *extents,
		  unsigned int nr_extents)
{
	unsigned int i;

	mutex_lock(&pfa->lock);
	for (i = 0; i < nr_extents; i++)
		npu_pfa_free_block(pfa, extents[i].pfn, extents[i].order);
	mutex_unlock(&pfa->lock);
}

/**
 * npu_pfa_stats() - total and free bytes per page class
 * @pfa: the allocator
 * @stats: out
 *
 * free[NPU_CLASS_HUGE] counts the free naturally aligned 2 MiB blocks,
 * free[NPU_CLASS_HUGE1G] the free 1 GiB blocks.
 */
void npu_pfa_stats(struct npu_pfa *pfa, struct npu_pfa_stats *stats)
{
	u64 n = pfa->nr_frames;

	stats->total[NPU_CLASS_NORMAL] = n << NPU_PAGE_SHIFT;
	stats->total[NPU_CLASS_HUGE] = (n >> NPU_ORDER_HUGE) << (NPU_PAGE_SHIFT + NPU_ORDER_HUGE);
	stats->total[NPU_CLASS_HUGE1G] = (n >> NPU_ORDER_HUGE1G) <<
					 (NPU_PAGE_SHIFT + NPU_ORDER_HUGE1G);
	mutex_lock(&pfa->lock);
	stats->free[NPU_CLASS_NORMAL] = npu_pfa_avail(pfa, 0) << NPU_PAGE_SHIFT;
	stats->free[NPU_CLASS_HUGE] = npu_pfa_avail(pfa, NPU_ORDER_HUGE) << NPU_PAGE_SHIFT;
	stats->free[NPU_CLASS_HUGE1G] = npu_pfa_avail(pfa, NPU_ORDER_HUGE1G) << NPU_PAGE_SHIFT;
	mutex_unlock(&pfa->lock);
}
