/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_TIME64_H
#define MOCK_LINUX_TIME64_H

#include <linux/types.h>

#define MSEC_PER_SEC	1000L
#define NSEC_PER_USEC	1000L
#define NSEC_PER_MSEC	1000000L
#define NSEC_PER_SEC	1000000000L

#endif /* MOCK_LINUX_TIME64_H */
