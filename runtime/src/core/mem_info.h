// SPDX-License-Identifier: MIT
// aclrtGetMemInfo classes answered from the driver's
// per-page-class counters.
#ifndef NPU_RT_CORE_MEM_INFO_H
#define NPU_RT_CORE_MEM_INFO_H

#include <cstddef>
#include <cstdint>
#include <vector>

#include "acl/acl_rt.h"
#include "core/device_session.h"
#include "core/error.h"

namespace npu::rt {

// Free and total bytes of class attr (a valid aclrtMemAttr) on dev.
//  - The device has HBM only: DDR classes report 0/0.
//  - ACL_HBM_MEM (huge + normal together) and the normal classes report all
//    frames (the driver's NORMAL class counts every free frame); the huge
//    classes report the free 2 MiB blocks; the 1G classes the free 1 GiB
//    blocks, or ACL_ERROR_RT_FEATURE_NOT_SUPPORT without 1 GiB pages.
//  - P2P classes are the same memory as their plain counterparts.
Error QueryMemInfo(DeviceSession &dev, aclrtMemAttr attr, size_t *free_bytes, size_t *total_bytes);

// One component of aclrtGetMemUsageInfo: this process's device memory on
// one device, split by what it is for.
struct MemUsage {
    const char *name;
    uint64_t current;  // bytes mapped now
    uint64_t peak;     // the most since the device was opened
};

// The components of this process's memory on user device user_id (which
// the caller checked), by decreasing current usage:
//  - "aclrtMalloc": the aclrtMalloc family's allocations;
//  - "ipc import": memory of other processes mapped by
//    aclrtIpcMemImportByKey;
//  - "other": the rest of what the driver counts for this process's
//    context (physical memory mapped with aclrtMapMem, the runtime's own
//    event and notify words). The driver keeps no peak of it, so its peak
//    is its current value.
// All zero while the process has not opened the device.
Error QueryMemUsage(int32_t user_id, std::vector<MemUsage> *out);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MEM_INFO_H
