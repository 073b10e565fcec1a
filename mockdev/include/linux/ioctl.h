/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: linux/ioctl.h is the uapi one (_IOWR, _IOC_SIZE, ...). */
#ifndef MOCK_LINUX_IOCTL_H
#define MOCK_LINUX_IOCTL_H

#include_next <linux/ioctl.h>

#endif /* MOCK_LINUX_IOCTL_H */
