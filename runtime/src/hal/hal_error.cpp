// SPDX-License-Identifier: MIT
/*
 * npuHalErrorToAcl: a public export of the HAL (npu/hal.h, checked by
 * tests/check_exports.sh and api/libascendcl.map, and called by tests and
 * benchmarks that use the HAL directly). The HAL itself returns -errno
 * only; the table is base's (base/errno_codes.h), and this is a thin
 * wrapper over its default rows.
 */
#include "base/errno_codes.h"

// The library is built with hidden visibility; the HAL is part of its ABI.
#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

extern "C" int npuHalErrorToAcl(int err) {
    return npu::base::ErrnoToCode(err);
}
