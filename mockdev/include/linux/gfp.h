/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: allocation flags. The mock never reclaims, so the flags
 * only matter for __GFP_ZERO and (for the log) __GFP_NOWARN.
 */
#ifndef MOCK_LINUX_GFP_H
#define MOCK_LINUX_GFP_H

#include <linux/types.h>

#define __GFP_DMA		0x01u
#define __GFP_HIGHMEM		0x02u
#define __GFP_DMA32		0x04u
#define __GFP_MOVABLE		0x08u
#define __GFP_RECLAIMABLE	0x10u
#define __GFP_HIGH		0x20u
#define __GFP_IO		0x40u
#define __GFP_FS		0x80u
#define __GFP_ZERO		0x100u
#define __GFP_ATOMIC		0x200u
#define __GFP_DIRECT_RECLAIM	0x400u
#define __GFP_KSWAPD_RECLAIM	0x800u
#define __GFP_WRITE		0x1000u
#define __GFP_NOWARN		0x2000u
#define __GFP_RETRY_MAYFAIL	0x4000u
#define __GFP_NOFAIL		0x8000u
#define __GFP_NORETRY		0x10000u
#define __GFP_MEMALLOC		0x20000u
#define __GFP_COMP		0x40000u
#define __GFP_NOMEMALLOC	0x80000u
#define __GFP_HARDWALL		0x100000u
#define __GFP_THISNODE		0x200000u
#define __GFP_ACCOUNT		0x400000u
#define __GFP_RECLAIM		(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)

#define GFP_ATOMIC	(__GFP_HIGH | __GFP_ATOMIC | __GFP_KSWAPD_RECLAIM)
#define GFP_KERNEL	(__GFP_RECLAIM | __GFP_IO | __GFP_FS)
#define GFP_KERNEL_ACCOUNT (GFP_KERNEL | __GFP_ACCOUNT)
#define GFP_NOWAIT	(__GFP_KSWAPD_RECLAIM)
#define GFP_NOIO	(__GFP_RECLAIM)
#define GFP_NOFS	(__GFP_RECLAIM | __GFP_IO)
#define GFP_USER	(__GFP_RECLAIM | __GFP_IO | __GFP_FS | __GFP_HARDWALL)
#define GFP_DMA		__GFP_DMA
#define GFP_DMA32	__GFP_DMA32
#define GFP_HIGHUSER	(GFP_USER | __GFP_HIGHMEM)
#define GFP_HIGHUSER_MOVABLE (GFP_HIGHUSER | __GFP_MOVABLE)

struct page;

struct page *alloc_pages(gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
unsigned long get_zeroed_page(gfp_t gfp);
void free_pages(unsigned long addr, unsigned int order);

#define alloc_page(gfp)		alloc_pages(gfp, 0)
#define __get_free_page(gfp)	__get_free_pages(gfp, 0)
#define __free_page(page)	__free_pages((page), 0)
#define free_page(addr)		free_pages((addr), 0)

#endif /* MOCK_LINUX_GFP_H */
