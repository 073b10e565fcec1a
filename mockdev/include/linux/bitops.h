/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: bit searching and counting, and the atomic/non-atomic bit
 * operations on unsigned long arrays.
 */
#ifndef MOCK_LINUX_BITOPS_H
#define MOCK_LINUX_BITOPS_H

#include <strings.h>
#include <linux/types.h>
#include <linux/bits.h>
#include <linux/compiler.h>

/* Index of the lowest set bit; word must not be 0. */
static __always_inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

static __always_inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static __always_inline int fls_long(unsigned long x)
{
	return fls64(x);
}

#endif /* MOCK_LINUX_BITOPS_H */
