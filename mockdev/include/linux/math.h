/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_MATH_H
#define MOCK_LINUX_MATH_H

#include <linux/types.h>

#define __round_mask(x, y)	((__typeof__(x))((y) - 1))
/* y must be a power of two */
#define round_up(x, y)		((((x) - 1) | __round_mask(x, y)) + 1)

#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))

#endif /* MOCK_LINUX_MATH_H */
