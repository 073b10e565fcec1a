/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: refcount_t. Like the kernel's, it saturates instead of
 * wrapping and WARNs on increment from zero (a use after free) and on
 * underflow.
 */
#ifndef MOCK_LINUX_REFCOUNT_H
#define MOCK_LINUX_REFCOUNT_H

#include <limits.h>
#include <linux/atomic.h>
#include <linux/bug.h>

typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_SATURATED	(INT_MIN / 2)

static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

static inline void __mock_refcount_check(int old, bool is_inc)
{
	if (unlikely(old == 0 && is_inc))
		WARN(1, "refcount_t: addition on 0; use-after-free.\n");
	else if (unlikely(old <= 0 || old + 1 < 0))
		WARN(1, "refcount_t: %s; saturated.\n",
		     is_inc ? "overflow" : "underflow");
}

static inline void refcount_add(int i, refcount_t *r)
{
	int old = atomic_fetch_add_relaxed(i, &r->refs);

	if (unlikely(old <= 0 || old + i <= 0)) {
		__mock_refcount_check(old, true);
		atomic_set(&r->refs, REFCOUNT_SATURATED);
	}
}

static inline void refcount_inc(refcount_t *r)
{
	refcount_add(1, r);
}

static inline bool __must_check refcount_sub_and_test(int i, refcount_t *r)
{
	int old = atomic_fetch_sub(i, &r->refs);

	if (old == i)
		return true;
	if (unlikely(old < 0 || old - i < 0)) {
		__mock_refcount_check(old, false);
		atomic_set(&r->refs, REFCOUNT_SATURATED);
	}
	return false;
}

static inline bool __must_check refcount_dec_and_test(refcount_t *r)
{
	return refcount_sub_and_test(1, r);
}

#endif /* MOCK_LINUX_REFCOUNT_H */
