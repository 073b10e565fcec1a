// SPDX-License-Identifier: MIT
// Device information: aclrtGetDeviceInfo, aclGetDeviceCapability,
// aclrtGetDeviceCapability, aclrtQueryDeviceStatus,
// aclrtGetDeviceUtilizationRate, aclrtCheckArchCompatibility,
// aclrtDeviceGetUuid, aclrtDeviceGetPCIBusId, aclrtDeviceGetByPCIBusId,
// aclrtGetDevicesTopo, the six device-id mappings,
// aclrtDevicePeerAccessStatus, aclrtDeviceGetHostAtomicCapabilities,
// aclrtDeviceGetP2PAtomicCapabilities, and the fault queries
// aclrtGetErrorVerbose and aclrtRepairError. None needs aclInit or a set
// device. What the figures are is said in core/device_info.h.
#include <cstring>
#include <string>
#include <string_view>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_info.h"
#include "core/device_manager.h"
#include "core/peer_access.h"

using npu::rt::DeviceManager;
using npu::rt::DeviceProfile;
using npu::rt::EnumValue;
using npu::rt::Error;
using npu::rt::RunApi;

namespace {

// The physical id of a visible user device; ACL_ERROR_RT_INVALID_DEVICEID
// otherwise.
Error CheckDevice(int32_t user_id, uint32_t *phys = nullptr) {
    uint32_t p = 0;
    NPU_RETURN_IF_ERROR(DeviceManager::Get().ToPhysical(user_id, &p));
    if (phys != nullptr)
        *phys = p;
    return Error::Ok();
}

// The NPU architecture of a SoC name (its family), 0 when the name is not
// one this runtime knows.
int32_t ArchOf(std::string_view soc) {
    static const struct {
        const char *prefix;
        int32_t arch;
    } kFamilies[] = {
        {"Ascend910B", 2201},    {"Ascend910_93", 2201},  {"Ascend310P", 2002},
        {"Ascend310B", 3002},    {"Ascend950", 3510},     {"Ascend910PremiumA", 1001},
        {"Ascend910ProA", 1001}, {"Ascend910ProB", 1001}, {"Ascend910A", 1001},
        {"Ascend310", 1002},     {"Ascend610", 2002},     {"BS9SX1A", 2002},
    };
    for (const auto &f : kFamilies) {
        std::string_view prefix(f.prefix);
        if (soc.substr(0, prefix.size()) == prefix)
            return f.arch;
    }
    return 0;
}

// The answer of both atomic-capability queries: the emulated device runs
// no atomic operation for the host or for a peer (its copy engine only
// copies), so every capability word is 0. Checks the arrays and the ops.
Error NoAtomicCapabilities(uint32_t *capabilities, const aclrtAtomicOperation *operations,
                           uint32_t count) {
    NPU_ACL_CHECK(capabilities != nullptr, "capabilities is NULL");
    NPU_ACL_CHECK(operations != nullptr, "operations is NULL");
    NPU_ACL_CHECK(count != 0, "count is 0");
    for (uint32_t i = 0; i < count; i++) {
        int32_t op = EnumValue(operations[i]);
        bool known =
            (op >= ACL_RT_ATOMIC_OPERATION_INTEGER_ADD &&
             op <= ACL_RT_ATOMIC_OPERATION_FLOAT_MAX) ||
            (op >= ACL_RT_ATOMIC_OPERATION_DMA_ADD && op <= ACL_RT_ATOMIC_OPERATION_DMA_MAX);
        NPU_ACL_CHECK(known, "operations[%u] = %d is not an aclrtAtomicOperation", i, op);
    }
    std::memset(capabilities, 0, sizeof(*capabilities) * count);
    return Error::Ok();
}

}  // namespace

