/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: atomics over the GCC __atomic builtins, with the kernel's
 * ordering rules (Documentation/atomic_t.txt): plain read/set and the
 * void RMW ops (atomic_inc, atomic_or, ...) are relaxed; every RMW op that
 * returns a value is fully ordered, as is cmpxchg; the _relaxed and
 * _acquire forms are what their names say.
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

#define __MOCK_RLX	__ATOMIC_RELAXED
#define __MOCK_SC	__ATOMIC_SEQ_CST

#define MOCK_ATOMIC_OPS(pfx, atype, T)					\
static __always_inline T pfx##_read(const atype *v)			\
{ return __atomic_load_n(&v->counter, __MOCK_RLX); }			\
static __always_inline T pfx##_read_acquire(const atype *v)		\
{ return __atomic_load_n(&v->counter, __ATOMIC_ACQUIRE); }		\
static __always_inline void pfx##_set(atype *v, T i)			\
{ __atomic_store_n(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_add(T i, atype *v)			\
{ __atomic_fetch_add(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_sub(T i, atype *v)			\
{ __atomic_fetch_sub(&v->counter, i, __MOCK_RLX); }			\
static __always_inline void pfx##_inc(atype *v)				\
{ __atomic_fetch_add(&v->counter, 1, __MOCK_RLX); }			\
static __always_inline void pfx##_dec(atype *v)				\
{ __atomic_fetch_sub(&v->counter, 1, __MOCK_RLX); }			\
static __always_inline void pfx##_or(T i, atype *v)			\
{ __atomic_fetch_or(&v->counter, i, __MOCK_RLX); }			\
static __always_inline T pfx##_add_return(T i, atype *v)		\
{ return __atomic_add_fetch(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_sub_return(T i, atype *v)		\
{ return __atomic_sub_fetch(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_inc_return(atype *v)			\
{ return __atomic_add_fetch(&v->counter, 1, __MOCK_SC); }		\
static __always_inline T pfx##_dec_return(atype *v)			\
{ return __atomic_sub_fetch(&v->counter, 1, __MOCK_SC); }		\
static __always_inline T pfx##_fetch_add_relaxed(T i, atype *v)	\
{ return __atomic_fetch_add(&v->counter, i, __MOCK_RLX); }		\
static __always_inline T pfx##_fetch_sub(T i, atype *v)		\
{ return __atomic_fetch_sub(&v->counter, i, __MOCK_SC); }		\
static __always_inline T pfx##_cmpxchg(atype *v, T old, T new)		\
{									\
	__atomic_compare_exchange_n(&v->counter, &old, new, false,	\
				    __MOCK_SC, __MOCK_SC);		\
	return old;							\
}									\
static __always_inline bool pfx##_try_cmpxchg(atype *v, T *old, T new)	\
{									\
	return __atomic_compare_exchange_n(&v->counter, old, new, false, \
					   __MOCK_SC, __MOCK_SC);	\
}									\
static __always_inline bool pfx##_dec_and_test(atype *v)		\
{ return pfx##_dec_return(v) == 0; }					\
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
{ return pfx##_add_unless(v, 1, 0); }

MOCK_ATOMIC_OPS(atomic, atomic_t, int)
MOCK_ATOMIC_OPS(atomic64, atomic64_t, s64)
MOCK_ATOMIC_OPS(atomic_long, atomic_long_t, long)

#endif /* MOCK_LINUX_ATOMIC_H */
