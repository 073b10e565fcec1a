// SPDX-License-Identifier: MIT
// halShmem*: named IPC memory over aclrtIpcMemGetExportKey and its
// siblings. A name is an IPC key; an exporter's name keeps its whitelist
// (halShmemSetPidHandle adds to it).
#include <cstring>

#include "driver_api/drv_common.h"

using npu::drv::AnyContextScope;
using npu::drv::DeviceScope;
using npu::drv::FromAcl;
using npu::drv::Raw;
using npu::drv::Refuse;

namespace {

constexpr size_t kMaxName = 128;

drvError_t CheckName(const char *api, const char *name) {
    if (name == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: name is NULL", api);
    if (name[0] == '\0' || strnlen(name, kMaxName) == kMaxName)
        return Refuse(DRV_ERROR_INVALID_VALUE, "%s: name is empty or not terminated", api);
    return DRV_ERROR_NONE;
}

drvError_t Open(const char *name, DVdeviceptr *vptr) {
    void *p = nullptr;
    aclError err = aclrtIpcMemImportByKey(&p, name, 0);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *vptr = reinterpret_cast<uintptr_t>(p);
    npu::drv::RememberShmem(*vptr, name);
    return DRV_ERROR_NONE;
}

}  // namespace

NPU_DRV_API DVresult halShmemCreateHandle(DVdeviceptr vptr, size_t byte_count, char *name,
                                          uint32_t name_len) {
    if (vptr == 0 || name == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemCreateHandle: vptr is 0 or name is NULL");
    if (byte_count == 0 || name_len == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemCreateHandle: byte_count or name_len is 0");
    AnyContextScope scope;
    if (scope.status() != DRV_ERROR_NONE)
        return scope.status();
    return FromAcl(aclrtIpcMemGetExportKey(reinterpret_cast<void *>(static_cast<uintptr_t>(vptr)),
                                           byte_count, name, name_len, 0));
}

NPU_DRV_API DVresult halShmemDestroyHandle(const char *name) {
    drvError_t ret = CheckName("halShmemDestroyHandle", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    return FromAcl(aclrtIpcMemClose(name));
}

NPU_DRV_API DVresult halShmemSetPidHandle(const char *name, int pid[], int num) {
    drvError_t ret = CheckName("halShmemSetPidHandle", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    if (pid == nullptr || num <= 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemSetPidHandle: pid is NULL or num %d <= 0",
                      num);
    return FromAcl(aclrtIpcMemSetImportPid(name, pid, static_cast<size_t>(num)));
}

NPU_DRV_API DVresult halShmemSetPodPid(const char *name, uint32_t sdid, int pid[], int num) {
    (void)sdid;
    drvError_t ret = CheckName("halShmemSetPodPid", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    if (pid == nullptr || num <= 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemSetPodPid: pid is NULL or num %d <= 0",
                      num);
    return Refuse(DRV_ERROR_NOT_SUPPORT,
                  "halShmemSetPodPid: there is no super pod; whitelist local processes with "
                  "halShmemSetPidHandle");
}

NPU_DRV_API DVresult halShmemOpenHandle(const char *name, DVdeviceptr *vptr) {
    drvError_t ret = CheckName("halShmemOpenHandle", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    if (vptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemOpenHandle: vptr is NULL");
    AnyContextScope scope;
    if (scope.status() != DRV_ERROR_NONE)
        return scope.status();
    return Open(name, vptr);
}

NPU_DRV_API DVresult halShmemOpenHandleByDevId(DVdevice dev_id, const char *name,
                                               DVdeviceptr *vptr) {
    drvError_t ret = CheckName("halShmemOpenHandleByDevId", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    if (vptr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemOpenHandleByDevId: vptr is NULL");
    DeviceScope scope(dev_id);
    if (scope.status() != DRV_ERROR_NONE)
        return Refuse(scope.status(), "halShmemOpenHandleByDevId: device %u cannot be opened",
                      dev_id);
    return Open(name, vptr);
}

NPU_DRV_API DVresult halShmemCloseHandle(DVdeviceptr vptr) {
    char name[kMaxName];
    if (vptr == 0)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemCloseHandle: vptr is 0");
    if (!npu::drv::TakeShmem(vptr, name, sizeof(name)))
        return Refuse(DRV_ERROR_INVALID_VALUE,
                      "halShmemCloseHandle: 0x%llx was not opened by halShmemOpenHandle",
                      static_cast<unsigned long long>(vptr));
    drvError_t ret = FromAcl(aclrtIpcMemClose(name));
    if (ret != DRV_ERROR_NONE)
        npu::drv::RememberShmem(vptr, name);
    return ret;
}

NPU_DRV_API DVresult halShmemSetAttribute(const char *name, uint32_t type, uint64_t attr) {
    drvError_t ret = CheckName("halShmemSetAttribute", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    switch (type) {
        case SHMEM_ATTR_TYPE_MEM_MAP:
            // MEM_MAP_INBUS/EXBUS/UB paths are the acl layer's access links.
            if (attr > 3)
                return Refuse(DRV_ERROR_INVALID_VALUE,
                              "halShmemSetAttribute: map path %llu is not 0..3",
                              static_cast<unsigned long long>(attr));
            return FromAcl(aclrtIpcMemSetAttr(name, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, attr));
        case SHMEM_ATTR_TYPE_NO_WLIST_IN_SERVER:
            if (attr != SHMEM_NO_WLIST_ENABLE && attr != SHMEM_WLIST_ENABLE)
                return Refuse(DRV_ERROR_INVALID_VALUE,
                              "halShmemSetAttribute: value %llu is not 0 "
                              "or 1",
                              static_cast<unsigned long long>(attr));
            return Refuse(DRV_ERROR_NOT_SUPPORT,
                          "halShmemSetAttribute: a name keeps the whitelist it was created with; "
                          "add processes with halShmemSetPidHandle");
        default:
            return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemSetAttribute: type %u is unknown",
                          type);
    }
}

NPU_DRV_API DVresult halShmemGetAttribute(const char *name, enum ShmemAttrType type,
                                          uint64_t *attr) {
    drvError_t ret = CheckName("halShmemGetAttribute", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    if (attr == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemGetAttribute: attr is NULL");
    if (Raw(type) != SHMEM_ATTR_TYPE_MEM_MAP && Raw(type) != SHMEM_ATTR_TYPE_NO_WLIST_IN_SERVER)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemGetAttribute: type %d is unknown",
                      static_cast<int>(Raw(type)));
    return Refuse(DRV_ERROR_NOT_SUPPORT,
                  "halShmemGetAttribute: the driver does not report a name's attributes");
}

NPU_DRV_API DVresult halShmemInfoGet(const char *name, struct ShmemGetInfo *info) {
    drvError_t ret = CheckName("halShmemInfoGet", name);
    if (ret != DRV_ERROR_NONE)
        return ret;
    if (info == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halShmemInfoGet: info is NULL");
    return Refuse(DRV_ERROR_NOT_SUPPORT,
                  "halShmemInfoGet: the driver does not report a name's device");
}
