// SPDX-License-Identifier: MIT
// Virtual memory management (CANN's aclrtMallocPhysical, aclrtReserveMemAddress,
// aclrtMapMem family) and shareable handles of physical memory: the runtime
// side of the driver's physical handles, reservations and mappings. The API
// layer (api/vmm.cpp) checks arguments in upstream's order and calls these;
// everything that talks to the driver, and the messages that explain what
// the driver refused, live here.
#ifndef NPU_RT_CORE_VMM_H
#define NPU_RT_CORE_VMM_H

#include <cstddef>
#include <cstdint>
#include <memory>

#include "acl/acl.h"
#include "core/device_session.h"
#include "core/error.h"

namespace npu::rt::vmm {

// The driver's page classes (NPU_CLASS_NORMAL, NPU_CLASS_HUGE1G).
constexpr uint32_t kClassNormal = 0;
constexpr uint32_t kClassHuge1g = 2;

// What an aclrtPhysicalMemProp.memAttr asks for.
struct MemClass {
    uint32_t page_class = kClassNormal;
    bool p2p = false;
    bool huge1g() const { return page_class == kClassHuge1g; }
    // Sizes and map addresses are multiples of this (2 MiB, or 1 GiB).
    uint64_t granularity() const { return huge1g() ? 1ULL << 30 : 2ULL << 20; }
};

// Accepts memAttr for a location type (the [ACL] rows of the memAttr table):
// ACL_ERROR_INVALID_PARAM when the pair is not accepted.
Error ClassifyMemAttr(int32_t loc_type, int32_t attr, MemClass *out);

// The node of a HOST_NUMA location: UINT32_MAX (-1) for any node, else a
// node this host has (node 0 on a host without NUMA);
// ACL_ERROR_INVALID_PARAM otherwise. The memory comes from the driver's
// host memory, as for HOST: the node is checked, not enforced.
Error CheckHostNumaNode(uint32_t node);

// A physical handle as the driver knows it: the session whose file holds it
// and the driver's id.
struct PhysRef {
    std::shared_ptr<DeviceSession> session;
    uint32_t id = 0;
};

// The handle behind an aclrtDrvMemHandle value (ACL_ERROR_RT_INVALID_HANDLE
// when it names none).
Error LookupHandle(aclrtDrvMemHandle handle, PhysRef *out);
// The session whose aperture holds a VMM address (ACL_ERROR_RT_PARAM_INVALID
// when none does); what names the argument in the message.
Error SessionOfAddress(const void *va, const char *what, std::shared_ptr<DeviceSession> *out);

// aclrtMallocPhysical of a DEVICE location on user device dev (which need
// not be current, nor set), or of a HOST location (host = true; dev is
// ignored: the current device, else any open one, holds it).
Error AllocPhysical(int32_t dev, bool host, size_t size, const MemClass &mc, uint64_t reserve,
                    aclrtDrvMemHandle *out);
Error FreePhysical(const PhysRef &ref, aclrtDrvMemHandle handle);
// aclrtMemGetAllocationPropertiesFromHandle.
Error Properties(const PhysRef &ref, aclrtDrvMemHandle handle, aclrtPhysicalMemProp *prop);
// aclrtMemRetainAllocationHandle.
Error Retain(void *va, aclrtDrvMemHandle *out);

// aclrtReserveMemAddress on the current device (device 0 when none is set);
// alignment must be 0 (checked once the device is known, as upstream's
// runtime layer does); huge_va is flags 1.
Error Reserve(size_t size, size_t alignment, void *expect, bool huge_va, void **out);
Error Release(void *va);
// aclrtMapMem (no_access: aclrtMemMapNoAccess) of the whole handle at va,
// inside a reservation of any device.
Error Map(const PhysRef &ref, aclrtDrvMemHandle handle, void *va, size_t size, bool no_access);
Error Unmap(void *va);
// aclrtMemSetAccess for one location and aclrtMemGetAccess, on the mapping
// at va of session s (loc_id: a physical device index for DEVICE).
Error SetAccess(DeviceSession &s, void *va, size_t size, int32_t loc_type, uint32_t loc_id);
Error GetAccess(DeviceSession &s, void *va, int32_t loc_type, uint32_t loc_id, uint64_t *flag);

// Shareable handles: export (no_whitelist: any process may import), the
// whitelist, and import onto session s.
Error ExportHandle(aclrtDrvMemHandle handle, bool no_whitelist, uint64_t *share);
Error SetPidHandle(uint64_t share, int32_t *pid, size_t count);
Error ImportHandle(uint64_t share, const std::shared_ptr<DeviceSession> &s, aclrtDrvMemHandle *out);

}  // namespace npu::rt::vmm

#endif  // NPU_RT_CORE_VMM_H
