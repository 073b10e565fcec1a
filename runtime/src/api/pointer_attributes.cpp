// SPDX-License-Identifier: MIT
// aclrtPointerGetAttributes (spec §6.2, §14.1).
#include <cstring>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/host_memory.h"
#include "core/thread_state.h"
#include "npu/hal.h"

using npu::rt::DeviceManager;
using npu::rt::DeviceSession;
using npu::rt::Error;
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
    struct npu_mem_query q = {};
    int err = halMemQuery(session.hal(), reinterpret_cast<uint64_t>(ptr), &q);
    if (err != 0) {
        return Error::FromHal(err, "cannot query address %p of device %d", ptr, session.user_id());
    }
    // The driver answers for any address: NONE (a hole of the aperture, e.g.
    // freed memory) and RESERVED (a VMM reservation with nothing mapped
    // there) are addresses it cannot classify (spec §6.2, §14.1).
    if (q.kind == NPU_MAPPING_NONE || q.kind == NPU_MAPPING_RESERVED || q.page_size == 0) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%p is an address of device %d that nothing is mapped at%s", ptr,
                             session.user_id(),
                             q.kind == NPU_MAPPING_RESERVED ? " (reserved, not mapped)" : "");
    }
    Fill(attributes, ACL_MEM_LOCATION_TYPE_DEVICE, static_cast<uint32_t>(session.user_id()),
         q.page_size);
    return Error::Ok();
}

}  // namespace

aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes) {
    return RunApi("aclrtPointerGetAttributes", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL");
        NPU_ACL_CHECK(attributes != nullptr, "attributes is NULL (ptr %p)", ptr);
        if (std::shared_ptr<DeviceSession> s = DeviceManager::Get().FindSession(ptr, 1))
            return DeviceAttributes(*s, ptr, attributes);
        if (npu::rt::LookupHostMemory(ptr, 1, nullptr)) {
            Fill(attributes, ACL_MEM_LOCATION_TYPE_HOST, 0, kHostPageSize);
            return Error::Ok();
        }
        // Plain host memory; the id is the device of the query (don't-care).
        auto ctx = ThreadState::CurrentContext();
        uint32_t id = ctx ? static_cast<uint32_t>(ctx->user_device_id()) : 0;
        Fill(attributes, ACL_MEM_LOCATION_TYPE_UNREGISTERED, id, kHostPageSize);
        return Error::Ok();
    });
}
