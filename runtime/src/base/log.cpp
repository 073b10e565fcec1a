// SPDX-License-Identifier: MIT
#include "base/log.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace npu::base {
namespace {

constexpr const char *kNames[] = {"debug", "info", "warning", "error", "none"};

// NPU_LOG or ASCEND_GLOBAL_LOG_LEVEL, read once.
LogLevel ThresholdFromEnv() {
    const char *env = std::getenv("NPU_LOG");
    if (env == nullptr || *env == '\0')
        env = std::getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (env == nullptr || *env == '\0')
        return LogLevel::kError;
    for (int i = 0; i <= 4; i++) {
        if (std::strcmp(env, kNames[i]) == 0 || (env[0] == '0' + i && env[1] == '\0'))
            return static_cast<LogLevel>(i);
    }
    std::fprintf(stderr,
                 "npu: ignoring log level %s (want debug, info, warning, error, "
                 "none or 0..4)\n",
                 env);
    return LogLevel::kError;
}

}  // namespace

const char *LogLevelName(LogLevel level) {
    return kNames[static_cast<int>(level)];
}

bool LogEnabled(LogLevel level) {
    static const LogLevel threshold = ThresholdFromEnv();
    return level >= threshold && level != LogLevel::kNone;
}

void Log(LogLevel level, const char *fmt, ...) {
    char msg[512];
    va_list ap;

    if (!LogEnabled(level))
        return;
    va_start(ap, fmt);
    std::vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "npu: %s: %s\n", LogLevelName(level), msg);
}

}  // namespace npu::base
