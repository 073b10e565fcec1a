// SPDX-License-Identifier: MIT
/*
 * What the sharing half of the HAL needs from the device half: the driver
 * file behind a npuHalDevice. Internal to the HAL.
 */
#ifndef NPU_HAL_SHARE_H
#define NPU_HAL_SHARE_H

#include "npu/hal.h"

namespace npu::hal {

// Issue one command on dev's driver file (0 or -errno). Defined next to
// struct npuHalDevice (hal_device.cpp).
int DeviceIoctl(npuHalDevice *dev, unsigned int cmd, void *arg);

}  // namespace npu::hal

#endif /* NPU_HAL_SHARE_H */
