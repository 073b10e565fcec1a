// SPDX-License-Identifier: MIT
// rtGetDeviceInfo: the driver's (module, info) pairs that have an
// aclrtGetDeviceInfo attribute, answered through it.
#include <climits>

#include "rt_api/rt_call.h"

using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;

namespace {

// The driver's DEV_MODULE_TYPE and DEV_INFO_TYPE values used here
// (ascend_hal.h).
enum : int32_t {
    kModuleSystem = 0,
    kModuleAiCpu = 1,
    kModuleAiCore = 4,
    kModuleVectorCore = 7,
};
enum : int32_t {
    kInfoCoreNum = 3,
    kInfoPhyChipId = 18,
    kInfoPhyDieId = 19,
    kInfoSdid = 26,
    kInfoServerId = 27,
    kInfoScaleType = 28,
    kInfoSuperPodId = 29,
};

Error Attr(uint32_t deviceId, aclrtDevAttr attr, int64_t *val) {
    return FromAcl(aclrtGetDeviceInfo(deviceId, attr, val), "aclrtGetDeviceInfo");
}

}  // namespace

rtError_t rtGetDeviceInfo(uint32_t deviceId, int32_t moduleType, int32_t infoType, int64_t *val) {
    return RunApi("rtGetDeviceInfo", [&]() -> Error {
        NPU_RT_CHECK(val != nullptr, "val is NULL");
        NPU_RT_CHECK(moduleType >= 0, "moduleType %d is not a module type", moduleType);
        NPU_RT_CHECK(infoType >= 0, "infoType %d is not an info type", infoType);
        // Every answer first checks the device (the chip id is always there).
        int64_t chip = 0;
        NPU_RETURN_IF_ERROR(Attr(deviceId, ACL_DEV_ATTR_PHY_CHIP_ID, &chip));
        if (infoType == kInfoCoreNum) {
            switch (moduleType) {
                case kModuleSystem:
                    *val = 1;  // one task scheduler
                    return Error::Ok();
                case kModuleAiCpu:
                    return Attr(deviceId, ACL_DEV_ATTR_AICPU_CORE_NUM, val);
                case kModuleAiCore:
                    return Attr(deviceId, ACL_DEV_ATTR_AICORE_CORE_NUM, val);
                case kModuleVectorCore:
                    return Attr(deviceId, ACL_DEV_ATTR_VECTOR_CORE_NUM, val);
                default:
                    break;
            }
        }
        if (moduleType == kModuleSystem) {
            switch (infoType) {
                case kInfoPhyChipId:
                    *val = chip;
                    return Error::Ok();
                case kInfoPhyDieId:
                    *val = 0;  // one die per chip
                    return Error::Ok();
                case kInfoSdid:
                case kInfoServerId:
                case kInfoScaleType:
                case kInfoSuperPodId:
                    return Attr(deviceId, ACL_DEV_ATTR_SUPER_POD_ID, val);
                default:
                    break;
            }
        }
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "moduleType %d with infoType %d is not known on this device "
                             "(core counts, the chip and die ids are)",
                             moduleType, infoType);
    });
}
