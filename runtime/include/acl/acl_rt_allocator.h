/* SPDX-License-Identifier: MIT */
/*
 * External allocator registration (CANN compatibility). The allocator
 * handle types live in acl_base_rt.h; the registration APIs are not part of
 * this runtime yet.
 */
#ifndef INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_
#define INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_

#include "acl_base.h"

#endif /* INC_EXTERNAL_ACL_ACL_RT_ALLOCATOR_H_ */
