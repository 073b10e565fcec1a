// SPDX-License-Identifier: MIT
// Stream configuration and state: aclrtCreateStreamWithConfig and its
// config-handle sugar, the stream getters and attributes, aclrtStreamAbort,
// aclrtStreamStop, aclrtPersistentTaskClean, the stream state callbacks and
// aclrtGetThreadLastTaskId (CANN's acl_rt.h names them; the README says
// where this runtime chooses).
#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <unordered_set>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "base/singleton.h"
#include "base/thread_annotations.h"
#include "core/context.h"
#include "core/stream.h"
#include "core/state_hooks.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// aclrtDeviceGetStreamPriorityRange: smaller is higher.
constexpr uint32_t kLeastPriority = 7;
constexpr uint32_t kGreatestPriority = 0;

constexpr uint32_t kKnownFlags = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC |
                                 ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE | ACL_STREAM_CPU_SCHEDULE |
                                 ACL_STREAM_DEVICE_USE_ONLY;

// aclrtCreateStreamWithConfig after its NULL check.
Error CreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag) {
    // The ACL layer keeps the bits it knows and drops the others.
    flag &= kKnownFlags;
    if (flag & ACL_STREAM_HUGE) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "ACL_STREAM_HUGE needs deep task queues, which this device does not "
                             "have (flag 0x%x)",
                             flag);
    }
    NPU_RT_CHECK(!(flag & ACL_STREAM_DEVICE_USE_ONLY) || flag == ACL_STREAM_DEVICE_USE_ONLY,
                 "flag 0x%x: ACL_STREAM_DEVICE_USE_ONLY cannot be combined with other flags", flag);
    // Out of range is clamped, not an error (aclrtStreamGetPriority says so).
    priority = std::min(priority, kLeastPriority);
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    return ctx->streams().Create(flag, priority, stream);
}

// The stream a getter or setter works on: stream, or the current context's
// default stream; a live handle and a current context are both required.
Error GetterStream(aclrtStream stream, StreamRef *ref) {
    NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, ref));
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
    return npu::rt::UseStream(*ctx, ref);
}

// The handles aclrtCreateStreamConfigHandle made and
// aclrtDestroyStreamConfigHandle has not freed, so that a foreign or
// already destroyed pointer is refused rather than freed.
class ConfigHandles {
  public:
    // Never destroyed; empty in a forked child (the parent's handles are
    // refused there, and leaked).
    static ConfigHandles &Get() { return npu::base::Singleton<ConfigHandles>::Get(); }
    aclrtStreamConfigHandle *Create() {
        auto *h = new (std::nothrow) aclrtStreamConfigHandle{};
        if (h == nullptr)
            return nullptr;
        std::lock_guard<std::mutex> lock(mu_);
        live_.insert(h);
        return h;
    }
    bool Destroy(aclrtStreamConfigHandle *h) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            if (live_.erase(h) == 0)
                return false;
        }
        delete h;
        return true;
    }

  private:
    std::mutex mu_;
    std::unordered_set<aclrtStreamConfigHandle *> live_ GUARDED_BY(mu_);
};

}  // namespace

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag) {
    return RunApi("aclrtCreateStreamWithConfig", [&] {
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        return CreateStreamWithConfig(stream, priority, flag);
    });
}

aclrtStreamConfigHandle *aclrtCreateStreamConfigHandle(void) {
    aclrtStreamConfigHandle *h = nullptr;
    RunApi("aclrtCreateStreamConfigHandle", [&] {
        h = ConfigHandles::Get().Create();
        if (h == nullptr)
            return Error(ACL_ERROR_BAD_ALLOC, "out of host memory");
        return Error::Ok();
    });
    return h;
}

aclError aclrtDestroyStreamConfigHandle(aclrtStreamConfigHandle *handle) {
    return RunApi("aclrtDestroyStreamConfigHandle", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(ConfigHandles::Get().Destroy(handle),
                      "handle %p was not made by aclrtCreateStreamConfigHandle or is already "
                      "destroyed",
                      static_cast<void *>(handle));
        return Error::Ok();
    });
}

