/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: x86-64 page geometry. */
#ifndef MOCK_ASM_PAGE_H
#define MOCK_ASM_PAGE_H

#include <linux/const.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(_AC(1, UL) << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))
#define PMD_SHIFT	21
#define PMD_SIZE	(_AC(1, UL) << PMD_SHIFT)
#define PMD_MASK	(~(PMD_SIZE - 1))
#define PUD_SHIFT	30
#define PUD_SIZE	(_AC(1, UL) << PUD_SHIFT)
#define PUD_MASK	(~(PUD_SIZE - 1))

/* Highest user address + 1, as on x86-64 with 4-level page tables. */
#define TASK_SIZE_MAX	((_AC(1, UL) << 47) - PAGE_SIZE)
#define TASK_SIZE	TASK_SIZE_MAX

/* Smallest order whose block holds size bytes. */
static inline __attribute__((const)) int get_order(unsigned long size)
{
	if (size <= PAGE_SIZE)
		return 0;
	return 64 - __builtin_clzl((size - 1) >> PAGE_SHIFT);
}

#endif /* MOCK_ASM_PAGE_H */
