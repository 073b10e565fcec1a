/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Physical device memory: a reference-counted set of frames that any
 * number of mappings, handles and exports may share.
 */
#ifndef _NPU_PHYS_H
#define _NPU_PHYS_H

#include "npu_internal.h"
#include "npu_pfa.h"

struct npu_device;
struct npu_proc;

struct npu_phys {
	struct kref ref;	/* mappings, handles, exports, engine ranges */
	struct npu_device *ndev;
	struct npu_proc *proc;	/* charged for size bytes of HBM; referenced */
	u64 size;		/* bytes the frames cover */
	u32 page_order;		/* of the frames */
	u32 page_class;		/* NPU_CLASS_* the memory was asked for */
	u32 flags;		/* NPU_MEM_* */
	/*
	 * Owner id of the creating context, NPU_HBM_OWNER_SHARED once the
	 * memory is exported: whose data the frames hold when they are freed.
	 */
	u64 owner;
	unsigned int nr_extents;
	struct npu_extent *extents;	/* sorted by index, immutable */
	/*
	 * The extent npu_phys_addr() found last. A stream of small copies
	 * mostly stays in one extent, and then needs no search. Read and
	 * written without a lock by every engine: only a hint, checked
	 * against the extent before it is used.
	 */
	unsigned int extent_hint;
	/* NPU_MEM_HOST: size bytes of host memory instead of frames (no extents). */
	void *host;
};

int npu_phys_create(struct npu_device *ndev, struct npu_proc *proc, u64 owner, u64 size,
		    u32 policy, u32 flags, struct npu_phys **out);
int npu_phys_create_host(struct npu_device *ndev, struct npu_proc *proc, u64 size,
			 u32 page_order, u32 flags, struct npu_phys **out);
void npu_phys_mark_shared(struct npu_phys *phys);

/**
 * npu_phys_get() - one more reference to physical memory
 * @phys: the memory
 *
 * Return: @phys.
 */
static inline struct npu_phys *npu_phys_get(struct npu_phys *phys)
{
	kref_get(&phys->ref);
	return phys;
}

void npu_phys_put(struct npu_phys *phys);
void *npu_phys_addr(struct npu_phys *phys, u64 off, u64 *contig);

static inline u32 npu_phys_page_size(const struct npu_phys *phys)
{
	return NPU_PAGE_SIZE << phys->page_order;
}

#endif /* _NPU_PHYS_H */
