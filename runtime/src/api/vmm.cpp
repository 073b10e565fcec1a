// SPDX-License-Identifier: MIT
// Virtual memory management and shareable handles of physical
// memory: the checks of each API in upstream's order; the work is in
// core/vmm.cpp.
#include <cstring>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/copy_plan.h"
#include "core/device_manager.h"
#include "core/thread_state.h"
#include "core/vmm.h"

using npu::rt::Context;
using npu::rt::DeviceManager;
using npu::rt::DeviceSession;
using npu::rt::EnumValue;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::ThreadState;
using npu::rt::vmm::MemClass;
using npu::rt::vmm::PhysRef;

namespace {

// aclrtMemFabricHandle of this implementation: a magic, then the handle.
constexpr char kFabricMagic[8] = {'N', 'P', 'U', 'F', 'A', 'B', '1', '\0'};

Error MapCommon(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags,
                bool no_access) {
    NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
    NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
    NPU_ACL_CHECK(size != 0, "size is 0");
    NPU_ACL_CHECK(flags == 0, "flags 0x%llx must be 0", static_cast<unsigned long long>(flags));
    PhysRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::vmm::LookupHandle(handle, &ref));
    NPU_RT_CHECK(offset == 0, "offset %zu must be 0", offset);
    return npu::rt::vmm::Map(ref, handle, virPtr, size, no_access);
}

Error CheckShareType(int32_t type) {
    NPU_RT_CHECK(
        type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT || type == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
        "shareType %d is not ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT or _FABRIC", type);
    return Error::Ok();
}

// The 64-bit shareable handle behind V2 caller storage.
Error ReadShareV2(const void *sh, int32_t type, uint64_t *share) {
    if (type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
        std::memcpy(share, sh, sizeof(*share));
        return Error::Ok();
    }
    const auto *fab = static_cast<const aclrtMemFabricHandle *>(sh);
    NPU_RT_CHECK(
        std::memcmp(fab->data, kFabricMagic, sizeof(kFabricMagic)) == 0,
        "shareableHandle is not a fabric handle made by aclrtMemExportToShareableHandleV2");
    std::memcpy(share, fab->data + sizeof(kFabricMagic), sizeof(*share));
    return Error::Ok();
}

// A location of aclrtMemSetAccess/GetAccess with a physical device index.
Error AccessLocation(int32_t type, uint32_t id, uint32_t *loc_id) {
    *loc_id = id;
    if (type != ACL_MEM_LOCATION_TYPE_DEVICE)
        return Error::Ok();
    return DeviceManager::Get().ToPhysical(static_cast<int32_t>(id), loc_id);
}

}  // namespace

aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop,
                                          aclrtMemGranularityOptions option, size_t *granularity) {
    return RunApi("aclrtMemGetAllocationGranularity", [&] {
        NPU_ACL_CHECK(prop != nullptr, "prop is NULL");
        NPU_ACL_CHECK(granularity != nullptr, "granularity is NULL");
        MemClass mc;
        int32_t loc = EnumValue(prop->location.type);
        NPU_RETURN_IF_ERROR(npu::rt::vmm::ClassifyMemAttr(loc, EnumValue(prop->memAttr), &mc));
        if (loc == ACL_MEM_LOCATION_TYPE_DEVICE) {
            uint32_t phys = 0;
            NPU_RETURN_IF_ERROR(
                DeviceManager::Get().ToPhysical(static_cast<int32_t>(prop->location.id), &phys));
        }
        int32_t opt = EnumValue(option);
        NPU_RT_CHECK(opt == ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM ||
                         opt == ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED,
                     "option %d is not MINIMUM or RECOMMENDED", opt);
        *granularity = mc.granularity();
        return Error::Ok();
    });
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size,
                             const aclrtPhysicalMemProp *prop, uint64_t flags) {
    return RunApi("aclrtMallocPhysical", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(prop != nullptr, "prop is NULL");
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(flags == 0, "flags 0x%llx must be 0", static_cast<unsigned long long>(flags));
        NPU_ACL_CHECK(EnumValue(prop->handleType) == ACL_MEM_HANDLE_TYPE_NONE,
                      "prop->handleType %d is not ACL_MEM_HANDLE_TYPE_NONE",
                      EnumValue(prop->handleType));
        NPU_ACL_CHECK(EnumValue(prop->allocationType) == ACL_MEM_ALLOCATION_TYPE_PINNED,
                      "prop->allocationType %d is not ACL_MEM_ALLOCATION_TYPE_PINNED",
                      EnumValue(prop->allocationType));
        int32_t loc = EnumValue(prop->location.type);
        NPU_ACL_CHECK(
            loc != ACL_MEM_LOCATION_TYPE_UNREGISTERED && loc != ACL_MEM_LOCATION_TYPE_MANAGED,
            "prop->location.type %d (UNREGISTERED/MANAGED) cannot hold physical memory", loc);
        MemClass mc;
        NPU_RETURN_IF_ERROR(npu::rt::vmm::ClassifyMemAttr(loc, EnumValue(prop->memAttr), &mc));
        if (loc == ACL_MEM_LOCATION_TYPE_HOST_NUMA) {
            std::shared_ptr<Context> ctx;
            NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
            NPU_RETURN_IF_ERROR(npu::rt::vmm::CheckHostNumaNode(prop->location.id));
        }
        // A DEVICE location's device need not be current, nor set at all.
        return npu::rt::vmm::AllocPhysical(static_cast<int32_t>(prop->location.id),
                                           loc != ACL_MEM_LOCATION_TYPE_DEVICE, size, mc,
                                           prop->reserve, handle);
    });
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
    return RunApi("aclrtFreePhysical", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        PhysRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::vmm::LookupHandle(handle, &ref));
        return npu::rt::vmm::FreePhysical(ref, handle);
    });
}

aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                uint64_t flags) {
    return RunApi("aclrtReserveMemAddress", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(flags <= 1, "flags 0x%llx is not 0 or 1",
                      static_cast<unsigned long long>(flags));
        return npu::rt::vmm::Reserve(size, alignment, expectPtr, flags != 0, virPtr);
    });
}

// A reservation whose memory avoids pages with uncorrectable errors (A3).
// The emulated HBM has none, so it is an aclrtReserveMemAddress with the
// sibling's extra rules: size in whole GiB, and expectPtr given (it must
// lie in the device window, as for aclrtReserveMemAddress).
aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment,
                                          void *expectPtr, uint64_t flags) {
    return RunApi("aclrtReserveMemAddressNoUCMemory", [&] {
        constexpr size_t kGiB = size_t{1} << 30;
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(size % kGiB == 0, "size %zu is not a multiple of 1 GiB", size);
        NPU_ACL_CHECK(expectPtr != nullptr, "expectPtr is NULL (this reservation needs one)");
        NPU_ACL_CHECK(flags <= 1, "flags 0x%llx is not 0 or 1",
                      static_cast<unsigned long long>(flags));
        return npu::rt::vmm::Reserve(size, alignment, expectPtr, flags != 0, virPtr);
    });
}

aclError aclrtReleaseMemAddress(void *virPtr) {
    return RunApi("aclrtReleaseMemAddress", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        return npu::rt::vmm::Release(virPtr);
    });
}

aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                     uint64_t flags) {
    return RunApi("aclrtMapMem",
                  [&] { return MapCommon(virPtr, size, offset, handle, flags, false); });
}

aclError aclrtMemMapNoAccess(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle,
                             uint64_t flags) {
    return RunApi("aclrtMemMapNoAccess",
                  [&] { return MapCommon(virPtr, size, offset, handle, flags, true); });
}

aclError aclrtUnmapMem(void *virPtr) {
    return RunApi("aclrtUnmapMem", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        return npu::rt::vmm::Unmap(virPtr);
    });
}

aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count) {
    return RunApi("aclrtMemSetAccess", [&] {
        NPU_RT_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_RT_CHECK(desc != nullptr, "desc is NULL");
        NPU_RT_CHECK(count != 0, "count is 0");
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(npu::rt::vmm::SessionOfAddress(virPtr, "virPtr", &s));
        for (size_t i = 0; i < count; ++i) {
            int32_t fl = EnumValue(desc[i].flags);
            int32_t type = EnumValue(desc[i].location.type);
            NPU_RT_CHECK(fl == ACL_RT_MEM_ACCESS_FLAGS_READWRITE,
                         "desc[%zu].flags %d: only ACL_RT_MEM_ACCESS_FLAGS_READWRITE is "
                         "supported",
                         i, fl);
            uint32_t loc_id = 0;
            if (type == ACL_MEM_LOCATION_TYPE_DEVICE) {
                NPU_RT_CHECK(AccessLocation(type, desc[i].location.id, &loc_id).ok(),
                             "desc[%zu].location.id %u is not a device", i, desc[i].location.id);
            } else {
                NPU_RT_CHECK(type == ACL_MEM_LOCATION_TYPE_HOST && desc[i].location.id == 0,
                             "desc[%zu].location (type %d, id %u) is not HOST 0 or a DEVICE", i,
                             type, desc[i].location.id);
            }
            NPU_RETURN_IF_ERROR(npu::rt::vmm::SetAccess(*s, virPtr, size, type, loc_id));
        }
        return Error::Ok();
    });
}

aclError aclrtMemGetAccess(void *virPtr, aclrtMemLocation *location, uint64_t *flag) {
    return RunApi("aclrtMemGetAccess", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_ACL_CHECK(location != nullptr, "location is NULL");
        NPU_ACL_CHECK(flag != nullptr, "flag is NULL");
        std::shared_ptr<DeviceSession> s;
        NPU_RETURN_IF_ERROR(npu::rt::vmm::SessionOfAddress(virPtr, "virPtr", &s));
        int32_t type = EnumValue(location->type);
        uint32_t loc_id = 0;
        NPU_RT_CHECK(AccessLocation(type, location->id, &loc_id).ok(),
                     "location->id %u is not a device", location->id);
        return npu::rt::vmm::GetAccess(*s, virPtr, type, loc_id, flag);
    });
}

aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle) {
    return RunApi("aclrtMemRetainAllocationHandle", [&] {
        NPU_ACL_CHECK(virPtr != nullptr, "virPtr is NULL");
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        return npu::rt::vmm::Retain(virPtr, handle);
    });
}

aclError aclrtMemGetAllocationPropertiesFromHandle(aclrtDrvMemHandle handle,
                                                   aclrtPhysicalMemProp *prop) {
    return RunApi("aclrtMemGetAllocationPropertiesFromHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(prop != nullptr, "prop is NULL");
        PhysRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::vmm::LookupHandle(handle, &ref));
        return npu::rt::vmm::Properties(ref, handle, prop);
    });
}

aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                         uint64_t flags, uint64_t *shareableHandle) {
    return RunApi("aclrtMemExportToShareableHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(EnumValue(handleType) == ACL_MEM_HANDLE_TYPE_NONE,
                      "handleType %d is not ACL_MEM_HANDLE_TYPE_NONE", EnumValue(handleType));
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        NPU_RT_CHECK(flags <= ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                     "flags 0x%llx is not 0 or ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
                     static_cast<unsigned long long>(flags));
        return npu::rt::vmm::ExportHandle(handle, flags != 0, shareableHandle);
    });
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum) {
    return RunApi("aclrtMemSetPidToShareableHandle", [&] {
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        NPU_ACL_CHECK(pidNum != 0, "pidNum is 0");
        return npu::rt::vmm::SetPidHandle(shareableHandle, pid, pidNum);
    });
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                           aclrtDrvMemHandle *handle) {
    return RunApi("aclrtMemImportFromShareableHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(DeviceManager::Get().ToPhysical(deviceId, &phys));
        // The target device needs a context (spec, threads and contexts).
        std::shared_ptr<DeviceSession> s = DeviceManager::Get().SessionOf(deviceId);
        if (!s || DeviceManager::Get().RefCount(deviceId) == 0) {
            return Error::Format(ACL_ERROR_RT_CONTEXT_NULL,
                                 "device %d is not set in this process (aclrtSetDevice)", deviceId);
        }
        return npu::rt::vmm::ImportHandle(shareableHandle, s, handle);
    });
}

aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                           aclrtMemSharedHandleType shareType,
                                           void *shareableHandle) {
    return RunApi("aclrtMemExportToShareableHandleV2", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        int32_t type = EnumValue(shareType);
        NPU_RETURN_IF_ERROR(CheckShareType(type));
        NPU_RT_CHECK(flags <= ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                     "flags 0x%llx is not 0 or ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
                     static_cast<unsigned long long>(flags));
        uint64_t share = 0;
        NPU_RETURN_IF_ERROR(npu::rt::vmm::ExportHandle(handle, flags != 0, &share));
        if (type == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
            std::memcpy(shareableHandle, &share, sizeof(share));
        } else {
            aclrtMemFabricHandle fab = {};
            std::memcpy(fab.data, kFabricMagic, sizeof(kFabricMagic));
            std::memcpy(fab.data + sizeof(kFabricMagic), &share, sizeof(share));
            std::memcpy(shareableHandle, &fab, sizeof(fab));
        }
        return Error::Ok();
    });
}

aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle,
                                             aclrtMemSharedHandleType shareType, uint64_t flags,
                                             aclrtDrvMemHandle *handle) {
    return RunApi("aclrtMemImportFromShareableHandleV2", [&] {
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(flags == 0, "flags 0x%llx must be 0", static_cast<unsigned long long>(flags));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        int32_t type = EnumValue(shareType);
        NPU_RETURN_IF_ERROR(CheckShareType(type));
        uint64_t share = 0;
        NPU_RETURN_IF_ERROR(ReadShareV2(shareableHandle, type, &share));
        return npu::rt::vmm::ImportHandle(share, ctx->session_ptr(), handle);
    });
}

aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle,
                                           aclrtMemSharedHandleType shareType, int32_t *pid,
                                           size_t pidNum) {
    return RunApi("aclrtMemSetPidToShareableHandleV2", [&] {
        NPU_ACL_CHECK(shareableHandle != nullptr, "shareableHandle is NULL");
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        NPU_ACL_CHECK(pidNum != 0, "pidNum is 0");
        int32_t type = EnumValue(shareType);
        NPU_RETURN_IF_ERROR(CheckShareType(type));
        uint64_t share = 0;
        NPU_RETURN_IF_ERROR(ReadShareV2(shareableHandle, type, &share));
        return npu::rt::vmm::SetPidHandle(share, pid, pidNum);
    });
}

// Interconnect link choices: the emulated devices of one host reach each
// other through the host's memory, with one path, so a choice is checked
// and has nothing to change.
aclError aclrtMemMapSelectedLink(void *virPtrDst, size_t size, void *virPtrSrc, uint32_t linkIdx) {
    return RunApi("aclrtMemMapSelectedLink", [&] {
        NPU_ACL_CHECK(virPtrDst != nullptr, "virPtrDst is NULL");
        NPU_ACL_CHECK(size != 0, "size is 0");
        NPU_ACL_CHECK(virPtrSrc != nullptr, "virPtrSrc is NULL");
        NPU_ACL_CHECK(linkIdx == ACL_RT_MEM_LINK_IDX_0 || linkIdx == ACL_RT_MEM_LINK_IDX_1,
                      "linkIdx %u is not ACL_RT_MEM_LINK_IDX_0 or _1", linkIdx);
        // Both ranges must be device memory this process has mapped.
        npu::rt::Operand dst, src;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(virPtrDst, size, "virPtrDst", &dst));
        return npu::rt::ClassifyDeviceChecked(virPtrSrc, size, "virPtrSrc", &src);
    });
}

aclError aclrtMemMapSetLink(aclrtDrvMemHandle handle, aclrtMemLinkType adviceLink) {
    return RunApi("aclrtMemMapSetLink", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        const int32_t link = EnumValue(adviceLink);
        NPU_ACL_CHECK(
            link >= ACL_RT_MEM_ACCESS_LINK_SIO && link <= ACL_RT_MEM_ACCESS_UB_MULTI_PORT_PATH,
            "adviceLink %d is not an aclrtMemLinkType (0..3)", link);
        // The handle must name live physical memory: its properties say so.
        PhysRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::vmm::LookupHandle(handle, &ref));
        aclrtPhysicalMemProp prop;
        return npu::rt::vmm::Properties(ref, handle, &prop);
    });
}
