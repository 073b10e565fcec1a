/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: kmalloc and friends over malloc, counted (mock_counters
 * .kmalloc) and subject to failure injection (mock_fail_alloc_nth()).
 * Like SLUB, kmalloc of a power-of-two size is naturally aligned (up to
 * PAGE_SIZE), and kmalloc(0) returns ZERO_SIZE_PTR.
 */
#ifndef MOCK_LINUX_SLAB_H
#define MOCK_LINUX_SLAB_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/overflow.h>

#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)

#define ARCH_KMALLOC_MINALIGN	16
#define KMALLOC_MAX_SIZE	(1UL << 30)

void *kmalloc(size_t size, gfp_t flags) __attribute__((__malloc__));
void *krealloc(const void *p, size_t new_size, gfp_t flags);
void kfree(const void *p);
size_t ksize(const void *p);

void *kvmalloc(size_t size, gfp_t flags) __attribute__((__malloc__));
void kvfree(const void *p);

static inline void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

static inline void *kmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return kmalloc(bytes, flags);
}

static inline void *kvzalloc(size_t size, gfp_t flags)
{
	return kvmalloc(size, flags | __GFP_ZERO);
}

static inline void *kvmalloc_array(size_t n, size_t size, gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return kvmalloc(bytes, flags);
}

static inline void *kvcalloc(size_t n, size_t size, gfp_t flags)
{
	return kvmalloc_array(n, size, flags | __GFP_ZERO);
}

#endif /* MOCK_LINUX_SLAB_H */
