// SPDX-License-Identifier: GPL-2.0
/*
 * A context's device virtual address space.
 *
 * The ranges live in an rbtree sorted by start. Reservation is first fit
 * over the gaps, lowest address first, which keeps the used part of the
 * aperture compact; lookup of the range containing an address is a tree
 * descent.
 */
#include "npu_internal.h"
#include "npu_vas.h"

/**
 * npu_vas_init() - an empty address space over [base, base + size)
 * @vas: the address space
 * @base: first address; base + size must not wrap past U64_MAX
 * @size: bytes
 */
void npu_vas_init(struct npu_vas *vas, u64 base, u64 size)
{
	vas->base = base;
	vas->size = size;
	vas->root = RB_ROOT;
	vas->used = 0;
}

/**
 * npu_vas_fini() - tear down an address space
 * @vas: the address space; its owner has removed every range
 */
void npu_vas_fini(struct npu_vas *vas)
{
	WARN_ON(!RB_EMPTY_ROOT(&vas->root));
	vas->root = RB_ROOT;
}

/* The lowest @align-aligned start of a free gap of @size bytes. */
static int npu_vas_find_gap(struct npu_vas *vas, u64 size, u64 align, u64 *start)
{
	u64 end = vas->base + vas->size;
	u64 cur = vas->base;
	struct rb_node *rb;

	for (rb = rb_first(&vas->root); ; rb = rb_next(rb)) {
		u64 gap_end = rb ? rb_entry(rb, struct npu_vas_node, rb)->start : end;
		u64 s;

		if (!check_add_overflow(cur, align - 1, &s)) {
			s &= ~(align - 1);
			if (s <= gap_end && gap_end - s >= size) {
				*start = s;
				return 0;
			}
		}
		if (!rb)
			return -ENOMEM;
		cur = npu_vas_node_end(rb_entry(rb, struct npu_vas_node, rb));
	}
}

/**
 * npu_vas_reserve() - place a range of @size bytes aligned to @align
 * @vas: the address space
 * @node: the range; start and size are set on success
 * @size: bytes, > 0
 * @align: a power of two
 *
 * Return: 0, -EINVAL for a bad size or alignment, -ENOMEM when no gap fits.
 */
int npu_vas_reserve(struct npu_vas *vas, struct npu_vas_node *node, u64 size,
		    u64 align)
{
	struct rb_node **link = &vas->root.rb_node, *parent = NULL;
	u64 start;
	int ret;

	if (!size || !align || !is_power_of_2(align))
		return -EINVAL;
	if (size > vas->size)
		return -ENOMEM;
	ret = npu_vas_find_gap(vas, size, align, &start);
	if (ret)
		return ret;

	while (*link) {
		struct npu_vas_node *n = rb_entry(*link, struct npu_vas_node, rb);

		parent = *link;
		link = start < n->start ? &parent->rb_left : &parent->rb_right;
	}
	node->start = start;
	node->size = size;
	rb_link_node(&node->rb, parent, link);
	rb_insert_color(&node->rb, &vas->root);
	vas->used += size;
	return 0;
}

/**
 * npu_vas_reserve_at() - place a range at a fixed address
 * @vas: the address space
 * @node: the range; start and size are set on success
 * @start: first address
 * @size: bytes, > 0
 *
 * Return: 0; -EINVAL if [start, start + size) is not inside the address
 * space; -EEXIST if it overlaps a range already there.
 */
int npu_vas_reserve_at(struct npu_vas *vas, struct npu_vas_node *node,
		       u64 start, u64 size)
{
	struct rb_node **link = &vas->root.rb_node, *parent = NULL;

	if (!size || start < vas->base || start - vas->base > vas->size ||
	    size > vas->size - (start - vas->base))
		return -EINVAL;
	while (*link) {
		struct npu_vas_node *n = rb_entry(*link, struct npu_vas_node, rb);

		parent = *link;
		if (start + size <= n->start)
			link = &parent->rb_left;
		else if (start >= npu_vas_node_end(n))
			link = &parent->rb_right;
		else
			return -EEXIST;
	}
	node->start = start;
	node->size = size;
	rb_link_node(&node->rb, parent, link);
	rb_insert_color(&node->rb, &vas->root);
	vas->used += size;
	return 0;
}

/**
 * npu_vas_first() - the range with the lowest start
 * @vas: the address space
 *
 * Return: the range, or NULL when the address space is empty.
 */
struct npu_vas_node *npu_vas_first(struct npu_vas *vas)
{
	struct rb_node *rb = rb_first(&vas->root);

	return rb ? rb_entry(rb, struct npu_vas_node, rb) : NULL;
}

/**
 * npu_vas_next() - the range after @node
 * @node: a range of an address space
 *
 * Return: the next range by start, or NULL.
 */
struct npu_vas_node *npu_vas_next(struct npu_vas_node *node)
{
	struct rb_node *rb = rb_next(&node->rb);

	return rb ? rb_entry(rb, struct npu_vas_node, rb) : NULL;
}

/**
 * npu_vas_lookup() - the range that contains @addr
 * @vas: the address space
 * @addr: any address
 *
 * Return: the range, or NULL.
 */
struct npu_vas_node *npu_vas_lookup(struct npu_vas *vas, u64 addr)
{
	struct rb_node *rb = vas->root.rb_node;

	while (rb) {
		struct npu_vas_node *n = rb_entry(rb, struct npu_vas_node, rb);

		if (addr < n->start)
			rb = rb->rb_left;
		else if (addr - n->start >= n->size)
			rb = rb->rb_right;
		else
			return n;
	}
	return NULL;
}

/**
 * npu_vas_remove() - give a range back
 * @vas: the address space
 * @node: a range reserved in @vas
 */
void npu_vas_remove(struct npu_vas *vas, struct npu_vas_node *node)
{
	rb_erase(&node->rb, &vas->root);
	RB_CLEAR_NODE(&node->rb);
	vas->used -= node->size;
}
