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
void kfree_sensitive(const void *p);
size_t ksize(const void *p);

void *kvmalloc(size_t size, gfp_t flags) __attribute__((__malloc__));
void kvfree(const void *p);
void *kvrealloc(const void *p, size_t oldsize, size_t newsize, gfp_t flags);

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

static inline void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	return kmalloc_array(n, size, flags | __GFP_ZERO);
}

static inline void *krealloc_array(void *p, size_t new_n, size_t new_size,
				   gfp_t flags)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(new_n, new_size, &bytes)))
		return NULL;
	return krealloc(p, bytes, flags);
}

#define kmalloc_node(size, flags, node)	kmalloc(size, flags)
#define kzalloc_node(size, flags, node)	kzalloc(size, flags)
#define kvmalloc_node(size, flags, node)	kvmalloc(size, flags)
#define kvzalloc_node(size, flags, node)	kvzalloc(size, flags)

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

/* Object caches: a named size over kmalloc (counted the same way). */
struct kmem_cache;

#define SLAB_HWCACHE_ALIGN	0x00002000U
#define SLAB_PANIC		0x00040000U
#define SLAB_ACCOUNT		0x04000000U

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, unsigned int flags,
				     void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
void *kmem_cache_alloc(struct kmem_cache *s, gfp_t flags);
void kmem_cache_free(struct kmem_cache *s, void *objp);

static inline void *kmem_cache_zalloc(struct kmem_cache *s, gfp_t flags)
{
	return kmem_cache_alloc(s, flags | __GFP_ZERO);
}

#define KMEM_CACHE(__struct, __flags)					\
	kmem_cache_create(#__struct, sizeof(struct __struct),		\
			  __alignof__(struct __struct), (__flags), NULL)

#endif /* MOCK_LINUX_SLAB_H */
