/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Backing store of a device's HBM frames, populated lazily in 2 MiB chunks,
 * scrubbed before another owner gets them and given back when idle.
 */
#ifndef _NPU_HBM_H
#define _NPU_HBM_H

#include "npu_internal.h"
#include "npu_pfa.h"

#define NPU_HBM_CHUNK_ORDER	NPU_ORDER_HUGE			/* frames per chunk: 512 */
#define NPU_HBM_CHUNK_SIZE	(NPU_PAGE_SIZE << NPU_HBM_CHUNK_ORDER)	/* 2 MiB */

/*
 * Owners of frames. A context's owner id is unique for the life of the
 * driver instance (never reused, unlike TGIDs and context ids); 0 means
 * "nobody" (the free frames are zero); NPU_HBM_OWNER_SHARED is memory that
 * more than one context could write (exported), which no owner matches.
 */
#define NPU_HBM_OWNER_NONE	0ULL
#define NPU_HBM_OWNER_SHARED	U64_MAX

/* Idle chunks (populated, no frame allocated) kept for reuse: 16 MiB. */
#define NPU_HBM_IDLE_CHUNKS	8

struct npu_hbm_chunk {
	void *mem;		/* vzalloc'ed backing; NULL while not populated */
	u64 owner;		/* the only owner whose data the free frames may hold */
	u32 live;		/* allocated frames in the chunk */
	struct list_head idle;	/* in npu_hbm.idle while populated with live == 0 */
};

struct npu_hbm {
	u32 nr_chunks;
	/*
	 * Protects: chunk[] (publishing and detaching mem, owner, live, idle),
	 * idle, nr_idle, nr_populated. A populated chunk's mem stays valid
	 * while live > 0, so whoever holds allocated frames reads it without
	 * the lock. No scrub and no vzalloc/vfree runs under it.
	 */
	struct mutex lock;
	struct npu_hbm_chunk *chunk;
	struct list_head idle;	/* idle chunks, least recently used first */
	u32 nr_idle;
	u32 nr_populated;
	/* Statistics, never reset. */
	atomic64_t nr_replaced;		/* dirty chunks swapped for zeroed ones */
	atomic64_t nr_released;		/* idle chunks given back to the host */
	atomic64_t scrubbed_bytes;	/* bytes cleared with memset */
};

int npu_hbm_init(struct npu_hbm *hbm, u32 nr_frames);
void npu_hbm_fini(struct npu_hbm *hbm);
int npu_hbm_populate(struct npu_hbm *hbm, const struct npu_extent *extents,
		     unsigned int nr_extents, u64 owner);
void npu_hbm_release(struct npu_hbm *hbm, const struct npu_extent *extents,
		     unsigned int nr_extents, u64 owner);
void *npu_hbm_frame_addr(struct npu_hbm *hbm, u32 pfn);

#endif /* _NPU_HBM_H */
