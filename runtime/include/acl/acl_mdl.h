/* SPDX-License-Identifier: MIT */
/* Model API (CANN compatibility stub): not part of the memory runtime. */
#ifndef INC_EXTERNAL_ACL_ACL_MDL_H_
#define INC_EXTERNAL_ACL_ACL_MDL_H_

#include "acl_base.h"

#endif /* INC_EXTERNAL_ACL_ACL_MDL_H_ */
