/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: string to number, with the kernel's strictness. */
#ifndef MOCK_LINUX_KSTRTOX_H
#define MOCK_LINUX_KSTRTOX_H

#include <linux/types.h>
#include <linux/compiler_types.h>

int __must_check kstrtoull(const char *s, unsigned int base,
			   unsigned long long *res);
int __must_check kstrtoll(const char *s, unsigned int base, long long *res);
int __must_check kstrtobool(const char *s, bool *res);

#endif /* MOCK_LINUX_KSTRTOX_H */
