// SPDX-License-Identifier: MIT
// Sizes in the environment (NPU_HBM_SIZE, NPU_LIMIT_*, NPU_TRACE_MAX_EVENTS).
#ifndef NPU_RT_BASE_PARSE_SIZE_H
#define NPU_RT_BASE_PARSE_SIZE_H

#include <cstdint>

namespace npu::base {

// Parse "123", "4K", "16M", "2G" (bytes; K/M/G are binary). False on junk.
bool ParseSize(const char *text, uint64_t *bytes);

}  // namespace npu::base

#endif  // NPU_RT_BASE_PARSE_SIZE_H
