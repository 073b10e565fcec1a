// SPDX-License-Identifier: MIT
/*
 * The sharing commands of the HAL: IPC keys, physical memory, VMM
 * reservations and mappings, shareable handles and the npu-smi queries.
 * Each function is one ioctl on the device's driver file; the driver does
 * every check, so these only pack and unpack the argument structs.
 */
#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>

#include <unistd.h>

// The library is built with hidden visibility; the HAL is part of its ABI.
#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

#include "hal_internal.h"
#include "hal_share.h"

using npu::hal::DeviceIoctl;

namespace {

int SetPid(npuHalDevice *dev, unsigned int cmd, const char *key, uint64_t share,
           const int32_t *pids, uint32_t count) {
    struct npu_share_set_pid sp = {};
    if (key != nullptr)
        std::memcpy(sp.key, key, NPU_IPC_KEY_LEN);
    sp.handle = share;
    sp.pids = reinterpret_cast<uint64_t>(pids);
    sp.count = count;
    return DeviceIoctl(dev, cmd, &sp);
}

template <typename Rec>
int SmiQuery(npuHalDevice *dev, unsigned int cmd, Rec *buf, uint32_t count, uint32_t *total) {
    struct npu_smi_query q = {};
    q.buf = reinterpret_cast<uint64_t>(buf);
    q.count = count;
    int ret = DeviceIoctl(dev, cmd, &q);
    if (ret < 0)
        return ret;
    *total = q.total;
    return 0;
}

}  // namespace

