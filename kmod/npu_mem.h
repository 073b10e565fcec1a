/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device memory allocations of a context and the translation of device
 * virtual address ranges to their backing.
 */
#ifndef _NPU_MEM_H
#define _NPU_MEM_H

#include "npu_internal.h"
#include "npu_pfa.h"
#include "npu_vas.h"

struct npu_ctx;
struct npu_device;
struct npu_mem_alloc;
struct npu_mem_query;

/* An allocation: frames, the mapping in its context's address space. */
struct npu_mem {
	struct kref ref;	/* the context's handle, plus engines using it */
	struct npu_device *ndev;
	struct npu_vas_node node;	/* protected by the context's lock */
	u64 size;		/* bytes requested */
	u32 handle;
	u32 page_order;
	u32 flags;		/* NPU_MEM_* */
	unsigned int nr_extents;
	struct npu_extent *extents;	/* immutable while the allocation lives */
};

/* A device VA range inside one allocation, held while an engine uses it. */
struct npu_mem_range {
	struct npu_mem *mem;	/* referenced */
	u64 off;		/* of the range's first byte in the allocation */
	u64 len;
};

int npu_mem_create(struct npu_ctx *ctx, struct npu_mem_alloc *args);
int npu_mem_free(struct npu_ctx *ctx, u64 va);
void npu_mem_query(struct npu_ctx *ctx, struct npu_mem_query *args);
void npu_mem_release_all(struct npu_ctx *ctx);
void npu_mem_put(struct npu_mem *mem);

int npu_mem_range_get(struct npu_ctx *ctx, u64 va, u64 len, bool write,
		      struct npu_mem_range *range);
void npu_mem_range_put(struct npu_mem_range *range);
void *npu_mem_range_seg(const struct npu_mem_range *range, u64 pos, u64 *seg_len);

#endif /* _NPU_MEM_H */
