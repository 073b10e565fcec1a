/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: linux/string.h over the C library, plus the kernel-only
 * helpers. memcpy() of 256 KiB or more goes through the mock's
 * non-temporal copy: the driver's device-to-device copies are that big, and
 * streaming stores beat glibc's memcpy there by almost 2x on the CI machine.
 */
#ifndef __KERNEL__
#include_next <linux/string.h>
#else
#ifndef MOCK_LINUX_STRING_H
#define MOCK_LINUX_STRING_H

#include <string.h>
#include <linux/types.h>
#include <linux/compiler.h>

/* Copies of at least this many bytes use non-temporal stores. */
#define MOCK_MEMCPY_NT_THRESHOLD	(256UL * 1024)

void *mock_memcpy_nt(void *dst, const void *src, size_t n);

static __always_inline void *mock_memcpy(void *dst, const void *src, size_t n)
{
	if (__builtin_constant_p(n) && n < MOCK_MEMCPY_NT_THRESHOLD)
		return __builtin_memcpy(dst, src, n);
	if (unlikely(n >= MOCK_MEMCPY_NT_THRESHOLD))
		return mock_memcpy_nt(dst, src, n);
	return __builtin_memcpy(dst, src, n);
}

#undef memcpy
#define memcpy(dst, src, n)	mock_memcpy((dst), (src), (n))

/* The first byte in [start, start + bytes) that is not c, or NULL. */
void *memchr_inv(const void *start, int c, size_t bytes);

/*
 * Copy a NUL-terminated string into dst of size count, always terminated.
 * Returns the length copied, or -E2BIG when src did not fit.
 */
ssize_t strscpy(char *dst, const char *src, size_t count);

#endif /* MOCK_LINUX_STRING_H */
#endif /* __KERNEL__ */
