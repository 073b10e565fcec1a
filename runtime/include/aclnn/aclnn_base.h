/* SPDX-License-Identifier: MIT */
/*
 * What every operator header of CANN (aclnnop/aclnn_*.h) includes: the
 * operator objects (aclnn/acl_meta.h) and the runtime's types (aclrtStream).
 */
#ifndef NPU_ACLNN_ACLNN_BASE_H
#define NPU_ACLNN_ACLNN_BASE_H

#include "acl/acl_base.h"
#include "acl/acl_rt.h"
#include "aclnn/acl_meta.h"

/* Upstream marks the operator functions with this; here it is the ACL one. */
#ifndef ACLNN_API
#define ACLNN_API ACL_FUNC_VISIBILITY
#endif

#endif /* NPU_ACLNN_ACLNN_BASE_H */
