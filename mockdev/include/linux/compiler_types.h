/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: sparse annotations (nothing in a gcc build) and the
 * attribute shorthands of the kernel.
 */
#ifndef MOCK_LINUX_COMPILER_TYPES_H
#define MOCK_LINUX_COMPILER_TYPES_H

#define __user
#define __kernel
#define __iomem
#define __force
#define __safe
#define __nocast
#define __rcu
#define __percpu
#define __private
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define __acquire(x)	((void)0)
#define __release(x)	((void)0)
#define __cond_lock(x, c) (c)
#ifndef __bitwise
#define __bitwise
#endif

#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define noinline	__attribute__((__noinline__))
#define __must_check	__attribute__((__warn_unused_result__))
#define __maybe_unused	__attribute__((__unused__))
#define __always_unused	__attribute__((__unused__))
#define __used		__attribute__((__used__))
#define __packed	__attribute__((__packed__))
#define __aligned(x)	__attribute__((__aligned__(x)))
#define __cold		__attribute__((__cold__))
#define __weak		__attribute__((__weak__))
#define __noreturn	__attribute__((__noreturn__))
#define __pure		__attribute__((__pure__))
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
#define __scanf(a, b)	__attribute__((__format__(scanf, a, b)))
#define __section(s)	__attribute__((__section__(s)))
#define __cacheline_aligned		__attribute__((__aligned__(64)))
#define ____cacheline_aligned		__attribute__((__aligned__(64)))
#define ____cacheline_aligned_in_smp	__attribute__((__aligned__(64)))
#define __cacheline_aligned_in_smp	__attribute__((__aligned__(64)))
#define fallthrough	__attribute__((__fallthrough__))
#define notrace
#define __randomize_layout
#define __no_randomize_layout

#define ___PASTE(a, b)	a##b
#define __PASTE(a, b)	___PASTE(a, b)
#define __UNIQUE_ID(prefix) __PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)

#define __same_type(a, b) __builtin_types_compatible_p(typeof(a), typeof(b))

#endif /* MOCK_LINUX_COMPILER_TYPES_H */
