/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_LOG2_H
#define MOCK_LINUX_LOG2_H

#include <linux/types.h>
#include <linux/bitops.h>

static inline __attribute__((const)) bool is_power_of_2(unsigned long n)
{
	return n != 0 && ((n & (n - 1)) == 0);
}

/* log2 of n rounded down; n must not be 0. Constant for constant n. */
#define ilog2(n)							\
	(__builtin_constant_p(n) ?					\
		((n) < 2 ? 0 : 63 - __builtin_clzll(n)) :		\
		(int)(63 - __builtin_clzll((u64)(n) | 1)))

#define roundup_pow_of_two(n)						\
	((unsigned long)((n) <= 1 ? 1UL : 1UL << fls_long((n) - 1)))

/* log2 of n rounded up; 0 for n <= 1. */
#define order_base_2(n) ((n) > 1 ? ilog2((n) - 1) + 1 : 0)

#endif /* MOCK_LINUX_LOG2_H */
