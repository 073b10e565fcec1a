// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: IDR.
 *
 * A fixed-height radix tree: IDR_LEVELS levels of 64-slot nodes cover IDs
 * 0..2^36-1 (the IDR uses 0..INT_MAX). Each node keeps two bitmaps:
 * "present" (leaf: the ID is allocated; inner: the child exists) and
 * "full" (leaf: same as present; inner: the child's subtree is completely
 * allocated), so the lowest free ID is found by following clear "full"
 * bits, and the next allocated one by following "present" bits.
 * Nodes are kmalloc'ed (counted and subject to failure injection, like the
 * kernel's IDR, which may fail with -ENOMEM) and freed as soon as they are
 * empty.
 */
#include <limits.h>
#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/idr.h>
#include <linux/slab.h>

#include "internal.h"

#define IDR_BITS	6
#define IDR_SLOTS	(1U << IDR_BITS)
#define IDR_LEVELS	6
#define IDR_MASK	(IDR_SLOTS - 1)
#define IDR_MAX		((unsigned long)INT_MAX)

struct mock_idr_node {
	unsigned long present;
	unsigned long full;
	unsigned int count;		/* bits set in present */
	void *slot[IDR_SLOTS];		/* leaf: entries; inner: children */
};

static inline unsigned int idr_index(unsigned long id, int level)
{
	return (id >> (level * IDR_BITS)) & IDR_MASK;
}

static inline unsigned long idr_span(int level)
{
	return 1UL << (level * IDR_BITS);
}

static void idr_lock(const struct idr *idr)
{
	pthread_mutex_lock((pthread_mutex_t *)&idr->lock);
}

static void idr_unlock(const struct idr *idr)
{
	pthread_mutex_unlock((pthread_mutex_t *)&idr->lock);
}

void idr_init_base(struct idr *idr, int base)
{
	pthread_mutex_init(&idr->lock, NULL);
	idr->root = NULL;
	idr->idr_base = base;
	idr->idr_next = 0;
}

/*
 * Lowest ID >= start that is free, in the subtree of node at level (which
 * covers [base, base + 64 * idr_span(level))); -1 if there is none.
 */
static long idr_find_free(const struct mock_idr_node *node, int level,
			  unsigned long base, unsigned long start)
{
	unsigned long mask;
	unsigned int i;

	if (!node)
		return max(base, start);
	i = start > base ? (start - base) >> (level * IDR_BITS) : 0;
	mask = ~node->full & (~0UL << i);
	while (mask) {
		unsigned long child_base;
		long r;

		i = __ffs(mask);
		child_base = base + i * idr_span(level);
		if (level == 0)
			return child_base;
		r = idr_find_free(node->slot[i], level - 1, child_base,
				  max(start, child_base));
		if (r >= 0)
			return r;
		mask &= mask - 1;
	}
	return -1;
}

/* Lowest allocated ID >= start with a non-NULL entry; -1 if none. */
static long idr_find_used(const struct mock_idr_node *node, int level,
			  unsigned long base, unsigned long start)
{
	unsigned long mask;
	unsigned int i;

	if (!node)
		return -1;
	i = start > base ? (start - base) >> (level * IDR_BITS) : 0;
	mask = node->present & (~0UL << i);
	while (mask) {
		unsigned long child_base;
		long r;

		i = __ffs(mask);
		child_base = base + i * idr_span(level);
		if (level == 0) {
			if (node->slot[i])
				return child_base;
		} else {
			r = idr_find_used(node->slot[i], level - 1, child_base,
					  max(start, child_base));
			if (r >= 0)
				return r;
		}
		mask &= mask - 1;
	}
	return -1;
}

/* Store ptr at id, which is free; the nodes on its path are allocated. */
static int idr_insert(struct idr *idr, unsigned long id, void *ptr)
{
	struct mock_idr_node *path[IDR_LEVELS];
	struct mock_idr_node *fresh[IDR_LEVELS] = { NULL };
	struct mock_idr_node **link = &idr->root;
	int level, needed = 0, i;

	/* Allocate every missing node first, so a failure changes nothing. */
	for (level = IDR_LEVELS - 1; level >= 0; level--) {
		if (!*link)
			break;
		link = (struct mock_idr_node **)&(*link)->slot[idr_index(id, level)];
	}
	needed = level + 1;
	for (i = 0; i < needed; i++) {
		fresh[i] = kzalloc(sizeof(struct mock_idr_node), GFP_KERNEL);
		if (!fresh[i]) {
			while (i--)
				kfree(fresh[i]);
			return -ENOMEM;
		}
	}

	link = &idr->root;
	for (level = IDR_LEVELS - 1; level >= 0; level--) {
		unsigned int idx = idr_index(id, level);

		if (!*link)
			*link = fresh[--needed];
		path[level] = *link;
		if (level == 0)
			break;
		if (!(path[level]->present & BIT(idx))) {
			path[level]->present |= BIT(idx);
			path[level]->count++;
		}
		link = (struct mock_idr_node **)&path[level]->slot[idx];
	}

	path[0]->slot[idr_index(id, 0)] = ptr;
	path[0]->present |= BIT(idr_index(id, 0));
	path[0]->full |= BIT(idr_index(id, 0));
	path[0]->count++;
	/* A full node makes its slot in the parent full. */
	for (level = 0; level < IDR_LEVELS - 1; level++) {
		if (path[level]->full != ~0UL)
			break;
		path[level + 1]->full |= BIT(idr_index(id, level + 1));
	}
	return 0;
}

