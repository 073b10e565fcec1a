// SPDX-License-Identifier: MIT
// Synchronous copies and fills: where each operand lives decides the
// direction and which device's engine moves the bytes (spec §11.2: for the
// synchronous calls the addresses, not the kind, decide). Every byte moves
// through the HAL; the runtime never touches device memory itself.
#ifndef NPU_RT_CORE_MEMCPY_PLAN_H
#define NPU_RT_CORE_MEMCPY_PLAN_H

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/context.h"
#include "core/error.h"

namespace npu::rt {

// One operand of a copy: device memory of a session, or host memory.
struct CopyOperand {
    std::shared_ptr<DeviceSession> device;  // null: host memory
    bool is_device() const { return device != nullptr; }
};

struct MemcpyPlan {
    enum class Route {
        kNone,    // dst == src: nothing to do
        kDirect,  // one descriptor on engine's ring
    };
    Route route = Route::kNone;
    uint32_t dir = 0;                       // NPU_DIR_* (kDirect)
    std::shared_ptr<DeviceSession> engine;  // kDirect
};

// Classifies ptr: an address in a device aperture must lie, with len bytes,
// inside one live allocation (else ACL_ERROR_RT_PARAM_INVALID naming role);
// any other address is host memory.
Error ClassifyOperand(const void *ptr, size_t len, const char *role, CopyOperand *out);

// Plans a copy of count bytes from src to dst. Host-to-host copies run on
// the engine of ctx's device. A copy between two devices needs peer access
// (aclrtDeviceEnablePeerAccess) in at least one direction, spec §7.9: it
// runs on the engine of a device that may reach the other; without it
// ACL_ERROR_RT_PARAM_INVALID (on hardware the driver fails the copy).
Error PlanMemcpy(const Context &ctx, void *dst, const void *src, size_t count, MemcpyPlan *plan);
Error RunMemcpy(const MemcpyPlan &plan, void *dst, const void *src, size_t count);

// Fills count bytes at ptr (device or host memory) with value.
Error RunMemset(const Context &ctx, void *ptr, uint8_t value, size_t count);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MEMCPY_PLAN_H
