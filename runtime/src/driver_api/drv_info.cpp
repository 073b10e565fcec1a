// SPDX-License-Identifier: MIT
// Device and process queries, memory information, and the task-queue and
// notify names callers resolve but this device cannot serve (their streams
// run in the runtime, not on user-visible hardware queues).
#include "driver_api/drv_common.h"

using npu::drv::AnyContextScope;
using npu::drv::DeviceScope;
using npu::drv::FromAcl;
using npu::drv::Refuse;

namespace {

drvError_t LogicToPhys(uint32_t logic, uint32_t *phys) {
    int32_t p = 0;
    aclError err = aclrtGetPhyDevIdByLogicDevId(static_cast<int32_t>(logic), &p);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *phys = static_cast<uint32_t>(p);
    return DRV_ERROR_NONE;
}

drvError_t PhysToLogic(uint32_t phys, uint32_t *logic) {
    int32_t l = 0;
    aclError err = aclrtGetLogicDevIdByPhyDevId(static_cast<int32_t>(phys), &l);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *logic = static_cast<uint32_t>(l);
    return DRV_ERROR_NONE;
}

drvError_t NotSupported(const char *api) {
    return Refuse(DRV_ERROR_NOT_SUPPORT,
                  "%s: the device has no user-visible hardware task queues or notify registers",
                  api);
}

}  // namespace

