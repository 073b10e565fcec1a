/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: vmalloc over anonymous mmap(MAP_NORESERVE), so a large area
 * costs host memory only for the pages that are touched, with a guard page
 * after each area (like the kernel's). Counted in mock_counters.vmalloc.
 *
 * vmap() maps pages that are contiguous in the mock's address space (pages
 * pinned from one user range, which is what the driver maps) as that
 * range itself; other page arrays are mapped by remapping their backing.
 */
#ifndef MOCK_LINUX_VMALLOC_H
#define MOCK_LINUX_VMALLOC_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/overflow.h>
#include <asm/page.h>

#define VM_MAP		0x00000004

typedef struct {
	unsigned long pgprot;
} pgprot_t;

#define PAGE_KERNEL	((pgprot_t){ 0x3 })

void *vmalloc(unsigned long size) __attribute__((__malloc__));
void *vzalloc(unsigned long size) __attribute__((__malloc__));
void *vmalloc_huge(unsigned long size, gfp_t gfp_mask) __attribute__((__malloc__));
void vfree(const void *addr);
bool is_vmalloc_addr(const void *addr);

void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   pgprot_t prot);
void vunmap(const void *addr);

#endif /* MOCK_LINUX_VMALLOC_H */
