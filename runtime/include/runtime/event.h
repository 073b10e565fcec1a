/* SPDX-License-Identifier: MIT */
/* CANN's runtime API: notifies. */
#ifndef NPU_CANN_RUNTIME_EVENT_H
#define NPU_CANN_RUNTIME_EVENT_H

#include "runtime/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A notify on device deviceId, which must be the current context's. */
RTS_API rtError_t rtNotifyCreate(int32_t deviceId, rtNotify_t *notify);
RTS_API rtError_t rtNotifyDestroy(rtNotify_t notify);
/* The offset of the notify's word in the device's notify area: its id
 * (aclrtGetNotifyId) times 8. */
RTS_API rtError_t rtNotifyGetAddrOffset(rtNotify_t notify, uint64_t *devAddrOffset);

#ifdef __cplusplus
}
#endif

#endif /* NPU_CANN_RUNTIME_EVENT_H */
