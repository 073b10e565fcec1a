/* SPDX-License-Identifier: MIT */
/*
 * The umbrella header of the ACL API (CANN compatibility): programs write
 * #include "acl/acl.h" with -I <prefix>/include.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"
#include "acl_op.h"
#include "acl_mdl.h"

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
