/* SPDX-License-Identifier: MIT */
/*
 * CANN's aclnnAdd: out = self + alpha * other, elementwise, in two calls:
 * aclnnAddGetWorkspaceSize checks the tensors and makes a single-use
 * executor, aclnnAdd queues it on a stream. Here it runs on the device's
 * copy engine (a copy, then a reduction), so it takes contiguous ND tensors
 * of one shape and one data type that the engine reduces (ACL_FLOAT,
 * ACL_FLOAT16, ACL_BF16, ACL_INT8, ACL_INT16, ACL_INT32); the README's
 * operators section lists what is refused. An alpha other than 1 needs a
 * workspace of the operands' size (rounded up to 4 bytes), where alpha *
 * other is made first; for integer types alpha must be a value of the type.
 * The prototypes are upstream's.
 */
#ifndef NPU_ACLNNOP_ACLNN_ADD_H
#define NPU_ACLNNOP_ACLNN_ADD_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *workspaceSize: 0 for alpha 1; *executor is used by one aclnnAdd. */
ACLNN_API aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                               const aclScalar *alpha, aclTensor *out,
                                               uint64_t *workspaceSize, aclOpExecutor **executor);
/* Queues the executor's work on stream (NULL: the default stream) and
 * releases the executor, whether or not the work could be queued (but for a
 * missing or short workspace, refused before it is released). */
ACLNN_API aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* NPU_ACLNNOP_ACLNN_ADD_H */
