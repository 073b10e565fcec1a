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

#define VM_IOREMAP	0x00000001
#define VM_ALLOC	0x00000002
#define VM_MAP		0x00000004
#define VM_USERMAP	0x00000008
#define VM_NO_GUARD	0x00000040

typedef struct {
	unsigned long pgprot;
} pgprot_t;

#define PAGE_KERNEL	((pgprot_t){ 0x3 })
#define PAGE_KERNEL_RO	((pgprot_t){ 0x1 })

void *vmalloc(unsigned long size) __attribute__((__malloc__));
void *vzalloc(unsigned long size) __attribute__((__malloc__));
void *vmalloc_user(unsigned long size) __attribute__((__malloc__));
void *__vmalloc(unsigned long size, gfp_t gfp_mask);
void *vmalloc_huge(unsigned long size, gfp_t gfp_mask) __attribute__((__malloc__));
void vfree(const void *addr);
bool is_vmalloc_addr(const void *addr);
struct page *vmalloc_to_page(const void *addr);

static inline void *vmalloc_array(size_t n, size_t size)
{
	size_t bytes;

	if (check_mul_overflow(n, size, &bytes))
		return NULL;
	return vmalloc(bytes);
}

static inline void *vcalloc(size_t n, size_t size)
{
	size_t bytes;

	if (check_mul_overflow(n, size, &bytes))
		return NULL;
	return vzalloc(bytes);
}

void *vmap(struct page **pages, unsigned int count, unsigned long flags,
	   pgprot_t prot);
void vunmap(const void *addr);

#endif /* MOCK_LINUX_VMALLOC_H */
