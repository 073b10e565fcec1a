/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Buddy page-frame allocator over the 4 KiB frames of a device's HBM.
 */
#ifndef _NPU_PFA_H
#define _NPU_PFA_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

#define NPU_PFA_ORDERS		(NPU_MAX_ORDER + 1)
/* Frames of the pageblock that groups small allocations (2 MiB). */
#define NPU_PAGEBLOCK_ORDER	NPU_ORDER_HUGE

/* A naturally aligned run of 2^order frames, part of an allocation. */
struct npu_extent {
	u32 pfn;	/* first frame */
	u32 index;	/* frame offset of this extent within its allocation */
	u32 order;
};

struct npu_pfa {
	u32 nr_frames;
	struct mutex lock; /* Protects: map, sum, hint, nr_free */
	/* map[o] bit i: the block of order o at frame i << o is free. */
	unsigned long *map[NPU_PFA_ORDERS];
	/* sum[o] bit w: word w of map[o] is not zero. */
	unsigned long *sum[NPU_PFA_ORDERS];
	/* Lowest word of sum[o] that may be non-zero. */
	u32 hint[NPU_PFA_ORDERS];
	/* Free blocks per order. */
	u32 nr_free[NPU_PFA_ORDERS];
};

/* Totals and free bytes per page class (NPU_CLASS_*). */
struct npu_pfa_stats {
	u64 total[NPU_CLASS_COUNT];
	u64 free[NPU_CLASS_COUNT];
};

int npu_pfa_init(struct npu_pfa *pfa, u32 nr_frames);
void npu_pfa_fini(struct npu_pfa *pfa);
int npu_pfa_alloc(struct npu_pfa *pfa, u64 nr_frames, unsigned int min_order,
		  struct npu_extent **extents, unsigned int *nr_extents);
void npu_pfa_free(struct npu_pfa *pfa, const struct npu_extent *extents,
		  unsigned int nr_extents);
void npu_pfa_stats(struct npu_pfa *pfa, struct npu_pfa_stats *stats);

#endif /* _NPU_PFA_H */
