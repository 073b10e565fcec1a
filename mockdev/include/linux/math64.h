/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_MATH64_H
#define MOCK_LINUX_MATH64_H

#include <linux/math.h>

#endif /* MOCK_LINUX_MATH64_H */
