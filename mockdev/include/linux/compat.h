/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_COMPAT_H
#define MOCK_LINUX_COMPAT_H

#include <linux/types.h>
#include <linux/fs.h>

typedef u32 compat_uptr_t;

static inline void __user *compat_ptr(compat_uptr_t uptr)
{
	return (void __user *)(unsigned long)uptr;
}

/* unlocked_ioctl with arg converted from a 32-bit pointer. */
long compat_ptr_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

#endif /* MOCK_LINUX_COMPAT_H */