aclError aclrtSetStreamConfigOpt(aclrtStreamConfigHandle *handle, aclrtStreamConfigAttr attr,
                                 const void *attrValue, size_t valueSize) {
    return RunApi("aclrtSetStreamConfigOpt", [&] {
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        NPU_ACL_CHECK(attrValue != nullptr, "attrValue is NULL");
        const int32_t a = npu::rt::EnumValue(attr);
        // valueSize is the size of the handle's field the attribute sets.
        auto check_size = [&](size_t want, const char *type) {
            NPU_ACL_CHECK(valueSize == want, "attribute %d takes a %s: valueSize %zu, not %zu", a,
                          type, valueSize, want);
            return Error::Ok();
        };
        switch (a) {
            case ACL_RT_STREAM_WORK_ADDR_PTR:
                NPU_RETURN_IF_ERROR(check_size(sizeof(handle->workptr), "void *"));
                std::memcpy(&handle->workptr, attrValue, sizeof(handle->workptr));
                return Error::Ok();
            case ACL_RT_STREAM_WORK_SIZE:
                NPU_RETURN_IF_ERROR(check_size(sizeof(handle->workSize), "size_t"));
                std::memcpy(&handle->workSize, attrValue, sizeof(handle->workSize));
                return Error::Ok();
            case ACL_RT_STREAM_FLAG:
                // The field is a size_t, but the flags are 32 bits and
                // upstream's sample passes a uint32_t: both sizes are taken.
                if (valueSize == sizeof(uint32_t)) {
                    uint32_t f = 0;
                    std::memcpy(&f, attrValue, sizeof(f));
                    handle->flag = f;
                    return Error::Ok();
                }
                NPU_RETURN_IF_ERROR(check_size(sizeof(handle->flag), "size_t or uint32_t"));
                std::memcpy(&handle->flag, attrValue, sizeof(handle->flag));
                return Error::Ok();
            case ACL_RT_STREAM_PRIORITY: {
                NPU_RETURN_IF_ERROR(check_size(sizeof(handle->priority), "uint32_t"));
                uint32_t p = 0;
                std::memcpy(&p, attrValue, sizeof(p));
                NPU_ACL_CHECK(p <= kLeastPriority, "priority %u is outside [%u, %u]", p,
                              kGreatestPriority, kLeastPriority);
                handle->priority = p;
                return Error::Ok();
            }
            default:
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "attr %d is not an aclrtStreamConfigAttr (0 to 3)", a);
        }
    });
}

aclError aclrtCreateStreamV2(aclrtStream *stream, const aclrtStreamConfigHandle *handle) {
    return RunApi("aclrtCreateStreamV2", [&] {
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        NPU_ACL_CHECK(handle != nullptr, "handle is NULL");
        // The work area (workptr, workSize) is for the device's own task
        // memory; the emulated engines need none, so it is not used.
        NPU_ACL_CHECK(handle->flag <= UINT32_MAX, "handle->flag 0x%zx is not a stream flag",
                      handle->flag);
        return CreateStreamWithConfig(stream, handle->priority,
                                      static_cast<uint32_t>(handle->flag));
    });
}

aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId) {
    return RunApi("aclrtStreamGetId", [&] {
        NPU_ACL_CHECK(streamId != nullptr, "streamId is NULL");
        StreamRef ref;
        NPU_RETURN_IF_ERROR(GetterStream(stream, &ref));
        *streamId = ref->id();
        return Error::Ok();
    });
}

aclError aclrtStreamGetPriority(aclrtStream stream, uint32_t *priority) {
    return RunApi("aclrtStreamGetPriority", [&] {
        NPU_ACL_CHECK(priority != nullptr, "priority is NULL");
        StreamRef ref;
        NPU_RETURN_IF_ERROR(GetterStream(stream, &ref));
        *priority = ref->priority();
        return Error::Ok();
    });
}

aclError aclrtStreamGetFlags(aclrtStream stream, uint32_t *flags) {
    return RunApi("aclrtStreamGetFlags", [&] {
        NPU_ACL_CHECK(flags != nullptr, "flags is NULL");
        StreamRef ref;
        NPU_RETURN_IF_ERROR(GetterStream(stream, &ref));
        *flags = ref->flags();
        return Error::Ok();
    });
}

aclError aclrtGetStreamAvailableNum(uint32_t *streamCount) {
    return RunApi("aclrtGetStreamAvailableNum", [&] {
        NPU_ACL_CHECK(streamCount != nullptr, "streamCount is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        *streamCount = ctx->streams().Available();
        return Error::Ok();
    });
}

aclError aclrtDeviceGetStreamPriorityRange(int32_t *leastPriority, int32_t *greatestPriority) {
    return RunApi("aclrtDeviceGetStreamPriorityRange", [&] {
        if (leastPriority != nullptr)
            *leastPriority = static_cast<int32_t>(kLeastPriority);
        if (greatestPriority != nullptr)
            *greatestPriority = static_cast<int32_t>(kGreatestPriority);
        return Error::Ok();
    });
}

namespace {

Error OverflowCheckUnsupported() {
    return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                         "ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK: floating-point overflow is AI "
                         "Core state, which an emulated memory device does not have");
}

Error UnknownAttr(int32_t a) {
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                         "stmAttrType %d is not an aclrtStreamAttr (1 to 5)", a);
}

}  // namespace

