/* SPDX-License-Identifier: MIT */
/*
 * Model-related base types (CANN compatibility stub). The memory runtime has
 * no models; acl_base.h includes this header because upstream's does.
 */
#ifndef INC_EXTERNAL_ACL_ACL_BASE_MDL_H_
#define INC_EXTERNAL_ACL_ACL_BASE_MDL_H_

#include "acl/acl_base_rt.h"

#endif /* INC_EXTERNAL_ACL_ACL_BASE_MDL_H_ */
