/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A context's device virtual address space: the aperture handed over by
 * NPU_IOCTL_CTX_SETUP and the ranges placed inside it.
 */
#ifndef _NPU_VAS_H
#define _NPU_VAS_H

#include "npu_internal.h"

/* What a node is embedded in (npu_vas_node.kind). */
#define NPU_VAS_MAPPING		0	/* struct npu_mem */
#define NPU_VAS_RESV		1	/* struct npu_resv */

/* A range of the address space; embedded in the object mapped there. */
struct npu_vas_node {
	struct rb_node rb;
	u64 start;
	u64 size;
	u32 kind;	/* NPU_VAS_*, set by the owner before reserving */
};

/*
 * No lock of its own: the owner (the context) serialises every call with
 * its lock.
 */
struct npu_vas {
	u64 base;
	u64 size;
	struct rb_root root;	/* nodes by start, never overlapping */
	u64 used;		/* bytes reserved */
};

void npu_vas_init(struct npu_vas *vas, u64 base, u64 size);
void npu_vas_fini(struct npu_vas *vas);
int npu_vas_reserve(struct npu_vas *vas, struct npu_vas_node *node, u64 size,
		    u64 align);
int npu_vas_reserve_at(struct npu_vas *vas, struct npu_vas_node *node,
		       u64 start, u64 size);
struct npu_vas_node *npu_vas_lookup(struct npu_vas *vas, u64 addr);
void npu_vas_remove(struct npu_vas *vas, struct npu_vas_node *node);

struct npu_vas_node *npu_vas_first(struct npu_vas *vas);
struct npu_vas_node *npu_vas_next(struct npu_vas_node *node);

static inline u64 npu_vas_node_end(const struct npu_vas_node *node)
{
	return node->start + node->size;
}

#endif /* _NPU_VAS_H */