NPU_DRV_API drvError_t drvGetDevNum(uint32_t *num_dev) {
    if (num_dev == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvGetDevNum: num_dev is NULL");
    uint32_t n = 0;
    aclError err = aclrtGetDeviceCount(&n);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    *num_dev = n;
    return DRV_ERROR_NONE;
}

NPU_DRV_API drvError_t drvGetDevIDByLocalDevID(uint32_t localDevId, uint32_t *devId) {
    if (devId == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvGetDevIDByLocalDevID: devId is NULL");
    return LogicToPhys(localDevId, devId);
}

NPU_DRV_API drvError_t drvGetLocalDevIDByHostDevID(uint32_t host_dev_id, uint32_t *local_dev_id) {
    if (local_dev_id == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvGetLocalDevIDByHostDevID: local_dev_id is NULL");
    return PhysToLogic(host_dev_id, local_dev_id);
}

NPU_DRV_API drvError_t drvGetPhyIdByIndex(uint32_t devIndex, uint32_t *phyId) {
    if (phyId == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvGetPhyIdByIndex: phyId is NULL");
    return LogicToPhys(devIndex, phyId);
}

NPU_DRV_API drvError_t drvGetIndexByPhyId(uint32_t phyId, uint32_t *devIndex) {
    if (devIndex == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "drvGetIndexByPhyId: devIndex is NULL");
    return PhysToLogic(phyId, devIndex);
}

NPU_DRV_API drvError_t halGetDeviceInfo(uint32_t devId, int32_t moduleType, int32_t infoType,
                                        int64_t *value) {
    if (value == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halGetDeviceInfo: value is NULL");
    uint32_t count = 0;
    aclError err = aclrtGetDeviceCount(&count);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    if (devId >= count)
        return Refuse(DRV_ERROR_INVALID_DEVICE, "halGetDeviceInfo: device %u of %u", devId, count);
    uint32_t phys = 0;
    aclrtDevAttr attr;
    switch (moduleType * 1000 + infoType) {
        case MODULE_TYPE_SYSTEM * 1000 + INFO_TYPE_PHY_CHIP_ID: {
            drvError_t ret = LogicToPhys(devId, &phys);
            if (ret == DRV_ERROR_NONE)
                *value = phys;
            return ret;
        }
        case MODULE_TYPE_SYSTEM * 1000 + INFO_TYPE_PHY_DIE_ID:
        case MODULE_TYPE_SYSTEM * 1000 + INFO_TYPE_MASTERID:
        case MODULE_TYPE_SYSTEM * 1000 + INFO_TYPE_SDID:
        case MODULE_TYPE_SYSTEM * 1000 + INFO_TYPE_SERVER_ID:
        case MODULE_TYPE_SYSTEM * 1000 + INFO_TYPE_SUPER_POD_ID:
            *value = 0;  // one die, one server, no super pod
            return DRV_ERROR_NONE;
        case MODULE_TYPE_AICORE * 1000 + INFO_TYPE_CORE_NUM:
            attr = ACL_DEV_ATTR_AICORE_CORE_NUM;
            break;
        case MODULE_TYPE_AICPU * 1000 + INFO_TYPE_CORE_NUM:
            attr = ACL_DEV_ATTR_AICPU_CORE_NUM;
            break;
        case MODULE_TYPE_VECTOR_CORE * 1000 + INFO_TYPE_CORE_NUM:
            attr = ACL_DEV_ATTR_VECTOR_CORE_NUM;
            break;
        default:
            return Refuse(DRV_ERROR_NOT_SUPPORT,
                          "halGetDeviceInfo: module %d, info %d is not reported by this device",
                          moduleType, infoType);
    }
    return FromAcl(aclrtGetDeviceInfo(devId, attr, value));
}

NPU_DRV_API pid_t drvDeviceGetBareTgid(void) {
    int32_t pid = 0;
    if (aclrtDeviceGetBareTgid(&pid) != ACL_SUCCESS)
        return -1;
    return static_cast<pid_t>(pid);
}

NPU_DRV_API DVresult halMemGetInfoEx(DVdevice device, unsigned int type, struct MemInfo *info) {
    if (info == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halMemGetInfo: info is NULL");
    aclrtMemAttr attr;
    switch (type) {
        case MEM_INFO_TYPE_DDR_SIZE:
            attr = ACL_DDR_MEM;
            break;
        case MEM_INFO_TYPE_HBM_SIZE:
            attr = ACL_HBM_MEM;
            break;
        case MEM_INFO_TYPE_DDR_P2P_SIZE:
            attr = ACL_DDR_MEM_P2P_NORMAL;
            break;
        case MEM_INFO_TYPE_HBM_P2P_SIZE:
            attr = ACL_HBM_MEM_P2P_NORMAL;
            break;
        case MEM_INFO_TYPE_ADDR_CHECK: {
            struct MemAddrInfo &ai = info->addr_info;
            if (ai.addr == nullptr || ai.cnt == 0 || ai.cnt > SVM_ADDR_CHECK_MAX_NUM)
                return Refuse(DRV_ERROR_INVALID_VALUE,
                              "halMemGetInfo: addr_info.addr is NULL or cnt %u is not 1..%u",
                              ai.cnt, SVM_ADDR_CHECK_MAX_NUM);
            AnyContextScope scope;
            if (scope.status() != DRV_ERROR_NONE)
                return scope.status();
            ai.flag = 1;
            for (unsigned i = 0; i < ai.cnt; ++i) {
                aclrtPtrAttributes pa = {};
                if (ai.addr[i] == nullptr)
                    return Refuse(DRV_ERROR_INVALID_VALUE,
                                  "halMemGetInfo: addr_info.addr[%u] is NULL", i);
                void *p = reinterpret_cast<void *>(static_cast<uintptr_t>(*ai.addr[i]));
                if (aclrtPointerGetAttributes(p, &pa) != ACL_SUCCESS ||
                    pa.location.type != ACL_MEM_LOCATION_TYPE_DEVICE) {
                    (void)aclGetRecentErrMsg();
                    ai.flag = 0;
                }
            }
            return DRV_ERROR_NONE;
        }
        default:
            return Refuse(type < MEM_INFO_TYPE_MAX && type != 0 ? DRV_ERROR_NOT_SUPPORT
                                                                : DRV_ERROR_INVALID_VALUE,
                          "halMemGetInfo: type %u is not reported by this device", type);
    }
    DeviceScope scope(device);
    if (scope.status() != DRV_ERROR_NONE)
        return Refuse(scope.status(), "halMemGetInfo: device %u cannot be opened", device);
    size_t free = 0, total = 0;
    aclError err = aclrtGetMemInfo(attr, &free, &total);
    if (err != ACL_SUCCESS)
        return FromAcl(err);
    info->phy_info = MemPhyInfo{};
    info->phy_info.total = total;
    info->phy_info.free = free;
    info->phy_info.huge_total = total;
    info->phy_info.huge_free = free;
    return DRV_ERROR_NONE;
}

NPU_DRV_API DVresult halMemGetInfo(DVdevice device, unsigned int type, struct MemInfo *info) {
    return halMemGetInfoEx(device, type, info);
}

NPU_DRV_API drvError_t halSqCqQuery(uint32_t devId, struct halSqCqQueryInfo *info) {
    (void)devId;
    if (info == nullptr)
        return Refuse(DRV_ERROR_INVALID_VALUE, "halSqCqQuery: info is NULL");
    return NotSupported("halSqCqQuery");
}

#define NPU_DRV_UNSUPPORTED(name, params, check)                                   \
    NPU_DRV_API drvError_t name params {                                           \
        if (!(check))                                                              \
            return Refuse(DRV_ERROR_INVALID_VALUE, #name ": an argument is NULL"); \
        return NotSupported(#name);                                                \
    }

NPU_DRV_UNSUPPORTED(halSqCqAllocate,
                    (uint32_t, struct halSqCqInputInfo *in, struct halSqCqOutputInfo *out),
                    in != nullptr && out != nullptr)
NPU_DRV_UNSUPPORTED(halSqCqFree, (uint32_t, struct halSqCqFreeInfo *info), info != nullptr)
NPU_DRV_UNSUPPORTED(halSqCqConfig, (uint32_t, struct halSqCqConfigInfo *info), info != nullptr)
NPU_DRV_UNSUPPORTED(halSqTaskSend, (uint32_t, struct halTaskSendInfo *info), info != nullptr)
NPU_DRV_UNSUPPORTED(halCqReportRecv, (uint32_t, struct halReportRecvInfo *info), info != nullptr)
NPU_DRV_UNSUPPORTED(halResourceIdAlloc,
                    (uint32_t, struct halResourceIdInputInfo *in,
                     struct halResourceIdOutputInfo *out),
                    in != nullptr && out != nullptr)
NPU_DRV_UNSUPPORTED(halResourceIdFree, (uint32_t, struct halResourceIdInputInfo *in), in != nullptr)
NPU_DRV_UNSUPPORTED(halResourceConfig,
                    (uint32_t, struct halResourceIdInputInfo *in,
                     struct halResourceConfigInfo *para),
                    in != nullptr && para != nullptr)
NPU_DRV_UNSUPPORTED(halResourceIdRestore, (struct drvResIdKey * info), info != nullptr)
NPU_DRV_UNSUPPORTED(drvNotifyIdAddrOffset, (uint32_t, struct drvNotifyInfo *info), info != nullptr)
