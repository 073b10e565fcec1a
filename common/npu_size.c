// SPDX-License-Identifier: MIT
/* Sizes with a K/M/G suffix (npu_size.h). */
#include <errno.h>
#include <stdlib.h>

#include "npu_size.h"

int npu_parse_size(const char *text, uint64_t *bytes)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!text || *text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case '\0':
		break;
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (*end && end[1])
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -EINVAL;
	*bytes = (uint64_t)v << shift;
	return 0;
}

int npu_parse_size_mb(const char *text, uint64_t *mb)
{
	uint64_t v;

	if (npu_parse_size(text, &v) || !v || v & ((1ULL << 20) - 1))
		return -EINVAL;
	*mb = v >> 20;
	return 0;
}
