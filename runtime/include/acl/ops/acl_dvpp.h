/* SPDX-License-Identifier: MIT */
/*
 * CANN's acl/ops/acl_dvpp.h: the memory of media buffers. acldvppMalloc
 * allocates device memory for the media engines' input and output (any
 * device operation may use it too; here it is plain device memory) and
 * acldvppFree frees it. The media processing calls of upstream's header
 * (channels, picture descriptions, VPC, JPEG) need media engines this
 * device does not have and are not declared.
 */
#ifndef NPU_CANN_ACL_OPS_ACL_DVPP_H
#define NPU_CANN_ACL_OPS_ACL_DVPP_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* size is rounded up to a multiple of 32 and 32 more bytes are added, as
 * upstream does for media buffers (so size 0 is 32 bytes); the address is
 * aligned to at least 128 bytes. ACL_ERROR_INVALID_PARAM for a NULL devPtr
 * or a size that overflows with that rounding. */
ACL_FUNC_VISIBILITY aclError acldvppMalloc(void **devPtr, size_t size);
/* Frees memory from acldvppMalloc (aclrtFree's codes for other pointers). */
ACL_FUNC_VISIBILITY aclError acldvppFree(void *devPtr);

#ifdef __cplusplus
}
#endif

#endif /* NPU_CANN_ACL_OPS_ACL_DVPP_H */
