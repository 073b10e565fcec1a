// SPDX-License-Identifier: MIT
// DeviceSession: this process's open of one physical device: the HAL device
// (a driver context with its VA aperture and copy ring) and the allocations
// made in it. Closing the session (destroying the last reference) closes the
// driver file, which frees everything the context still holds.
#ifndef NPU_RT_CORE_DEVICE_SESSION_H
#define NPU_RT_CORE_DEVICE_SESSION_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "core/allocation_registry.h"
#include "core/error.h"
struct npuHalDevice;

namespace npu::rt {

class DeviceSession {
  public:
    // Opens physical device phys_id, known to the caller as user_id.
    static Error Open(uint32_t phys_id, int32_t user_id, std::shared_ptr<DeviceSession> *out);
    ~DeviceSession();

    DeviceSession(const DeviceSession &) = delete;
    DeviceSession &operator=(const DeviceSession &) = delete;

    npuHalDevice *hal() const { return hal_; }
    uint32_t physical_id() const { return phys_id_; }
    int32_t user_id() const { return user_id_; }
    // True when the device has 1 GiB pages.
    bool has_huge1g() const { return has_huge1g_; }
    // True when the driver runs NPU_OP_COPY_INDIRECT (ABI 1.5 and later).
    bool has_copy_indirect() const { return has_copy_indirect_; }
    // True when the driver runs NPU_OP_COPY_DEREF (ABI 1.7 and later).
    bool has_copy_deref() const { return has_copy_deref_; }
    // True when the driver runs NPU_OP_REDUCE (ABI 1.9 and later).
    bool has_reduce() const { return has_reduce_; }
    // NPU_REDUCE_PROD (ABI 1.10).
    bool has_reduce_prod() const { return has_reduce_prod_; }
    // True when [addr, addr + len) lies in this device's aperture.
    bool InAperture(const void *addr, size_t len) const;

    AllocationRegistry &allocations() { return allocations_; }
    // Streams of all the device's contexts that count against
    // ContextStreams::kMaxStreams (core/stream.cpp keeps the count).
    std::atomic<uint32_t> &live_streams() { return live_streams_; }

    // aclrtPhysicalMemProp.reserve of the physical handle id made by
    // aclrtMallocPhysical, which aclrtMemGetAllocationPropertiesFromHandle
    // reports back; 0 for any other handle.
    void SetPhysReserve(uint32_t id, uint64_t reserve);
    uint64_t PhysReserve(uint32_t id) const;
    void ForgetPhysReserve(uint32_t id);

  private:
    DeviceSession(npuHalDevice *hal, uint32_t phys_id, int32_t user_id, bool has_huge1g,
                  bool has_copy_indirect, bool has_copy_deref, bool has_reduce,
                  bool has_reduce_prod)
        : hal_(hal),
          phys_id_(phys_id),
          user_id_(user_id),
          has_huge1g_(has_huge1g),
          has_copy_indirect_(has_copy_indirect),
          has_copy_deref_(has_copy_deref),
          has_reduce_(has_reduce),
          has_reduce_prod_(has_reduce_prod) {}

    npuHalDevice *const hal_;  // owned: closed by the destructor
    const uint32_t phys_id_;
    const int32_t user_id_;
    const bool has_huge1g_;
    const bool has_copy_indirect_;
    const bool has_copy_deref_;
    const bool has_reduce_;
    const bool has_reduce_prod_;
    AllocationRegistry allocations_;
    std::atomic<uint32_t> live_streams_{0};
    mutable std::mutex phys_mu_;                           // Protects: phys_reserve_
    std::unordered_map<uint32_t, uint64_t> phys_reserve_;  // non-zero values only
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_DEVICE_SESSION_H
