// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: memory allocators, their leak counters and failure
 * injection.
 *
 * kmalloc: malloc with a header in front of the object (its size, for
 * krealloc/ksize, and a magic to catch frees of foreign pointers).
 * vmalloc: an anonymous MAP_NORESERVE mapping per area, header page in
 * front, guard page behind, so a 2 MiB chunk of emulated HBM costs host
 * memory only for the pages that are touched. alloc_pages: page-aligned
 * memory plus an array of struct page. vmalloc areas and page blocks are
 * kept in an address-ordered tree for is_vmalloc_addr/virt_to_page.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/mm.h>
#include <linux/rbtree.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <mockdev/mock.h>

#include "internal.h"

struct mock_live mock_live;

/* Failure injection: countdowns (0 = disarmed) and call counters, atomic. */
static unsigned long fail_alloc_countdown;
static unsigned long fail_copy_from_countdown;
static unsigned long fail_copy_to_countdown;
static unsigned long fail_pin_countdown;
static unsigned long alloc_calls;
static unsigned long user_copy_calls;

/* True if this call is the armed one; disarms after firing. */
static bool countdown_fires(unsigned long *countdown)
{
	unsigned long c = __atomic_load_n(countdown, __ATOMIC_RELAXED);

	while (c) {
		if (__atomic_compare_exchange_n(countdown, &c, c - 1, false,
						__ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return c == 1;
	}
	return false;
}

bool mock_inject_alloc_failure(void)
{
	__atomic_fetch_add(&alloc_calls, 1, __ATOMIC_RELAXED);
	return countdown_fires(&fail_alloc_countdown);
}

bool mock_inject_copy_from_user_failure(void)
{
	__atomic_fetch_add(&user_copy_calls, 1, __ATOMIC_RELAXED);
	return countdown_fires(&fail_copy_from_countdown);
}

bool mock_inject_copy_to_user_failure(void)
{
	__atomic_fetch_add(&user_copy_calls, 1, __ATOMIC_RELAXED);
	return countdown_fires(&fail_copy_to_countdown);
}

bool mock_inject_pin_failure(void)
{
	return countdown_fires(&fail_pin_countdown);
}

MOCK_EXPORT void mock_fail_alloc_nth(unsigned long n)
{
	__atomic_store_n(&fail_alloc_countdown, n, __ATOMIC_RELAXED);
}

MOCK_EXPORT void mock_fail_copy_from_user_nth(unsigned long n)
{
	__atomic_store_n(&fail_copy_from_countdown, n, __ATOMIC_RELAXED);
}

MOCK_EXPORT void mock_fail_copy_to_user_nth(unsigned long n)
{
	__atomic_store_n(&fail_copy_to_countdown, n, __ATOMIC_RELAXED);
}

MOCK_EXPORT void mock_fail_pin_nth(unsigned long n)
{
	__atomic_store_n(&fail_pin_countdown, n, __ATOMIC_RELAXED);
}

MOCK_EXPORT unsigned long mock_alloc_calls(void)
{
	return __atomic_load_n(&alloc_calls, __ATOMIC_RELAXED);
}

MOCK_EXPORT unsigned long mock_user_copy_calls(void)
{
	return __atomic_load_n(&user_copy_calls, __ATOMIC_RELAXED);
}

MOCK_EXPORT void mock_fail_reset(void)
{
	mock_fail_alloc_nth(0);
	mock_fail_copy_from_user_nth(0);
	mock_fail_copy_to_user_nth(0);
	mock_fail_pin_nth(0);
	for (int id = 0; id < MOCK_GATES; id++)
		mock_gate_open(id);
	__atomic_store_n(&alloc_calls, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&user_copy_calls, 0, __ATOMIC_RELAXED);
}

MOCK_EXPORT void mock_counters_get(struct mock_counters *c)
{
	c->kmalloc = __atomic_load_n(&mock_live.kmalloc, __ATOMIC_RELAXED);
	c->vmalloc = __atomic_load_n(&mock_live.vmalloc, __ATOMIC_RELAXED);
	c->pages = __atomic_load_n(&mock_live.pages, __ATOMIC_RELAXED);
	c->pinned_pages = __atomic_load_n(&mock_live.pinned_pages,
					  __ATOMIC_RELAXED);
	c->vmaps = __atomic_load_n(&mock_live.vmaps, __ATOMIC_RELAXED);
	c->kthreads = __atomic_load_n(&mock_live.kthreads, __ATOMIC_RELAXED);
	c->tasks = __atomic_load_n(&mock_live.tasks, __ATOMIC_RELAXED);
	c->files = __atomic_load_n(&mock_live.files, __ATOMIC_RELAXED);
}

MOCK_EXPORT long mock_live_objects(void)
{
	struct mock_counters c;

	mock_counters_get(&c);
	return c.kmalloc + c.vmalloc + c.pages + c.pinned_pages + c.vmaps +
	       c.kthreads + c.tasks + c.files;
}

void *mock_xzalloc(size_t size)
{
	void *p = calloc(1, size);

	BUG_ON(!p);
	return p;
}

/* kmalloc */

#define KMALLOC_MAGIC	0x6b6d616c6c6f6321UL	/* "kmalloc!" */
#define KMALLOC_FREED	0x6b66726565642121UL	/* "kfreed!!" */

struct kmalloc_hdr {
	void *raw;		/* what malloc returned */
	size_t size;		/* requested size */
	unsigned long magic;
	unsigned long pad;
};

/* SLUB gives power-of-two sizes their natural alignment, up to a page. */
static size_t kmalloc_align(size_t size)
{
	if (size >= 64 && is_power_of_2(size))
		return min_t(size_t, size, PAGE_SIZE);
	return ARCH_KMALLOC_MINALIGN;
}

static inline struct kmalloc_hdr *kmalloc_hdr(const void *p)
{
	return (struct kmalloc_hdr *)p - 1;
}

/* The allocation itself, without injection (which the callers did). */
static void *__kmalloc(size_t size, gfp_t flags)
{
	size_t align = kmalloc_align(size);
	size_t front = max_t(size_t, align, sizeof(struct kmalloc_hdr));
	struct kmalloc_hdr *hdr;
	void *raw;

	if (size > KMALLOC_MAX_SIZE)
		return NULL;
	if (align <= 16)
		raw = malloc(front + size);
	else if (posix_memalign(&raw, align, front + size))
		raw = NULL;
	if (!raw)
		return NULL;
	hdr = (struct kmalloc_hdr *)((char *)raw + front) - 1;
	hdr->raw = raw;
	hdr->size = size;
	hdr->magic = KMALLOC_MAGIC;
	if (flags & __GFP_ZERO)
		memset(hdr + 1, 0, size);
	mock_live_add(&mock_live.kmalloc, 1);
	return hdr + 1;
}

void *kmalloc(size_t size, gfp_t flags)
{
	if (mock_inject_alloc_failure())
		return NULL;
	if (!size)
		return ZERO_SIZE_PTR;
	return __kmalloc(size, flags);
}

void kfree(const void *p)
{
	struct kmalloc_hdr *hdr;

	if (ZERO_OR_NULL_PTR(p))
		return;
	hdr = kmalloc_hdr(p);
	if (hdr->magic != KMALLOC_MAGIC) {
		mock_bug(__FILE__, __LINE__,
			 hdr->magic == KMALLOC_FREED ?
			 "kfree: double free" : "kfree: not a kmalloc pointer");
	}
	hdr->magic = KMALLOC_FREED;
	mock_live_add(&mock_live.kmalloc, -1);
	free(hdr->raw);
}

size_t ksize(const void *p)
{
	if (ZERO_OR_NULL_PTR(p))
		return 0;
	return kmalloc_hdr(p)->size;
}

void *krealloc(const void *p, size_t new_size, gfp_t flags)
{
	size_t old_size = ZERO_OR_NULL_PTR(p) ? 0 : ksize(p);
	void *n;

	if (!new_size) {
		kfree(p);
		return ZERO_SIZE_PTR;
	}
	if (mock_inject_alloc_failure())
		return NULL;
	n = __kmalloc(new_size, flags & ~__GFP_ZERO);
	if (!n)
		return NULL;
	/* The kernel's memcpy would not do here: the mock's is a macro. */
	__builtin_memcpy(n, p ? p : "", min(old_size, new_size));
	if ((flags & __GFP_ZERO) && new_size > old_size)
		memset((char *)n + old_size, 0, new_size - old_size);
	kfree(p);
	return n;
}

/* vmalloc */

#define VMALLOC_MAGIC	0x766d616c6c6f6321UL	/* "vmalloc!" */

/* What the mock keeps about an area of its address space. */
enum mock_area_kind {
	MOCK_AREA_VMALLOC,
	MOCK_AREA_PAGES,
};

struct mock_area {
	struct rb_node node;
	unsigned long start;
	unsigned long len;
	enum mock_area_kind kind;
	struct mock_page_owner *pages;	/* MOCK_AREA_PAGES */
};

/* The first page of a vmalloc mapping. */
struct vmalloc_hdr {
	unsigned long magic;
	size_t size;		/* bytes asked for */
	size_t map_len;		/* header + data + guard, and alignment slack */
	void *map_start;	/* where the mapping begins */
	struct mock_area area;
};

#define VMALLOC_HUGE_SIZE (2UL << 20)

static pthread_mutex_t areas_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: areas */
static struct rb_root areas = RB_ROOT;

static void area_insert(struct mock_area *a)
{
	struct rb_node **link, *parent = NULL;

	pthread_mutex_lock(&areas_lock);
	link = &areas.rb_node;
	while (*link) {
		struct mock_area *cur = rb_entry(*link, struct mock_area, node);

		parent = *link;
		link = a->start < cur->start ? &parent->rb_left :
					       &parent->rb_right;
	}
	rb_link_node(&a->node, parent, link);
	rb_insert_color(&a->node, &areas);
	pthread_mutex_unlock(&areas_lock);
}

static void area_remove(struct mock_area *a)
{
	pthread_mutex_lock(&areas_lock);
	rb_erase(&a->node, &areas);
	pthread_mutex_unlock(&areas_lock);
}

/* The area containing addr, or NULL. */
static struct mock_area *area_find(unsigned long addr)
{
	struct rb_node *n;
	struct mock_area *found = NULL;

	pthread_mutex_lock(&areas_lock);
	n = areas.rb_node;
	while (n) {
		struct mock_area *cur = rb_entry(n, struct mock_area, node);

		if (addr < cur->start) {
			n = n->rb_left;
		} else if (addr >= cur->start + cur->len) {
			n = n->rb_right;
		} else {
			found = cur;
			break;
		}
	}
	pthread_mutex_unlock(&areas_lock);
	return found;
}

/*
 * Back [p, p + len) now, as the kernel's vmalloc_huge() allocates (and with
 * __GFP_ZERO clears) its pages when it is called. A lazy mapping would move
 * that cost, one 2 MiB clear per huge page, into whatever touches the
 * memory first: for the device's HBM chunks, the first copy into each,
 * milliseconds on a host that backs its own memory lazily too. Plain
 * vmalloc() stays lazy: the driver sizes some tables for the worst case
 * and touches little of them. Return: 0, or -ENOMEM.
 */
static bool vmalloc_huge_lazy;

MOCK_EXPORT void mock_vmalloc_huge_populate(bool populate)
{
	__atomic_store_n(&vmalloc_huge_lazy, !populate, __ATOMIC_RELAXED);
}

static int vmalloc_populate(char *p, size_t len)
{
	volatile char *q = p;
	size_t off;

	if (__atomic_load_n(&vmalloc_huge_lazy, __ATOMIC_RELAXED))
		return 0;
	if (!madvise(p, len, MADV_POPULATE_WRITE))
		return 0;
	if (errno != EINVAL)
		return -ENOMEM;
	/* Before Linux 5.14: one write per page does the same. */
	for (off = 0; off < len; off += PAGE_SIZE)
		q[off] = 0;
	return 0;
}

/*
 * @align is PAGE_SIZE, or VMALLOC_HUGE_SIZE for vmalloc_huge(): then the
 * area starts on a huge page boundary and may be backed by transparent
 * huge pages, one fault per 2 MiB instead of 512.
 */
static void *vmalloc_aligned(unsigned long size, size_t align)
{
	struct vmalloc_hdr *hdr;
	size_t data_len, map_len;
	char *map, *map_start;

	if (mock_inject_alloc_failure())
		return NULL;
	if (!size || size > (1UL << 46))
		return NULL;
	data_len = PAGE_ALIGN(size);
	map_len = PAGE_SIZE + data_len + PAGE_SIZE;
	map = mmap(NULL, map_len + align - PAGE_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (map == MAP_FAILED)
		return NULL;
	map_len += align - PAGE_SIZE;
	map_start = map;
	if (align > PAGE_SIZE) {
		/*
		 * The slack around [header page, data, guard page] stays mapped
		 * (never touched, so it costs address space only): unmapping
		 * it would take two more system calls per allocation.
		 */
		map = PTR_ALIGN(map + PAGE_SIZE, align) - PAGE_SIZE;
		madvise(map + PAGE_SIZE, data_len, MADV_HUGEPAGE);
		if (vmalloc_populate(map + PAGE_SIZE, data_len)) {
			munmap(map_start, map_len);
			return NULL;
		}
	}
	/* Guard page: an overrun faults, like the kernel's vmalloc guard. */
	if (mprotect(map + PAGE_SIZE + data_len, PAGE_SIZE, PROT_NONE)) {
		munmap(map_start, map_len);
		return NULL;
	}
	hdr = (struct vmalloc_hdr *)map;
	hdr->magic = VMALLOC_MAGIC;
	hdr->size = size;
	hdr->map_len = map_len;
	hdr->map_start = map_start;
	hdr->area.start = (unsigned long)map + PAGE_SIZE;
	hdr->area.len = data_len;
	hdr->area.kind = MOCK_AREA_VMALLOC;
	hdr->area.pages = NULL;
	area_insert(&hdr->area);
	mock_live_add(&mock_live.vmalloc, 1);
	return map + PAGE_SIZE;
}

/* mmap memory is zeroed anyway: __GFP_ZERO needs nothing. */
static void *__vmalloc(unsigned long size, gfp_t gfp_mask)
{
	(void)gfp_mask;
	return vmalloc_aligned(size, PAGE_SIZE);
}

void *vmalloc_huge(unsigned long size, gfp_t gfp_mask)
{
	(void)gfp_mask;
	return vmalloc_aligned(size, VMALLOC_HUGE_SIZE);
}

void *vmalloc(unsigned long size)
{
	return __vmalloc(size, GFP_KERNEL);
}

void *vzalloc(unsigned long size)
{
	return __vmalloc(size, GFP_KERNEL | __GFP_ZERO);
}

static struct mock_area *vmalloc_area(const void *addr)
{
	struct mock_area *a = area_find((unsigned long)addr);

	return a && a->kind == MOCK_AREA_VMALLOC ? a : NULL;
}

bool is_vmalloc_addr(const void *addr)
{
	return vmalloc_area(addr) != NULL;
}

void vfree(const void *addr)
{
	struct mock_area *a;
	struct vmalloc_hdr *hdr;

	if (!addr)
		return;
	a = vmalloc_area(addr);
	if (!a || a->start != (unsigned long)addr)
		mock_bug(__FILE__, __LINE__, "vfree: not a vmalloc address");
	hdr = container_of(a, struct vmalloc_hdr, area);
	BUG_ON(hdr->magic != VMALLOC_MAGIC);
	area_remove(a);
	mock_live_add(&mock_live.vmalloc, -1);
	munmap(hdr->map_start, hdr->map_len);
}

/* kvmalloc: kmalloc for what SLUB would serve, vmalloc for the rest. */

#define KVMALLOC_KMALLOC_MAX	(64UL * 1024)

void *kvmalloc(size_t size, gfp_t flags)
{
	if (size > KVMALLOC_KMALLOC_MAX) {
		if (size > INT_MAX) {
			/* The kernel refuses these (and warns without __GFP_NOWARN). */
			WARN_ON_ONCE(!(flags & __GFP_NOWARN));
			return NULL;
		}
		return __vmalloc(size, flags);
	}
	return kmalloc(size, flags);
}

void kvfree(const void *p)
{
	/*
	 * NULL, and anything not on a page boundary (where vmalloc memory
	 * starts), is no vmalloc memory: no search of the area tree, which
	 * is as deep as the driver has page blocks (the kernel's
	 * is_vmalloc_addr() is a range check).
	 */
	if (!p)
		return;
	if (!PAGE_ALIGNED(p)) {
		kfree(p);
		return;
	}
	if (is_vmalloc_addr(p))
		vfree(p);
	else
		kfree(p);
}

/* Pages */

static struct mock_page_owner *page_block_alloc(unsigned int order)
{
	unsigned long nr = 1UL << order;
	struct mock_page_owner *o;
	struct mock_area *area;
	void *mem;
	unsigned long i;

	if (posix_memalign(&mem, PAGE_SIZE, nr * PAGE_SIZE))
		return NULL;
	o = calloc(1, sizeof(*o) + nr * sizeof(struct page) + sizeof(*area));
	if (!o) {
		free(mem);
		return NULL;
	}
	o->kind = MOCK_PAGES_ALLOC;
	o->order = order;
	o->nr_pages = nr;
	for (i = 0; i < nr; i++) {
		o->pages[i].virtual = (char *)mem + i * PAGE_SIZE;
		o->pages[i].mock_owner = o;
	}
	area = (struct mock_area *)&o->pages[nr];
	area->start = (unsigned long)mem;
	area->len = nr * PAGE_SIZE;
	area->kind = MOCK_AREA_PAGES;
	area->pages = o;
	area_insert(area);
	return o;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	struct mock_page_owner *o;

	if (mock_inject_alloc_failure())
		return NULL;
	if (order > 18)
		return NULL;
	o = page_block_alloc(order);
	if (!o)
		return NULL;
	if (gfp & __GFP_ZERO)
		memset(o->pages[0].virtual, 0, PAGE_SIZE << order);
	mock_live_add(&mock_live.pages, 1L << order);
	return &o->pages[0];
}

void __free_pages(struct page *page, unsigned int order)
{
	struct mock_page_owner *o;
	struct mock_area *area;

	if (!page)
		return;
	o = page->mock_owner;
	if (!o || o->kind != MOCK_PAGES_ALLOC || page != &o->pages[0] ||
	    o->order != order)
		mock_bug(__FILE__, __LINE__,
			 "__free_pages: not the head of an allocation of that order");
	area = (struct mock_area *)&o->pages[o->nr_pages];
	area_remove(area);
	mock_live_add(&mock_live.pages, -(1L << order));
	free(o->pages[0].virtual);
	free(o);
}

struct page *virt_to_page(const void *addr)
{
	struct mock_area *a = area_find((unsigned long)addr);

	if (!a || a->kind != MOCK_AREA_PAGES) {
		WARN(1, "virt_to_page(%p): not a page allocation\n", addr);
		return NULL;
	}
	return &a->pages->pages[((unsigned long)addr - a->start) >> PAGE_SHIFT];
}
