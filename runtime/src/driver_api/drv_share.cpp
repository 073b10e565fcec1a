// SPDX-License-Identifier: MIT
// Shareable handles of physical memory, V1 (a 64-bit value) and V2 (struct
// MemShareHandle), over aclrtMemExportToShareableHandle and its import.
//
// V1 exports keep a whitelist (halMemSetPidToShareableHandle adds to it).
// V2 exports are made without one, which is what
// halMemShareHandleSetAttribute(SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER) asks
// for: the driver fixes the whitelist choice when a handle is exported, and
// V2's callers turn the whitelist off right after exporting.
#include <cstring>

#include "driver_api/drv_common.h"

using npu::drv::DeviceScope;
using npu::drv::FindShare;
using npu::drv::FromAcl;
using npu::drv::MarkSharePids;
using npu::drv::Raw;
using npu::drv::Refuse;
using npu::drv::RememberShare;
using npu::drv::ShareRecord;

namespace {

// struct MemShareHandle of this implementation.
constexpr char kMagic[8] = {'N', 'P', 'U', 'S', 'H', 'R', '2', '\0'};
struct ShareInfo {
    char magic[8];
    uint32_t handle_type;
    uint32_t server_id;  // always 0: one server
    uint64_t share;
    uint32_t phys_dev;
};
static_assert(sizeof(ShareInfo) <= MEM_SHARE_HANDLE_LEN);

aclrtDrvMemHandle AclHandle(drv_mem_handle_t *h) {
    return reinterpret_cast<aclrtDrvMemHandle>(h);
}

drvError_t ReadInfo(const char *api, drv_mem_handle_type type, const struct MemShareHandle *sh,
                    ShareInfo *info) {
    if (sh == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: share_handle is NULL", api);
    if (Raw(type) != MEM_HANDLE_TYPE_NONE && Raw(type) != MEM_HANDLE_TYPE_FABRIC)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: handle_type %u is not NONE or FABRIC", api,
                      Raw(type));
    std::memcpy(info, sh->share_info, sizeof(*info));
    if (std::memcmp(info->magic, kMagic, sizeof(kMagic)) != 0)
        return Refuse(DRV_ERROR_INVALID_HANDLE,
                      "%s: share_handle was not made by halMemExportToShareableHandleV2", api);
    if (info->handle_type != Raw(type))
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "%s: handle_type %u is not the type the handle was exported with (%u)", api,
                      Raw(type), info->handle_type);
    return DRV_ERROR_NONE;
}

// The physical device of the memory behind an acl handle (0 if unknown).
uint32_t PhysDevOf(aclrtDrvMemHandle h) {
    aclrtPhysicalMemProp prop = {};
    int32_t phys = 0;
    if (aclrtMemGetAllocationPropertiesFromHandle(h, &prop) != ACL_SUCCESS ||
        prop.location.type != ACL_MEM_LOCATION_TYPE_DEVICE ||
        aclrtGetPhyDevIdByLogicDevId(static_cast<int32_t>(prop.location.id), &phys) != ACL_SUCCESS)
        return 0;
    return static_cast<uint32_t>(phys);
}

drvError_t Export(drv_mem_handle_t *handle, bool v2, uint64_t *share) {
    aclError err = aclrtMemExportToShareableHandle(
        AclHandle(handle), ACL_MEM_HANDLE_TYPE_NONE,
        v2 ? ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION : 0, share);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    ShareRecord rec;
    rec.v2 = v2;
    rec.phys_dev = PhysDevOf(AclHandle(handle));
    RememberShare(*share, rec);
    return DRV_ERROR_NONE;
}

drvError_t Import(uint64_t share, uint32_t devid, drv_mem_handle_t **handle) {
    DeviceScope scope(devid);
    if (scope.status() != DRV_ERROR_NONE)
        return Refuse(scope.status(), "import: device %u cannot be opened", devid);
    aclrtDrvMemHandle h = nullptr;
    aclError err = aclrtMemImportFromShareableHandle(share, static_cast<int32_t>(devid), &h);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *handle = reinterpret_cast<drv_mem_handle_t *>(h);
    return DRV_ERROR_NONE;
}

}  // namespace

