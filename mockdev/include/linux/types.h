/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: linux/types.h. The uapi part (__u8.. __u64, __le32, ...)
 * comes from the system header, so the driver's uapi header sees exactly
 * what userspace sees; kernel builds (__KERNEL__) add the kernel-only names.
 */
#ifndef MOCK_LINUX_TYPES_H
#define MOCK_LINUX_TYPES_H

#include_next <linux/types.h>

#ifdef __KERNEL__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>		/* size_t, ssize_t, pid_t, loff_t, off_t */

#include <linux/compiler_types.h>

typedef __s8 s8;
typedef __u8 u8;
typedef __s16 s16;
typedef __u16 u16;
typedef __u32 u32;
typedef __s32 s32;
typedef __u64 u64;
typedef __s64 s64;

typedef unsigned short umode_t;
typedef unsigned int gfp_t;
typedef unsigned int fmode_t;
typedef unsigned int __poll_t;
typedef unsigned long ulong;
typedef unsigned int uint;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

#endif /* __KERNEL__ */

#endif /* MOCK_LINUX_TYPES_H */
