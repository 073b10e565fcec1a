/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_ASM_PROCESSOR_H
#define MOCK_ASM_PROCESSOR_H

/* Be nice to the sibling hardware thread while spinning (PAUSE, YIELD). */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

#endif /* MOCK_ASM_PROCESSOR_H */
