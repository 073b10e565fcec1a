/* SPDX-License-Identifier: GPL-2.0 OR MIT */
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
	struct rb_node rb;	/* in npu_vas.root, by start */
	struct rb_node hole_rb;	/* in npu_vas.holes while hole > 0 */
	u64 start;
	u64 size;
	u64 hole;	/* free bytes after the range, up to the next one or the end */
	u32 kind;	/* NPU_VAS_*, set by the owner before reserving */
};

/*
 * Two trees over the same ranges, after the holes of DRM's drm_mm:
 * - root, by start: lookup of the range containing an address, the range
 *   before a fixed address, and in-order walks;
 * - holes, by (hole size, hole address): each range with free space after
 *   it, plus @head, a range of size 0 at base whose hole is the free space
 *   before the first range.
 * Per operation, with n ranges: reserve O(log n) (the smallest hole that
 * fits, lowest address among equals), reserve_at O(log n), lookup
 * O(log n), remove O(log n), first/next O(log n) worst and O(1) amortised.
 * Nothing is allocated: a range carries its own tree nodes.
 *
 * No lock of its own: the owner (the context) serialises every call with
 * its lock.
 */
struct npu_vas {
	u64 base;
	u64 size;
	struct rb_root root;	/* ranges by start, never overlapping */
	struct rb_root holes;	/* ranges (and head) with hole > 0, by (hole, end) */
	struct npu_vas_node head;
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
