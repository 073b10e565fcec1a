/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: printk. The level prefix (KERN_*) is parsed like the
 * kernel's; KERN_WARNING and worse are counted (mock_log_warnings()).
 */
#ifndef MOCK_LINUX_PRINTK_H
#define MOCK_LINUX_PRINTK_H

#include <stdbool.h>
#include <linux/compiler_types.h>

#define KERN_SOH	"\001"
#define KERN_SOH_ASCII	'\001'
#define KERN_ERR	KERN_SOH "3"
#define KERN_INFO	KERN_SOH "6"

#define LOGLEVEL_WARNING	4

__printf(1, 2) int printk(const char *fmt, ...);

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define pr_err(fmt, ...)	printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)

#endif /* MOCK_LINUX_PRINTK_H */
