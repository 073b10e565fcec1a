/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: random numbers from getrandom(2). */
#ifndef __KERNEL__
#include_next <linux/random.h>
#else
#ifndef MOCK_LINUX_RANDOM_H
#define MOCK_LINUX_RANDOM_H

#include <linux/types.h>

void get_random_bytes(void *buf, size_t len);
u64 get_random_u64(void);

#endif /* MOCK_LINUX_RANDOM_H */
#endif /* __KERNEL__ */
