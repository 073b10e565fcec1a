/* SPDX-License-Identifier: MIT */
/*
 * Graph-engine error codes (CANN compatibility). The memory runtime never
 * returns them; acl_base.h includes this header as upstream does, so only the
 * few codes that memory programs mention are defined.
 */
#ifndef INC_EXTERNAL_GE_GE_ERROR_CODES_H_
#define INC_EXTERNAL_GE_GE_ERROR_CODES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static const uint32_t ACL_ERROR_GE_PARAM_INVALID = 145000U;
static const uint32_t ACL_ERROR_GE_EXEC_NOT_INIT = 145001U;
static const uint32_t ACL_ERROR_GE_MEMORY_ALLOCATION = 245000U;
static const uint32_t ACL_ERROR_GE_INTERNAL_ERROR = 545000U;

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_GE_GE_ERROR_CODES_H_ */
