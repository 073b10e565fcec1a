/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: IDR, an integer ID -> pointer map.
 *
 * A radix tree of 64-slot nodes with "full" bitmaps, so the lowest free ID
 * at or after a start is found in O(depth). Like the kernel's (xarray) IDR
 * it has an internal lock: idr_find may run concurrently with idr_alloc and
 * idr_remove; callers still serialise alloc/remove/replace of the same IDs
 * among themselves as the kernel requires. Empty nodes are freed at once,
 * so an empty IDR holds no memory.
 */
#ifndef MOCK_LINUX_IDR_H
#define MOCK_LINUX_IDR_H

#include <pthread.h>
#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/err.h>

struct mock_idr_node;

struct idr {
	pthread_mutex_t lock;		/* Protects: the whole tree, idr_next */
	struct mock_idr_node *root;
	unsigned int idr_base;		/* lowest ID ever handed out */
	unsigned int idr_next;		/* where idr_alloc_cyclic looks first */
};

#define IDR_INIT_BASE(name, base) {					\
	.lock = PTHREAD_MUTEX_INITIALIZER,				\
	.root = NULL, .idr_base = (base), .idr_next = 0 }
#define IDR_INIT(name)	IDR_INIT_BASE(name, 0)
#define DEFINE_IDR(name) struct idr name = IDR_INIT(name)

void idr_init_base(struct idr *idr, int base);
static inline void idr_init(struct idr *idr)
{
	idr_init_base(idr, 0);
}

/*
 * The lowest free ID in [start, end) (end <= 0: up to INT_MAX), now mapped
 * to ptr (NULL reserves the ID). -ENOSPC if none is free, -ENOMEM.
 */
int idr_alloc(struct idr *idr, void *ptr, int start, int end, gfp_t gfp);
/* As idr_alloc, but the search starts after the last ID handed out. */
int idr_alloc_cyclic(struct idr *idr, void *ptr, int start, int end,
		     gfp_t gfp);
void *idr_find(const struct idr *idr, unsigned long id);
/* Unmap id; returns what it mapped to (NULL if it was not allocated). */
void *idr_remove(struct idr *idr, unsigned long id);
/* The old pointer, or ERR_PTR(-ENOENT) if id is not allocated. */
void *idr_replace(struct idr *idr, void *ptr, unsigned long id);
/* The first non-NULL entry with ID >= *nextid, which is updated; or NULL. */
void *idr_get_next(struct idr *idr, int *nextid);
bool idr_is_empty(const struct idr *idr);
void idr_destroy(struct idr *idr);

#define idr_for_each_entry(idr, entry, id)				\
	for (id = 0; ((entry) = idr_get_next(idr, &(id))) != NULL; id += 1U)

#endif /* MOCK_LINUX_IDR_H */
