/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: user copies. They go to current->mm: direct, fault-guarded
 * loads and stores for the calling process itself, the files bound to a
 * remote process's address space (npud's clients, mockdev/kernel/mm_remote.c), and the host's relay buffer for
 * the argument of a relayed ioctl (mockdev_file_ioctl_relayed()).
 *
 * As in the kernel, copy_{from,to}_user return the number of bytes NOT
 * copied, and copy_from_user zero-fills what it could not read.
 */
#ifndef MOCK_LINUX_UACCESS_H
#define MOCK_LINUX_UACCESS_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/sched.h>
#include <asm/page.h>

unsigned long __must_check mock_copy_from_user(void *to,
					       const void __user *from,
					       unsigned long n);
unsigned long __must_check mock_copy_to_user(void __user *to,
					     const void *from,
					     unsigned long n);
unsigned long __must_check mock_clear_user(void __user *to, unsigned long n);

static __always_inline unsigned long __must_check
copy_from_user(void *to, const void __user *from, unsigned long n)
{
	return mock_copy_from_user(to, from, n);
}

static __always_inline unsigned long __must_check
copy_to_user(void __user *to, const void *from, unsigned long n)
{
	return mock_copy_to_user(to, from, n);
}

static __always_inline unsigned long __must_check
clear_user(void __user *to, unsigned long n)
{
	return mock_clear_user(to, n);
}

static inline bool __access_ok(const void __user *ptr, unsigned long size)
{
	unsigned long addr = (unsigned long)ptr;

	return size <= TASK_SIZE_MAX && addr <= TASK_SIZE_MAX - size;
}

#define access_ok(addr, size)	likely(__access_ok((addr), (size)))

/* 0 or -EFAULT; x is 0 after a failed get_user, as in the kernel. */
#define get_user(x, ptr) ({						\
	union {								\
		typeof(*(ptr)) __v;					\
		unsigned char __b[sizeof(*(ptr))];			\
	} __gu;								\
	int __gu_err = mock_copy_from_user(__gu.__b, (ptr),		\
					   sizeof(*(ptr))) ? -EFAULT : 0; \
	(x) = __gu_err ? (typeof(*(ptr)))0 : __gu.__v;			\
	__gu_err;							\
})

#define put_user(x, ptr) ({						\
	typeof(*(ptr)) __pu_v = (x);					\
	mock_copy_to_user((ptr), &__pu_v, sizeof(*(ptr))) ? -EFAULT : 0; \
})

#endif /* MOCK_LINUX_UACCESS_H */
