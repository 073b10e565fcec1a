// SPDX-License-Identifier: MIT
// Runtime configuration: system parameters (aclrtSetSysParamOpt,
// aclrtGetSysParamOpt, and the context-scoped aclrtCtxSetSysParamOpt,
// aclrtCtxGetSysParamOpt), device and stream resource limits
// (aclrtGet/Set/ResetDeviceResLimit, aclrtGet/Set/ResetStreamResLimit,
// aclrtUse/UnuseStreamResInCurrentThread, aclrtGetResInCurrentThread),
// kernel timeouts (aclrtSetOpExecuteTimeOut[WithMs|V2],
// aclrtGetOpTimeOutInterval, aclrtGetOpExecuteTimeout,
// aclrtSetOpWaitTimeout), aclrtSetTsDevice and the device limits
// (aclrtDeviceSetLimit, aclrtDeviceGetLimit). The settings are stored and
// reported back (core/runtime_config.h): no kernel runs to use them.
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/device_manager.h"
#include "core/runtime_config.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::EnumValue;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::RuntimeConfig;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// Upstream's value ranges: [0, 4) for ACL_OPT_DETERMINISTIC, [0, 2) for
// the other options.
Error CheckSysParamValue(int32_t opt, int64_t value) {
    int64_t end = opt == ACL_OPT_DETERMINISTIC ? 4 : 2;
    NPU_RT_CHECK(value >= 0 && value < end, "value %lld of option %d is outside [0, %lld)",
                 static_cast<long long>(value), opt, static_cast<long long>(end));
    return Error::Ok();
}

Error CheckResType(int32_t type) {
    NPU_RT_CHECK(type >= 0 && type < RuntimeConfig::kResTypes,
                 "type %d is not an aclrtDevResLimitType (0 cube cores, 1 vector cores)", type);
    return Error::Ok();
}

Error CheckResValue(int32_t type, uint32_t value) {
    uint32_t hw = RuntimeConfig::HardwareCores(type);
    NPU_RT_CHECK(value <= hw, "value %u is more than the device's %u %s cores", value, hw,
                 type == ACL_RT_DEV_RES_CUBE_CORE ? "cube" : "vector");
    return Error::Ok();
}

// Upstream checks a negative id before the type, any other bad id after.
Error CheckNegativeDevice(int32_t deviceId) {
    if (deviceId < 0) {
        return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "invalid device id %d", deviceId);
    }
    return Error::Ok();
}

Error CheckDevice(int32_t deviceId) {
    uint32_t phys = 0;
    return npu::rt::DeviceManager::Get().ToPhysical(deviceId, &phys);
}

// The stream of a resource-limit call: stream, or the current context's
// default stream when it is NULL.
Error LimitStream(aclrtStream stream, StreamRef *ref) {
    return npu::rt::ResolveStream(stream, ThreadState::CurrentContext(), ref);
}

// A stream's limit of type, else the process limit of its device.
uint32_t StreamLimit(const StreamRef &ref, int32_t type) {
    uint32_t v = ref->res_limit[type].load();
    if (v != npu::rt::Stream::kNoResLimit)
        return v;
    return RuntimeConfig::Get().DeviceResLimit(ref->session().user_id(), type);
}

}  // namespace

aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
    return RunApi("aclrtSetSysParamOpt", [&] {
        int32_t o = EnumValue(opt);
        NPU_ACL_CHECK(o >= 0 && o < RuntimeConfig::kSysParams,
                      "opt %d is not an aclSysParamOpt (0..3)", o);
        NPU_RETURN_IF_ERROR(CheckSysParamValue(o, value));
        RuntimeConfig::Get().SetSysParam(o, value);
        return Error::Ok();
    });
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
    return RunApi("aclrtGetSysParamOpt", [&] {
        int32_t o = EnumValue(opt);
        NPU_ACL_CHECK(o >= 0 && o < RuntimeConfig::kSysParams,
                      "opt %d is not an aclSysParamOpt (0..3)", o);
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        *value = RuntimeConfig::Get().SysParam(o);
        return Error::Ok();
    });
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
    return RunApi("aclrtCtxSetSysParamOpt", [&] {
        int32_t o = EnumValue(opt);
        NPU_ACL_CHECK(o >= 0 && o < ACL_OPT_ENABLE_KERNEL_EARLY_START,
                      "opt %d is not a context option (0..2; "
                      "ACL_OPT_ENABLE_KERNEL_EARLY_START is process-wide)",
                      o);
        NPU_RETURN_IF_ERROR(CheckSysParamValue(o, value));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        ctx->SetSysParam(o, value);
        return Error::Ok();
    });
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
    return RunApi("aclrtCtxGetSysParamOpt", [&] {
        int32_t o = EnumValue(opt);
        NPU_ACL_CHECK(o >= 0 && o < ACL_OPT_ENABLE_KERNEL_EARLY_START,
                      "opt %d is not a context option (0..2; "
                      "ACL_OPT_ENABLE_KERNEL_EARLY_START is process-wide)",
                      o);
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        if (!ctx->SysParam(o, value)) {
            return Error::Format(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET,
                                 "option %d was never set in the current context "
                                 "(aclrtCtxSetSysParamOpt)",
                                 o);
        }
        return Error::Ok();
    });
}

