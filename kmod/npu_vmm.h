/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Virtual memory management of a context: physical handles, reservations
 * of device VA ranges, mappings of handles into them and access flags.
 */
#ifndef _NPU_VMM_H
#define _NPU_VMM_H

#include "npu_internal.h"
#include "npu_vas.h"

struct npu_ctx;
struct npu_phys;
struct npu_phys_alloc;
struct npu_phys_info;
struct npu_phys_peer;
struct npu_export;
struct npu_share_link;
struct npu_vmm_access;
struct npu_vmm_map;
struct npu_vmm_reserve;

/* What a reservation has been bound to by its first mapping (npu_resv.bound). */
#define NPU_RESV_UNBOUND	0
#define NPU_RESV_LOCAL		1	/* handles from PHYS_ALLOC */
#define NPU_RESV_IMPORTED	2	/* handles from SHARE_IMPORT */

/* A reserved VA range; protected by the context's lock, like its mappings. */
struct npu_resv {
	struct npu_vas_node node;	/* in the context's address space */
	struct npu_vas maps;		/* VMM mappings (struct npu_mem) inside it */
	u32 bound;			/* NPU_RESV_* while anything is mapped */
	u32 device;			/* device of the frames, when bound */
	u32 nr_maps;
};

/* A physical handle of a context (ctx->phys); protected by the context's lock. */
struct npu_phys_handle {
	struct npu_phys *phys;		/* referenced */
	u32 id;
	u32 refs;			/* PHYS_ALLOC or SHARE_IMPORT, plus each RETAIN */
	bool imported;
	struct npu_export *export;	/* its shareable handle, or NULL */
	struct npu_share_link *link;	/* imported: the importer record */
};

int npu_vmm_phys_alloc(struct npu_ctx *ctx, struct npu_phys_alloc *args);
int npu_vmm_phys_free(struct npu_ctx *ctx, u32 handle);
int npu_vmm_phys_retain(struct npu_ctx *ctx, u64 va, u32 *handle);
int npu_vmm_phys_info(struct npu_ctx *ctx, struct npu_phys_info *args);
int npu_vmm_phys_peer(struct npu_ctx *ctx, struct npu_phys_peer *args);
int npu_vmm_handle_add(struct npu_ctx *ctx, struct npu_phys *phys,
		       struct npu_share_link *link, u32 *handle);
int npu_vmm_reserve(struct npu_ctx *ctx, struct npu_vmm_reserve *args);
int npu_vmm_release(struct npu_ctx *ctx, u64 va);
int npu_vmm_map(struct npu_ctx *ctx, const struct npu_vmm_map *args);
int npu_vmm_unmap(struct npu_ctx *ctx, u64 va);
int npu_vmm_set_access(struct npu_ctx *ctx, const struct npu_vmm_access *args);
int npu_vmm_get_access(struct npu_ctx *ctx, struct npu_vmm_access *args);
void npu_vmm_release_all(struct npu_ctx *ctx);

#endif /* _NPU_VMM_H */
