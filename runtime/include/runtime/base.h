/* SPDX-License-Identifier: MIT */
/*
 * CANN's runtime API (runtime/rt.h, the rt* functions of libruntime.so): the
 * base types. The rt* functions are the older names of the acl runtime; each
 * one does what its aclrt* counterpart does and returns the same codes
 * (error_codes/rt_error_codes.h), 0 (RT_ERROR_NONE) on success, with the
 * message of a failure in aclGetRecentErrMsg.
 */
#ifndef NPU_CANN_RUNTIME_BASE_H
#define NPU_CANN_RUNTIME_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error_codes/rt_error_codes.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef RTS_API
#define RTS_API __attribute__((visibility("default")))
#endif

typedef int32_t rtError_t;
static const int32_t RT_ERROR_NONE = 0;

typedef char char_t;
typedef void *rtStream_t;
typedef void *rtEvent_t;
typedef void *rtContext_t;
typedef void *rtNotify_t;

/* The id of the last task the calling thread queued and the id of its stream
 * (0 and 0 before the first). */
RTS_API rtError_t rtGetTaskIdAndStreamID(uint32_t *taskId, uint32_t *streamId);

#ifdef __cplusplus
}
#endif

#endif /* NPU_CANN_RUNTIME_BASE_H */