aclError aclrtSetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                 aclrtStreamAttrValue *value) {
    return RunApi("aclrtSetStreamAttribute", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        StreamRef ref;
        NPU_RETURN_IF_ERROR(GetterStream(stream, &ref));
        const int32_t a = npu::rt::EnumValue(stmAttrType);
        switch (a) {
            case ACL_STREAM_ATTR_FAILURE_MODE:
                NPU_RT_CHECK(ref->kind() != npu::rt::Stream::Kind::kDefault,
                             "the failure mode of the default stream cannot be set");
                NPU_RT_CHECK(value->failureMode == ACL_CONTINUE_ON_FAILURE ||
                                 value->failureMode == ACL_STOP_ON_FAILURE,
                             "failureMode %llu is neither ACL_CONTINUE_ON_FAILURE nor "
                             "ACL_STOP_ON_FAILURE",
                             static_cast<unsigned long long>(value->failureMode));
                ref->set_failure_mode(value->failureMode);
                return Error::Ok();
            case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
                return OverflowCheckUnsupported();
            case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
                ref->set_user_tag(value->userCustomTag);
                return Error::Ok();
            case ACL_STREAM_ATTR_CACHE_OP_INFO:
                ref->set_cache_op_info(value->cacheOpInfoSwitch);
                return Error::Ok();
            case ACL_STREAM_ATTR_PRIORITY:
                // Clamped into [0, 7], as at creation.
                ref->set_priority(std::min(value->streamPriority, kLeastPriority));
                return Error::Ok();
            default:
                return UnknownAttr(a);
        }
    });
}

aclError aclrtGetStreamAttribute(aclrtStream stream, aclrtStreamAttr stmAttrType,
                                 aclrtStreamAttrValue *value) {
    return RunApi("aclrtGetStreamAttribute", [&] {
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        StreamRef ref;
        NPU_RETURN_IF_ERROR(GetterStream(stream, &ref));
        const int32_t a = npu::rt::EnumValue(stmAttrType);
        aclrtStreamAttrValue out{};
        switch (a) {
            case ACL_STREAM_ATTR_FAILURE_MODE:
                out.failureMode = ref->failure_mode();
                break;
            case ACL_STREAM_ATTR_FLOAT_OVERFLOW_CHECK:
                return OverflowCheckUnsupported();
            case ACL_STREAM_ATTR_USER_CUSTOM_TAG:
                out.userCustomTag = ref->user_tag();
                break;
            case ACL_STREAM_ATTR_CACHE_OP_INFO:
                out.cacheOpInfoSwitch = ref->cache_op_info();
                break;
            case ACL_STREAM_ATTR_PRIORITY:
                out.streamPriority = ref->priority();
                break;
            default:
                return UnknownAttr(a);
        }
        *value = out;
        return Error::Ok();
    });
}

aclError aclrtStreamAbort(aclrtStream stream) {
    return RunApi("aclrtStreamAbort", [&] {
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        NPU_RETURN_IF_ERROR(npu::rt::UseStream(*ctx, &ref));
        NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
        return ref->Abort();
    });
}

// A persistent stream's tasks run once when queued and are not retained
// (the model runtime that replays them is outside an emulated memory
// device), so there is nothing to drop: the stream is checked, and the call
// succeeds.
aclError aclrtPersistentTaskClean(aclrtStream stream) {
    return RunApi("aclrtPersistentTaskClean", [&] {
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL (only a persistent stream has tasks)");
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireStream(stream, &ref));
        NPU_RT_CHECK((ref->flags() & ACL_STREAM_PERSISTENT) != 0,
                     "stream %p was not created with ACL_STREAM_PERSISTENT (flags 0x%x)", stream,
                     ref->flags());
        return Error::Ok();
    });
}

aclError aclrtStreamStop(aclrtStream stream) {
    return RunApi("aclrtStreamStop", [&] {
        NPU_RT_CHECK(stream != nullptr, "stream is NULL (the default stream cannot be stopped)");
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::AcquireStream(stream, &ref));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        // Upstream's answer on chips without the hardware stop mechanism.
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "the emulated engines cannot stop the task a stream is running "
                             "while keeping its queued ones (aclrtStreamAbort discards them)");
    });
}

aclError aclrtRegStreamStateCallback(const char *regName, aclrtStreamStateCallback callback,
                                     void *args) {
    return RunApi("aclrtRegStreamStateCallback", [&] {
        NPU_ACL_CHECK(regName != nullptr, "regName is NULL");
        return npu::rt::StreamHooks::Get().Register(regName, callback, args);
    });
}

aclError aclrtGetThreadLastTaskId(uint32_t *taskId) {
    return RunApi("aclrtGetThreadLastTaskId", [&] {
        NPU_ACL_CHECK(taskId != nullptr, "taskId is NULL");
        *taskId = npu::rt::ThreadLastTaskId();
        return Error::Ok();
    });
}
