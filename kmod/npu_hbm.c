// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Backing store of a device's HBM frames.
 *
 * An emulated HBM of many GiB must cost host memory only for what is used,
 * so the frames are backed by 2 MiB chunks that are allocated (zeroed
 * vmalloc_huge) the first time a frame inside them is allocated.
 *
 * No data crosses owners (contexts). Each chunk remembers the one owner
 * whose data its free frames may still hold (none when they are zero):
 *
 * - frames handed to a different owner are cleared first: a chunk of which
 *   no frame is in use is swapped for a fresh zeroed one, otherwise just
 *   the frames handed out are cleared with memset;
 * - frames freed into a chunk whose free frames hold another owner's data
 *   (small frames of several owners share a chunk) make it "shared": its
 *   free frames are then cleared for whoever takes them, their last owner
 *   included;
 * - the same owner gets its own frames back without a scrub, so freeing
 *   and allocating again in one context costs nothing extra.
 *
 * A chunk of which no frame is allocated is idle: the last
 * NPU_HBM_IDLE_CHUNKS idle chunks stay populated for reuse, older ones are
 * given back to the host (vfree), so a freed big allocation returns its
 * host memory. A later allocation populates them again.
 *
 * Locking: the chunk table is protected by hbm->lock; the scrubs, vmalloc
 * and vfree all run outside it. A chunk's memory is detached (vfree'd or
 * swapped) only while none of its frames is accounted as allocated (live
 * == 0), and frames are accounted before their owner can use them, so a
 * holder of allocated frames reads chunk memory without the lock. Frames
 * the page-frame allocator has handed out but that are not accounted yet
 * may see their chunk swapped or released under them: they are not in
 * use, and npu_hbm_populate() backs them again.
 *
 * Every operation costs O(chunks the extents touch); nothing here depends
 * on how many allocations are live.
 */
#include "npu_internal.h"
#include "npu_hbm.h"

#define NPU_HBM_CHUNK_FRAMES	(1U << NPU_HBM_CHUNK_ORDER)

/* Frames per chunk of @ext, and the chunks it spans. */
static u32 npu_hbm_ext_frames(const struct npu_extent *ext)
{
	return 1U << min_t(u32, ext->order, NPU_HBM_CHUNK_ORDER);
}

static u32 npu_hbm_ext_chunks(const struct npu_extent *ext)
{
	return ext->order > NPU_HBM_CHUNK_ORDER ? 1U << (ext->order - NPU_HBM_CHUNK_ORDER) : 1;
}

/* First frame of @ext inside its @k-th chunk. */
static u32 npu_hbm_ext_pfn(const struct npu_extent *ext, u32 k)
{
	return ext->pfn + k * NPU_HBM_CHUNK_FRAMES;
}

/**
 * npu_hbm_init() - set up the (still empty) backing of @nr_frames frames
 * @hbm: the backing store
 * @nr_frames: frames of the device
 *
 * Return: 0 or -ENOMEM.
 */
int npu_hbm_init(struct npu_hbm *hbm, u32 nr_frames)
{
	u32 i;

	hbm->nr_chunks = DIV_ROUND_UP(nr_frames, NPU_HBM_CHUNK_FRAMES);
	hbm->nr_populated = 0;
	hbm->nr_idle = 0;
	INIT_LIST_HEAD(&hbm->idle);
	atomic64_set(&hbm->nr_replaced, 0);
	atomic64_set(&hbm->nr_released, 0);
	atomic64_set(&hbm->scrubbed_bytes, 0);
	hbm->chunk = kvcalloc(hbm->nr_chunks, sizeof(*hbm->chunk), GFP_KERNEL);
	if (!hbm->chunk)
		return -ENOMEM;
	for (i = 0; i < hbm->nr_chunks; i++)
		INIT_LIST_HEAD(&hbm->chunk[i].idle);
	mutex_init(&hbm->lock);
	return 0;
}

/**
 * npu_hbm_fini() - free every chunk
 * @hbm: the backing store; no frame may be allocated
 */
void npu_hbm_fini(struct npu_hbm *hbm)
{
	u32 i;

	for (i = 0; i < hbm->nr_chunks; i++) {
		WARN_ON_ONCE(hbm->chunk[i].live);
		vfree(hbm->chunk[i].mem);
	}
	kvfree(hbm->chunk);
	hbm->chunk = NULL;
	mutex_destroy(&hbm->lock);
}

static void npu_hbm_idle_del(struct npu_hbm *hbm, struct npu_hbm_chunk *c)
{
	lockdep_assert_held(&hbm->lock);
	if (!list_empty(&c->idle)) {
		list_del_init(&c->idle);
		hbm->nr_idle--;
	}
}

