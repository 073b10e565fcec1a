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
	struct hlist_node hash;	/* in npu_vas.index (or .old) by start, if hashed */
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
 * - index, a hash table of the ranges by start: lookup of an address that
 *   is a range's start (the common case: the base an allocation returned)
 *   in O(1) with a few cache misses, where the tree's descent takes one
 *   per level. Other addresses miss there and descend root.
 * Per operation, with n ranges: reserve O(log n) (the smallest hole that
 * fits, lowest address among equals), reserve_at O(log n), lookup
 * O(1) expected for a start and O(log n) otherwise, remove O(log n),
 * first/next O(log n) worst and O(1) amortised.
 *
 * A range carries its own tree and hash nodes. The hash table starts
 * inline (NPU_VAS_INDEX_MIN buckets) and doubles when it holds as many
 * ranges as buckets, halving when a quarter or fewer are used: a range
 * costs its 16-byte hash node and 4 to 32 bytes of buckets (32 only just
 * before a shrink, 8 to 16 while growing). A resize allocates the new
 * table and moves NPU_VAS_INDEX_STEP buckets of the old one at each
 * later reserve or remove (lookup looks in both meanwhile), so no call
 * pays for a rehash of every range. The index is only a shortcut: a range
 * left out of it (when no table could be allocated) is found in the tree.
 *
 * No lock of its own: the owner (the context) serialises every call with
 * its lock.
 */
#define NPU_VAS_INDEX_MIN_BITS	4
#define NPU_VAS_INDEX_MIN	(1U << NPU_VAS_INDEX_MIN_BITS)
#define NPU_VAS_INDEX_STEP	8

struct npu_vas_index {
	struct hlist_head *tab;	/* NULL, npu_vas.inline_tab or kvmalloc'd */
	unsigned int bits;	/* log2 of the buckets */
};

struct npu_vas {
	u64 base;
	u64 size;
	struct rb_root root;	/* ranges by start, never overlapping */
	struct rb_root holes;	/* ranges (and head) with hole > 0, by (hole, end) */
	struct npu_vas_node head;
	u64 used;		/* bytes reserved */
	struct npu_vas_index index;	/* ranges by start */
	struct npu_vas_index old;	/* during a resize: the table being emptied */
	u32 old_next;		/* first bucket of old not yet moved */
	u64 hashed;		/* ranges in index or old */
	struct hlist_head inline_tab[NPU_VAS_INDEX_MIN];
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
