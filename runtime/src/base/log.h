// SPDX-License-Identifier: MIT
// The runtime's log: stderr, one line a record, "npu: LEVEL: message". The
// threshold comes from NPU_LOG (debug, info, warning, error, none, or
// 0..4), else from CANN's ASCEND_GLOBAL_LOG_LEVEL (0 debug .. 3 error,
// 4 none), read once; by default only errors are printed.
#ifndef NPU_RT_BASE_LOG_H
#define NPU_RT_BASE_LOG_H

namespace npu::base {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarning = 2, kError = 3, kNone = 4 };

// The lower-case name of a level below kNone ("debug" .. "error").
const char *LogLevelName(LogLevel level);
// Whether a record of this level is printed.
bool LogEnabled(LogLevel level);
void Log(LogLevel level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

}  // namespace npu::base

#endif  // NPU_RT_BASE_LOG_H
