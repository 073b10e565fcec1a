/* SPDX-License-Identifier: MIT */
/* CANN's runtime API: streams and their queue ids. */
#ifndef NPU_CANN_RUNTIME_STREAM_H
#define NPU_CANN_RUNTIME_STREAM_H

#include "runtime/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* priority: 0 (highest) to 7, as aclrtCreateStreamWithConfig's. */
RTS_API rtError_t rtStreamCreate(rtStream_t *stm, int32_t priority);
RTS_API rtError_t rtStreamDestroy(rtStream_t stm);
RTS_API rtError_t rtStreamSynchronize(rtStream_t stm);
/* The submission and completion queue ids of a stream (NULL: the current
 * context's default stream). Each stream has its own queue pair, numbered
 * as aclrtStreamGetId numbers the stream. */
RTS_API rtError_t rtStreamGetSqid(const rtStream_t stm, uint32_t *sqId);
RTS_API rtError_t rtStreamGetCqid(const rtStream_t stm, uint32_t *cqId, uint32_t *logicCqId);

#ifdef __cplusplus
}
#endif

#endif /* NPU_CANN_RUNTIME_STREAM_H */
