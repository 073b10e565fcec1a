/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: udelay/ndelay spin on the clock; the sleeps nanosleep. */
#ifndef MOCK_LINUX_DELAY_H
#define MOCK_LINUX_DELAY_H

#include <linux/types.h>
#include <asm/processor.h>

void ndelay(unsigned long nsecs);
void udelay(unsigned long usecs);
void mdelay(unsigned long msecs);
void msleep(unsigned int msecs);
unsigned long msleep_interruptible(unsigned int msecs);
void usleep_range(unsigned long min, unsigned long max);
void fsleep(unsigned long usecs);

static inline void ssleep(unsigned int seconds)
{
	msleep(seconds * 1000);
}

#endif /* MOCK_LINUX_DELAY_H */
