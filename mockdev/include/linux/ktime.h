/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: ktime_t is nanoseconds of CLOCK_MONOTONIC. */
#ifndef MOCK_LINUX_KTIME_H
#define MOCK_LINUX_KTIME_H

#include <linux/types.h>
#include <linux/time64.h>
#include <linux/jiffies.h>

typedef s64 ktime_t;

#include <linux/timekeeping.h>

#endif /* MOCK_LINUX_KTIME_H */