aclError aclrtGetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t *value) {
    return RunApi("aclrtGetDeviceResLimit", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        int32_t t = EnumValue(type);
        NPU_RETURN_IF_ERROR(CheckNegativeDevice(deviceId));
        NPU_RETURN_IF_ERROR(CheckResType(t));
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        if (!npu::rt::DeviceManager::Get().SessionOf(deviceId)) {
            return Error::Format(ACL_ERROR_RT_DEV_SETUP_ERROR,
                                 "device %d is not set in this process (aclrtSetDevice first)",
                                 deviceId);
        }
        *value = RuntimeConfig::Get().DeviceResLimit(deviceId, t);
        return Error::Ok();
    });
}

aclError aclrtSetDeviceResLimit(int32_t deviceId, aclrtDevResLimitType type, uint32_t value) {
    return RunApi("aclrtSetDeviceResLimit", [&] {
        int32_t t = EnumValue(type);
        NPU_RETURN_IF_ERROR(CheckNegativeDevice(deviceId));
        NPU_RETURN_IF_ERROR(CheckResType(t));
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        NPU_RETURN_IF_ERROR(CheckResValue(t, value));
        return RuntimeConfig::Get().SetDeviceResLimit(deviceId, t, value);
    });
}

aclError aclrtResetDeviceResLimit(int32_t deviceId) {
    return RunApi("aclrtResetDeviceResLimit", [&] {
        NPU_RETURN_IF_ERROR(CheckDevice(deviceId));
        return RuntimeConfig::Get().ResetDeviceResLimit(deviceId);
    });
}

aclError aclrtGetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t *value) {
    return RunApi("aclrtGetStreamResLimit", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        int32_t t = EnumValue(type);
        NPU_RETURN_IF_ERROR(CheckResType(t));
        StreamRef ref;
        NPU_RETURN_IF_ERROR(LimitStream(stream, &ref));
        *value = StreamLimit(ref, t);
        return Error::Ok();
    });
}

aclError aclrtSetStreamResLimit(aclrtStream stream, aclrtDevResLimitType type, uint32_t value) {
    return RunApi("aclrtSetStreamResLimit", [&] {
        int32_t t = EnumValue(type);
        NPU_RETURN_IF_ERROR(CheckResType(t));
        NPU_RETURN_IF_ERROR(CheckResValue(t, value));
        StreamRef ref;
        NPU_RETURN_IF_ERROR(LimitStream(stream, &ref));
        ref->res_limit[t].store(value);
        return Error::Ok();
    });
}

aclError aclrtResetStreamResLimit(aclrtStream stream) {
    return RunApi("aclrtResetStreamResLimit", [&] {
        StreamRef ref;
        NPU_RETURN_IF_ERROR(LimitStream(stream, &ref));
        for (auto &limit : ref->res_limit)
            limit.store(npu::rt::Stream::kNoResLimit);
        return Error::Ok();
    });
}

aclError aclrtUseStreamResInCurrentThread(aclrtStream stream) {
    return RunApi("aclrtUseStreamResInCurrentThread", [&] {
        StreamRef ref;
        NPU_RETURN_IF_ERROR(LimitStream(stream, &ref));
        RuntimeConfig::BindThreadStream(ref->handle());
        return Error::Ok();
    });
}

aclError aclrtUnuseStreamResInCurrentThread(aclrtStream stream) {
    return RunApi("aclrtUnuseStreamResInCurrentThread", [&] {
        StreamRef ref;
        NPU_RETURN_IF_ERROR(LimitStream(stream, &ref));
        RuntimeConfig::UnbindThreadStream(ref->handle());
        return Error::Ok();
    });
}

aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value) {
    return RunApi("aclrtGetResInCurrentThread", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        int32_t t = EnumValue(type);
        NPU_RETURN_IF_ERROR(CheckResType(t));
        // The bound stream's own limit, if it is still live and has one.
        if (void *bound = RuntimeConfig::BoundThreadStream()) {
            StreamRef ref;
            if (npu::rt::AcquireStream(bound, &ref).ok()) {
                uint32_t v = ref->res_limit[t].load();
                if (v != npu::rt::Stream::kNoResLimit) {
                    *value = v;
                    return Error::Ok();
                }
            }
        }
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        *value = RuntimeConfig::Get().DeviceResLimit(ctx->user_device_id(), t);
        return Error::Ok();
    });
}

