// SPDX-License-Identifier: MIT
// aclAppLog: an application record in the runtime's log, which is stderr
// ("npu: LEVEL: app: file:line function: message") under the threshold of
// NPU_LOG / ASCEND_GLOBAL_LOG_LEVEL (errors only by default). The message
// is cut at 1023 characters, as upstream's, and then says so.
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "base/log.h"

using npu::base::LogLevel;

namespace {

// Upstream's limit: 1024 bytes including the terminator.
constexpr size_t kMaxMessage = 1024;

// ACL_DEBUG .. ACL_ERROR; a value outside them is logged as an error rather
// than lost.
LogLevel LevelOf(aclLogLevel level) {
    const int32_t v = npu::rt::EnumValue(level);
    return v >= ACL_DEBUG && v <= ACL_ERROR ? static_cast<LogLevel>(v) : LogLevel::kError;
}

// The last component of a path such as __FILE__.
const char *BaseName(const char *path) {
    const char *slash = std::strrchr(path, '/');
    return slash != nullptr ? slash + 1 : path;
}

}  // namespace

void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line,
               const char *fmt, ...) {
    const LogLevel level = LevelOf(logLevel);
    if (fmt == nullptr || !npu::base::LogEnabled(level))
        return;
    char message[kMaxMessage];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(message, sizeof(message), fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    std::fprintf(stderr, "npu: %s: app: %s:%u %s: %s%s\n", npu::base::LogLevelName(level),
                 file != nullptr ? BaseName(file) : "?", line, func != nullptr ? func : "?",
                 message, static_cast<size_t>(n) >= sizeof(message) ? " [truncated]" : "");
}
