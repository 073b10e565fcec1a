/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_TIMEKEEPING_H
#define MOCK_LINUX_TIMEKEEPING_H

#include <linux/ktime.h>

ktime_t ktime_get(void);		/* CLOCK_MONOTONIC */
ktime_t ktime_get_raw(void);		/* CLOCK_MONOTONIC_RAW */
ktime_t ktime_get_boottime(void);	/* CLOCK_BOOTTIME */
ktime_t ktime_get_real(void);		/* CLOCK_REALTIME */
time64_t ktime_get_seconds(void);
time64_t ktime_get_real_seconds(void);

static inline u64 ktime_get_ns(void)
{
	return ktime_get();
}

static inline u64 ktime_get_raw_ns(void)
{
	return ktime_get_raw();
}

static inline u64 ktime_get_boottime_ns(void)
{
	return ktime_get_boottime();
}

static inline u64 ktime_get_real_ns(void)
{
	return ktime_get_real();
}

#define ktime_get_mono_fast_ns	ktime_get_ns

#endif /* MOCK_LINUX_TIMEKEEPING_H */
