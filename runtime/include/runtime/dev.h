/* SPDX-License-Identifier: MIT */
/* CANN's runtime API: devices, their ids and information, peer access. */
#ifndef NPU_CANN_RUNTIME_DEV_H
#define NPU_CANN_RUNTIME_DEV_H

#include "runtime/base.h"

#ifdef __cplusplus
extern "C" {
#endif

RTS_API rtError_t rtGetDeviceCount(int32_t *cnt);
RTS_API rtError_t rtSetDevice(int32_t devId);
RTS_API rtError_t rtGetDevice(int32_t *devId);
RTS_API rtError_t rtDeviceReset(int32_t devId);

/* moduleType and infoType are the driver's (MODULE_TYPE_*, INFO_TYPE_* of
 * ascend_hal.h): MODULE_TYPE_SYSTEM (0) with INFO_TYPE_CORE_NUM (3),
 * INFO_TYPE_PHY_CHIP_ID (18) and INFO_TYPE_PHY_DIE_ID (19);
 * MODULE_TYPE_AICPU (1), MODULE_TYPE_AICORE (4) and MODULE_TYPE_VECTOR_CORE
 * (7) with INFO_TYPE_CORE_NUM. The super-pod ids (INFO_TYPE_SDID,
 * _SERVER_ID, _SCALE_TYPE, _SUPER_POD_ID) are ACL_ERROR_RT_FEATURE_NOT_SUPPORT:
 * the device is a PCIe card in no super pod. */
RTS_API rtError_t rtGetDeviceInfo(uint32_t deviceId, int32_t moduleType, int32_t infoType,
                                  int64_t *val);

/* Peer access from device devIdDes (a logical id) to the device of physical
 * id phyIdSrc; flag must be 0. */
RTS_API rtError_t rtEnableP2P(uint32_t devIdDes, uint32_t phyIdSrc, uint32_t flag);
RTS_API rtError_t rtDisableP2P(uint32_t devIdDes, uint32_t phyIdSrc);
/* *status: 1 if rtEnableP2P enabled it, else 0. */
RTS_API rtError_t rtGetP2PStatus(uint32_t devIdDes, uint32_t phyIdSrc, uint32_t *status);
RTS_API rtError_t rtDeviceCanAccessPeer(int32_t *canAccessPeer, uint32_t devId,
                                        uint32_t peerDevice);

RTS_API rtError_t rtGetLogicDevIdByUserDevId(const int32_t userDevId, int32_t *const logicDevId);
RTS_API rtError_t rtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevId);
RTS_API rtError_t rtGetDevicePhyIdByIndex(uint32_t devIndex, uint32_t *phyId);
/* The caller's process id as the driver knows it. */
RTS_API rtError_t rtDeviceGetBareTgid(uint32_t *pid);

#ifdef __cplusplus
}
#endif

#endif /* NPU_CANN_RUNTIME_DEV_H */
