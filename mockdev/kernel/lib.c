// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: library routines (strings, number parsing, random
 * numbers).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bitops.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/overflow.h>
#include <linux/random.h>
#include <linux/string.h>

#include "internal.h"

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

u64 get_random_u64(void)
{
	u64 v;

	get_random_bytes(&v, sizeof(v));
	return v;
}
