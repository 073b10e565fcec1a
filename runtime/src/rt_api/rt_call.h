// SPDX-License-Identifier: MIT
// The rt* functions (runtime/rt.h) are CANN's older names for the acl
// runtime: each checks what differs from its aclrt* counterpart (argument
// types, enums) through RunApi under its own name, then does the work
// through the same core, mostly by calling that counterpart, so that codes,
// messages and behaviour are the same.
#ifndef NPU_RT_RT_API_RT_CALL_H
#define NPU_RT_RT_API_RT_CALL_H

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "runtime/rt.h"

namespace npu::rt {

// The result of an acl* call inside an rt* body: its code, with the
// message the call recorded already (RunApi records it again under the
// rt* name).
inline Error FromAcl(aclError rc, const char *call) {
    if (rc == ACL_SUCCESS)
        return Error::Ok();
    return Error(rc, std::string(call) + " failed");
}

}  // namespace npu::rt

#endif  // NPU_RT_RT_API_RT_CALL_H