aclError aclrtSetOpExecuteTimeOut(uint32_t timeout) {
    return RunApi("aclrtSetOpExecuteTimeOut", [&] {
        RuntimeConfig::Get().SetOpTimeout(uint64_t{timeout} * 1000000, true);
        return Error::Ok();
    });
}

aclError aclrtSetOpExecuteTimeOutWithMs(uint32_t timeout) {
    return RunApi("aclrtSetOpExecuteTimeOutWithMs", [&] {
        RuntimeConfig::Get().SetOpTimeout(uint64_t{timeout} * 1000, true);
        return Error::Ok();
    });
}

aclError aclrtSetOpExecuteTimeOutV2(uint64_t timeout, uint64_t *actualTimeout) {
    return RunApi("aclrtSetOpExecuteTimeOutV2", [&] {
        NPU_ACL_CHECK(actualTimeout != nullptr, "actualTimeout is NULL");
        *actualTimeout = RuntimeConfig::Get().SetOpTimeout(timeout, false);
        return Error::Ok();
    });
}

aclError aclrtGetOpTimeOutInterval(uint64_t *interval) {
    return RunApi("aclrtGetOpTimeOutInterval", [&] {
        NPU_ACL_CHECK(interval != nullptr, "interval is NULL");
        *interval = RuntimeConfig::kOpIntervalUs;
        return Error::Ok();
    });
}

aclError aclrtGetOpExecuteTimeout(uint32_t *const timeoutMs) {
    return RunApi("aclrtGetOpExecuteTimeout", [&] {
        NPU_ACL_CHECK(timeoutMs != nullptr, "timeoutMs is NULL");
        uint64_t us = RuntimeConfig::Get().OpTimeout();
        *timeoutMs =
            us == RuntimeConfig::kNoTimeout ? UINT32_MAX : static_cast<uint32_t>(us / 1000);
        return Error::Ok();
    });
}

aclError aclrtSetOpWaitTimeout(uint32_t timeout) {
    return RunApi("aclrtSetOpWaitTimeout", [&] {
        RuntimeConfig::Get().SetOpWaitTimeout(timeout);
        return Error::Ok();
    });
}

aclError aclrtSetTsDevice(aclrtTsId tsId) {
    return RunApi("aclrtSetTsDevice", [&] {
        int32_t ts = EnumValue(tsId);
        NPU_ACL_CHECK(ts == ACL_TS_ID_AICORE || ts == ACL_TS_ID_AIVECTOR,
                      "tsId %d is not ACL_TS_ID_AICORE (0) or ACL_TS_ID_AIVECTOR (1)", ts);
        RuntimeConfig::Get().SetTsId(ts);
        return Error::Ok();
    });
}

namespace {

// aclrtDeviceSetLimit / aclrtDeviceGetLimit after the ACL layer's checks.
// Upstream applies the process-wide setting through device 0, so it needs
// device 0 to be visible; the chip answers for the limits it lacks. The
// emulated device has SIMD cores only (like the A2 chips), so the SIMT
// limits are not supported.
Error CheckDeviceLimit(int32_t limit) {
    uint32_t phys = 0;
    NPU_RETURN_IF_ERROR(npu::rt::DeviceManager::Get().ToPhysical(0, &phys));
    if (limit == ACL_RT_DEV_LIMIT_SIMT_STACK_SIZE ||
        limit == ACL_RT_DEV_LIMIT_SIMT_DVG_WARP_STACK_SIZE ||
        limit == ACL_RT_DEV_LIMIT_SIMT_PRINTF_FIFO_SIZE) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "limit %d is a SIMT limit, and the emulated device has no SIMT units",
                             limit);
    }
    return Error::Ok();
}

Error CheckLimitEnum(int32_t limit) {
    NPU_ACL_CHECK(limit >= 0 && limit < RuntimeConfig::kDeviceLimits,
                  "limit %d is not an aclrtDeviceLimit (0..4)", limit);
    return Error::Ok();
}

}  // namespace

aclError aclrtDeviceSetLimit(aclrtDeviceLimit limit, size_t value) {
    return RunApi("aclrtDeviceSetLimit", [&] {
        const int32_t l = EnumValue(limit);
        NPU_RETURN_IF_ERROR(CheckLimitEnum(l));
        NPU_ACL_CHECK(value <= UINT32_MAX, "value %zu is more than UINT32_MAX", value);
        NPU_RETURN_IF_ERROR(CheckDeviceLimit(l));
        RuntimeConfig::Get().SetDeviceLimit(l, value);
        return Error::Ok();
    });
}

aclError aclrtDeviceGetLimit(aclrtDeviceLimit limit, size_t *value) {
    return RunApi("aclrtDeviceGetLimit", [&] {
        const int32_t l = EnumValue(limit);
        NPU_RETURN_IF_ERROR(CheckLimitEnum(l));
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        NPU_RETURN_IF_ERROR(CheckDeviceLimit(l));
        *value = RuntimeConfig::Get().DeviceLimit(l);
        return Error::Ok();
    });
}