aclError aclrtGetDeviceInfo(uint32_t deviceId, aclrtDevAttr attr, int64_t *value) {
    return RunApi("aclrtGetDeviceInfo", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        uint32_t count = 0;
        NPU_RETURN_IF_ERROR(DeviceManager::Get().DeviceCount(&count));
        NPU_RT_CHECK(deviceId < count, "invalid device id %u (%u device(s) visible)", deviceId,
                     count);
        int32_t user = static_cast<int32_t>(deviceId);
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(CheckDevice(user, &phys));
        int32_t a = EnumValue(attr);
        switch (a) {
            case ACL_DEV_ATTR_AICPU_CORE_NUM:
                *value = DeviceProfile::kAiCpuCores;
                return Error::Ok();
            case ACL_DEV_ATTR_AICORE_CORE_NUM:
            case ACL_DEV_ATTR_CUBE_CORE_NUM:
                *value = DeviceProfile::kAiCores;
                return Error::Ok();
            case ACL_DEV_ATTR_VECTOR_CORE_NUM:
                *value = DeviceProfile::kVectorCores;
                return Error::Ok();
            case ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE: {
                uint64_t bytes = 0;
                NPU_RETURN_IF_ERROR(npu::rt::DeviceMemorySize(user, &bytes));
                *value = static_cast<int64_t>(bytes);
                return Error::Ok();
            }
            case ACL_DEV_ATTR_L2_CACHE_SIZE:
                *value = DeviceProfile::kL2Bytes;
                return Error::Ok();
            case ACL_DEV_ATTR_SMP_ID:
            case ACL_DEV_ATTR_CUST_OP_PRIVILEGE:
            case ACL_DEV_ATTR_MAINBOARD_ID:
            case ACL_DEV_ATTR_IS_VIRTUAL:
                *value = 0;
                return Error::Ok();
            case ACL_DEV_ATTR_PHY_CHIP_ID:
                *value = phys;
                return Error::Ok();
            case ACL_DEV_ATTR_HD_CONNECT_TYPE:
                *value = ACL_HOST_DEVICE_CONNECT_TYPE_PCIE;
                return Error::Ok();
            case ACL_DEV_ATTR_DEVICE_FORM_FACTOR:
                *value = ACL_DEVICE_FORM_FACTOR_PCIE_CARD;
                return Error::Ok();
            case ACL_DEV_ATTR_NPU_ARCH:
                *value = DeviceProfile::kNpuArch;
                return Error::Ok();
            default:
                break;
        }
        if (a >= ACL_DEV_ATTR_WARP_SIZE && a <= ACL_DEV_ATTR_MAX_BLOCK_DIM_Z) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "attr %d is a SIMT limit; the emulated Ascend910B2 has no SIMT "
                                 "vector units",
                                 a);
        }
        if (a >= ACL_DEV_ATTR_SUPER_POD_DEVICE_ID && a <= ACL_DEV_ATTR_SUPER_POD_ID) {
            return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                 "attr %d is a super-pod id; the emulated device is a PCIe card "
                                 "in no super pod",
                                 a);
        }
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "attr %d is not an aclrtDevAttr", a);
    });
}

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value) {
    return RunApi("aclGetDeviceCapability", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        uint32_t count = 0;
        NPU_RETURN_IF_ERROR(DeviceManager::Get().DeviceCount(&count));
        NPU_ACL_CHECK(deviceId < count, "invalid device id %u (%u device(s) visible)", deviceId,
                      count);
        switch (EnumValue(deviceInfo)) {
            case ACL_DEVICE_INFO_AI_CORE_NUM:
                *value = DeviceProfile::kAiCores;
                return Error::Ok();
            case ACL_DEVICE_INFO_VECTOR_CORE_NUM:
                *value = DeviceProfile::kVectorCores;
                return Error::Ok();
            case ACL_DEVICE_INFO_L2_SIZE:
                *value = DeviceProfile::kL2Bytes;
                return Error::Ok();
            default:
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "deviceInfo %d is not an aclDeviceInfo (0, 1 or 2)",
                                     EnumValue(deviceInfo));
        }
    });
}

aclError aclrtGetDeviceCapability(int32_t deviceId, aclrtDevFeatureType devFeatureType,
                                  int32_t *value) {
    return RunApi("aclrtGetDeviceCapability", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        int32_t f = EnumValue(devFeatureType);
        NPU_RT_CHECK(f == ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV ||
                         f == ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV,
                     "devFeatureType %d is not an aclrtDevFeatureType (1 or 21)", f);
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        // No task update and no memory-queue events: neither feature exists.
        *value = ACL_DEV_FEATURE_NOT_SUPPORT;
        return Error::Ok();
    });
}

aclError aclrtQueryDeviceStatus(int32_t deviceId, aclrtDeviceStatus *deviceStatus) {
    return RunApi("aclrtQueryDeviceStatus", [&] {
        NPU_ACL_CHECK(deviceStatus != nullptr, "deviceStatus is NULL");
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        // The emulated device has no watchdog that could mark it failed.
        *deviceStatus = ACL_RT_DEVICE_STATUS_NORMAL;
        return Error::Ok();
    });
}

aclError aclrtGetDeviceUtilizationRate(int32_t deviceId, aclrtUtilizationInfo *utilizationInfo) {
    return RunApi("aclrtGetDeviceUtilizationRate", [&] {
        NPU_ACL_CHECK(utilizationInfo != nullptr, "utilizationInfo is NULL");
        NPU_ACL_CHECK(utilizationInfo->utilizationExtend == nullptr,
                      "utilizationInfo->utilizationExtend is reserved and must be NULL");
        // The device's only engines are its copy engines: their busy share
        // (core/device_info.h) is what cube and vector report. It has no AI
        // CPU, and memoryUtilization is -1 on every chip. A query that fails
        // (a bad deviceId included) is -1, and the call still succeeds, as
        // upstream's.
        int32_t engines = -1;
        if (!npu::rt::EngineUtilization(deviceId, &engines).ok())
            engines = -1;
        utilizationInfo->cubeUtilization = engines;
        utilizationInfo->vectorUtilization = engines;
        utilizationInfo->aicpuUtilization = -1;
        utilizationInfo->memoryUtilization = -1;
        return Error::Ok();
    });
}

