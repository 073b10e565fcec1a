/* SPDX-License-Identifier: MIT */
/* Operator API (CANN compatibility stub): not part of the memory runtime. */
#ifndef INC_EXTERNAL_ACL_ACL_OP_H_
#define INC_EXTERNAL_ACL_ACL_OP_H_

#include "acl_base.h"

#endif /* INC_EXTERNAL_ACL_ACL_OP_H_ */
