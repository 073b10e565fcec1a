// SPDX-License-Identifier: MIT
/*
 * The one place where driver errnos become upstream error codes.
 */
#include <cerrno>

// The library is built with hidden visibility; the HAL is part of its ABI.
#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

namespace {

// Upstream values (error_codes/rt_error_codes.h); spelled out here so the
// HAL does not depend on the API layer's headers.
constexpr int kParamInvalid = 107000;    // ACL_ERROR_RT_PARAM_INVALID
constexpr int kInvalidHandle = 107017;   // ACL_ERROR_RT_INVALID_HANDLE
constexpr int kFeatureNotSupport = 207000; // ACL_ERROR_RT_FEATURE_NOT_SUPPORT
constexpr int kMemoryAllocation = 207001; // ACL_ERROR_RT_MEMORY_ALLOCATION
constexpr int kNoPermission = 207006;    // ACL_ERROR_RT_NO_PERMISSION
constexpr int kTsError = 507001;         // ACL_ERROR_RT_TS_ERROR
constexpr int kInternalError = 507899;   // ACL_ERROR_RT_DRV_INTERNAL_ERROR

} // namespace

extern "C" int halErrorToAcl(int err)
{
	switch (err) {
	case 0:
		return 0;
	case -EINVAL:
	case -EFAULT:
	case -ESRCH: // a pid with no process (whitelists)
		return kParamInvalid;
	case -ENOMEM:
	case -ENOSPC: /* a per-process limit of objects (the ring limit is the caller's) */
		return kMemoryAllocation;
	case -EOPNOTSUPP:
		return kFeatureNotSupport;
	case -EPERM:
	case -EACCES:
		return kNoPermission;
	case -ENOENT:
	case -EBADF:
		return kInvalidHandle;
	case -EPROTO:
		// The driver failed a ring for good (its shared memory held an
		// impossible index): the queue's work is lost.
		return kTsError;
	default:
		return kInternalError;
	}
}
