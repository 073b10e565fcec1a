/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: allocation flags. The mock never reclaims, so the flags
 * only matter for __GFP_ZERO and (for the log) __GFP_NOWARN.
 */
#ifndef MOCK_LINUX_GFP_H
#define MOCK_LINUX_GFP_H

#include <linux/types.h>

#define __GFP_IO		0x40u
#define __GFP_FS		0x80u
#define __GFP_ZERO		0x100u
#define __GFP_DIRECT_RECLAIM	0x400u
#define __GFP_KSWAPD_RECLAIM	0x800u
#define __GFP_NOWARN		0x2000u
#define __GFP_RECLAIM		(__GFP_DIRECT_RECLAIM | __GFP_KSWAPD_RECLAIM)

#define GFP_KERNEL	(__GFP_RECLAIM | __GFP_IO | __GFP_FS)

struct page;

struct page *alloc_pages(gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);

#define alloc_page(gfp)		alloc_pages(gfp, 0)

#endif /* MOCK_LINUX_GFP_H */
