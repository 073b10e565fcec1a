/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: ktime_t is nanoseconds of CLOCK_MONOTONIC. */
#ifndef MOCK_LINUX_KTIME_H
#define MOCK_LINUX_KTIME_H

#include <linux/types.h>
#include <linux/time64.h>
#include <linux/jiffies.h>

typedef s64 ktime_t;

#define KTIME_MAX	((s64)~((u64)1 << 63))

static inline ktime_t ns_to_ktime(u64 ns)
{
	return (ktime_t)ns;
}

static inline ktime_t ms_to_ktime(u64 ms)
{
	return (ktime_t)(ms * NSEC_PER_MSEC);
}

static inline ktime_t us_to_ktime(u64 us)
{
	return (ktime_t)(us * NSEC_PER_USEC);
}

static inline s64 ktime_to_ns(const ktime_t kt)
{
	return kt;
}

static inline s64 ktime_to_us(const ktime_t kt)
{
	return kt / NSEC_PER_USEC;
}

static inline s64 ktime_to_ms(const ktime_t kt)
{
	return kt / NSEC_PER_MSEC;
}

#define ktime_sub(lhs, rhs)	((lhs) - (rhs))
#define ktime_add(lhs, rhs)	((lhs) + (rhs))
#define ktime_add_ns(kt, nsval)	((kt) + (nsval))
#define ktime_sub_ns(kt, nsval)	((kt) - (nsval))
#define ktime_add_us(kt, us)	((kt) + (s64)(us) * NSEC_PER_USEC)
#define ktime_add_ms(kt, ms)	((kt) + (s64)(ms) * NSEC_PER_MSEC)

static inline int ktime_compare(const ktime_t cmp1, const ktime_t cmp2)
{
	return cmp1 < cmp2 ? -1 : cmp1 > cmp2 ? 1 : 0;
}

static inline bool ktime_after(const ktime_t cmp1, const ktime_t cmp2)
{
	return cmp1 > cmp2;
}

static inline bool ktime_before(const ktime_t cmp1, const ktime_t cmp2)
{
	return cmp1 < cmp2;
}

static inline s64 ktime_us_delta(const ktime_t later, const ktime_t earlier)
{
	return ktime_to_us(later - earlier);
}

static inline s64 ktime_ms_delta(const ktime_t later, const ktime_t earlier)
{
	return ktime_to_ms(later - earlier);
}

#include <linux/timekeeping.h>

#endif /* MOCK_LINUX_KTIME_H */
