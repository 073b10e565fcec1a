/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ioctl command table.
 */
#ifndef _NPU_IOCTL_H
#define _NPU_IOCTL_H

#include "npu_internal.h"

long npu_ioctl(struct file *filp, unsigned int cmd, unsigned long arg);

#endif /* _NPU_IOCTL_H */
