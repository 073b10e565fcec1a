/* SPDX-License-Identifier: MIT */
/*
 * The status codes of CANN's operator API (aclnnStatus), upstream's values.
 * Upstream's operator headers do not include this file; its examples define
 * the codes they test themselves, with the same values.
 */
#ifndef NPU_ACLNN_OPDEV_OP_ERRNO_H
#define NPU_ACLNN_OPDEV_OP_ERRNO_H

#define ACLNN_SUCCESS 0
/* A required pointer argument is NULL. */
#define ACLNN_ERR_PARAM_NULLPTR 161001
/* An argument is wrong, or asks for what the operator does not support. */
#define ACLNN_ERR_PARAM_INVALID 161002
/* A runtime call inside the operator failed (aclGetRecentErrMsg has its code). */
#define ACLNN_ERR_RUNTIME_ERROR 361001
#define ACLNN_ERR_INNER 561000
#define ACLNN_ERR_INNER_CREATE_EXECUTOR 561101
#define ACLNN_ERR_INNER_NULLPTR 561103

#endif /* NPU_ACLNN_OPDEV_OP_ERRNO_H */
