// SPDX-License-Identifier: MIT
/*
 * Host memory registration and peer links: one ioctl each on the device's
 * driver file. The driver does every check (alignment, overlap, the pin
 * budget, same TGID); these only pack the argument structs.
 */
#include <cerrno>
#include <cstdint>

// The library is built with hidden visibility; the HAL is part of its ABI.
#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

#include "hal_device.h"
#include "hal_share.h"

using npu::hal::DeviceCtxId;
using npu::hal::DeviceIndex;
using npu::hal::DeviceIoctl;
using npu::hal::DeviceTgid;

namespace {

int PeerIoctl(npuHalDevice *dev, npuHalDevice *peer, unsigned int cmd) {
    if (dev == nullptr || peer == nullptr || DeviceIndex(dev) == DeviceIndex(peer))
        return -EINVAL;
    struct npu_peer pr = {};
    pr.peer_device = DeviceIndex(peer);
    pr.peer_ctx = DeviceCtxId(peer);
    return DeviceIoctl(dev, cmd, &pr);
}

}  // namespace

extern "C" {

int npuHalHostRegister(npuHalDevice *dev, void *ptr, uint64_t size, int fd, uint64_t fd_off) {
    if (dev == nullptr)
        return -EINVAL;
    struct npu_host_register hr = {};
    hr.addr = reinterpret_cast<uint64_t>(ptr);
    hr.size = size;
    hr.fd = fd < 0 ? -1 : fd;
    hr.fd_off = fd < 0 ? 0 : fd_off;
    return DeviceIoctl(dev, NPU_IOCTL_HOST_REGISTER, &hr);
}

int npuHalHostUnregister(npuHalDevice *dev, void *ptr) {
    if (dev == nullptr)
        return -EINVAL;
    struct npu_host_unregister hu = {};
    hu.addr = reinterpret_cast<uint64_t>(ptr);
    return DeviceIoctl(dev, NPU_IOCTL_HOST_UNREGISTER, &hu);
}

int npuHalPeerEnable(npuHalDevice *dev, npuHalDevice *peer) {
    return PeerIoctl(dev, peer, NPU_IOCTL_PEER_ENABLE);
}

int npuHalPeerDisable(npuHalDevice *dev, npuHalDevice *peer) {
    return PeerIoctl(dev, peer, NPU_IOCTL_PEER_DISABLE);
}

int npuHalPhysPeer(npuHalDevice *dev, npuHalDevice *peer, uint32_t peer_handle, uint32_t *handle) {
    if (dev == nullptr || peer == nullptr || DeviceIndex(dev) == DeviceIndex(peer))
        return -EINVAL;
    struct npu_phys_peer pp = {};
    pp.peer_device = DeviceIndex(peer);
    pp.peer_ctx = DeviceCtxId(peer);
    pp.peer_handle = peer_handle;
    int ret = DeviceIoctl(dev, NPU_IOCTL_PHYS_PEER, &pp);
    if (ret < 0)
        return ret;
    *handle = pp.handle;
    return 0;
}

int npuHalPeerCapable(npuHalDevice *dev, npuHalDevice *peer) {
    // One backend per process, so two devices it opened belong to the
    // same driver instance (the in-process module, or one npud / kmod
    // whose device files share a stem); a device is not its own peer.
    if (dev == nullptr || peer == nullptr || DeviceIndex(dev) == DeviceIndex(peer))
        return 0;
    return DeviceTgid(dev) == DeviceTgid(peer) ? 1 : 0;
}

}  // extern "C"
