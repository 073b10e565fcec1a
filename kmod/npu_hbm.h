/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backing store of a device's HBM frames, populated lazily in 2 MiB chunks.
 */
#ifndef _NPU_HBM_H
#define _NPU_HBM_H

#include "npu_internal.h"
#include "npu_pfa.h"

#define NPU_HBM_CHUNK_ORDER	NPU_ORDER_HUGE			/* frames per chunk: 512 */
#define NPU_HBM_CHUNK_SIZE	(NPU_PAGE_SIZE << NPU_HBM_CHUNK_ORDER)	/* 2 MiB */

struct npu_hbm {
	u32 nr_chunks;
	struct mutex lock; /* Protects: populating chunk[] (reads of a populated slot need no lock) */
	void **chunk;	/* nr_chunks pointers, NULL until first used */
	u32 nr_populated;
};

int npu_hbm_init(struct npu_hbm *hbm, u32 nr_frames);
void npu_hbm_fini(struct npu_hbm *hbm);
int npu_hbm_populate(struct npu_hbm *hbm, const struct npu_extent *extents,
		     unsigned int nr_extents);
void *npu_hbm_frame_addr(struct npu_hbm *hbm, u32 pfn);

#endif /* _NPU_HBM_H */
