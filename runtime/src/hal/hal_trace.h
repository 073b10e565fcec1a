// SPDX-License-Identifier: MIT
/*
 * The trace's view of a npuHalQueue: the trace itself is base's
 * (base/trace.h); these find a queue's lane.
 */
#ifndef NPU_HAL_TRACE_H
#define NPU_HAL_TRACE_H

#include <cstdint>
#include <string>

#include "base/trace_lanes.h"

struct npuHalQueue;

namespace npu::hal::trace {

// Names q's lane after what it serves ("stream 0x... (user)"): called by
// the runtime core, which knows. Does nothing when tracing is off.
void NameQueue(npuHalQueue *q, const std::string &name);

// The engine's own time of descriptor seq, an NPU_OP_TIMESTAMP whose value
// the runtime read back (aclrtEventGetTimestamp, aclrtEventElapsedTime):
// exact, so the trace places that descriptor there and bounds its ring's
// neighbours by it. On q's lane; does nothing when tracing is off.
void EngineTimestamp(npuHalQueue *q, uint64_t seq, uint64_t ns);

}  // namespace npu::hal::trace

#endif /* NPU_HAL_TRACE_H */
