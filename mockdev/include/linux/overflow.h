/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: overflow-checked arithmetic, with the 6.1 type checks
 * (a, b and *d must have the same type, or the build warns).
 */
#ifndef MOCK_LINUX_OVERFLOW_H
#define MOCK_LINUX_OVERFLOW_H

#include <stdint.h>
#include <linux/compiler.h>

static inline bool __must_check __must_check_overflow(bool overflow)
{
	return unlikely(overflow);
}

#define check_add_overflow(a, b, d) __must_check_overflow(({	\
	typeof(a) __a = (a);					\
	typeof(b) __b = (b);					\
	typeof(d) __d = (d);					\
	(void)(&__a == &__b);					\
	(void)(&__a == __d);					\
	__builtin_add_overflow(__a, __b, __d);			\
}))

#define check_mul_overflow(a, b, d) __must_check_overflow(({	\
	typeof(a) __a = (a);					\
	typeof(b) __b = (b);					\
	typeof(d) __d = (d);					\
	(void)(&__a == &__b);					\
	(void)(&__a == __d);					\
	__builtin_mul_overflow(__a, __b, __d);			\
}))

#endif /* MOCK_LINUX_OVERFLOW_H */