/* Take a populated chunk's memory away (none of its frames is accounted). */
static void *npu_hbm_detach(struct npu_hbm *hbm, struct npu_hbm_chunk *c)
{
	void *mem = c->mem;

	lockdep_assert_held(&hbm->lock);
	WARN_ON_ONCE(c->live);
	npu_hbm_idle_del(hbm, c);
	WRITE_ONCE(c->mem, NULL);
	c->owner = NPU_HBM_OWNER_NONE;
	hbm->nr_populated--;
	return mem;
}

/*
 * Whether @n frames of @c for @owner need a fresh chunk: its free frames
 * may hold another owner's data and none of its frames is in use.
 */
static bool npu_hbm_needs_fresh(const struct npu_hbm_chunk *c, u32 n, u64 owner)
{
	return c->mem && c->owner != NPU_HBM_OWNER_NONE && c->owner != owner &&
	       (n == NPU_HBM_CHUNK_FRAMES || !c->live);
}

/*
 * Account @n frames from @pfn (inside chunk @idx) to @owner: back the
 * chunk if needed, and make sure the frames hold nothing of another owner.
 */
static int npu_hbm_claim(struct npu_hbm *hbm, u32 idx, u32 pfn, u32 n, u64 owner)
{
	struct npu_hbm_chunk *c = &hbm->chunk[idx];
	void *old = NULL, *mem = NULL;
	bool scrub;

	mutex_lock(&hbm->lock);
	if (npu_hbm_needs_fresh(c, n, owner)) {
		old = npu_hbm_detach(hbm, c);
		atomic64_inc(&hbm->nr_replaced);
	}
	if (!c->mem) {
		mutex_unlock(&hbm->lock);
		vfree(old);
		old = NULL;
		/* Huge mappings where the host has them: a chunk is one 2 MiB page. */
		mem = vmalloc_huge(NPU_HBM_CHUNK_SIZE, GFP_KERNEL | __GFP_ZERO);
		if (!mem)
			return -ENOMEM;
		mutex_lock(&hbm->lock);
		/* Somebody may have populated (and even used) it meanwhile. */
		if (npu_hbm_needs_fresh(c, n, owner)) {
			old = npu_hbm_detach(hbm, c);
			atomic64_inc(&hbm->nr_replaced);
		}
		if (!c->mem) {
			c->owner = NPU_HBM_OWNER_NONE;
			/* Publish the zeroed chunk (pairs with npu_hbm_frame_addr()). */
			smp_store_release(&c->mem, mem);
			hbm->nr_populated++;
			mem = NULL;
		}
	}
	/* Other frames of the chunk are in use: clear just ours. */
	scrub = c->owner != NPU_HBM_OWNER_NONE && c->owner != owner;
	npu_hbm_idle_del(hbm, c);
	c->live += n;
	mutex_unlock(&hbm->lock);

	vfree(old);
	vfree(mem);
	if (scrub) {
		memset(npu_hbm_frame_addr(hbm, pfn), 0, (size_t)n << NPU_PAGE_SHIFT);
		atomic64_add((s64)n << NPU_PAGE_SHIFT, &hbm->scrubbed_bytes);
	}
	return 0;
}

/* Give the oldest idle chunks back to the host, down to NPU_HBM_IDLE_CHUNKS. */
static void npu_hbm_trim(struct npu_hbm *hbm)
{
	void *victim[8];
	unsigned int n, i;

	do {
		n = 0;
		mutex_lock(&hbm->lock);
		while (hbm->nr_idle > NPU_HBM_IDLE_CHUNKS && n < ARRAY_SIZE(victim)) {
			struct npu_hbm_chunk *c = list_first_entry(&hbm->idle,
								   struct npu_hbm_chunk, idle);

			victim[n++] = npu_hbm_detach(hbm, c);
		}
		mutex_unlock(&hbm->lock);
		for (i = 0; i < n; i++)
			vfree(victim[i]);
		atomic64_add(n, &hbm->nr_released);
	} while (n == ARRAY_SIZE(victim));
}

