/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: bit searching and counting, and the atomic/non-atomic bit
 * operations on unsigned long arrays.
 */
#ifndef MOCK_LINUX_BITOPS_H
#define MOCK_LINUX_BITOPS_H

#include <strings.h>
#include <linux/types.h>
#include <linux/bits.h>
#include <linux/compiler.h>

#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BITS_TO_U64(nr)		(((nr) + 63) / 64)
#define BITS_TO_U32(nr)		(((nr) + 31) / 32)
#define BITS_TO_BYTES(nr)	(((nr) + 7) / 8)

/* Index of the lowest set bit; word must not be 0. */
static __always_inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

/* Index of the highest set bit; word must not be 0. */
static __always_inline unsigned long __fls(unsigned long word)
{
	return BITS_PER_LONG - 1 - __builtin_clzl(word);
}

/* Index of the lowest clear bit; word must not be ~0UL. */
static __always_inline unsigned long ffz(unsigned long word)
{
	return __builtin_ctzl(~word);
}

/*
 * ffs(): 1-based position of the lowest set bit, 0 if none. The C
 * library's (<strings.h>, a gcc builtin) has the kernel's semantics.
 */

/* 1-based position of the highest set bit, 0 if none. */
static __always_inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static __always_inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static __always_inline int fls_long(unsigned long x)
{
	return fls64(x);
}

static __always_inline unsigned int __ffs64(u64 word)
{
	return __builtin_ctzll(word);
}

#define hweight8(w)	((unsigned int)__builtin_popcount((u8)(w)))
#define hweight16(w)	((unsigned int)__builtin_popcount((u16)(w)))
#define hweight32(w)	((unsigned int)__builtin_popcount((u32)(w)))
#define hweight64(w)	((unsigned int)__builtin_popcountll((u64)(w)))
#define hweight_long(w)	((unsigned int)__builtin_popcountl((unsigned long)(w)))

static inline u32 rol32(u32 word, unsigned int shift)
{
	return (word << (shift & 31)) | (word >> ((-shift) & 31));
}

static inline u32 ror32(u32 word, unsigned int shift)
{
	return (word >> (shift & 31)) | (word << ((-shift) & 31));
}

static inline u64 rol64(u64 word, unsigned int shift)
{
	return (word << (shift & 63)) | (word >> ((-shift) & 63));
}

static inline u64 ror64(u64 word, unsigned int shift)
{
	return (word >> (shift & 63)) | (word << ((-shift) & 63));
}

/* Atomic bit operations (fully ordered where they return a value). */
static inline void set_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_or((unsigned long *)&addr[BIT_WORD(nr)], BIT_MASK(nr),
			  __ATOMIC_RELAXED);
}

static inline void clear_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_and((unsigned long *)&addr[BIT_WORD(nr)], ~BIT_MASK(nr),
			   __ATOMIC_RELAXED);
}

static inline void change_bit(long nr, volatile unsigned long *addr)
{
	__atomic_fetch_xor((unsigned long *)&addr[BIT_WORD(nr)], BIT_MASK(nr),
			   __ATOMIC_RELAXED);
}

static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_or((unsigned long *)&addr[BIT_WORD(nr)],
				 BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr);
}

static inline bool test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	return __atomic_fetch_and((unsigned long *)&addr[BIT_WORD(nr)],
				  ~BIT_MASK(nr), __ATOMIC_SEQ_CST) &
	       BIT_MASK(nr);
}

static inline bool test_bit(long nr, const volatile unsigned long *addr)
{
	return (__atomic_load_n((const unsigned long *)&addr[BIT_WORD(nr)],
				__ATOMIC_RELAXED) >> (nr % BITS_PER_LONG)) & 1;
}

/* Non-atomic versions: the caller serialises. */
static inline void __set_bit(long nr, volatile unsigned long *addr)
{
	((unsigned long *)addr)[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void __clear_bit(long nr, volatile unsigned long *addr)
{
	((unsigned long *)addr)[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

static inline bool __test_and_set_bit(long nr, volatile unsigned long *addr)
{
	unsigned long *p = (unsigned long *)addr + BIT_WORD(nr);
	unsigned long old = *p;

	*p = old | BIT_MASK(nr);
	return old & BIT_MASK(nr);
}

static inline bool __test_and_clear_bit(long nr, volatile unsigned long *addr)
{
	unsigned long *p = (unsigned long *)addr + BIT_WORD(nr);
	unsigned long old = *p;

	*p = old & ~BIT_MASK(nr);
	return old & BIT_MASK(nr);
}

#include <linux/find.h>

#endif /* MOCK_LINUX_BITOPS_H */