static int idr_alloc_range(struct idr *idr, void *ptr, unsigned long start,
			   unsigned long max)
{
	long id;
	int ret;

	if (start < idr->idr_base)
		start = idr->idr_base;
	if (start > max)
		return -ENOSPC;
	id = idr_find_free(idr->root, IDR_LEVELS - 1, 0, start);
	if (id < 0 || (unsigned long)id > max)
		return -ENOSPC;
	ret = idr_insert(idr, id, ptr);
	return ret ? ret : (int)id;
}

int idr_alloc(struct idr *idr, void *ptr, int start, int end, gfp_t gfp)
{
	unsigned long max = end > 0 ? (unsigned long)end - 1 : IDR_MAX;
	int ret;

	(void)gfp;
	if (WARN_ON_ONCE(start < 0))
		return -EINVAL;
	idr_lock(idr);
	ret = idr_alloc_range(idr, ptr, start, max);
	idr_unlock(idr);
	return ret;
}

int idr_alloc_cyclic(struct idr *idr, void *ptr, int start, int end,
		     gfp_t gfp)
{
	unsigned long max = end > 0 ? (unsigned long)end - 1 : IDR_MAX;
	unsigned long from;
	int ret;

	(void)gfp;
	if (WARN_ON_ONCE(start < 0))
		return -EINVAL;
	idr_lock(idr);
	from = max_t(unsigned long, idr->idr_next, start);
	ret = idr_alloc_range(idr, ptr, from, max);
	if (ret == -ENOSPC && from > (unsigned long)start)
		ret = idr_alloc_range(idr, ptr, start, max);
	if (ret >= 0)
		idr->idr_next = (unsigned int)ret + 1;
	idr_unlock(idr);
	return ret;
}

/* The leaf holding id, or NULL. */
static struct mock_idr_node *idr_leaf(const struct idr *idr, unsigned long id)
{
	struct mock_idr_node *node = idr->root;
	int level;

	if (id > IDR_MAX)
		return NULL;
	for (level = IDR_LEVELS - 1; node && level > 0; level--)
		node = node->slot[idr_index(id, level)];
	if (node && !(node->present & BIT(idr_index(id, 0))))
		return NULL;
	return node;
}

void *idr_find(const struct idr *idr, unsigned long id)
{
	struct mock_idr_node *leaf;
	void *ptr = NULL;

	idr_lock(idr);
	leaf = idr_leaf(idr, id);
	if (leaf)
		ptr = leaf->slot[idr_index(id, 0)];
	idr_unlock(idr);
	return ptr;
}

void *idr_replace(struct idr *idr, void *ptr, unsigned long id)
{
	struct mock_idr_node *leaf;
	void *old = ERR_PTR(-ENOENT);

	idr_lock(idr);
	leaf = idr_leaf(idr, id);
	if (leaf) {
		old = leaf->slot[idr_index(id, 0)];
		leaf->slot[idr_index(id, 0)] = ptr;
	}
	idr_unlock(idr);
	return old;
}

void *idr_remove(struct idr *idr, unsigned long id)
{
	struct mock_idr_node *path[IDR_LEVELS];
	struct mock_idr_node *node = idr->root;
	void *ptr;
	int level;

	idr_lock(idr);
	if (id > IDR_MAX)
		goto not_found;
	for (level = IDR_LEVELS - 1; level >= 0; level--) {
		if (!node)
			goto not_found;
		path[level] = node;
		if (level)
			node = node->slot[idr_index(id, level)];
	}
	if (!(path[0]->present & BIT(idr_index(id, 0))))
		goto not_found;

	ptr = path[0]->slot[idr_index(id, 0)];
	path[0]->slot[idr_index(id, 0)] = NULL;
	/* Nothing on the path is full any more; empty nodes go. */
	for (level = 0; level < IDR_LEVELS; level++) {
		unsigned long bit = BIT(idr_index(id, level));
		bool child_gone = level == 0 ||
				  !path[level]->slot[idr_index(id, level)];

		path[level]->full &= ~bit;
		if (child_gone) {
			path[level]->present &= ~bit;
			path[level]->count--;
		}
		if (path[level]->count == 0) {
			kfree(path[level]);
			if (level == IDR_LEVELS - 1)
				idr->root = NULL;
			else
				path[level + 1]->slot[idr_index(id, level + 1)] = NULL;
		}
	}
	idr_unlock(idr);
	return ptr;

not_found:
	idr_unlock(idr);
	return NULL;
}

static void *idr_get_next_ul(struct idr *idr, unsigned long *nextid)
{
	void *ptr = NULL;
	long id;

	idr_lock(idr);
	id = *nextid <= IDR_MAX ?
	     idr_find_used(idr->root, IDR_LEVELS - 1, 0, *nextid) : -1;
	if (id >= 0) {
		ptr = idr_leaf(idr, id)->slot[idr_index(id, 0)];
		*nextid = id;
	}
	idr_unlock(idr);
	return ptr;
}

void *idr_get_next(struct idr *idr, int *nextid)
{
	unsigned long id = *nextid < 0 ? 0 : *nextid;
	void *ptr = idr_get_next_ul(idr, &id);

	if (ptr)
		*nextid = id;
	return ptr;
}

bool idr_is_empty(const struct idr *idr)
{
	bool empty;

	idr_lock(idr);
	empty = idr->root == NULL;
	idr_unlock(idr);
	return empty;
}

static void idr_free_subtree(struct mock_idr_node *node, int level)
{
	unsigned long mask;

	if (level > 0) {
		for (mask = node->present; mask; mask &= mask - 1)
			idr_free_subtree(node->slot[__ffs(mask)], level - 1);
	}
	kfree(node);
}

void idr_destroy(struct idr *idr)
{
	idr_lock(idr);
	if (idr->root)
		idr_free_subtree(idr->root, IDR_LEVELS - 1);
	idr->root = NULL;
	idr_unlock(idr);
}
