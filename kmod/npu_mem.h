/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mappings of device memory in a context (allocations, IPC imports, VMM
 * mappings) and the translation of device virtual address ranges to their
 * backing.
 */
#ifndef _NPU_MEM_H
#define _NPU_MEM_H

#include "npu_internal.h"
#include "npu_phys.h"
#include "npu_vas.h"

struct npu_ctx;
struct npu_device;
struct npu_mem_alloc;
struct npu_mem_query;
struct npu_resv;
struct npu_share_link;

/* npu_mem.access: every location may read and write (allocations, imports). */
#define NPU_MEM_ACCESS_ALL	U32_MAX
/* npu_mem.access bit of the host location; bits 0..15 are devices. */
#define NPU_MEM_ACCESS_HOST	BIT(31)

/*
 * Physical memory mapped at one range of an address space. kind is an
 * NPU_MAPPING_* value: ALLOC and IMPORT nodes live in the context's
 * address space and have a handle in ctx->mems; VMM nodes live in their
 * reservation's. Everything is protected by the context's lock.
 */
struct npu_mem {
	struct npu_vas_node node;
	struct npu_phys *phys;		/* referenced */
	u64 size;			/* bytes asked for (ALLOC) */
	u32 kind;			/* NPU_MAPPING_ALLOC, _IMPORT or _VMM */
	u32 handle;			/* ALLOC, IMPORT */
	u32 access;			/* VMM: NPU_MEM_ACCESS_HOST | BIT(device) of who may use it */
	struct npu_share_link *link;	/* IMPORT: the importer record of the key */
	struct npu_resv *resv;		/* VMM: the reservation it is in */
};

/* One piece of a range: bytes of one physical memory. */
struct npu_mem_range_part {
	struct npu_phys *phys;	/* referenced */
	u64 off;		/* of the piece's first byte in phys */
	u64 len;
};

#define NPU_MEM_RANGE_INLINE	4

/*
 * A device VA range held while an engine uses it: one piece per mapping it
 * crosses (VMM mappings placed back to back in a reservation).
 */
struct npu_mem_range {
	u64 len;
	/*
	 * The translation cache slot whose reference the one part borrows
	 * (npu_mem_range_get_cached()); NULL when each part holds its own.
	 */
	struct npu_mem_xlate_slot *lender;
	unsigned int nr_parts;
	struct npu_mem_range_part *more;	/* kmalloc'd when nr_parts > INLINE */
	struct npu_mem_range_part part[NPU_MEM_RANGE_INLINE];
};

/* Translations an engine keeps for the rest of a batch. */
#define NPU_MEM_XLATE_SLOTS	2

/*
 * Mappings of a ring's context that an engine resolved during a batch,
 * each holding its physical memory, so that the next descriptors on the
 * same allocations take no lock: a hit costs a comparison with
 * ctx->map_gen, and the range it gives borrows the slot's reference on the
 * physical memory instead of taking one (two atomic operations per operand
 * were a quarter of an engine's time per small copy). A slot is valid
 * while map_gen has not moved since it was filled (no mapping was
 * removed; access to a mapping is only ever widened); a slot that has
 * lent its reference to a range not yet put is never refilled. The engine
 * running the ring owns it (submit_lock) and empties it when the batch
 * ends, so freed memory is held no longer than a batch.
 */
struct npu_mem_xlate {
	struct npu_mem_xlate_slot {
		struct npu_phys *phys;	/* referenced; NULL for an empty slot */
		u64 gen;		/* ctx->map_gen when it was filled */
		u64 start;		/* the mapping's first VA ... */
		u64 size;		/* ... and its bytes */
		bool writable;
		unsigned int lent;	/* ranges borrowing phys's reference */
		/*
		 * npu_mem_xlate_kaddr(): the run [win_va, win_va + win_len)
		 * of the mapping is contiguous in the kernel from win_k.
		 * Emptied (win_len 0) whenever the slot is filled.
		 */
		u64 win_va;
		u64 win_len;
		char *win_k;
	} slot[NPU_MEM_XLATE_SLOTS];
	unsigned int next;		/* the slot the next miss fills */
};

int npu_mem_create(struct npu_ctx *ctx, struct npu_mem_alloc *args);
int npu_mem_free(struct npu_ctx *ctx, u64 va);
int npu_mem_import(struct npu_ctx *ctx, struct npu_phys *phys, u64 size,
		   struct npu_share_link *link, u64 *va, u64 *mapped);
int npu_mem_unimport(struct npu_ctx *ctx, u64 va);
struct npu_mem *npu_mem_lookup(struct npu_ctx *ctx, u64 va);
void npu_mem_query(struct npu_ctx *ctx, struct npu_mem_query *args);
void npu_mem_release_all(struct npu_ctx *ctx);

int npu_mem_range_get(struct npu_ctx *ctx, u64 va, u64 len, bool write,
		      struct npu_mem_range *range);
void npu_mem_range_put(struct npu_mem_range *range);
int npu_mem_range_get_cached(struct npu_ctx *ctx, struct npu_mem_xlate *xlate, u64 va, u64 len,
			     bool write, struct npu_mem_range *range);
void *npu_mem_xlate_kaddr(struct npu_ctx *ctx, struct npu_mem_xlate *xlate, u64 va, u64 len,
			  bool write);
void npu_mem_xlate_drop(struct npu_mem_xlate *xlate);
void *npu_mem_range_seg(const struct npu_mem_range *range, u64 pos, u64 *seg_len);

#endif /* _NPU_MEM_H */