NPU_DRV_API drvError_t halMemExportToShareableHandle(drv_mem_handle_t *handle,
                                                     drv_mem_handle_type handle_type,
                                                     uint64_t flags, uint64_t *shareable_handle) {
    if (handle == nullptr || shareable_handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemExportToShareableHandle: handle or shareable_handle is NULL");
    if (Raw(handle_type) != MEM_HANDLE_TYPE_NONE)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemExportToShareableHandle: handle_type %d must be MEM_HANDLE_TYPE_NONE",
                      static_cast<int>(Raw(handle_type)));
    if (flags != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemExportToShareableHandle: flags must be 0");
    return Export(handle, false, shareable_handle);
}

NPU_DRV_API drvError_t halMemExportToShareableHandleV2(drv_mem_handle_t *handle,
                                                       drv_mem_handle_type handle_type,
                                                       uint64_t flags,
                                                       struct MemShareHandle *share_handle) {
    if (handle == nullptr || share_handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemExportToShareableHandleV2: handle or share_handle is NULL");
    if (Raw(handle_type) != MEM_HANDLE_TYPE_NONE && Raw(handle_type) != MEM_HANDLE_TYPE_FABRIC)
        return Refuse(
            handle_type == MEM_HANDLE_TYPE_POSIX ? DRV_ERROR_NOT_SUPPORT : DRV_ERROR_INVALID_VALUE,
            "halMemExportToShareableHandleV2: handle_type %d is not NONE or FABRIC",
            static_cast<int>(Raw(handle_type)));
    if (flags != 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemExportToShareableHandleV2: flags must be 0");
    uint64_t share = 0;
    drvError_t ret = Export(handle, true, &share);
    if (ret != DRV_ERROR_NONE)
        return ret;
    ShareInfo info = {};
    std::memcpy(info.magic, kMagic, sizeof(kMagic));
    info.handle_type = Raw(handle_type);
    info.share = share;
    info.phys_dev = PhysDevOf(AclHandle(handle));
    std::memset(share_handle, 0, sizeof(*share_handle));
    std::memcpy(share_handle->share_info, &info, sizeof(info));
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemImportFromShareableHandle(uint64_t shareable_handle, uint32_t devid,
                                                       drv_mem_handle_t **handle) {
    if (handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemImportFromShareableHandle: handle is NULL");
    return Import(shareable_handle, devid, handle);
}

NPU_DRV_API drvError_t halMemImportFromShareableHandleV2(drv_mem_handle_type handle_type,
                                                         struct MemShareHandle *share_handle,
                                                         uint32_t devid,
                                                         drv_mem_handle_t **handle) {
    if (handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemImportFromShareableHandleV2: handle is NULL");
    ShareInfo info;
    drvError_t ret =
        ReadInfo("halMemImportFromShareableHandleV2", handle_type, share_handle, &info);
    if (ret != DRV_ERROR_NONE)
        return ret;
    return Import(info.share, devid, handle);
}

NPU_DRV_API drvError_t halMemTransShareableHandle(drv_mem_handle_type handle_type,
                                                  struct MemShareHandle *share_handle,
                                                  uint32_t *server_id, uint64_t *shareable_handle) {
    if (server_id == nullptr || shareable_handle == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemTransShareableHandle: server_id or shareable_handle is NULL");
    ShareInfo info;
    drvError_t ret = ReadInfo("halMemTransShareableHandle", handle_type, share_handle, &info);
    if (ret != DRV_ERROR_NONE)
        return ret;
    *server_id = info.server_id;
    *shareable_handle = info.share;
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemSetPidToShareableHandle(uint64_t shareable_handle, int pid[],
                                                     uint32_t pid_num) {
    if (pid == nullptr || pid_num == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halMemSetPidToShareableHandle: pid is NULL or pid_num is 0");
    ShareRecord rec;
    if (FindShare(shareable_handle, &rec) && rec.v2)
        return Refuse(DRV_ERROR_OPER_NOT_PERMITTED,
                      "halMemSetPidToShareableHandle: 0x%llx was exported by "
                      "halMemExportToShareableHandleV2, without a whitelist",
                      static_cast<unsigned long long>(shareable_handle));
    aclError err = aclrtMemSetPidToShareableHandle(shareable_handle, pid, pid_num);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    MarkSharePids(shareable_handle);
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemShareHandleSetAttribute(uint64_t shareable_handle,
                                                     enum ShareHandleAttrType type,
                                                     struct ShareHandleAttr attr) {
    if (Raw(type) != SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemShareHandleSetAttribute: type %d is unknown",
                      static_cast<int>(Raw(type)));
    if (attr.enableFlag != SHR_HANDLE_NO_WLIST_ENABLE)
        return Refuse(attr.enableFlag == SHR_HANDLE_WLIST_ENABLE ? DRV_ERROR_NOT_SUPPORT
                                                                 : DRV_ERROR_INVALID_VALUE,
                      "halMemShareHandleSetAttribute: enableFlag %u: only "
                      "SHR_HANDLE_NO_WLIST_ENABLE can be set",
                      attr.enableFlag);
    ShareRecord rec;
    if (!FindShare(shareable_handle, &rec))
        return Refuse(DRV_ERROR_OPER_NOT_PERMITTED,
                      "halMemShareHandleSetAttribute: 0x%llx was not exported by this process",
                      static_cast<unsigned long long>(shareable_handle));
    if (rec.pids_set)
        return Refuse(DRV_ERROR_OPER_NOT_PERMITTED,
                      "halMemShareHandleSetAttribute: 0x%llx has a whitelist already",
                      static_cast<unsigned long long>(shareable_handle));
    if (!rec.v2)
        return Refuse(DRV_ERROR_NOT_SUPPORT,
                      "halMemShareHandleSetAttribute: 0x%llx was exported with a whitelist "
                      "(halMemExportToShareableHandle); export with "
                      "halMemExportToShareableHandleV2 to share without one",
                      static_cast<unsigned long long>(shareable_handle));
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemShareHandleGetAttribute(uint64_t shareable_handle,
                                                     enum ShareHandleAttrType type,
                                                     struct ShareHandleAttr *attr) {
    if (attr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemShareHandleGetAttribute: attr is NULL");
    if (Raw(type) != SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemShareHandleGetAttribute: type %d is unknown",
                      static_cast<int>(Raw(type)));
    ShareRecord rec;
    if (!FindShare(shareable_handle, &rec))
        return Refuse(DRV_ERROR_OPER_NOT_PERMITTED,
                      "halMemShareHandleGetAttribute: 0x%llx was not exported by this process",
                      static_cast<unsigned long long>(shareable_handle));
    *attr = ShareHandleAttr{};
    attr->enableFlag = rec.v2 ? SHR_HANDLE_NO_WLIST_ENABLE : SHR_HANDLE_WLIST_ENABLE;
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t halMemShareHandleInfoGet(uint64_t shareable_handle,
                                                struct ShareHandleGetInfo *info) {
    if (info == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemShareHandleInfoGet: info is NULL");
    ShareRecord rec;
    if (!FindShare(shareable_handle, &rec))
        return Refuse(DRV_ERROR_NOT_SUPPORT,
                      "halMemShareHandleInfoGet: only handles exported by this process are known");
    *info = ShareHandleGetInfo{};
    info->phyDevid = rec.phys_dev;
    return DRV_ERROR_NONE;
}
