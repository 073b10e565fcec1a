// SPDX-License-Identifier: MIT
// Errors are values: an aclError code plus the message that explains it.
// Core functions return Error; the API boundary (api/api_boundary.h) turns
// it into the aclError the caller sees and records the message.
#ifndef NPU_RT_CORE_ERROR_H
#define NPU_RT_CORE_ERROR_H

#include <string>
#include <utility>

#include "acl/acl_base.h"
#include "base/errno_codes.h"

namespace npu::rt {

class Error {
  public:
    // Success.
    Error() = default;
    Error(aclError code, std::string message) : code_(code), message_(std::move(message)) {}

    static Error Ok() { return Error(); }
    // A failure with a printf-style message.
    static Error Format(aclError code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    // A failure reported by the HAL (err is -errno): the code is
    // base::ErrnoToCode(err), the message says what failed and why.
    static Error FromHal(int err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
    // The same, for a call site that gives some errnos a code of its own
    // (base/errno_codes.h).
    static Error FromErrno(int err, base::ErrnoOverrides codes, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

    bool ok() const { return code_ == ACL_SUCCESS; }
    aclError code() const { return code_; }
    const std::string &message() const { return message_; }

  private:
    aclError code_ = ACL_SUCCESS;
    std::string message_;
};

}  // namespace npu::rt

// Propagate a failure to the caller.
#define NPU_RETURN_IF_ERROR(expr)           \
    do {                                    \
        ::npu::rt::Error npu_err_ = (expr); \
        if (!npu_err_.ok())                 \
            return npu_err_;                \
    } while (0)

#endif  // NPU_RT_CORE_ERROR_H