aclError aclrtCheckArchCompatibility(const char *socVersion, int32_t *canCompatible) {
    return RunApi("aclrtCheckArchCompatibility", [&] {
        NPU_RT_CHECK(socVersion != nullptr, "socVersion is NULL");
        NPU_RT_CHECK(canCompatible != nullptr, "canCompatible is NULL");
        NPU_RT_CHECK(*socVersion != '\0', "socVersion is empty");
        int32_t arch = ArchOf(socVersion);
        NPU_RT_CHECK(arch != 0, "socVersion \"%.64s\" is not a SoC this runtime knows", socVersion);
        const char *mine = aclrtGetSocName();
        *canCompatible = (mine != nullptr && ArchOf(mine) == arch) ? 1 : 0;
        return Error::Ok();
    });
}

aclError aclrtDeviceGetUuid(int32_t deviceId, aclrtUuid *uuid) {
    return RunApi("aclrtDeviceGetUuid", [&] {
        NPU_ACL_CHECK(uuid != nullptr, "uuid is NULL");
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId, &phys));
        npu::rt::DeviceUuid(phys, uuid->bytes);
        return Error::Ok();
    });
}

aclError aclrtDeviceGetPCIBusId(int32_t deviceId, char *pciBusId, int32_t len) {
    return RunApi("aclrtDeviceGetPCIBusId", [&] {
        NPU_ACL_CHECK(pciBusId != nullptr, "pciBusId is NULL");
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId, &phys));
        std::string id = npu::rt::DevicePciBusId(phys);
        NPU_ACL_CHECK(len > 0 && static_cast<size_t>(len) > id.size(),
                      "len %d is too small for the bus id \"%s\" (%zu bytes with its NUL)", len,
                      id.c_str(), id.size() + 1);
        std::memcpy(pciBusId, id.c_str(), id.size() + 1);
        return Error::Ok();
    });
}

aclError aclrtDeviceGetByPCIBusId(const char *pciBusId, int32_t *deviceId) {
    return RunApi("aclrtDeviceGetByPCIBusId", [&] {
        NPU_ACL_CHECK(pciBusId != nullptr, "pciBusId is NULL");
        NPU_ACL_CHECK(deviceId != nullptr, "deviceId is NULL");
        uint32_t phys = 0;
        NPU_ACL_CHECK(npu::rt::ParsePciBusId(pciBusId, &phys),
                      "pciBusId \"%.32s\" is not a bus id of this runtime's devices "
                      "(\"0000:BB:00.0\", as aclrtDeviceGetPCIBusId writes)",
                      pciBusId);
        int32_t user = -1;
        if (!DeviceManager::Get().ToUser(phys, &user)) {
            return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID,
                                 "no visible device has the bus id \"%s\"", pciBusId);
        }
        *deviceId = user;
        return Error::Ok();
    });
}

aclError aclrtGetDevicesTopo(uint32_t deviceId, uint32_t otherDeviceId, uint64_t *value) {
    return RunApi("aclrtGetDevicesTopo", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        NPU_RETURN_IF_ERROR(CheckDevice(static_cast<int32_t>(deviceId)));
        NPU_RETURN_IF_ERROR(CheckDevice(static_cast<int32_t>(otherDeviceId)));
        NPU_RT_CHECK(deviceId != otherDeviceId, "deviceId and otherDeviceId are both %u", deviceId);
        // The emulated devices copy between each other through one driver:
        // modelled as two cards behind the same PCIe switch.
        *value = ACL_RT_DEVS_TOPOLOGY_PIX;
        return Error::Ok();
    });
}

// Device-id mappings. Three id spaces: user ids (aclrtSetDevice's, indices
// into ASCEND_RT_VISIBLE_DEVICES), logical ids (the driver's numbering in a
// container) and physical ids. There are no containers here, so logical ==
// physical, and only visible devices map.

aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId) {
    return RunApi("aclrtGetLogicDevIdByUserDevId", [&] {
        NPU_ACL_CHECK(logicDevId != nullptr, "logicDevId is NULL");
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(CheckDevice(userDevid, &phys));
        *logicDevId = static_cast<int32_t>(phys);
        return Error::Ok();
    });
}

