/* SPDX-License-Identifier: MIT */
/*
 * What the two processes of the sample agree on: the rendezvous of
 * ../common/rendezvous.h, the sizes, and the data patterns.
 */
#ifndef IPC_SHARE_COMMON_H
#define IPC_SHARE_COMMON_H

#include "rendezvous.h"

#define SHARE_DEVICE	0
#define IPC_BYTES	(4u << 20)

static void pattern(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 7 + seed);
}

static int has_pattern(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 7 + seed))
			return 0;
	return 1;
}

#endif /* IPC_SHARE_COMMON_H */
