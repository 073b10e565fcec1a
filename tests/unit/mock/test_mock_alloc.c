// SPDX-License-Identifier: GPL-2.0 OR MIT
/* The mock's allocators: counters, failure injection, lazy vmalloc. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "mock_test.h"

static long rss_kib(void)
{
	char line[256];
	long kib = -1;
	FILE *f = fopen("/proc/self/status", "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static void test_counters_follow_every_allocator(void **state)
{
	struct mock_counters c;
	struct page *pg;
	void *k, *v, *kv;

	(void)state;
	k = kzalloc(100, GFP_KERNEL);
	v = vmalloc(10000);
	kv = kvzalloc(1 << 20, GFP_KERNEL);
	pg = alloc_pages(GFP_KERNEL | __GFP_ZERO, 2);
	assert_non_null(k);
	assert_non_null(v);
	assert_non_null(kv);
	assert_non_null(pg);
	mock_counters_get(&c);
	assert_int_equal(c.kmalloc, 1);
	assert_int_equal(c.vmalloc, 2);		/* kvzalloc of 1 MiB is vmalloc */
	assert_int_equal(c.pages, 4);
	assert_int_equal(mock_live_objects(), 7);
	assert_true(is_vmalloc_addr(kv));
	assert_false(is_vmalloc_addr(k));
	assert_null(memchr_inv(k, 0, 100));
	assert_null(memchr_inv(kv, 0, 1 << 20));
	assert_null(memchr_inv(page_address(pg), 0, 4 * PAGE_SIZE));
	assert_true(PAGE_ALIGNED(page_address(pg)));
	assert_ptr_equal(virt_to_page(page_address(pg) + PAGE_SIZE), pg + 1);
	kfree(k);
	vfree(v);
	kvfree(kv);
	__free_pages(pg, 2);
	assert_int_equal(mock_live_objects(), 0);
}

static void test_nth_allocation_fails_once_then_disarms(void **state)
{
	void *p[4];

	(void)state;
	mock_fail_alloc_nth(3);
	p[0] = kmalloc(8, GFP_KERNEL);
	p[1] = vmalloc(8);
	p[2] = kmalloc(8, GFP_KERNEL);	/* the third call */
	p[3] = kmalloc(8, GFP_KERNEL);
	assert_non_null(p[0]);
	assert_non_null(p[1]);
	assert_null(p[2]);
	assert_non_null(p[3]);
	assert_int_equal(mock_alloc_calls(), 4);
	kfree(p[0]);
	vfree(p[1]);
	kfree(p[3]);
	mock_fail_alloc_nth(1);
	assert_null(alloc_page(GFP_KERNEL));
	mock_fail_alloc_nth(1);
	assert_null(kvmalloc(1 << 20, GFP_KERNEL));
	mock_fail_reset();
	assert_int_equal(mock_alloc_calls(), 0);
}

static void test_kmalloc_alignment_and_zero_size(void **state)
{
	void *p4k, *p64, *z;

	(void)state;
	p4k = kmalloc(4096, GFP_KERNEL);
	p64 = kmalloc(64, GFP_KERNEL);
	z = kmalloc(0, GFP_KERNEL);
	assert_true(IS_ALIGNED((unsigned long)p4k, 4096));
	assert_true(IS_ALIGNED((unsigned long)p64, 64));
	assert_ptr_equal(z, ZERO_SIZE_PTR);
	assert_int_equal(ksize(p64), 64);
	p64 = krealloc(p64, 200, GFP_KERNEL | __GFP_ZERO);
	assert_non_null(p64);
	assert_null(memchr_inv((char *)p64 + 64, 0, 136));
	kfree(z);
	kfree(p4k);
	kfree(p64);
	assert_null(kmalloc_array(SIZE_MAX / 2, 4, GFP_KERNEL));
}

static void test_huge_vzalloc_costs_only_touched_pages(void **state)
{
	const unsigned long size = 16UL << 30;	/* 16 GiB */
	long before, after;
	char *p;

	(void)state;
	/*
	 * Under qemu-user (the aarch64 cross build's ctest sets this), the RSS
	 * is qemu's, which keeps its own data for every page of a mapping:
	 * about 96 MiB for this one, whatever vzalloc does.
	 */
	if (getenv("NPU_TEST_QEMU_USER"))
		skip();
	before = rss_kib();
	p = vzalloc(size);
	assert_non_null(p);
	p[0] = 1;
	p[size - 1] = 2;
	p[size / 2] = 3;
	after = rss_kib();
	/* Three pages and a header page, not 16 GiB. */
	assert_true(after - before < 4096);
	assert_int_equal(p[size / 2 + 1], 0);
	vfree(p);
}

/* vmalloc_huge(): what HBM chunks use; huge page aligned, zeroed, freed. */
static void test_vmalloc_huge_is_aligned_and_zeroed(void **state)
{
	const unsigned long size = (4UL << 20) + 100;
	char *p;

	(void)state;
	p = vmalloc_huge(size, GFP_KERNEL | __GFP_ZERO);
	assert_non_null(p);
	assert_true(IS_ALIGNED((unsigned long)p, 2UL << 20));
	assert_true(is_vmalloc_addr(p));
	assert_true(is_vmalloc_addr(p + size - 1));
	assert_null(memchr_inv(p, 0, size));
	memset(p, 0x5a, size);
	vfree(p);
	assert_false(is_vmalloc_addr(p));
}

static void test_memcpy_nt_copies_exactly(void **state)
{
	const size_t n = (1 << 20) + 77;
	char *src = malloc(n + 64), *dst = malloc(n + 64);

	(void)state;
	for (size_t i = 0; i < n + 64; i++)
		src[i] = (char)(i * 7 + 3);
	for (size_t off = 0; off < 3; off++) {
		memset(dst, 0, n + 64);
		/* memcpy() of the mock headers: non-temporal for this size. */
		memcpy(dst + 1 + off, src + off, n);
		assert_int_equal(dst[0], 0);
		assert_memory_equal(dst + 1 + off, src + off, n);
		assert_int_equal(dst[1 + off + n], 0);
	}
	free(src);
	free(dst);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MOCK_TEST(test_counters_follow_every_allocator),
		MOCK_TEST(test_nth_allocation_fails_once_then_disarms),
		MOCK_TEST(test_kmalloc_alignment_and_zero_size),
		MOCK_TEST(test_huge_vzalloc_costs_only_touched_pages),
		MOCK_TEST(test_vmalloc_huge_is_aligned_and_zeroed),
		MOCK_TEST(test_memcpy_nt_copies_exactly),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
