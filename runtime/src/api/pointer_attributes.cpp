// SPDX-License-Identifier: MIT
// aclrtPointerGetAttributes.
#include <cstring>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/copy_plan.h"
#include "core/device_memory.h"
#include "core/thread_state.h"

using npu::rt::DeviceSession;
using npu::rt::Error;
using npu::rt::PtrKind;
using npu::rt::RunApi;
using npu::rt::ThreadState;

namespace {

constexpr uint32_t kHostPageSize = 4096;

void Fill(aclrtPtrAttributes *attributes, aclrtMemLocationType type, uint32_t id,
          uint32_t page_size) {
    std::memset(attributes, 0, sizeof(*attributes));
    attributes->location.type = type;
    attributes->location.id = id;
    attributes->pageSize = page_size;
}

// An address in a device aperture: the driver knows whether (and how) it is
// mapped: allocations, IPC imports and VMM mappings alike.
Error DeviceAttributes(DeviceSession &session, const void *ptr, aclrtPtrAttributes *attributes) {
    uint32_t page_size = 0;
    NPU_RETURN_IF_ERROR(npu::rt::DeviceMappingPageSize(session, ptr, &page_size));
    Fill(attributes, ACL_MEM_LOCATION_TYPE_DEVICE, static_cast<uint32_t>(session.user_id()),
         page_size);
    return Error::Ok();
}

}  // namespace

aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes) {
    return RunApi("aclrtPointerGetAttributes", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL");
        NPU_ACL_CHECK(attributes != nullptr, "attributes is NULL (ptr %p)", ptr);
        npu::rt::PointerInfo where;
        npu::rt::LocatePointer(ptr, &where);
        switch (where.kind) {
            case PtrKind::kDevice:
                return DeviceAttributes(*where.dev, ptr, attributes);
            case PtrKind::kManaged:
                Fill(attributes, ACL_MEM_LOCATION_TYPE_MANAGED,
                     static_cast<uint32_t>(where.managed_device), kHostPageSize);
                return Error::Ok();
            case PtrKind::kHost:
                Fill(attributes, ACL_MEM_LOCATION_TYPE_HOST, 0, kHostPageSize);
                return Error::Ok();
            case PtrKind::kUnregistered:
                break;
        }
        // Plain host memory; the id is the device of the query (don't-care).
        auto ctx = ThreadState::CurrentContext();
        uint32_t id = ctx ? static_cast<uint32_t>(ctx->user_device_id()) : 0;
        Fill(attributes, ACL_MEM_LOCATION_TYPE_UNREGISTERED, id, kHostPageSize);
        return Error::Ok();
    });
}
