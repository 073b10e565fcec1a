/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: bitmaps of unsigned long words. */
#ifndef MOCK_LINUX_BITMAP_H
#define MOCK_LINUX_BITMAP_H

#include <string.h>
#include <linux/types.h>
#include <linux/bitops.h>

#define DECLARE_BITMAP(name, bits)	unsigned long name[BITS_TO_LONGS(bits)]

unsigned long *bitmap_alloc(unsigned int nbits, gfp_t flags);
unsigned long *bitmap_zalloc(unsigned int nbits, gfp_t flags);
void bitmap_free(const unsigned long *bitmap);

void bitmap_set(unsigned long *map, unsigned int start, unsigned int nbits);
void bitmap_clear(unsigned long *map, unsigned int start, unsigned int nbits);
unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits);

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0xff, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	return find_first_bit(src, nbits) >= nbits;
}

static inline bool bitmap_full(const unsigned long *src, unsigned int nbits)
{
	return find_first_zero_bit(src, nbits) >= nbits;
}

#endif /* MOCK_LINUX_BITMAP_H */
