/* SPDX-License-Identifier: MIT */
/*
 * CANN's operator API objects (aclnn/acl_meta.h): the tensors, scalars and
 * executors that the aclnn* operators take, and the calls that make and
 * destroy them. Here only what aclnnAdd and aclnnMul need is provided (the
 * README's operators section says what they run): tensors and scalars.
 *
 * A tensor describes device memory the program owns: view dimensions and
 * strides in elements, an offset in elements from tensorData, and the
 * storage dimensions of the buffer at tensorData. aclCreateTensor copies
 * the descriptions; it neither reads nor allocates device memory.
 *
 * The names, types and prototypes are upstream's. Handles are checked when
 * used: a destroyed or foreign one is refused (aclGetRecentErrMsg says why),
 * never dereferenced.
 */
#ifndef NPU_ACLNN_ACL_META_H
#define NPU_ACLNN_ACL_META_H

#include <stdint.h>

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclOpExecutor aclOpExecutor;
typedef struct aclTensor aclTensor;
typedef struct aclScalar aclScalar;

/* An operator call's result: 0 (ACLNN_SUCCESS) or an ACLNN_ERR_* code of
 * aclnn/opdev/op_errno.h. */
typedef int32_t aclnnStatus;

/*
 * A tensor over tensorData: NULL when an argument is wrong (a NULL array
 * with a non-zero count, a negative dimension or offset, more than 8
 * dimensions, a data type without an element size).
 */
ACL_FUNC_VISIBILITY aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum,
                                               aclDataType dataType, const int64_t *stride,
                                               int64_t offset, aclFormat format,
                                               const int64_t *storageDims, uint64_t storageDimsNum,
                                               void *tensorData);
/* A host scalar: the element of dataType at value is copied. */
ACL_FUNC_VISIBILITY aclScalar *aclCreateScalar(void *value, aclDataType dataType);
/* NULL is accepted; a handle that is not live is ACLNN_ERR_PARAM_INVALID. */
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyTensor(const aclTensor *tensor);
ACL_FUNC_VISIBILITY aclnnStatus aclDestroyScalar(const aclScalar *scalar);

#ifdef __cplusplus
}
#endif

#endif /* NPU_ACLNN_ACL_META_H */
