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

ktime_t ktime_get_raw(void)
{
	return clock_ns(CLOCK_MONOTONIC_RAW);
}

ktime_t ktime_get_boottime(void)
{
	return clock_ns(CLOCK_BOOTTIME);
}

ktime_t ktime_get_real(void)
{
	return clock_ns(CLOCK_REALTIME);
}

time64_t ktime_get_seconds(void)
{
	return ktime_get() / NSEC_PER_SEC;
}

time64_t ktime_get_real_seconds(void)
{
	return ktime_get_real() / NSEC_PER_SEC;
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

void ndelay(unsigned long nsecs)
{
	s64 end = ktime_get() + nsecs;

	while (ktime_get() < end)
		cpu_relax();
}

void udelay(unsigned long usecs)
{
	ndelay(usecs * NSEC_PER_USEC);
}

void mdelay(unsigned long msecs)
{
	ndelay(msecs * NSEC_PER_MSEC);
}

void msleep(unsigned int msecs)
{
	sleep_ns((u64)msecs * NSEC_PER_MSEC);
}

unsigned long msleep_interruptible(unsigned int msecs)
{
	msleep(msecs);
	return 0;
}

void usleep_range(unsigned long min, unsigned long max)
{
	(void)max;
	sleep_ns((u64)min * NSEC_PER_USEC);
}

void fsleep(unsigned long usecs)
{
	if (usecs <= 10)
		udelay(usecs);
	else
		usleep_range(usecs, usecs * 2);
}
