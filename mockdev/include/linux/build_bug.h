/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: compile-time assertions, with the kernel's spellings. */
#ifndef MOCK_LINUX_BUILD_BUG_H
#define MOCK_LINUX_BUILD_BUG_H

#include <linux/compiler.h>

#define BUILD_BUG_ON_MSG(cond, msg) \
	do { _Static_assert(!(cond), msg); } while (0)
#define BUILD_BUG_ON(cond) \
	BUILD_BUG_ON_MSG(cond, "BUILD_BUG_ON failed: " #cond)

/* The kernel's static_assert takes an optional message. */
#undef static_assert
#define static_assert(expr, ...) __static_assert(expr, ##__VA_ARGS__, #expr)
#define __static_assert(expr, msg, ...) _Static_assert(expr, msg)

#endif /* MOCK_LINUX_BUILD_BUG_H */
