// SPDX-License-Identifier: MIT
/*
 * What the other HAL files need from a halDevice (hal_device.cpp owns the
 * struct). Nothing here is exported.
 */
#ifndef NPU_HAL_DEVICE_H
#define NPU_HAL_DEVICE_H

#include <cstdint>

#include "hal_internal.h"

struct halDevice;

namespace npu::hal {

// The driver file behind dev; lives as long as dev.
DeviceFile *DeviceFileOf(halDevice *dev);
// The ctx_id and TGID CTX_SETUP reported for dev.
uint32_t DeviceCtxId(const halDevice *dev);
uint32_t DeviceTgid(const halDevice *dev);
uint32_t DeviceIndex(const halDevice *dev);

}  // namespace npu::hal

#endif /* NPU_HAL_DEVICE_H */
