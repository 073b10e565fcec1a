/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: linux/compiler.h.
 *
 * READ_ONCE/WRITE_ONCE are relaxed atomic accesses: like the kernel's
 * volatile accesses they are done exactly once and never torn, and unlike
 * plain volatile they tell ThreadSanitizer that the race is intended.
 * They take scalars and pointers (the kernel also allows small structs;
 * the driver does not need that).
 */
#ifndef MOCK_LINUX_COMPILER_H
#define MOCK_LINUX_COMPILER_H

#include <linux/compiler_types.h>

#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#ifdef __SANITIZE_THREAD__
/*
 * ThreadSanitizer does not model fences, so "WRITE_ONCE(data);
 * smp_wmb(); WRITE_ONCE(tail)" paired with "READ_ONCE(tail); smp_rmb();
 * read data" would be reported as a race on data. Under TSan the accesses
 * carry the ordering the fences give them in the kernel.
 */
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define WRITE_ONCE(x, val) \
	do { __atomic_store_n(&(x), (val), __ATOMIC_RELEASE); } while (0)
#else
#define READ_ONCE(x)	__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, val) \
	do { __atomic_store_n(&(x), (val), __ATOMIC_RELAXED); } while (0)
#endif

/* Used to silence "unused" warnings on values that must be evaluated. */
#define __must_be_array(a) \
	(sizeof(struct { int: (-!!__same_type((a), &(a)[0])); }) * 0)

#endif /* MOCK_LINUX_COMPILER_H */
