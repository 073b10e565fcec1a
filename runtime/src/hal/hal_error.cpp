// SPDX-License-Identifier: MIT
/*
 * npuHalErrorToAcl and npuHalRecordErrorMessage: public exports of the HAL
 * (npu/hal.h, checked by tests/check_exports.sh and api/libascendcl.map).
 * The first is called by tests and benchmarks that use the HAL directly:
 * the HAL itself returns -errno only; the table is base's
 * (base/errno_codes.h), and this is a thin wrapper over its default rows.
 * The second lets libascend_hal.so leave the text of its refusals where
 * aclGetRecentErrMsg finds it.
 */
#include <new>
#include <string>

#include "base/errno_codes.h"
#include "core/error_messages.h"

// The library is built with hidden visibility; the HAL is part of its ABI.
#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

extern "C" int npuHalErrorToAcl(int err) {
    return npu::base::ErrnoToCode(err);
}

extern "C" void npuHalRecordErrorMessage(const char *message) {
    if (message == nullptr)
        return;
    try {
        npu::rt::ErrorMessages::Record(std::string(message));
    } catch (const std::bad_alloc &) {
        // Out of host memory: the caller still gets its code.
    }
}