/* Return @n accounted frames of chunk @idx from @owner. */
static void npu_hbm_unclaim(struct npu_hbm *hbm, u32 idx, u32 n, u64 owner)
{
	struct npu_hbm_chunk *c = &hbm->chunk[idx];

	mutex_lock(&hbm->lock);
	if (n < NPU_HBM_CHUNK_FRAMES && c->owner != NPU_HBM_OWNER_NONE && c->owner != owner) {
		/*
		 * The chunk's free frames already hold another owner's data:
		 * from now on they hold several owners', so whoever takes
		 * them next clears them (npu_hbm_claim()). Clearing here
		 * instead would make every free of small frames that share
		 * a chunk with other contexts pay a memset, used or not.
		 * (A whole chunk is all ours: it just takes our owner,
		 * whatever it held before we claimed it.)
		 */
		c->owner = NPU_HBM_OWNER_SHARED;
	} else {
		c->owner = owner;
	}
	if (!WARN_ON_ONCE(c->live < n))
		c->live -= n;
	if (!c->live && c->mem && list_empty(&c->idle)) {
		list_add_tail(&c->idle, &hbm->idle);
		hbm->nr_idle++;
	}
	mutex_unlock(&hbm->lock);
}

static void npu_hbm_unclaim_extent(struct npu_hbm *hbm, const struct npu_extent *ext,
				   u32 nr_chunks, u64 owner)
{
	u32 k;

	for (k = 0; k < nr_chunks; k++) {
		u32 pfn = npu_hbm_ext_pfn(ext, k);

		npu_hbm_unclaim(hbm, pfn >> NPU_HBM_CHUNK_ORDER, npu_hbm_ext_frames(ext), owner);
	}
}

/**
 * npu_hbm_populate() - back the frames of a new allocation for its owner
 * @hbm: the backing store
 * @extents: the allocation's extents, just taken from the page-frame allocator
 * @nr_extents: entries of @extents
 * @owner: who gets them (a context's owner id, or NPU_HBM_OWNER_SHARED)
 *
 * On success every frame is backed, reads as zero unless @owner itself
 * left data in it, and is accounted until npu_hbm_release(). On failure
 * nothing stays accounted.
 *
 * Return: 0 or -ENOMEM.
 */
int npu_hbm_populate(struct npu_hbm *hbm, const struct npu_extent *extents,
		     unsigned int nr_extents, u64 owner)
{
	unsigned int i;
	u32 k = 0;
	int ret = 0;

	for (i = 0; i < nr_extents; i++) {
		const struct npu_extent *ext = &extents[i];
		u32 chunks = npu_hbm_ext_chunks(ext);

		for (k = 0; k < chunks; k++) {
			u32 pfn = npu_hbm_ext_pfn(ext, k);

			ret = npu_hbm_claim(hbm, pfn >> NPU_HBM_CHUNK_ORDER, pfn,
					    npu_hbm_ext_frames(ext), owner);
			if (ret)
				goto err_unclaim;
		}
	}
	return 0;

err_unclaim:
	npu_hbm_unclaim_extent(hbm, &extents[i], k, owner);
	while (i--)
		npu_hbm_unclaim_extent(hbm, &extents[i], npu_hbm_ext_chunks(&extents[i]), owner);
	npu_hbm_trim(hbm);
	return ret;
}

/**
 * npu_hbm_release() - the frames of an allocation are being freed
 * @hbm: the backing store
 * @extents: the allocation's extents, about to go back to the page-frame allocator
 * @nr_extents: entries of @extents
 * @owner: what npu_hbm_populate() was given
 *
 * Remembers that the frames may hold @owner's data (or clears them where
 * they share a chunk with another owner's free frames) and gives idle
 * chunks beyond NPU_HBM_IDLE_CHUNKS back to the host.
 */
void npu_hbm_release(struct npu_hbm *hbm, const struct npu_extent *extents,
		     unsigned int nr_extents, u64 owner)
{
	unsigned int i;

	for (i = 0; i < nr_extents; i++)
		npu_hbm_unclaim_extent(hbm, &extents[i], npu_hbm_ext_chunks(&extents[i]), owner);
	npu_hbm_trim(hbm);
}

/**
 * npu_hbm_frame_addr() - kernel address of frame @pfn
 * @hbm: the backing store
 * @pfn: an allocated frame, accounted by npu_hbm_populate()
 *
 * The frames of one chunk are contiguous; different chunks are not.
 *
 * Return: the address; NULL (with a warning) if the frame has no backing.
 */
void *npu_hbm_frame_addr(struct npu_hbm *hbm, u32 pfn)
{
	u32 idx = pfn >> NPU_HBM_CHUNK_ORDER;
	void *chunk;

	if (WARN_ON_ONCE(idx >= hbm->nr_chunks))
		return NULL;
	chunk = smp_load_acquire(&hbm->chunk[idx].mem);
	if (WARN_ON_ONCE(!chunk))
		return NULL;
	return chunk + ((size_t)(pfn & (NPU_HBM_CHUNK_FRAMES - 1)) << NPU_PAGE_SHIFT);
}
