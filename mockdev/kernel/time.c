// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Mock kernel: clocks and delays. */
#include <errno.h>
#include <time.h>

#include <linux/kernel.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>

#include "internal.h"

static s64 clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (s64)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

ktime_t ktime_get(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

unsigned long mock_jiffies(void)
{
	return INITIAL_JIFFIES +
	       (unsigned long)(ktime_get() / (NSEC_PER_SEC / HZ));
}

static void sleep_ns(u64 ns)
{
	struct timespec ts = {
		.tv_sec = ns / NSEC_PER_SEC,
		.tv_nsec = ns % NSEC_PER_SEC,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

void msleep(unsigned int msecs)
{
	sleep_ns((u64)msecs * NSEC_PER_MSEC);
}
