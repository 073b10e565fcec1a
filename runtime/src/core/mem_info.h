// SPDX-License-Identifier: MIT
// aclrtGetMemInfo classes (spec §4.3, §14.2) answered from the driver's
// per-page-class counters.
#ifndef NPU_RT_CORE_MEM_INFO_H
#define NPU_RT_CORE_MEM_INFO_H

#include <cstddef>

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

}  // namespace npu::rt

#endif  // NPU_RT_CORE_MEM_INFO_H
