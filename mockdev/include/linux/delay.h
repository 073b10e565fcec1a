/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: msleep sleeps with nanosleep. */
#ifndef MOCK_LINUX_DELAY_H
#define MOCK_LINUX_DELAY_H

#include <linux/types.h>
#include <asm/processor.h>

void msleep(unsigned int msecs);

#endif /* MOCK_LINUX_DELAY_H */
