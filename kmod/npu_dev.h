/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The table of the driver's device instances.
 */
#ifndef _NPU_DEV_H
#define _NPU_DEV_H

#include "npu_internal.h"

#define NPU_MAX_DEVICES		16

struct npu_device;

void npu_dev_push(struct npu_device *ndev);
struct npu_device *npu_dev_pop(void);
unsigned int npu_dev_count(void);
struct npu_device *npu_dev_get(unsigned int index);

#endif /* _NPU_DEV_H */
