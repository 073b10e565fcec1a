/* SPDX-License-Identifier: MIT */
/*
 * CANN's aclnnMul: out = self * other, elementwise, in two calls like
 * aclnnAdd (aclnnop/aclnn_add.h), with the same limits here: contiguous ND
 * tensors of one shape and one data type that the device's copy engine
 * reduces. The prototypes are upstream's.
 */
#ifndef NPU_ACLNNOP_ACLNN_MUL_H
#define NPU_ACLNNOP_ACLNN_MUL_H

#include "aclnn/aclnn_base.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                               aclTensor *out, uint64_t *workspaceSize,
                                               aclOpExecutor **executor);
ACLNN_API aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                               aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* NPU_ACLNNOP_ACLNN_MUL_H */
