// SPDX-License-Identifier: MIT
// Writing JSON text: the one string escape that every file the runtime
// writes as JSON uses (trace and profiling sessions, dump headers, model
// prints, checker reports).
#ifndef NPU_RT_BASE_JSON_TEXT_H
#define NPU_RT_BASE_JSON_TEXT_H

#include <string>
#include <string_view>

namespace npu::base {

// Appends s to *out as a JSON string: quoted, with '"' and '\' escaped and
// control characters as \u00XX. Other bytes are copied as they are.
void AppendJsonString(std::string *out, std::string_view s);

// The same, returned without the quotes (for text put inside a quoted string).
std::string JsonEscaped(std::string_view s);

}  // namespace npu::base

#endif  // NPU_RT_BASE_JSON_TEXT_H
