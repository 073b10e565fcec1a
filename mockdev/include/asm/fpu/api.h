/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Kernel-mode FPU use. A kernel saves the user's FPU state and turns
 * preemption off in between; the mock runs in a process whose FPU state
 * is its own, so the bracket only checks that it is balanced and not
 * nested on a thread, as the kernel requires.
 */
#ifndef _MOCK_ASM_FPU_API_H
#define _MOCK_ASM_FPU_API_H

#include <linux/bug.h>

extern __thread int mock_fpu_depth;

static inline void kernel_fpu_begin(void)
{
	WARN_ON_ONCE(mock_fpu_depth);
	mock_fpu_depth++;
}

static inline void kernel_fpu_end(void)
{
	WARN_ON_ONCE(mock_fpu_depth != 1);
	mock_fpu_depth--;
}

#endif /* _MOCK_ASM_FPU_API_H */
