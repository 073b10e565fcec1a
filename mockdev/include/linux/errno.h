/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: linux/errno.h. The uapi values are the userspace errno
 * numbers; the kernel-internal ones below never reach userspace (the host
 * layer translates them the way the VFS and the syscall exit path do).
 */
#ifndef MOCK_LINUX_ERRNO_H
#define MOCK_LINUX_ERRNO_H

#include_next <linux/errno.h>

#ifdef __KERNEL__
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ENOIOCTLCMD		515
#define ERESTART_RESTARTBLOCK	516
#define ENOTSUPP		524
#endif /* __KERNEL__ */

#endif /* MOCK_LINUX_ERRNO_H */
