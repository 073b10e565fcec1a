// SPDX-License-Identifier: MIT
/*
 * Synchronous copies and fills through the runtime:
 * round trips H2D -> D2D -> D2H at sizes from 1 byte to 256 MiB and at
 * unaligned host and device offsets, every byte verified, and the bytes
 * around each copied range checked untouched; a host pointer to nowhere
 * fails the copy, whatever SIGSEGV handler the program installed.
 */
#define _GNU_SOURCE	/* dladdr, sighandler_t */
#include <dlfcn.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include "rt_test.h"

#define GUARD 64	/* bytes of guard on each side of a copied range */
#define GUARD_BYTE 0xEE

struct round_trip {
	size_t size;
	size_t host_off;	/* offset into the host buffers */
	size_t dev_off;		/* offset into the device buffers */
};

/* Reads n bytes of device memory at dev into a new host buffer. */
static uint8_t *read_back(const void *dev, size_t n)
{
	uint8_t *out = malloc(n);

	assert_non_null(out);
	ACL_OK(aclrtMemcpy(out, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
	return out;
}

static void check_guards(const uint8_t *buf, size_t off, size_t size, size_t total)
{
	assert_int_equal(rt_first_not(buf, off, GUARD_BYTE), off);
	assert_int_equal(rt_first_not(buf + off + size, total - off - size, GUARD_BYTE),
			 total - off - size);
}

static void run_round_trip(const struct round_trip *rt)
{
	size_t total = rt->size + rt->dev_off + GUARD;
	uint8_t *src = malloc(rt->size + rt->host_off);
	uint8_t *dst = malloc(rt->size + rt->host_off);
	void *a = NULL, *b = NULL;

	assert_non_null(src);
	assert_non_null(dst);
	rt_fill_pattern(src + rt->host_off, rt->size, (uint32_t)rt->size);
	memset(dst, 0, rt->size + rt->host_off);

	ACL_OK(aclrtMalloc(&a, total, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, total, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemset(a, total, GUARD_BYTE, total));
	ACL_OK(aclrtMemset(b, total, GUARD_BYTE, total));

	uint8_t *da = (uint8_t *)a + rt->dev_off;
	uint8_t *db = (uint8_t *)b + rt->dev_off;

	ACL_OK(aclrtMemcpy(da, rt->size, src + rt->host_off, rt->size,
			   ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(db, rt->size, da, rt->size, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ACL_OK(aclrtMemcpy(dst + rt->host_off, rt->size, db, rt->size,
			   ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(dst + rt->host_off, src + rt->host_off, rt->size);

	/* Nothing outside [off, off + size) of either device buffer changed. */
	uint8_t *back = read_back(b, total);

	check_guards(back, rt->dev_off, rt->size, total);
	assert_memory_equal(back + rt->dev_off, src + rt->host_off, rt->size);
	free(back);
	back = read_back(a, total);
	check_guards(back, rt->dev_off, rt->size, total);
	free(back);

	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
	free(src);
	free(dst);
}

static const size_t sizes[] = {
	1, 7, 4095, 4096, 4097, (64 << 10) + 3, 1 << 20, (2 << 20) + 1, 64 << 20, 256 << 20,
};

/*
 * ThreadSanitizer instruments the test's own passes over the buffers (fill,
 * guards, compare): 256 MiB took most of a minute there. Races do not need
 * the biggest size; the other builds run it.
 */
#ifdef __SANITIZE_THREAD__
#define ROUND_TRIP_MAX (64 << 20)
#else
#define ROUND_TRIP_MAX SIZE_MAX
#endif

static void test_round_trips_preserve_every_byte(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]) && sizes[i] <= ROUND_TRIP_MAX; i++) {
		/* Every offset combination for small sizes; one unaligned one
		 * for the big sizes to keep the run short. */
		static const size_t offs[] = { 0, 1, 5, 63 };
		size_t n_offs = sizes[i] >= (64 << 20) ? 1 : 4;

		for (size_t h = 0; h < n_offs; h++) {
			for (size_t d = 0; d < n_offs; d++) {
				struct round_trip rt = {
					.size = sizes[i],
					.host_off = n_offs == 1 ? 3 : offs[h],
					.dev_off = n_offs == 1 ? 33 : offs[(d + 1) % 4],
				};

				run_round_trip(&rt);
			}
		}
	}
}

static void test_memset_fills_low_byte_of_value(void **state)
{
	enum { N = 3 * 4096 + 17 };
	void *dev = NULL;

	(void)state;
	ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemset(dev, N, 0x3C, N));
	/* 0x1A5 -> 0xA5 and -1 -> 0xFF: only the low byte is used. */
	ACL_OK(aclrtMemset((uint8_t *)dev + 5, N - 5, 0x1A5, 4096 + 3));
	ACL_OK(aclrtMemset((uint8_t *)dev + 8000, N - 8000, -1, 100));

	uint8_t *back = read_back(dev, N);

	assert_int_equal(rt_first_not(back, 5, 0x3C), 5);
	assert_int_equal(rt_first_not(back + 5, 4096 + 3, 0xA5), 4096 + 3);
	assert_int_equal(rt_first_not(back + 5 + 4096 + 3, 8000 - (5 + 4096 + 3), 0x3C),
			 8000 - (5 + 4096 + 3));
	assert_int_equal(rt_first_not(back + 8000, 100, 0xFF), 100);
	assert_int_equal(rt_first_not(back + 8100, N - 8100, 0x3C), N - 8100);
	free(back);
	ACL_OK(aclrtFree(dev));
}

static void test_memset_works_on_any_host_memory(void **state)
{
	uint8_t stack[300];
	uint8_t *heap = malloc(5000);

	(void)state;
	assert_non_null(heap);
	memset(stack, 0, sizeof(stack));
	ACL_OK(aclrtMemset(stack + 1, sizeof(stack) - 1, 0x77, 200));
	assert_int_equal(stack[0], 0);
	assert_int_equal(rt_first_not(stack + 1, 200, 0x77), 200);
	assert_int_equal(stack[201], 0);
	ACL_OK(aclrtMemset(heap, 5000, 0x100 + 0x42, 5000));
	assert_int_equal(rt_first_not(heap, 5000, 0x42), 5000);
	free(heap);
}

/* ACL_MEMCPY_DEFAULT: the direction comes from the two pointers. */
static void test_default_kind_infers_direction(void **state)
{
	enum { N = 10000 };
	uint8_t *src = malloc(N), *dst = malloc(N), *h2h = malloc(N);
	void *a = NULL, *b = NULL;

	(void)state;
	rt_fill_pattern(src, N, 42);
	ACL_OK(aclrtMalloc(&a, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(a, N, src, N, ACL_MEMCPY_DEFAULT));
	ACL_OK(aclrtMemcpy(b, N, a, N, ACL_MEMCPY_DEFAULT));
	memset(dst, 0, N);
	ACL_OK(aclrtMemcpy(dst, N, b, N, ACL_MEMCPY_DEFAULT));
	assert_memory_equal(dst, src, N);
	memset(h2h, 0, N);
	ACL_OK(aclrtMemcpy(h2h, N, src, N, ACL_MEMCPY_DEFAULT));
	assert_memory_equal(h2h, src, N);
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
	free(src);
	free(dst);
	free(h2h);
}

/* The synchronous copy takes its direction from the addresses, not from the
 * kind (upstream: "kind is reserved"); H2H and the staged H2D work too. */
static void test_every_accepted_kind_copies_by_address(void **state)
{
	enum { N = 4096 + 99 };
	uint8_t *src = malloc(N), *dst = malloc(N);
	void *dev = NULL;

	(void)state;
	ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_NORMAL_ONLY));
	for (int kind = ACL_MEMCPY_HOST_TO_HOST; kind <= ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE; kind++) {
		rt_fill_pattern(src, N, (uint32_t)kind + 7);
		memset(dst, 0, N);
		ACL_OK(aclrtMemcpy(dev, N, src, N, (aclrtMemcpyKind)kind));
		ACL_OK(aclrtMemcpy(dst, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
		assert_memory_equal(dst, src, N);
		memset(dst, 0, N);
		ACL_OK(aclrtMemcpy(dst, N, src, N, (aclrtMemcpyKind)kind));
		assert_memory_equal(dst, src, N);
	}
	ACL_OK(aclrtFree(dev));
	free(src);
	free(dst);
}

static void test_same_dst_and_src_is_a_successful_no_op(void **state)
{
	enum { N = 777 };
	uint8_t src[N], back[N];
	void *dev = NULL;

	(void)state;
	rt_fill_pattern(src, N, 9);
	ACL_OK(aclrtMalloc(&dev, N, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemcpy(dev, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(dev, N, dev, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
	ACL_OK(aclrtMemcpy(src, N, src, N, ACL_MEMCPY_HOST_TO_HOST));
	ACL_OK(aclrtMemcpy(back, N, dev, N, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(back, src, N);
	ACL_OK(aclrtFree(dev));
}

/* destMax larger than count copies count bytes only. */
static void test_copy_honours_count_not_dest_max(void **state)
{
	enum { N = 512 };
	uint8_t src[N], back[2 * N];
	void *dev = NULL;

	(void)state;
	rt_fill_pattern(src, N, 11);
	ACL_OK(aclrtMalloc(&dev, 2 * N, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtMemset(dev, 2 * N, 0, 2 * N));
	ACL_OK(aclrtMemcpy(dev, 2 * N, src, N, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(back, 2 * N, dev, 2 * N, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(back, src, N);
	assert_int_equal(rt_first_not(back + N, N, 0), N);
	ACL_OK(aclrtFree(dev));
}

/*
 * Device to device across two devices: refused without peer access
 * (aclrtDeviceEnablePeerAccess), one descriptor once it is enabled (tests/runtime/test_peer.c has
 * the rest).
 */
static void test_copy_between_two_devices(void **state)
{
	enum { N = (9 << 20) + 5 };	/* more than one bounce chunk */
	uint8_t *src = malloc(N), *dst = malloc(N);
	void *d0 = NULL, *d1 = NULL;

	(void)state;
	if (rt_device_count() < 2) {
		free(src);
		free(dst);
		skip();
	}
	rt_fill_pattern(src, N, 5);
	ACL_OK(aclrtMalloc(&d0, N, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(d0, N, src, N, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc(&d1, N, ACL_MEM_MALLOC_HUGE_FIRST));
	assert_int_equal(aclrtMemcpy(d1, N, d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_non_null(strstr(aclGetRecentErrMsg(), "peer access"));
	ACL_OK(aclrtDeviceEnablePeerAccess(0, 0));
	ACL_OK(aclrtMemcpy(d1, N, d0, N, ACL_MEMCPY_DEVICE_TO_DEVICE));
	memset(dst, 0, N);
	ACL_OK(aclrtMemcpy(dst, N, d1, N, ACL_MEMCPY_DEFAULT));
	assert_memory_equal(dst, src, N);
	ACL_OK(aclrtDeviceDisablePeerAccess(0));
	ACL_OK(aclrtFree(d1));
	ACL_OK(aclrtResetDevice(1));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtResetDevice(0));	/* the extra reference of this SetDevice */
	ACL_OK(aclrtFree(d0));
	free(src);
	free(dst);
}

static void program_segv(int sig)
{
	static const char msg[] = "the program's SIGSEGV handler ran: the copy was not guarded\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(98);
	_exit(99);
}

/*
 * The program replaces the SIGSEGV handler (cmocka itself does, before
 * every test): a copy from or to a page that is not there fails with
 * ACL_ERROR_RT_PARAM_INVALID and the program's handler never runs. In
 * process, libascendcl notices the replacement through the C library
 * functions it wraps (mockdev/kernel/sigwatch.c): a program linked the
 * CANN way binds them to libascendcl.
 */
static void test_bad_host_pointer_fails_behind_a_program_handler(void **state)
{
	char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	sighandler_t before;
	void *dev = NULL;

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_int_equal(mprotect(p + 4096, 4096, PROT_NONE), 0);
	ACL_OK(aclrtMalloc(&dev, 8192, ACL_MEM_MALLOC_HUGE_FIRST));
	before = signal(SIGSEGV, program_segv);
	assert_true(before != SIG_ERR);
	assert_int_equal(aclrtMemcpy(dev, 4096, p + 4096, 4096, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemcpy(p + 4096, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* Across the boundary: the copy fails, the good page is the program's. */
	memset(p, 0x5a, 4096);
	assert_int_equal(aclrtMemcpy(dev, 8192, p, 8192, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtMemcpy(dev, 4096, p, 4096, ACL_MEMCPY_HOST_TO_DEVICE));
	/* In process the driver's handler is in front again, chaining to it. */
	assert_true(signal(SIGSEGV, before) != SIG_ERR);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && defined(NPU_MOCK_SIGWATCH)
	/* (Not in builds without the wrappers: sanitizers, static links.) */
	static const char *const wrapped[] = { "sigaction", "signal" };

	for (size_t i = 0; i < sizeof(wrapped) / sizeof(wrapped[0]); i++) {
		Dl_info info;

		assert_true(dladdr(dlsym(RTLD_DEFAULT, wrapped[i]), &info));
		assert_non_null(strstr(info.dli_fname, "libascendcl"));
	}
#endif
	ACL_OK(aclrtFree(dev));
	munmap(p, 2 * 4096);
}

/*
 * Small synchronous copies from and to pageable memory on a device in
 * another process are staged through pinned memory by the runtime (64 KiB
 * and less), bigger ones go direct: both sides of that size, each way,
 * read back exactly, and a D2H copy whose host end runs into a bad page
 * fails and leaves the bytes before that page written, as the driver's
 * own copy does.
 */
static void test_pageable_copies_either_side_of_the_staging_size(void **state)
{
	static const size_t sizes[] = { 1, 4095, 65536, 65537, 3 * 65536 + 5 };
	char *p = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	void *dev = NULL;

	(void)state;
	ACL_OK(aclrtMalloc(&dev, 4 * 65536, ACL_MEM_MALLOC_HUGE_FIRST));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i];
		unsigned char *src = malloc(n), *back = malloc(n);

		assert_non_null(src);
		assert_non_null(back);
		for (size_t j = 0; j < n; j++)
			src[j] = (unsigned char)(j * 7 + i);
		memset(back, 0, n);
		ACL_OK(aclrtMemcpy(dev, 4 * 65536, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
		ACL_OK(aclrtMemcpy(back, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
		assert_memory_equal(back, src, n);
		free(src);
		free(back);
	}
	/* D2H into a good page, then a bad one. */
	assert_true(p != MAP_FAILED);
	assert_int_equal(mprotect(p + 4096, 4096, PROT_NONE), 0);
	ACL_OK(aclrtMemset(dev, 8192, 0x6b, 8192));
	memset(p, 0, 4096);
	assert_int_equal(aclrtMemcpy(p + 2048, 4096, dev, 4096, ACL_MEMCPY_DEVICE_TO_HOST),
			 ACL_ERROR_RT_PARAM_INVALID);
	for (size_t j = 2048; j < 4096; j++)
		assert_int_equal((unsigned char)p[j], 0x6b);
	ACL_OK(aclrtFree(dev));
	munmap(p, 2 * 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memset_fills_low_byte_of_value),
		cmocka_unit_test(test_memset_works_on_any_host_memory),
		cmocka_unit_test(test_default_kind_infers_direction),
		cmocka_unit_test(test_every_accepted_kind_copies_by_address),
		cmocka_unit_test(test_same_dst_and_src_is_a_successful_no_op),
		cmocka_unit_test(test_copy_honours_count_not_dest_max),
		cmocka_unit_test(test_copy_between_two_devices),
		cmocka_unit_test(test_bad_host_pointer_fails_behind_a_program_handler),
		cmocka_unit_test(test_pageable_copies_either_side_of_the_staging_size),
		cmocka_unit_test(test_round_trips_preserve_every_byte),
	};

	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
