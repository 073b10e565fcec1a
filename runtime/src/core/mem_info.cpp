// SPDX-License-Identifier: MIT
#include "core/mem_info.h"

#include <algorithm>

#include "core/device_manager.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

enum class MemClass { kNone, kNormal, kHuge, kHuge1G };

MemClass ClassOf(aclrtMemAttr attr) {
    switch (attr) {
        case ACL_DDR_MEM:
        case ACL_DDR_MEM_HUGE:
        case ACL_DDR_MEM_NORMAL:
        case ACL_DDR_MEM_P2P_HUGE:
        case ACL_DDR_MEM_P2P_NORMAL:
            return MemClass::kNone;
        case ACL_HBM_MEM:
        case ACL_HBM_MEM_NORMAL:
        case ACL_HBM_MEM_P2P_NORMAL:
        case ACL_MEM_NORMAL:
        case ACL_MEM_P2P_NORMAL:
            return MemClass::kNormal;
        case ACL_HBM_MEM_HUGE:
        case ACL_HBM_MEM_P2P_HUGE:
        case ACL_MEM_HUGE:
        case ACL_MEM_P2P_HUGE:
            return MemClass::kHuge;
        case ACL_HBM_MEM_HUGE1G:
        case ACL_HBM_MEM_P2P_HUGE1G:
        case ACL_MEM_HUGE1G:
        case ACL_MEM_P2P_HUGE1G:
            return MemClass::kHuge1G;
    }
    return MemClass::kNone;
}

}  // namespace

Error QueryMemInfo(DeviceSession &dev, aclrtMemAttr attr, size_t *free_bytes, size_t *total_bytes) {
    MemClass cls = ClassOf(attr);
    if (cls == MemClass::kNone) {
        *free_bytes = 0;
        *total_bytes = 0;
        return Error::Ok();
    }
    if (cls == MemClass::kHuge1G && !dev.has_huge1g()) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "attr %d asks for 1 GiB pages, which device %d does not have",
                             static_cast<int>(attr), dev.user_id());
    }
    struct npu_mem_info info = {};
    int err = npuHalMemInfo(dev.hal(), &info);
    if (err != 0)
        return Error::FromHal(err, "memory info of device %d", dev.user_id());
    int idx = cls == MemClass::kNormal ? NPU_CLASS_NORMAL
              : cls == MemClass::kHuge ? NPU_CLASS_HUGE
                                       : NPU_CLASS_HUGE1G;
    *free_bytes = static_cast<size_t>(info.free[idx]);
    *total_bytes = static_cast<size_t>(info.total[idx]);
    return Error::Ok();
}

Error QueryMemUsage(int32_t user_id, std::vector<MemUsage> *out) {
    MemUsage malloc_usage{"aclrtMalloc", 0, 0};
    MemUsage ipc_usage{"ipc import", 0, 0};
    MemUsage other{"other", 0, 0};
    // Not opened here: a query must not open a device the process does
    // not use (it would then use the device's memory for its own words).
    std::shared_ptr<DeviceSession> dev = DeviceManager::Get().SessionOf(user_id);
    if (dev) {
        struct npu_mem_info info = {};
        int err = npuHalMemInfo(dev->hal(), &info);
        if (err != 0)
            return Error::FromHal(err, "memory info of device %d", user_id);
        const AllocationRegistry::Usage m = dev->allocations().UsageOf(MemoryKind::kDevice);
        const AllocationRegistry::Usage i = dev->allocations().UsageOf(MemoryKind::kIpcImport);
        malloc_usage.current = m.current;
        malloc_usage.peak = m.peak;
        ipc_usage.current = i.current;
        ipc_usage.peak = i.peak;
        const uint64_t known = m.current + i.current;
        other.current = info.ctx_bytes > known ? info.ctx_bytes - known : 0;
        other.peak = other.current;
    }
    *out = {malloc_usage, ipc_usage, other};
    std::stable_sort(out->begin(), out->end(),
                     [](const MemUsage &a, const MemUsage &b) { return a.current > b.current; });
    return Error::Ok();
}

}  // namespace npu::rt
