/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MOCK_ASM_PROCESSOR_H
#define MOCK_ASM_PROCESSOR_H

/* The PAUSE instruction: be nice to the sibling hyperthread while spinning. */
static inline void cpu_relax(void)
{
	__builtin_ia32_pause();
}

#endif /* MOCK_ASM_PROCESSOR_H */
