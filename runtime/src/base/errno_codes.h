// SPDX-License-Identifier: MIT
// The one place where an errno becomes an upstream error code.
//
// The driver and the HAL return 0 or -errno and nothing else. Every layer
// above turns that into the aclError a caller sees through ErrnoToCode: a
// default table (kDefaultErrnoCodes in errno_codes.cpp) that says what an
// errno means anywhere, and, where a call gives one errno a meaning of its
// own (a full ring on stream creation is "no stream resource", an expired
// wait on an event is "event sync timeout"), a short table of that call
// site's exceptions, looked at first. A call site states its differences
// as data, never as a switch of its own.
#ifndef NPU_RT_BASE_ERRNO_CODES_H
#define NPU_RT_BASE_ERRNO_CODES_H

#include <cstdint>
#include <span>

namespace npu::base {

// One row: the driver's -errno and the upstream code it stands for.
struct ErrnoCode {
    int err;
    int32_t code;
};

// A call site's exceptions to the default table.
using ErrnoOverrides = std::span<const ErrnoCode>;

// The upstream code of err (0 or -errno): the first row of overrides that
// names err, else the default table's row, else
// ACL_ERROR_RT_DRV_INTERNAL_ERROR. 0 is always 0.
int32_t ErrnoToCode(int err, ErrnoOverrides overrides = {});

}  // namespace npu::base

#endif  // NPU_RT_BASE_ERRNO_CODES_H
