/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: x86-64 page geometry. */
#ifndef MOCK_ASM_PAGE_H
#define MOCK_ASM_PAGE_H

#include <linux/const.h>

#define PAGE_SHIFT	12
#define PAGE_SIZE	(_AC(1, UL) << PAGE_SHIFT)
#define PAGE_MASK	(~(PAGE_SIZE - 1))

/* Highest user address + 1, as on x86-64 with 4-level page tables. */
#define TASK_SIZE_MAX	((_AC(1, UL) << 47) - PAGE_SIZE)

#endif /* MOCK_ASM_PAGE_H */
