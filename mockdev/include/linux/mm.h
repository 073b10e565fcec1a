/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: pages and user-page pinning.
 *
 * A struct page carries the address at which the mock (the "kernel") sees
 * that page: page_address() is that pointer. Pinned user pages point into
 * the user range itself for the calling process's own mm, or into a shared
 * mapping of the client's file for a remote mm (npud), so the pages pinned
 * from one range are always virtually contiguous and vmap() of them is that
 * contiguous range.
 */
#ifndef MOCK_LINUX_MM_H
#define MOCK_LINUX_MM_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/gfp.h>
#include <linux/err.h>
#include <linux/atomic.h>
#include <asm/page.h>

struct mm_struct;
struct vm_area_struct;
struct mock_page_owner;

struct page {
	void *virtual;			/* where the mock sees this page */
	struct mock_page_owner *mock_owner; /* allocation or pin it is part of */
	unsigned long flags;		/* PG_* bits; only PG_hwpoison is used */
};

/* Page flags (include/linux/page-flags.h); the mock keeps only this one. */
#define PG_hwpoison	23

/*
 * A memory error hit the page: its contents are gone. In the mock this is
 * how a fault on a remotely pinned mapping (a client's file that failed
 * under npud) shows: the page reads as zeros and stays poisoned until it
 * is unpinned.
 */
static inline int PageHWPoison(const struct page *page)
{
	return (__atomic_load_n(&page->flags, __ATOMIC_ACQUIRE) >> PG_hwpoison) & 1;
}

#define PAGE_ALIGN(addr)	ALIGN(addr, PAGE_SIZE)
#define PAGE_ALIGNED(addr)	IS_ALIGNED((unsigned long)(addr), PAGE_SIZE)

static inline void *page_address(const struct page *page)
{
	return page->virtual;
}

/* The struct page of an address returned by alloc_pages. */
struct page *virt_to_page(const void *addr);

/* gup_flags */
#define FOLL_WRITE	0x01
#define FOLL_LONGTERM	0x10000

/*
 * Pin nr_pages user pages of current->mm starting at start (page aligned).
 * Returns nr_pages, or -errno: -EFAULT for an unmapped range, a range that
 * is not writable with FOLL_WRITE, or (remote mm) a range that is not one
 * shared file mapping; -ENOMEM when the bookkeeping cannot be allocated.
 */
int pin_user_pages_fast(unsigned long start, int nr_pages,
			unsigned int gup_flags, struct page **pages);
void unpin_user_page(struct page *page);
void unpin_user_pages(struct page **pages, unsigned long npages);
void unpin_user_pages_dirty_lock(struct page **pages, unsigned long npages,
				 bool make_dirty);

#endif /* MOCK_LINUX_MM_H */
