// SPDX-License-Identifier: MIT
#include "core/mem_type.h"

#include "acl/acl_rt.h"
#include "core/device_manager.h"
#include "core/device_session.h"

namespace npu::rt {

uint32_t MemTypeOf(const void *ptr) {
    std::shared_ptr<DeviceSession> s = DeviceManager::Get().FindSession(ptr, 1);
    if (!s)
        return 0;
    std::optional<Allocation> a = s->allocations().Find(reinterpret_cast<uintptr_t>(ptr));
    if (!a)
        return 0;
    return a->kind == MemoryKind::kVmmReservation ? ACL_RT_MEM_TYPE_RSVD : ACL_RT_MEM_TYPE_DEV;
}

}  // namespace npu::rt
