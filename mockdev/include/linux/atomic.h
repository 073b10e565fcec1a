/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: atomics over the GCC __atomic builtins, with the kernel's
 * ordering rules (Documentation/atomic_t.txt): plain read/set and the
 * void RMW ops (atomic_inc, atomic_or, ...) are relaxed; every RMW op that
 * returns a value is fully ordered, as are cmpxchg and xchg; the
 * _relaxed/_acquire/_release forms are what their names say.
 */
#ifndef MOCK_LINUX_ATOMIC_H
#define MOCK_LINUX_ATOMIC_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <asm/barrier.h>

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

typedef struct {
	long counter;
} atomic_long_t;

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC64_INIT(i)	{ (i) }
#define ATOMIC_LONG_INIT(i)	{ (i) }

#define __MOCK_RLX	__ATOMIC_RELAXED
#define __MOCK_SC	__ATOMIC_SEQ_CST

#define MOCK_ATOMIC_OPS(pfx, atype, T)					\
static __always_inline T pfx##_read(const atype *v)			\
{ return __atomic_load_n(&v->counter, __MOCK_RLX); }			\
static __always_inline T pfx##_read_acquire(const atype *v)		\
{ return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); }		\
static __always_inline void pfx##_set(atype *v, T i)			\
{ __atomic_store_n(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_set_release(atype *v, T i)		\
{ __atomic_store_n(&v->counter, i, __ATOMIC_RELEASE); }		\
static __always_inline void pfx##_add(T i, atype *v)			\
{ __atomic_fetch_add(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_sub(T i, atype *v)			\
{ __atomic_fetch_sub(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_inc(atype *v)				\
{ __atomic_fetch_add(&v->counter, 1, __MOCK_RLX); }			\
static __always_inline void pfx##_dec(atype *v)				\
{ __atomic_fetch_sub(&v->counter, 1, __MOCK_RLX); }			\
static __always_inline void pfx##_and(T i, atype *v)			\
{ __atomic_fetch_and(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_andnot(T i, atype *v)		\
{ __atomic_fetch_and(&v->counter, ~i, __MOCK_RLX); }			\
static __always_inline void pfx##_or(T i, atype *v)			\
{ __atomic_fetch_or(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_xor(T i, atype *v)			\
{ __atomic_fetch_xor(&v->counter, i, __MOCK_RLX); }			\
static __always_inline T pfx##_add_return(T i, atype *v)		\
{ return __atomic_add_fetch(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_add_return_relaxed(T i, atype *v)	\
{ return __atomic_add_fetch(&v->counter, i, __MOCK_RLX); }		\
static __always_inline T pfx##_sub_return(T i, atype *v)		\
{ return __atomic_sub_fetch(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_inc_return(atype *v)			\
{ return __atomic_add_fetch(&v->counter, 1, __MOCK_SC); }		\
static __always_inline T pfx##_inc_return_relaxed(atype *v)		\
{ return __atomic_add_fetch(&v->counter, 1, __MOCK_RLX); }		\
static __always_inline T pfx##_dec_return(atype *v)			\
{ return __atomic_sub_fetch(&v->counter, 1, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_add(T i, atype *v)		\
{ return __atomic_fetch_add(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_add_relaxed(T i, atype *v)	\
{ return __atomic_fetch_add(&v->counter, i, __MOCK_RLX); }		\
static __always_inline T pfx##_fetch_sub(T i, atype *v)		\
{ return __atomic_fetch_sub(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_inc(atype *v)			\
{ return __atomic_fetch_add(&v->counter, 1, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_dec(atype *v)			\
{ return __atomic_fetch_sub(&v->counter, 1, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_and(T i, atype *v)		\
{ return __atomic_fetch_and(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_andnot(T i, atype *v)		\
{ return __atomic_fetch_and(&v->counter, ~i, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_or(T i, atype *v)			\
{ return __atomic_fetch_or(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_xor(T i, atype *v)		\
{ return __atomic_fetch_xor(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_xchg(atype *v, T i)			\
{ return __atomic_exchange_n(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_cmpxchg(atype *v, T old, T new)		\
{									\
	__atomic_compare_exchange_n(&v->counter, &old, new, false,	\
				    __MOCK_SC, __MOCK_SC);		\
	return old;							\
}									\
static __always_inline T pfx##_cmpxchg_relaxed(atype *v, T old, T new)	\
{									\
	__atomic_compare_exchange_n(&v->counter, &old, new, false,	\
				    __MOCK_RLX, __MOCK_RLX);		\
	return old;							\
}									\
static __always_inline bool pfx##_try_cmpxchg(atype *v, T *old, T new)	\
{									\
	return __atomic_compare_exchange_n(&v->counter, old, new, false, \
					   __MOCK_SC, __MOCK_SC);	\
}									\
static __always_inline bool pfx##_inc_and_test(atype *v)		\
{ return pfx##_inc_return(v) == 0; }					\
static __always_inline bool pfx##_dec_and_test(atype *v)		\
{ return pfx##_dec_return(v) == 0; }					\
static __always_inline bool pfx##_sub_and_test(T i, atype *v)		\
{ return pfx##_sub_return(i, v) == 0; }				\
static __always_inline bool pfx##_add_negative(T i, atype *v)		\
{ return pfx##_add_return(i, v) < 0; }					\
/* Add a to v unless v was u; returns the old value. */		\
static __always_inline T pfx##_fetch_add_unless(atype *v, T a, T u)	\
{									\
	T c = pfx##_read(v);						\
									\
	do {								\
		if (unlikely(c == u))					\
			break;						\
	} while (!pfx##_try_cmpxchg(v, &c, c + a));			\
	return c;							\
}									\
static __always_inline bool pfx##_add_unless(atype *v, T a, T u)	\
{ return pfx##_fetch_add_unless(v, a, u) != u; }			\
static __always_inline bool pfx##_inc_not_zero(atype *v)		\
{ return pfx##_add_unless(v, 1, 0); }					\
/* Decrement unless that makes v negative; returns old value - 1. */	\
static __always_inline T pfx##_dec_if_positive(atype *v)		\
{									\
	T c = pfx##_read(v);						\
	T dec;								\
									\
	do {								\
		dec = c - 1;						\
		if (unlikely(dec < 0))					\
			break;						\
	} while (!pfx##_try_cmpxchg(v, &c, dec));			\
	return dec;							\
}

MOCK_ATOMIC_OPS(atomic, atomic_t, int)
MOCK_ATOMIC_OPS(atomic64, atomic64_t, s64)
MOCK_ATOMIC_OPS(atomic_long, atomic_long_t, long)

/* Generic cmpxchg/xchg on a plain scalar lvalue, fully ordered. */
#define cmpxchg(ptr, o, n) ({						\
	typeof(*(ptr)) __old = (o);					\
	__atomic_compare_exchange_n((ptr), &__old, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__old; })
#define cmpxchg_relaxed(ptr, o, n) ({					\
	typeof(*(ptr)) __old = (o);					\
	__atomic_compare_exchange_n((ptr), &__old, (n), false,		\
				    __ATOMIC_RELAXED, __ATOMIC_RELAXED); \
	__old; })
#define try_cmpxchg(ptr, oldp, n)					\
	__atomic_compare_exchange_n((ptr), (oldp), (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define xchg(ptr, v)	__atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST)

#endif /* MOCK_LINUX_ATOMIC_H */
