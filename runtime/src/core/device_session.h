// DeviceSession: this process's open of one physical device: the HAL device
// (a driver context with its VA aperture and copy ring) and the allocations
// made in it. Closing the session (destroying the last reference) closes the
// driver file, which frees everything the context still holds.
#ifndef NPU_RT_CORE_DEVICE_SESSION_H
#define NPU_RT_CORE_DEVICE_SESSION_H

#include <cstdint>
#include <memory>

#include "core/allocation_registry.h"
#include "core/error.h"
#include "npu/hal.h"

namespace npu::rt {

class DeviceSession {
  public:
    // Opens physical device phys_id, known to the caller as user_id.
    static Error Open(uint32_t phys_id, int32_t user_id, std::shared_ptr<DeviceSession> *out);
    ~DeviceSession();

    DeviceSession(const DeviceSession &) = delete;
    DeviceSession &operator=(const DeviceSession &) = delete;

    halDevice *hal() const { return hal_; }
    uint32_t physical_id() const { return phys_id_; }
    int32_t user_id() const { return user_id_; }
    // True when the device has 1 GiB pages.
    bool has_huge1g() const { return has_huge1g_; }
    // True when [addr, addr + len) lies in this device's aperture.
    bool InAperture(const void *addr, size_t len) const;

    AllocationRegistry &allocations() { return allocations_; }

  private:
    DeviceSession(halDevice *hal, uint32_t phys_id, int32_t user_id, bool has_huge1g)
        : hal_(hal), phys_id_(phys_id), user_id_(user_id), has_huge1g_(has_huge1g) {}

    halDevice *const hal_;  // owned: closed by the destructor
    const uint32_t phys_id_;
    const int32_t user_id_;
    const bool has_huge1g_;
    AllocationRegistry allocations_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_DEVICE_SESSION_H
