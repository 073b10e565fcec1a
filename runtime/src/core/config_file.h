// SPDX-License-Identifier: MIT
// The aclInit configuration file: read it and check that it is JSON.
// The runtime does not use any setting yet; it only rejects what upstream
// rejects (an unreadable file, malformed JSON, nesting deeper than 10).
#ifndef NPU_RT_CORE_CONFIG_FILE_H
#define NPU_RT_CORE_CONFIG_FILE_H

#include <string>
#include <string_view>

#include "core/error.h"

namespace npu::rt {

// Braces and brackets may nest at most this deep.
inline constexpr int kMaxConfigNesting = 10;

// Reads the whole file at path: ACL_ERROR_INVALID_FILE when it cannot be
// opened or read.
Error ReadConfigFile(const char *path, std::string *content);

// Checks that text is one JSON value (surrounded by optional whitespace)
// nested at most kMaxConfigNesting deep. Empty or all-blank text is
// accepted as "no settings". On failure, *why says what and where.
bool ValidateConfigJson(std::string_view text, std::string *why);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_CONFIG_FILE_H
