// SPDX-License-Identifier: MIT
// Model subscription (acl/acl_prof.h, aclprofModelSubscribe): what the
// operators (api/aclnn.cpp) need to report to it.
#ifndef NPU_RT_API_PROF_SUBSCRIBE_H
#define NPU_RT_API_PROF_SUBSCRIBE_H

#include <cstdint>

namespace npu::rt::prof {

// Whether a model of device_id (any device: -1) is subscribed now.
bool Subscribed(int32_t device_id);

// Microseconds on the clock of the records.
uint64_t NowUs();

// One operator that ran on device_id from start_us to end_us: a record to
// every subscription of a model of that device.
void ReportOp(int32_t device_id, const char *op_type, const char *op_name, uint64_t start_us,
              uint64_t end_us);

}  // namespace npu::rt::prof

#endif  // NPU_RT_API_PROF_SUBSCRIBE_H