extern "C" {

int npuHalGetBareTgid(int32_t *tgid) {
    // The TGID a driver context reports is fixed by the process, so a
    // fresh file of device 0 tells it (and is closed at once). Cached per
    // process, as (pid << 32 | tgid) in one atomic word so that threads
    // racing here read a whole pair: a forked child asks again.
    static std::atomic<uint64_t> cached{0};
    if (tgid == nullptr)
        return -EINVAL;
    const uint64_t pair = cached.load(std::memory_order_acquire);
    if (pair != 0 && static_cast<pid_t>(pair >> 32) == ::getpid()) {
        *tgid = static_cast<int32_t>(static_cast<uint32_t>(pair));
        return 0;
    }
    std::unique_ptr<npu::hal::DeviceFile> file;
    int ret = npu::hal::Backend::Get().Open(0, &file);
    if (ret < 0)
        return ret;
    // The driver only records the aperture; nothing is mapped there.
    struct npu_ctx_setup cs = {};
    cs.va_base = 1ULL << 30;
    cs.va_size = 1ULL << 30;
    ret = file->Ioctl(NPU_IOCTL_CTX_SETUP, &cs);
    if (ret < 0)
        return ret;
    cached.store((static_cast<uint64_t>(static_cast<uint32_t>(::getpid())) << 32) | cs.tgid,
                 std::memory_order_release);
    *tgid = static_cast<int32_t>(cs.tgid);
    return 0;
}

int npuHalIpcExport(npuHalDevice *dev, uint64_t va, uint64_t size, uint32_t flags,
                    char key[NPU_IPC_KEY_LEN]) {
    struct npu_ipc_export ie = {};
    ie.va = va;
    ie.size = size;
    ie.flags = flags;
    int ret = DeviceIoctl(dev, NPU_IOCTL_IPC_EXPORT, &ie);
    if (ret < 0)
        return ret;
    std::memcpy(key, ie.key, NPU_IPC_KEY_LEN);
    return 0;
}

int npuHalIpcSetPid(npuHalDevice *dev, const char key[NPU_IPC_KEY_LEN], const int32_t *pids,
                    uint32_t count) {
    return SetPid(dev, NPU_IOCTL_IPC_SET_PID, key, 0, pids, count);
}

int npuHalIpcImport(npuHalDevice *dev, const char key[NPU_IPC_KEY_LEN],
                    struct npu_ipc_import *out) {
    struct npu_ipc_import ii = {};
    std::memcpy(ii.key, key, NPU_IPC_KEY_LEN);
    int ret = DeviceIoctl(dev, NPU_IOCTL_IPC_IMPORT, &ii);
    if (ret < 0)
        return ret;
    *out = ii;
    return 0;
}

int npuHalIpcUnimport(npuHalDevice *dev, uint64_t va) {
    struct npu_ipc_unimport iu = {};
    iu.va = va;
    return DeviceIoctl(dev, NPU_IOCTL_IPC_UNIMPORT, &iu);
}

int npuHalIpcDestroy(npuHalDevice *dev, const char key[NPU_IPC_KEY_LEN]) {
    struct npu_ipc_destroy id = {};
    std::memcpy(id.key, key, NPU_IPC_KEY_LEN);
    return DeviceIoctl(dev, NPU_IOCTL_IPC_DESTROY, &id);
}

int npuHalPhysAlloc(npuHalDevice *dev, uint64_t size, uint32_t page_class, uint32_t flags,
                    uint32_t *handle) {
    struct npu_phys_alloc pa = {};
    pa.size = size;
    pa.page_class = page_class;
    pa.flags = flags;
    int ret = DeviceIoctl(dev, NPU_IOCTL_PHYS_ALLOC, &pa);
    if (ret < 0)
        return ret;
    *handle = pa.handle;
    return 0;
}

int npuHalPhysFree(npuHalDevice *dev, uint32_t handle) {
    struct npu_phys_free pf = {};
    pf.handle = handle;
    return DeviceIoctl(dev, NPU_IOCTL_PHYS_FREE, &pf);
}

int npuHalPhysRetain(npuHalDevice *dev, uint64_t va, uint32_t *handle) {
    struct npu_phys_retain pr = {};
    pr.va = va;
    int ret = DeviceIoctl(dev, NPU_IOCTL_PHYS_RETAIN, &pr);
    if (ret < 0)
        return ret;
    *handle = pr.handle;
    return 0;
}

int npuHalPhysInfo(npuHalDevice *dev, uint32_t handle, struct npu_phys_info *out) {
    struct npu_phys_info pi = {};
    pi.handle = handle;
    int ret = DeviceIoctl(dev, NPU_IOCTL_PHYS_INFO, &pi);
    if (ret < 0)
        return ret;
    *out = pi;
    return 0;
}

int npuHalVmmReserve(npuHalDevice *dev, uint64_t size, uint64_t want_va, uint32_t flags,
                     uint64_t *va) {
    struct npu_vmm_reserve vr = {};
    vr.size = size;
    vr.va = want_va;
    vr.flags = flags;
    int ret = DeviceIoctl(dev, NPU_IOCTL_VMM_RESERVE, &vr);
    if (ret < 0)
        return ret;
    *va = vr.va;
    return 0;
}

int npuHalVmmRelease(npuHalDevice *dev, uint64_t va) {
    struct npu_vmm_release vr = {};
    vr.va = va;
    return DeviceIoctl(dev, NPU_IOCTL_VMM_RELEASE, &vr);
}

int npuHalVmmMap(npuHalDevice *dev, uint64_t va, uint64_t size, uint32_t handle, uint32_t flags) {
    struct npu_vmm_map vm = {};
    vm.va = va;
    vm.size = size;
    vm.handle = handle;
    vm.flags = flags;
    return DeviceIoctl(dev, NPU_IOCTL_VMM_MAP, &vm);
}

int npuHalVmmUnmap(npuHalDevice *dev, uint64_t va) {
    struct npu_vmm_unmap vu = {};
    vu.va = va;
    return DeviceIoctl(dev, NPU_IOCTL_VMM_UNMAP, &vu);
}

int npuHalVmmSetAccess(npuHalDevice *dev, uint64_t va, uint64_t size, uint32_t loc_type,
                       uint32_t loc_id, uint32_t access) {
    struct npu_vmm_access va_ = {};
    va_.va = va;
    va_.size = size;
    va_.loc_type = loc_type;
    va_.loc_id = loc_id;
    va_.access = access;
    return DeviceIoctl(dev, NPU_IOCTL_VMM_SET_ACCESS, &va_);
}

int npuHalVmmGetAccess(npuHalDevice *dev, uint64_t va, uint32_t loc_type, uint32_t loc_id,
                       uint32_t *access) {
    struct npu_vmm_access va_ = {};
    va_.va = va;
    va_.loc_type = loc_type;
    va_.loc_id = loc_id;
    int ret = DeviceIoctl(dev, NPU_IOCTL_VMM_GET_ACCESS, &va_);
    if (ret < 0)
        return ret;
    *access = va_.access;
    return 0;
}

int npuHalShareExport(npuHalDevice *dev, uint32_t handle, uint32_t flags, uint64_t *share) {
    struct npu_share_export se = {};
    se.handle = handle;
    se.flags = flags;
    int ret = DeviceIoctl(dev, NPU_IOCTL_SHARE_EXPORT, &se);
    if (ret < 0)
        return ret;
    *share = se.share;
    return 0;
}

int npuHalShareSetPid(npuHalDevice *dev, uint64_t share, const int32_t *pids, uint32_t count) {
    return SetPid(dev, NPU_IOCTL_SHARE_SET_PID, nullptr, share, pids, count);
}

int npuHalShareImport(npuHalDevice *dev, uint64_t share, struct npu_share_import *out) {
    struct npu_share_import si = {};
    si.share = share;
    int ret = DeviceIoctl(dev, NPU_IOCTL_SHARE_IMPORT, &si);
    if (ret < 0)
        return ret;
    *out = si;
    return 0;
}

int npuHalSmiProcs(npuHalDevice *dev, struct npu_smi_proc *buf, uint32_t count, uint32_t *total) {
    return SmiQuery(dev, NPU_IOCTL_SMI_PROCS, buf, count, total);
}

int npuHalSmiShares(npuHalDevice *dev, struct npu_smi_share *buf, uint32_t count, uint32_t *total) {
    return SmiQuery(dev, NPU_IOCTL_SMI_SHARES, buf, count, total);
}

int npuHalSmiUsers(npuHalDevice *dev, struct npu_smi_user *buf, uint32_t count, uint32_t *total) {
    return SmiQuery(dev, NPU_IOCTL_SMI_USERS, buf, count, total);
}

}  // extern "C"
