/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: jiffies from CLOCK_MONOTONIC. HZ is 250 like the Debian
 * kernel, and jiffies start 5 minutes before the 32-bit wrap as in the
 * kernel (INITIAL_JIFFIES), so wrap bugs show up early.
 */
#ifndef MOCK_LINUX_JIFFIES_H
#define MOCK_LINUX_JIFFIES_H

#include <limits.h>
#include <linux/types.h>
#include <linux/typecheck.h>
#include <linux/time64.h>

#undef HZ
#define HZ		250
#define INITIAL_JIFFIES	((unsigned long)(unsigned int)(-300 * HZ))
#define MAX_JIFFY_OFFSET ((LONG_MAX >> 1) - 1)

unsigned long mock_jiffies(void);
#define jiffies		mock_jiffies()

#define time_after(a, b)						\
	(typecheck(unsigned long, a) &&					\
	 typecheck(unsigned long, b) &&					\
	 ((long)((b) - (a)) < 0))
#define time_before(a, b)	time_after(b, a)
#define time_after_eq(a, b)						\
	(typecheck(unsigned long, a) &&					\
	 typecheck(unsigned long, b) &&					\
	 ((long)((a) - (b)) >= 0))

static inline unsigned long msecs_to_jiffies(const unsigned int m)
{
	if ((int)m < 0)
		return MAX_JIFFY_OFFSET;
	return ((unsigned long)m * HZ + MSEC_PER_SEC - 1) / MSEC_PER_SEC;
}

static inline unsigned long nsecs_to_jiffies(u64 n)
{
	return (unsigned long)((n + NSEC_PER_SEC / HZ - 1) / (NSEC_PER_SEC / HZ));
}

static inline u64 jiffies_to_nsecs(const unsigned long j)
{
	return (u64)j * (NSEC_PER_SEC / HZ);
}

#endif /* MOCK_LINUX_JIFFIES_H */
