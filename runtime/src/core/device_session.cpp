// SPDX-License-Identifier: MIT
#include "core/device_session.h"

#include <cerrno>

#include "core/host_pool.h"
#include "npu/hal.h"

namespace npu::rt {

Error DeviceSession::Open(uint32_t phys_id, int32_t user_id, std::shared_ptr<DeviceSession> *out) {
    npuHalDevice *hal = nullptr;
    int err = npuHalDeviceOpen(phys_id, &hal);
    if (err != 0 && npuHalForkInprocUnusable()) {
        return Error::FromHal(err,
                              "cannot open device %d in a forked child: the in-process device "
                              "belongs to the parent, which loaded it before fork(); a child "
                              "can use npud (NPU_DEVICE=/run/npu/dev/npu0) or the kernel module "
                              "(/dev/npu0)",
                              user_id);
    }
    if (err == -ENODEV) {
        return Error::Format(ACL_ERROR_RT_NO_DEVICE,
                             "cannot open device %d (physical %u, backend %s): no such device "
                             "file (is npud serving it, or the kernel module loaded?)",
                             user_id, phys_id, npuHalBackendName());
    }
    if (err != 0) {
        return Error::FromHal(err, "cannot open device %d (physical %u, backend %s)", user_id,
                              phys_id, npuHalBackendName());
    }
    struct npu_version version = {};
    err = npuHalGetVersion(hal, &version);
    if (err != 0) {
        npuHalDeviceClose(hal);
        return Error::FromHal(err, "cannot query device %d (physical %u)", user_id, phys_id);
    }
    bool huge1g = (version.features & NPU_FEATURE_HUGE1G) != 0;
    bool copy_indirect = version.abi_minor >= 5;
    bool copy_deref = version.abi_minor >= 7;
    bool reduce = version.abi_minor >= 9;
    bool reduce_prod = version.abi_minor >= 10;
    out->reset(new DeviceSession(hal, phys_id, user_id, huge1g, copy_indirect, copy_deref, reduce,
                                 reduce_prod));
    // The pinned pool and host registrations are pinned for every device.
    HostPool::Get().DeviceOpened(hal, phys_id);
    return Error::Ok();
}

DeviceSession::~DeviceSession() {
    HostPool::Get().DeviceClosing(hal_);
    npuHalDeviceClose(hal_);
}

bool DeviceSession::InAperture(const void *addr, size_t len) const {
    return npuHalIsDeviceAddress(hal_, addr, len == 0 ? 1 : len) != 0;
}

void DeviceSession::SetPhysReserve(uint32_t id, uint64_t reserve) {
    std::lock_guard<std::mutex> lock(phys_mu_);
    if (reserve != 0)
        phys_reserve_[id] = reserve;
    else
        phys_reserve_.erase(id);
}

uint64_t DeviceSession::PhysReserve(uint32_t id) const {
    std::lock_guard<std::mutex> lock(phys_mu_);
    auto it = phys_reserve_.find(id);
    return it == phys_reserve_.end() ? 0 : it->second;
}

void DeviceSession::ForgetPhysReserve(uint32_t id) {
    std::lock_guard<std::mutex> lock(phys_mu_);
    phys_reserve_.erase(id);
}

}  // namespace npu::rt
