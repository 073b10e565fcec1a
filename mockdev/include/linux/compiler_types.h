/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: sparse annotations (nothing in a gcc build) and the
 * attribute shorthands of the kernel.
 */
#ifndef MOCK_LINUX_COMPILER_TYPES_H
#define MOCK_LINUX_COMPILER_TYPES_H

#define __user
#define __force
#ifndef __bitwise
#define __bitwise
#endif

#ifndef __always_inline
#define __always_inline	inline __attribute__((__always_inline__))
#endif
#define noinline	__attribute__((__noinline__))
#define __must_check	__attribute__((__warn_unused_result__))
#define __maybe_unused	__attribute__((__unused__))
#define __cold		__attribute__((__cold__))
#define __noreturn	__attribute__((__noreturn__))
#define __printf(a, b)	__attribute__((__format__(printf, a, b)))
/*
 * A function that coverage instrumentation (the kernel's KCOV, libFuzzer's
 * -fsanitize=fuzzer-no-link here) leaves alone, as compiler-clang.h and
 * compiler-gcc.h define it.
 */
#if defined(__clang__) && defined(__has_feature)
#if __has_feature(coverage_sanitizer)
#define __no_sanitize_coverage	__attribute__((no_sanitize("coverage")))
#endif
#endif
#ifndef __no_sanitize_coverage
#define __no_sanitize_coverage
#endif
#define fallthrough	__attribute__((__fallthrough__))

#define ___PASTE(a, b)	a##b
#define __PASTE(a, b)	___PASTE(a, b)
#define __UNIQUE_ID(prefix) __PASTE(__PASTE(__UNIQUE_ID_, prefix), __COUNTER__)

#define __same_type(a, b) __builtin_types_compatible_p(typeof(a), typeof(b))

#endif /* MOCK_LINUX_COMPILER_TYPES_H */
