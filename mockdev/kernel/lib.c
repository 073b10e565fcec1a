// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: library routines (bitmaps, strings, number parsing,
 * random numbers, CPU count).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/string.h>

#include "internal.h"

static unsigned long find_next(const unsigned long *addr, unsigned long size,
			       unsigned long offset, unsigned long invert)
{
	unsigned long word;

	if (offset >= size)
		return size;
	word = (addr[BIT_WORD(offset)] ^ invert) &
	       (~0UL << (offset % BITS_PER_LONG));
	offset = round_down(offset, BITS_PER_LONG);
	while (!word) {
		offset += BITS_PER_LONG;
		if (offset >= size)
			return size;
		word = addr[BIT_WORD(offset)] ^ invert;
	}
	return min(offset + __ffs(word), size);
}

unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
			    unsigned long offset)
{
	return find_next(addr, size, offset, 0);
}

unsigned long find_next_zero_bit(const unsigned long *addr,
				 unsigned long size, unsigned long offset)
{
	return find_next(addr, size, offset, ~0UL);
}

unsigned long find_last_bit(const unsigned long *addr, unsigned long size)
{
	unsigned long idx;

	for (idx = size; idx-- > 0;) {
		if (test_bit(idx, addr))
			return idx;
	}
	return size;
}

void bitmap_set(unsigned long *map, unsigned int start, unsigned int nbits)
{
	while (nbits--)
		__set_bit(start++, map);
}

void bitmap_clear(unsigned long *map, unsigned int start, unsigned int nbits)
{
	while (nbits--)
		__clear_bit(start++, map);
}

unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{
	unsigned int w = 0, i;

	for (i = 0; i < nbits / BITS_PER_LONG; i++)
		w += hweight_long(src[i]);
	if (nbits % BITS_PER_LONG)
		w += hweight_long(src[i] & (BIT_MASK(nbits) - 1));
	return w;
}

void *memchr_inv(const void *start, int c, size_t bytes)
{
	const unsigned char *p = start;
	size_t i;

	for (i = 0; i < bytes; i++) {
		if (p[i] != (unsigned char)c)
			return (void *)(p + i);
	}
	return NULL;
}

ssize_t strscpy(char *dst, const char *src, size_t count)
{
	size_t len;

	if (count == 0 || count > INT_MAX)
		return -E2BIG;
	len = strnlen(src, count);
	if (len == count) {
		__builtin_memcpy(dst, src, count - 1);
		dst[count - 1] = '\0';
		return -E2BIG;
	}
	__builtin_memcpy(dst, src, len + 1);
	return len;
}

ssize_t strscpy_pad(char *dst, const char *src, size_t count)
{
	ssize_t written = strscpy(dst, src, count);

	if (written < 0 || (size_t)written == count - 1)
		return written;
	memset(dst + written + 1, 0, count - written - 1);
	return written;
}

/*
 * The kernel's kstrto* rules: optional sign (signed types) or '+', the
 * base prefix when base is 0 (0x, 0), digits, then at most one '\n'.
 */
static int parse_ull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v = 0;
	bool any = false;

	if (*s == '+')
		s++;
	if (base == 0) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
		    isxdigit((unsigned char)s[2])) {
			base = 16;
			s += 2;
		} else if (s[0] == '0') {
			base = 8;
		} else {
			base = 10;
		}
	} else if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
	}
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'z')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'Z')
			d = *s - 'A' + 10;
		else
			break;
		if (d >= base)
			return -EINVAL;
		if (check_mul_overflow(v, (unsigned long long)base, &v) ||
		    check_add_overflow(v, (unsigned long long)d, &v))
			return -ERANGE;
		any = true;
	}
	if (*s == '\n')
		s++;
	if (!any || *s)
		return -EINVAL;
	*res = v;
	return 0;
}

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	return parse_ull(s, base, res);
}

int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long v;
	int r;

	if (s[0] == '-') {
		r = parse_ull(s + 1, base, &v);
		if (r)
			return r;
		if (v > (unsigned long long)LLONG_MAX + 1)
			return -ERANGE;
		*res = -(long long)v;
		return 0;
	}
	r = parse_ull(s, base, &v);
	if (r)
		return r;
	if (v > LLONG_MAX)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	unsigned long long v;
	int r = kstrtoull(s, base, &v);

	if (!r)
		*res = v;
	return r;
}

int kstrtol(const char *s, unsigned int base, long *res)
{
	long long v;
	int r = kstrtoll(s, base, &v);

	if (!r)
		*res = v;
	return r;
}

int kstrtouint(const char *s, unsigned int base, unsigned int *res)
{
	unsigned long long v;
	int r = kstrtoull(s, base, &v);

	if (r)
		return r;
	if (v > UINT_MAX)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtoint(const char *s, unsigned int base, int *res)
{
	long long v;
	int r = kstrtoll(s, base, &v);

	if (r)
		return r;
	if (v < INT_MIN || v > INT_MAX)
		return -ERANGE;
	*res = v;
	return 0;
}

int kstrtou64(const char *s, unsigned int base, u64 *res)
{
	return kstrtoull(s, base, (unsigned long long *)res);
}

int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	return kstrtouint(s, base, res);
}

int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y': case 'Y': case 't': case 'T': case '1':
		*res = true;
		return 0;
	case 'n': case 'N': case 'f': case 'F': case '0':
		*res = false;
		return 0;
	case 'o': case 'O':
		if (s[1] == 'n' || s[1] == 'N') {
			*res = true;
			return 0;
		}
		if (s[1] == 'f' || s[1] == 'F') {
			*res = false;
			return 0;
		}
		break;
	default:
		break;
	}
	return -EINVAL;
}

void get_random_bytes(void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t r = getrandom(p, len, 0);

		if (r < 0) {
			BUG_ON(errno != EINTR);
			continue;
		}
		p += r;
		len -= r;
	}
}

u32 get_random_u32(void)
{
	u32 v;

	get_random_bytes(&v, sizeof(v));
	return v;
}

u64 get_random_u64(void)
{
	u64 v;

	get_random_bytes(&v, sizeof(v));
	return v;
}

u32 get_random_u32_below(u32 ceil)
{
	/* Rejection sampling: no modulo bias. */
	u32 limit = -ceil % ceil;
	u32 v;

	do {
		v = get_random_u32();
	} while (v < limit);
	return v % ceil;
}

unsigned int num_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (unsigned int)n : 1;
}

unsigned int num_possible_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);

	return n > 0 ? (unsigned int)n : 1;
}