namespace {

// The user id of a visible logical (== physical) id.
Error UserOfPhysical(int32_t id, const char *what, int32_t *user) {
    if (id < 0 || !DeviceManager::Get().ToUser(static_cast<uint32_t>(id), user)) {
        return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "%s %d is not a visible device", what,
                             id);
    }
    return Error::Ok();
}

}  // namespace

aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid) {
    return RunApi("aclrtGetUserDevIdByLogicDevId", [&] {
        NPU_ACL_CHECK(userDevid != nullptr, "userDevid is NULL");
        return UserOfPhysical(logicDevId, "logical device id", userDevid);
    });
}

aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId) {
    return RunApi("aclrtGetLogicDevIdByPhyDevId", [&] {
        NPU_ACL_CHECK(logicDevId != nullptr, "logicDevId is NULL");
        int32_t user = -1;
        NPU_RETURN_IF_ERROR(UserOfPhysical(phyDevId, "physical device id", &user));
        *logicDevId = phyDevId;
        return Error::Ok();
    });
}

aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId) {
    return RunApi("aclrtGetPhyDevIdByLogicDevId", [&] {
        NPU_ACL_CHECK(phyDevId != nullptr, "phyDevId is NULL");
        // As upstream's: the input is taken as a user id (its documentation
        // says logical), so with ASCEND_RT_VISIBLE_DEVICES it maps like
        // aclrtGetPhyDevIdByUserDevId.
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(CheckDevice(logicDevId, &phys));
        *phyDevId = static_cast<int32_t>(phys);
        return Error::Ok();
    });
}

aclError aclrtGetUserDevIdByPhyDevId(const int32_t phyDevId, int32_t *const userDevId) {
    return RunApi("aclrtGetUserDevIdByPhyDevId", [&] {
        NPU_ACL_CHECK(userDevId != nullptr, "userDevId is NULL");
        return UserOfPhysical(phyDevId, "physical device id", userDevId);
    });
}

aclError aclrtGetPhyDevIdByUserDevId(const int32_t userDevId, int32_t *const phyDevId) {
    return RunApi("aclrtGetPhyDevIdByUserDevId", [&] {
        NPU_ACL_CHECK(phyDevId != nullptr, "phyDevId is NULL");
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(CheckDevice(userDevId, &phys));
        *phyDevId = static_cast<int32_t>(phys);
        return Error::Ok();
    });
}

aclError aclrtDevicePeerAccessStatus(int32_t deviceId, int32_t peerDeviceId, int32_t *status) {
    return RunApi("aclrtDevicePeerAccessStatus", [&] {
        NPU_ACL_CHECK(status != nullptr, "status is NULL");
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        NPU_RETURN_IF_ERROR(CheckDevice(peerDeviceId));
        NPU_ACL_CHECK(deviceId != peerDeviceId, "deviceId and peerDeviceId are both %d", deviceId);
        *status = npu::rt::PeerAccessEnabled(deviceId, peerDeviceId) ? 1 : 0;
        return Error::Ok();
    });
}

aclError aclrtDeviceGetHostAtomicCapabilities(uint32_t *capabilities,
                                              const aclrtAtomicOperation *operations,
                                              const uint32_t count, int32_t deviceId) {
    return RunApi("aclrtDeviceGetHostAtomicCapabilities", [&] {
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        return NoAtomicCapabilities(capabilities, operations, count);
    });
}

aclError aclrtDeviceGetP2PAtomicCapabilities(uint32_t *capabilities,
                                             const aclrtAtomicOperation *operations,
                                             const uint32_t count, int32_t srcDeviceId,
                                             int32_t dstDeviceId) {
    return RunApi("aclrtDeviceGetP2PAtomicCapabilities", [&] {
        NPU_RETURN_IF_ERROR(CheckDevice(srcDeviceId));
        NPU_RETURN_IF_ERROR(CheckDevice(dstDeviceId));
        return NoAtomicCapabilities(capabilities, operations, count);
    });
}

aclError aclrtGetErrorVerbose(int32_t deviceId, aclrtErrorInfo *errorInfo) {
    return RunApi("aclrtGetErrorVerbose", [&] {
        NPU_ACL_CHECK(errorInfo != nullptr, "errorInfo is NULL");
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        // The emulated device reports no hardware fault: nothing to detail.
        std::memset(errorInfo, 0, sizeof(*errorInfo));
        errorInfo->errorType = ACL_RT_NO_ERROR;
        return Error::Ok();
    });
}

aclError aclrtRepairError(int32_t deviceId, const aclrtErrorInfo *errorInfo) {
    return RunApi("aclrtRepairError", [&] {
        NPU_ACL_CHECK(errorInfo != nullptr, "errorInfo is NULL");
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "device %d has no hardware fault to repair: the emulated device "
                             "reports none (aclrtGetErrorVerbose says ACL_RT_NO_ERROR)",
                             deviceId);
    });
}
