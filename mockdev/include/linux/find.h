/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: searching bitmaps. Each returns size when nothing is found. */
#ifndef MOCK_LINUX_FIND_H
#define MOCK_LINUX_FIND_H

unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
			    unsigned long offset);
unsigned long find_next_zero_bit(const unsigned long *addr,
				 unsigned long size, unsigned long offset);
unsigned long find_last_bit(const unsigned long *addr, unsigned long size);

static inline unsigned long find_first_bit(const unsigned long *addr,
					   unsigned long size)
{
	return find_next_bit(addr, size, 0);
}

static inline unsigned long find_first_zero_bit(const unsigned long *addr,
						unsigned long size)
{
	return find_next_zero_bit(addr, size, 0);
}

#define for_each_set_bit(bit, addr, size)				\
	for ((bit) = find_next_bit((addr), (size), 0);			\
	     (bit) < (size);						\
	     (bit) = find_next_bit((addr), (size), (bit) + 1))

#define for_each_clear_bit(bit, addr, size)				\
	for ((bit) = find_next_zero_bit((addr), (size), 0);		\
	     (bit) < (size);						\
	     (bit) = find_next_zero_bit((addr), (size), (bit) + 1))

#endif /* MOCK_LINUX_FIND_H */
