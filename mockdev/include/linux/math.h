/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_MATH_H
#define MOCK_LINUX_MATH_H

#include <linux/types.h>

#define __round_mask(x, y)	((__typeof__(x))((y) - 1))
/* y must be a power of two */
#define round_up(x, y)		((((x) - 1) | __round_mask(x, y)) + 1)
#define round_down(x, y)	((x) & ~__round_mask(x, y))

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#define DIV_ROUND_UP_ULL(ll, d)	DIV_ROUND_UP((unsigned long long)(ll), (d))
#define DIV_ROUND_DOWN_ULL(ll, d) ((unsigned long long)(ll) / (d))
#define DIV_ROUND_CLOSEST(x, d)	(((x) + ((d) / 2)) / (d))

/* Any y, not just powers of two. */
#define roundup(x, y) ({				\
	typeof(y) __y = y;				\
	(((x) + (__y - 1)) / __y) * __y; })
#define rounddown(x, y) ({				\
	typeof(x) __x = (x);				\
	__x - (__x % (y)); })

#define abs(x) __builtin_choose_expr(sizeof(x) == sizeof(long long),	\
	__builtin_llabs(x), __builtin_abs(x))

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

#define do_div(n, base) ({				\
	u32 __base = (base);				\
	u32 __rem = (u32)((n) % __base);		\
	(n) = (n) / __base;				\
	__rem; })

#endif /* MOCK_LINUX_MATH_H */
