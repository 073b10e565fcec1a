// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: the copy routines behind the user copies and the driver's
 * large memcpy()s.
 *
 * Copies of 256 KiB or more use non-temporal stores: the data will not be
 * read again soon, and streaming stores nearly double the bandwidth of
 * such copies on the CI machine (x86-64, SSE2/AVX2) compared with glibc's
 * memcpy. On arm64 they are STNP stores; every other CPU, or any CPU
 * built with NPU_MOCK_PORTABLE_COPY defined, copies with memcpy.
 */
#include <pthread.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/string.h>

#include "uaccess.h"

#ifdef MOCK_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <stdio.h>
#include <stdlib.h>

noinline void mock_asan_check(const void *p, size_t n, bool write, void *caller)
{
	void *bad;

	if (!n)
		return;
	bad = __asan_region_is_poisoned((void *)p, n);
	if (likely(!bad))
		return;
	fprintf(stderr,
		"BUG: mock uaccess: %s of %zu bytes of kernel memory at %p (from %p): byte %p (offset %zu) is poisoned\n",
		write ? "write" : "read", n, p, caller, bad,
		(size_t)((char *)bad - (const char *)p));
	__asan_describe_address(bad);
	__sanitizer_print_stack_trace();
	abort();
}
#endif

#ifdef MOCK_COPY_X86

/* Streaming copy, SSE2: dst aligned to 64 first, 64 bytes per round. */
static NO_SANITIZE void copy_nt_sse2(void *dst, const void *src, size_t n)
{
	size_t head = (-(uintptr_t)dst) & 63;
	char *d = dst;
	const char *s = src;

	if (head > n)
		head = n;
	movsb(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	movsb(d, s, n);
}

/* Streaming copy, AVX2: 128 bytes per round. */
static __attribute__((target("avx2"))) NO_SANITIZE void
copy_nt_avx2(void *dst, const void *src, size_t n)
{
	size_t head = (-(uintptr_t)dst) & 63;
	char *d = dst;
	const char *s = src;

	if (head > n)
		head = n;
	movsb(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 128; n -= 128, d += 128, s += 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_stream_si256((__m256i *)d, a);
		_mm256_stream_si256((__m256i *)(d + 32), b);
		_mm256_stream_si256((__m256i *)(d + 64), c);
		_mm256_stream_si256((__m256i *)(d + 96), e);
	}
	movsb(d, s, n);
}

static copy_fn copy_nt_impl;	/* chosen once by CPU features */
static pthread_once_t copy_nt_once = PTHREAD_ONCE_INIT;

static void copy_nt_choose(void)
{
	__builtin_cpu_init();
	copy_nt_impl = __builtin_cpu_supports("avx2") ? copy_nt_avx2 :
							copy_nt_sse2;
}

copy_fn mock_copy_nt(void)
{
	pthread_once(&copy_nt_once, copy_nt_choose);
	return copy_nt_impl;
}

#elif defined(MOCK_COPY_ARM64)

/*
 * Streaming copy: STNP, the non-temporal store pair that arm64's own
 * copy_page uses, from Advanced SIMD registers, which every arm64 CPU has
 * (so there is nothing to choose at run time); dst aligned to 64 first,
 * 64 bytes per round. Its speed has not been measured on Arm hardware:
 * the CI runs it under qemu-aarch64, which checks what it copies only.
 */
static NO_SANITIZE void copy_nt_stnp(void *dst, const void *src, size_t n)
{
	size_t head = (-(uintptr_t)dst) & 63;
	char *d = dst;
	const char *s = src;

	if (head > n)
		head = n;
	movsb(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64)
		__asm__ __volatile__("ldp q0, q1, [%1]\n\t"
				     "ldp q2, q3, [%1, #32]\n\t"
				     "stnp q0, q1, [%0]\n\t"
				     "stnp q2, q3, [%0, #32]"
				     :
				     : "r"(d), "r"(s)
				     : "v0", "v1", "v2", "v3", "memory");
	movsb(d, s, n);
}

copy_fn mock_copy_nt(void)
{
	return copy_nt_stnp;
}

#else

copy_fn mock_copy_nt(void)
{
	return NULL;
}

#endif

void *mock_memcpy_nt(void *dst, const void *src, size_t n)
{
#ifdef MOCK_ASAN
	/*
	 * Both sides are kernel memory. ASan's memcpy would check them too;
	 * checking here first names the copy the same way as the guarded
	 * copies do. Then let ASan see the driver's big copies through its
	 * memcpy rather than the streaming loops.
	 */
	MOCK_ASAN_CHECK(src, n, false);
	MOCK_ASAN_CHECK(dst, n, true);
	return __builtin_memcpy(dst, src, n);
#else
	copy_fn fn = mock_copy_nt();

	if (!fn) {
		movsb(dst, src, n);
		return dst;
	}
	fn(dst, src, n);
	copy_nt_fence();
	return dst;
#endif
}
