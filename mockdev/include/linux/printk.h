/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: printk. The level prefix (KERN_*) is parsed like the
 * kernel's; pr_warn and worse are counted (mock_log_warnings()).
 */
#ifndef MOCK_LINUX_PRINTK_H
#define MOCK_LINUX_PRINTK_H

#include <stdarg.h>
#include <stdbool.h>
#include <linux/compiler_types.h>

#define KERN_SOH	"\001"
#define KERN_SOH_ASCII	'\001'
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ALERT	KERN_SOH "1"
#define KERN_CRIT	KERN_SOH "2"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
#define KERN_DEFAULT	""
#define KERN_CONT	KERN_SOH "c"

#define LOGLEVEL_DEFAULT	-1
#define LOGLEVEL_EMERG		0
#define LOGLEVEL_ERR		3
#define LOGLEVEL_WARNING	4
#define LOGLEVEL_INFO		6
#define LOGLEVEL_DEBUG		7

__printf(1, 2) int printk(const char *fmt, ...);
int vprintk(const char *fmt, va_list args);

/* Type-checks the arguments and prints nothing. */
static inline __printf(1, 2) int no_printk(const char *fmt, ...)
{
	(void)fmt;
	return 0;
}

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define pr_emerg(fmt, ...)	printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...)	printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...)	printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warning		pr_warn
#define pr_notice(fmt, ...)	printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...)	printk(KERN_CONT fmt, ##__VA_ARGS__)
#ifdef DEBUG
#define pr_debug(fmt, ...)	printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#else
#define pr_debug(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#endif
#define pr_devel(fmt, ...)	no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)

#define printk_once(fmt, ...) ({			\
	static bool __print_once;			\
	if (!__print_once) {				\
		__print_once = true;			\
		printk(fmt, ##__VA_ARGS__);		\
	}						\
})
#define pr_err_once(fmt, ...)	printk_once(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_once(fmt, ...)	printk_once(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info_once(fmt, ...)	printk_once(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)

/* The mock does not rate limit: tests want to see every line. */
#define printk_ratelimited	printk
#define pr_err_ratelimited	pr_err
#define pr_warn_ratelimited	pr_warn
#define pr_info_ratelimited	pr_info
#define pr_debug_ratelimited	pr_debug

static inline void dump_stack(void)
{
}

#endif /* MOCK_LINUX_PRINTK_H */
