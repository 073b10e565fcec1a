// SPDX-License-Identifier: GPL-2.0
/*
 * Backing store of a device's HBM frames.
 *
 * An emulated HBM of many GiB must cost host memory only for what is used,
 * so the frames are backed by 2 MiB chunks that are allocated the first
 * time a frame inside them is allocated and then kept until the device
 * goes away. A chunk is never freed while the device lives, so a populated
 * slot can be read without the lock.
 *
 * Chunks are zeroed (vzalloc) so that a D2H copy of never-written device
 * memory cannot read stale kernel memory. In the mock kernel vzalloc is a
 * fresh MAP_NORESERVE mapping, so this costs nothing there either.
 */
#include "npu_internal.h"
#include "npu_hbm.h"

/**
 * npu_hbm_init() - set up the (still empty) backing of @nr_frames frames
 * @hbm: the backing store
 * @nr_frames: frames of the device
 *
 * Return: 0 or -ENOMEM.
 */
int npu_hbm_init(struct npu_hbm *hbm, u32 nr_frames)
{
	hbm->nr_chunks = DIV_ROUND_UP(nr_frames, 1U << NPU_HBM_CHUNK_ORDER);
	hbm->nr_populated = 0;
	hbm->chunk = kvcalloc(hbm->nr_chunks, sizeof(*hbm->chunk), GFP_KERNEL);
	if (!hbm->chunk)
		return -ENOMEM;
	mutex_init(&hbm->lock);
	return 0;
}

/**
 * npu_hbm_fini() - free every chunk
 * @hbm: the backing store
 */
void npu_hbm_fini(struct npu_hbm *hbm)
{
	u32 i;

	for (i = 0; i < hbm->nr_chunks; i++)
		vfree(hbm->chunk[i]);
	kvfree(hbm->chunk);
	hbm->chunk = NULL;
	mutex_destroy(&hbm->lock);
}

static int npu_hbm_populate_chunk(struct npu_hbm *hbm, u32 idx)
{
	void *mem;

	if (READ_ONCE(hbm->chunk[idx]))
		return 0;
	mem = vzalloc(NPU_HBM_CHUNK_SIZE);
	if (!mem)
		return -ENOMEM;
	/* Publish the zeroed chunk (pairs with npu_hbm_frame_addr()). */
	smp_store_release(&hbm->chunk[idx], mem);
	hbm->nr_populated++;
	return 0;
}

/**
 * npu_hbm_populate() - make sure every frame of an allocation has backing
 * @hbm: the backing store
 * @extents: the allocation's extents
 * @nr_extents: entries of @extents
 *
 * Chunks populated before a failure stay; they are freed with the device.
 *
 * Return: 0 or -ENOMEM.
 */
int npu_hbm_populate(struct npu_hbm *hbm, const struct npu_extent *extents,
		     unsigned int nr_extents)
{
	unsigned int i;
	int ret = 0;

	mutex_lock(&hbm->lock);
	for (i = 0; i < nr_extents && !ret; i++) {
		u32 first = extents[i].pfn >> NPU_HBM_CHUNK_ORDER;
		u32 last = (extents[i].pfn + (1U << extents[i].order) - 1) >>
			   NPU_HBM_CHUNK_ORDER;
		u32 c;

		for (c = first; c <= last && !ret; c++)
			ret = npu_hbm_populate_chunk(hbm, c);
	}
	mutex_unlock(&hbm->lock);
	return ret;
}

/**
 * npu_hbm_frame_addr() - kernel address of frame @pfn
 * @hbm: the backing store
 * @pfn: an allocated (hence populated) frame
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
	chunk = smp_load_acquire(&hbm->chunk[idx]);
	if (WARN_ON_ONCE(!chunk))
		return NULL;
	return chunk + ((size_t)(pfn & ((1U << NPU_HBM_CHUNK_ORDER) - 1)) << NPU_PAGE_SHIFT);
}
