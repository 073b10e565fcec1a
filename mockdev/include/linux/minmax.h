/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: min/max with the kernel's type check, so that a mixed-type
 * min() warns here exactly as it does in the real 6.1 build.
 */
#ifndef MOCK_LINUX_MINMAX_H
#define MOCK_LINUX_MINMAX_H

#include <linux/compiler_types.h>

#define __typecheck(x, y) \
	(!!(sizeof((typeof(x) *)1 == (typeof(y) *)1)))

#define __cmp(x, y, op)	((x) op (y) ? (x) : (y))

#define __cmp_once(x, y, unique_x, unique_y, op) ({	\
	typeof(x) unique_x = (x);			\
	typeof(y) unique_y = (y);			\
	(void)__typecheck(unique_x, unique_y);		\
	__cmp(unique_x, unique_y, op); })

#define __careful_cmp(x, y, op) \
	__cmp_once(x, y, __UNIQUE_ID(__x), __UNIQUE_ID(__y), op)

#define min(x, y)	__careful_cmp(x, y, <)
#define max(x, y)	__careful_cmp(x, y, >)
#define min3(x, y, z)	min((typeof(x))min(x, y), z)

#define min_t(type, x, y)	__careful_cmp((type)(x), (type)(y), <)
#define max_t(type, x, y)	__careful_cmp((type)(x), (type)(y), >)

#endif /* MOCK_LINUX_MINMAX_H */
