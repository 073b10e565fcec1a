// SPDX-License-Identifier: MIT
/*
 * The trace's ring lanes (base/trace.h): what the HAL and core record of
 * descriptors. Apart from base/trace.h so that the API layer, which only
 * opens slices, never sees the driver's descriptor type.
 */
#ifndef NPU_RT_BASE_TRACE_LANES_H
#define NPU_RT_BASE_TRACE_LANES_H

#include <cstdint>
#include <string>

#include "base/trace.h"

struct npu_sqe;

namespace npu::base::trace {

// A lane for one ring of device `device`; 0 when tracing is off. Every
// lane gets a name (SetLaneName) or "ring N".
uint32_t LaneOpen(uint32_t device, uint32_t ring_id);
void SetLaneName(uint32_t lane, const std::string &name);
// The ring is gone: completions not observed by now never will be.
void LaneClose(uint32_t lane);

// n descriptors with sequence numbers first_seq.. were queued at t_ns.
void Queued(uint32_t lane, uint64_t first_seq, const struct npu_sqe *sqes, uint32_t n,
            uint64_t t_ns);
// The runtime reaped the CQE of descriptor seq (result res) at t_ns, and so
// every one before it on the ring (the ring completes in order).
void Completed(uint32_t lane, uint64_t seq, int32_t res, uint64_t t_ns);
// The engine's own time of descriptor seq on lane, an NPU_OP_TIMESTAMP
// whose value the runtime read back (hal::trace::EngineTimestamp).
void EngineTime(uint32_t lane, uint64_t seq, uint64_t ns);

}  // namespace npu::base::trace

#endif /* NPU_RT_BASE_TRACE_LANES_H */
