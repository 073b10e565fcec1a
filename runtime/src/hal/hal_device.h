// SPDX-License-Identifier: MIT
/*
 * What the other HAL files need from a npuHalDevice (hal_device.cpp owns the
 * struct). Nothing here is exported.
 */
#ifndef NPU_HAL_DEVICE_H
#define NPU_HAL_DEVICE_H

#include <cstdint>

#include "hal_internal.h"

struct npuHalDevice;

namespace npu::hal {

// The driver file behind dev; lives as long as dev.
DeviceFile *DeviceFileOf(npuHalDevice *dev);
// The ctx_id and TGID CTX_SETUP reported for dev.
uint32_t DeviceCtxId(const npuHalDevice *dev);
uint32_t DeviceTgid(const npuHalDevice *dev);
uint32_t DeviceIndex(const npuHalDevice *dev);
// The NPU_FEATURE_* bits GET_VERSION reported for dev.
uint64_t DeviceFeatures(const npuHalDevice *dev);

}  // namespace npu::hal

#endif /* NPU_HAL_DEVICE_H */
