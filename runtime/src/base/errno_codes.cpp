// SPDX-License-Identifier: MIT
#include "base/errno_codes.h"

#include <cerrno>

#include "error_codes/rt_error_codes.h"

namespace npu::base {
namespace {

// What each errno of the driver means when the call site says nothing
// else (DESIGN.md: invalid value, out of memory, not supported, not
// permitted, invalid handle).
constexpr ErrnoCode kDefaultErrnoCodes[] = {
    {-EINVAL, ACL_ERROR_RT_PARAM_INVALID},
    {-EFAULT, ACL_ERROR_RT_PARAM_INVALID},
    {-ESRCH, ACL_ERROR_RT_PARAM_INVALID},  // a pid with no process (whitelists)
    {-ENOMEM, ACL_ERROR_RT_MEMORY_ALLOCATION},
    // A per-process limit of objects (the ring limit is the caller's).
    {-ENOSPC, ACL_ERROR_RT_MEMORY_ALLOCATION},
    {-EOPNOTSUPP, ACL_ERROR_RT_FEATURE_NOT_SUPPORT},
    {-EPERM, ACL_ERROR_RT_NO_PERMISSION},
    {-EACCES, ACL_ERROR_RT_NO_PERMISSION},
    {-ENOENT, ACL_ERROR_RT_INVALID_HANDLE},
    {-EBADF, ACL_ERROR_RT_INVALID_HANDLE},
    // The driver failed a ring for good (its shared memory held an
    // impossible index): the queue's work is lost.
    {-EPROTO, ACL_ERROR_RT_TS_ERROR},
    // The device file's server is gone (npud stopped or restarted), or
    // there is no such device.
    {-ENODEV, ACL_ERROR_RT_NO_DEVICE},
    // npud cannot see the caller (another pid namespace).
    {-EREMOTE, ACL_ERROR_RT_NO_PERMISSION},
};

// The code of err in table, or fallback if no row names it.
int32_t Find(ErrnoOverrides table, int err, int32_t fallback) {
    for (const ErrnoCode &row : table) {
        if (row.err == err)
            return row.code;
    }
    return fallback;
}

}  // namespace

int32_t ErrnoToCode(int err, ErrnoOverrides overrides) {
    if (err == 0)
        return 0;
    return Find(overrides, err, Find(kDefaultErrnoCodes, err, ACL_ERROR_RT_DRV_INTERNAL_ERROR));
}

}  // namespace npu::base
