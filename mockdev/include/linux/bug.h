/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: WARN prints a backtrace-less report and counts it (tests
 * assert mock_log_warnings() == 0); BUG aborts the process, like an oops
 * that the kernel would not survive either.
 */
#ifndef MOCK_LINUX_BUG_H
#define MOCK_LINUX_BUG_H

#include <linux/compiler.h>
#include <linux/build_bug.h>

__printf(3, 4) void mock_warn(const char *file, int line, const char *fmt,
			      ...);
__noreturn void mock_bug(const char *file, int line, const char *what);

#define WARN(condition, format...) ({				\
	int __ret_warn_on = !!(condition);			\
	if (unlikely(__ret_warn_on))				\
		mock_warn(__FILE__, __LINE__, format);		\
	unlikely(__ret_warn_on);				\
})

#define WARN_ON(condition) ({					\
	int __ret_warn_on = !!(condition);			\
	if (unlikely(__ret_warn_on))				\
		mock_warn(__FILE__, __LINE__, "WARN_ON(%s)",	\
			  #condition);				\
	unlikely(__ret_warn_on);				\
})

#define WARN_ONCE(condition, format...) ({			\
	static bool __warned;					\
	int __ret_warn_once = !!(condition);			\
	if (unlikely(__ret_warn_once && !__warned)) {		\
		__warned = true;				\
		mock_warn(__FILE__, __LINE__, format);		\
	}							\
	unlikely(__ret_warn_once);				\
})

#define WARN_ON_ONCE(condition) \
	WARN_ONCE(condition, "WARN_ON_ONCE(%s)", #condition)

#define BUG_ON(condition) do {					\
	if (unlikely(condition))				\
		mock_bug(__FILE__, __LINE__, "BUG_ON(" #condition ")"); \
} while (0)

#endif /* MOCK_LINUX_BUG_H */
