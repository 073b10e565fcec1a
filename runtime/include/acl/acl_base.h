/* SPDX-License-Identifier: MIT */
/*
 * Base header of the ACL API (CANN compatibility): types, visibility macros
 * and every error code. The include root must be the parent of acl/.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_H_
#define INC_EXTERNAL_ACL_ACL_BASE_H_

#include <stdint.h>
#include <stddef.h>

#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "error_codes/rt_error_codes.h"
#include "error_codes/ge_error_codes.h"

#endif /* INC_EXTERNAL_ACL_ACL_BASE_H_ */
