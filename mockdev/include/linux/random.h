/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: random numbers from getrandom(2). */
#ifndef __KERNEL__
#include_next <linux/random.h>
#else
#ifndef MOCK_LINUX_RANDOM_H
#define MOCK_LINUX_RANDOM_H

#include <linux/types.h>

void get_random_bytes(void *buf, size_t len);
u32 get_random_u32(void);
u64 get_random_u64(void);

static inline u8 get_random_u8(void)
{
	return (u8)get_random_u32();
}

static inline u16 get_random_u16(void)
{
	return (u16)get_random_u32();
}

static inline unsigned long get_random_long(void)
{
	return get_random_u64();
}

/* Uniform in [0, ceil), ceil > 0. */
u32 get_random_u32_below(u32 ceil);

static inline u32 prandom_u32_max(u32 ep_ro)
{
	return ep_ro ? get_random_u32_below(ep_ro) : 0;
}

#endif /* MOCK_LINUX_RANDOM_H */
#endif /* __KERNEL__ */
