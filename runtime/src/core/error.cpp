// SPDX-License-Identifier: MIT
#include "core/error.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "base/errno_codes.h"

namespace npu::rt {
namespace {

std::string VFormat(const char *fmt, va_list ap) {
    va_list copy;
    va_copy(copy, ap);
    int n = std::vsnprintf(nullptr, 0, fmt, copy);
    va_end(copy);
    if (n <= 0)
        return std::string();
    std::string out(static_cast<size_t>(n) + 1, '\0');
    std::vsnprintf(out.data(), out.size(), fmt, ap);
    out.resize(static_cast<size_t>(n));
    return out;
}

// message, then why err failed, with the code of err at this call site.
Error FromErrnoMessage(int err, base::ErrnoOverrides codes, std::string message) {
    message += ": ";
    if (err == -EPROTO) {
        // The one errno whose strerror ("Protocol error") says nothing here.
        message +=
            "the driver stopped this stream's queue for good because its shared ring "
            "memory was corrupted (an impossible submission index); its pending work is "
            "lost, destroy the stream";
    } else if (err == -ENODEV) {
        message +=
            "the device is gone: the npu daemon (npud) that served this process's device file "
            "was stopped or restarted since the device was opened; call aclrtResetDevice and "
            "then aclrtSetDevice to open the device again";
    } else if (err == -EREMOTE) {
        message +=
            "npud cannot see this process: it runs in a different pid namespace, so npud "
            "cannot reach this process's memory; run npud in the host's pid namespace (a "
            "container with --pid host)";
    } else {
        message += std::strerror(err < 0 ? -err : err);
    }
    return Error(base::ErrnoToCode(err, codes), std::move(message));
}

}  // namespace

Error Error::Format(aclError code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string message = VFormat(fmt, ap);
    va_end(ap);
    return Error(code, std::move(message));
}

Error Error::FromHal(int err, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string message = VFormat(fmt, ap);
    va_end(ap);
    return FromErrnoMessage(err, {}, std::move(message));
}

Error Error::FromErrno(int err, base::ErrnoOverrides codes, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    std::string message = VFormat(fmt, ap);
    va_end(ap);
    return FromErrnoMessage(err, codes, std::move(message));
}

}  // namespace npu::rt
