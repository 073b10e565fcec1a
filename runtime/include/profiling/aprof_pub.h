/* SPDX-License-Identifier: MIT */
/*
 * Part of CANN's profiling interface for the framework that loads models
 * (profiling/aprof_pub.h, libprofapi.so): the registration of a model's
 * device, which aclmdlLoadFromFile makes and aclprofModelSubscribe looks
 * up. This runtime loads no models, so a program (as upstream's
 * subscription example does) registers a model id itself. Only these two
 * functions of upstream's header are declared here.
 */
#ifndef NPU_PROFILING_APROF_PUB_H
#define NPU_PROFILING_APROF_PUB_H

#include <stdint.h>

#include "acl/acl_base.h"

#ifndef MSVP_PROF_API
#define MSVP_PROF_API ACL_FUNC_VISIBILITY
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Model geModelIdx runs on deviceId (a later call replaces it): 0, or -1
 * for a device id at or above the device count. */
MSVP_PROF_API int32_t MsprofSetDeviceIdByGeModelIdx(const uint32_t geModelIdx,
                                                    const uint32_t deviceId);
/* Forgets the model (deviceId must be the one registered): 0, else -1. */
MSVP_PROF_API int32_t MsprofUnsetDeviceIdByGeModelIdx(const uint32_t geModelIdx,
                                                      const uint32_t deviceId);

#ifdef __cplusplus
}
#endif

#endif /* NPU_PROFILING_APROF_PUB_H */
