// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npud's log: lines on stderr up to the level of --log-level (npud_main.c),
 * which journald or the container runtime keeps.
 */
#include <stdarg.h>
#include <stdio.h>

#include "npud.h"

enum npud_log_level npud_log_level = NPUD_LOG_INFO;

void npud_log(enum npud_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > npud_log_level)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}
