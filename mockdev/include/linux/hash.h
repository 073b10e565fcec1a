/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: the kernel's multiplicative hashes (golden ratio). */
#ifndef MOCK_LINUX_HASH_H
#define MOCK_LINUX_HASH_H

#include <linux/types.h>

#define GOLDEN_RATIO_32 0x61C88647
#define GOLDEN_RATIO_64 0x61C8864680B583EBull

static inline u32 __hash_32(u32 val)
{
	return val * GOLDEN_RATIO_32;
}

static inline u32 hash_32(u32 val, unsigned int bits)
{
	return __hash_32(val) >> (32 - bits);
}

static __always_inline u32 hash_64(u64 val, unsigned int bits)
{
	return (u32)((val * GOLDEN_RATIO_64) >> (64 - bits));
}

#define hash_long(val, bits)	hash_64(val, bits)

#endif /* MOCK_LINUX_HASH_H */
