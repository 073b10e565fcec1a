// SPDX-License-Identifier: MIT
// The C boundary: every exported acl* function runs its body through
// RunApi, which turns the body's Error into the aclError the caller gets,
// records the message of a failure for aclGetRecentErrMsg (prefixed with
// the API's name), and keeps any C++ exception from crossing into C.
#ifndef NPU_RT_API_API_BOUNDARY_H
#define NPU_RT_API_API_BOUNDARY_H

#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "base/trace.h"
#include "core/checker.h"
#include "core/error.h"
#include "core/error_messages.h"

namespace npu::rt {

inline void RecordFailure(const char *api, const Error &e) {
    ErrorMessages::RecordCode(e.code());
    ErrorMessages::Record(std::string(api) + ": " + e.message() + " (error " +
                          std::to_string(e.code()) + ")");
}

template <typename Body>
aclError RunApiBody(const char *api, Body &&body) noexcept {
    try {
        Error e = body();
        if (!e.ok())
            RecordFailure(api, e);
        return e.code();
    } catch (const std::bad_alloc &) {
        try {
            RecordFailure(api, Error(ACL_ERROR_BAD_ALLOC, "out of host memory"));
        } catch (...) {
        }
        return ACL_ERROR_BAD_ALLOC;
    } catch (...) {
        try {
            RecordFailure(api, Error(ACL_ERROR_INTERNAL_ERROR, "internal error"));
        } catch (...) {
        }
        return ACL_ERROR_INTERNAL_ERROR;
    }
}

// With NPU_TRACE set, every call is a slice on the calling thread's lane
// (api names are string literals, which the trace keeps by pointer). The
// body is instantiated once: two predictable branches rather than two
// copies of every API's code.
template <typename Body>
aclError RunApi(const char *api, Body &&body) noexcept {
    const uint64_t t0 = base::trace::On() ? base::trace::NowNs() : 0;
    if (check::On()) {
        // NPU_CHECK names the call in its reports (an inner call, such as
        // the synchronisation of aclrtFreeWithDevSync, for its duration).
        const char *outer = check::SwapApi(api);
        const aclError rc = RunApiBody(api, std::forward<Body>(body));
        check::SwapApi(outer);
        if (t0 != 0)
            base::trace::ThreadSlice(api, t0, base::trace::NowNs(), 0, 0, rc);
        return rc;
    }
    const aclError rc = RunApiBody(api, std::forward<Body>(body));
    if (t0 != 0)
        base::trace::ThreadSlice(api, t0, base::trace::NowNs(), 0, 0, rc);
    return rc;
}

// The value a caller passed in an enum-typed parameter or field. C callers
// may pass any int; reading it through the enum type would be undefined in
// C++ for values outside the enum's range, so the bits are copied instead.
template <typename E>
int32_t EnumValue(const E &e) {
    static_assert(sizeof(E) == sizeof(int32_t), "ACL enums are int-sized");
    int32_t v;
    std::memcpy(&v, &e, sizeof(v));
    return v;
}

// Shorthands for the checks of the ACL layer (100000) and of the runtime
// layer (107000).
#define NPU_ACL_CHECK(cond, ...)                                                   \
    do {                                                                           \
        if (!(cond))                                                               \
            return ::npu::rt::Error::Format(ACL_ERROR_INVALID_PARAM, __VA_ARGS__); \
    } while (0)
#define NPU_RT_CHECK(cond, ...)                                                       \
    do {                                                                              \
        if (!(cond))                                                                  \
            return ::npu::rt::Error::Format(ACL_ERROR_RT_PARAM_INVALID, __VA_ARGS__); \
    } while (0)

}  // namespace npu::rt

#endif  // NPU_RT_API_API_BOUNDARY_H
