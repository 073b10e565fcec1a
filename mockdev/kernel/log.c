// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: the kernel log. Lines of warning level and worse go to
 * stderr, and are counted with every WARN so tests can assert that a path
 * was quiet.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/printk.h>
#include <linux/slab.h>
#include <mockdev/mock.h>

#include "internal.h"

static unsigned long log_warnings;	/* atomic */
static unsigned long warn_count;	/* atomic: WARN()s only, never cleared */

/* The level of a KERN_* prefixed line, and the text after the prefix. */
static int printk_level(const char **fmt)
{
	int level = LOGLEVEL_WARNING;	/* the kernel's default is 4 */

	while ((*fmt)[0] == KERN_SOH_ASCII && (*fmt)[1]) {
		char c = (*fmt)[1];

		if (c >= '0' && c <= '7')
			level = c - '0';
		*fmt += 2;
	}
	return level;
}

static int vprintk(const char *fmt, va_list args)
{
	int level = printk_level(&fmt);
	char line[1024];
	int len;

	if (level <= LOGLEVEL_WARNING)
		__atomic_fetch_add(&log_warnings, 1, __ATOMIC_RELAXED);
	len = vsnprintf(line, sizeof(line), fmt, args);
	if (level <= LOGLEVEL_WARNING)
		fprintf(stderr, "[npu-mock] <%d> %s", level, line);
	return len;
}

int printk(const char *fmt, ...)
{
	va_list args;
	int r;

	va_start(args, fmt);
	r = vprintk(fmt, args);
	va_end(args);
	return r;
}

void mock_warn(const char *file, int line, const char *fmt, ...)
{
	va_list args;

	__atomic_fetch_add(&log_warnings, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&warn_count, 1, __ATOMIC_RELAXED);
	fprintf(stderr, "[npu-mock] WARNING at %s:%d: ", file, line);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	if (fmt[0] && fmt[strlen(fmt) - 1] != '\n')
		fputc('\n', stderr);
}

void mock_bug(const char *file, int line, const char *what)
{
	fprintf(stderr, "[npu-mock] kernel BUG at %s:%d: %s\n", file, line,
		what);
	abort();
}

MOCK_EXPORT unsigned long mock_log_warnings(void)
{
	return __atomic_load_n(&log_warnings, __ATOMIC_RELAXED);
}

MOCK_EXPORT unsigned long mock_warn_count(void)
{
	return __atomic_load_n(&warn_count, __ATOMIC_RELAXED);
}

MOCK_EXPORT void mock_log_clear(void)
{
	__atomic_store_n(&log_warnings, 0, __ATOMIC_RELAXED);
}
