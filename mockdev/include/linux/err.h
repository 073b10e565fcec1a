/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: errors encoded in pointers (the top 4095 addresses). */
#ifndef MOCK_LINUX_ERR_H
#define MOCK_LINUX_ERR_H

#include <linux/types.h>
#include <linux/compiler.h>

#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)

static inline void *__must_check ERR_PTR(long error)
{
	return (void *)error;
}

static inline long __must_check PTR_ERR(__force const void *ptr)
{
	return (long)ptr;
}

static inline bool __must_check IS_ERR(__force const void *ptr)
{
	return IS_ERR_VALUE((unsigned long)ptr);
}

static inline bool __must_check IS_ERR_OR_NULL(__force const void *ptr)
{
	return unlikely(!ptr) || IS_ERR_VALUE((unsigned long)ptr);
}

#endif /* MOCK_LINUX_ERR_H */
