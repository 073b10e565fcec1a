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

#define check_sub_overflow(a, b, d) __must_check_overflow(({	\
	typeof(a) __a = (a);					\
	typeof(b) __b = (b);					\
	typeof(d) __d = (d);					\
	(void)(&__a == &__b);					\
	(void)(&__a == __d);					\
	__builtin_sub_overflow(__a, __b, __d);			\
}))

#define check_mul_overflow(a, b, d) __must_check_overflow(({	\
	typeof(a) __a = (a);					\
	typeof(b) __b = (b);					\
	typeof(d) __d = (d);					\
	(void)(&__a == &__b);					\
	(void)(&__a == __d);					\
	__builtin_mul_overflow(__a, __b, __d);			\
}))

/* Saturating size arithmetic: SIZE_MAX on overflow, so kmalloc fails. */
static inline size_t __must_check size_mul(size_t factor1, size_t factor2)
{
	size_t bytes;

	if (check_mul_overflow(factor1, factor2, &bytes))
		return SIZE_MAX;
	return bytes;
}

static inline size_t __must_check size_add(size_t addend1, size_t addend2)
{
	size_t bytes;

	if (check_add_overflow(addend1, addend2, &bytes))
		return SIZE_MAX;
	return bytes;
}

static inline size_t __must_check size_sub(size_t minuend, size_t subtrahend)
{
	size_t bytes;

	if (minuend == SIZE_MAX || subtrahend == SIZE_MAX ||
	    check_sub_overflow(minuend, subtrahend, &bytes))
		return SIZE_MAX;
	return bytes;
}

#define array_size(a, b)	size_mul(a, b)
#define array3_size(a, b, c)	size_mul(size_mul(a, b), c)

#define flex_array_size(p, member, count)				\
	__builtin_choose_expr(__builtin_constant_p(count),		\
		(count) * sizeof(*(p)->member) + __must_be_array((p)->member), \
		size_mul(count, sizeof(*(p)->member) + __must_be_array((p)->member)))

#define struct_size(p, member, count)					\
	__builtin_choose_expr(__builtin_constant_p(count),		\
		sizeof(*(p)) + flex_array_size(p, member, count),	\
		size_add(sizeof(*(p)), flex_array_size(p, member, count)))

#define is_signed_type(type)	(((type)(-1)) < (type)1)
#define type_max(T) ((T)((((1ULL << (8 * sizeof(T) - 1 - is_signed_type(T))) - 1) << 1) + 1))
#define type_min(T) ((T)((T)-type_max(T) - (T)1))

#endif /* MOCK_LINUX_OVERFLOW_H */
