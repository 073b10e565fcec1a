/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_TIMEKEEPING_H
#define MOCK_LINUX_TIMEKEEPING_H

#include <linux/ktime.h>

ktime_t ktime_get(void);		/* CLOCK_MONOTONIC */

static inline u64 ktime_get_ns(void)
{
	return ktime_get();
}

#endif /* MOCK_LINUX_TIMEKEEPING_H */
