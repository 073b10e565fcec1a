// SPDX-License-Identifier: MIT
// Model subscription (acl/acl_prof.h) and the model registration of
// profiling/aprof_pub.h: a registered model id names a device; while it is
// subscribed, every operator that runs on that device writes one record
// (OpRecord below, aclprofGetOpDescSize bytes) to the subscription's pipe;
// aclprofModelUnSubscribe closes the pipe's write end. Records are written
// whole (a pipe write of at most PIPE_BUF bytes is atomic), and not at all
// when the read end is gone (no SIGPIPE) or full (no blocking: the record
// is dropped).
#include <fcntl.h>
#include <poll.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <chrono>
#include <climits>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "api/api_boundary.h"
#include "api/prof_subscribe.h"
#include "base/singleton.h"
#include "core/device_manager.h"
#include "profiling/aprof_pub.h"

using npu::rt::Error;
using npu::rt::RunApiBody;

struct aclprofSubscribeConfig {
    int8_t time_info;
    int32_t metrics;
    int fd;
};

namespace {

constexpr uint32_t kSignature = 0x4E505553;  // "SUPN": a record of this runtime
constexpr size_t kMaxConfigs = 4096;

// One operator, as the pipe carries it.
struct OpRecord {
    uint32_t signature;
    uint32_t model_id;
    uint32_t device_id;
    uint32_t thread_id;
    uint64_t start_us;  // 0 without time info
    uint64_t end_us;
    char op_type[32];
    char op_name[64];
};
static_assert(sizeof(OpRecord) <= PIPE_BUF, "a record is written atomically");

struct Subscription {
    uint32_t device;
    int fd;
    bool time_info;
};

struct SubscribeState {
    std::mutex mu;                        /* Protects: everything below */
    std::map<uint32_t, uint32_t> models;  // registered model id -> device
    std::unordered_map<const void *, std::unique_ptr<aclprofSubscribeConfig>> configs;
    std::map<uint32_t, Subscription> subs;  // by model id

    static SubscribeState &Get() { return npu::base::Singleton<SubscribeState>::Get(); }
};

// The record at index of opInfo, after the readers' checks.
Error Record(const void *opInfo, size_t opInfoLen, uint32_t index, const OpRecord **out) {
    NPU_ACL_CHECK(opInfo != nullptr, "opInfo is NULL");
    NPU_ACL_CHECK(opInfoLen % sizeof(OpRecord) == 0 && opInfoLen > 0,
                  "opInfoLen %zu is not a whole number of records (%zu bytes each)", opInfoLen,
                  sizeof(OpRecord));
    NPU_ACL_CHECK(index < opInfoLen / sizeof(OpRecord), "index %u is not below the %zu records",
                  index, opInfoLen / sizeof(OpRecord));
    const auto *r = static_cast<const OpRecord *>(opInfo) + index;
    NPU_ACL_CHECK(r->signature == kSignature, "record %u is not a subscription record", index);
    *out = r;
    return Error::Ok();
}

}  // namespace

namespace npu::rt::prof {

bool Subscribed(int32_t device_id) {
    SubscribeState &s = SubscribeState::Get();
    std::lock_guard<std::mutex> lock(s.mu);
    for (const auto &[model, sub] : s.subs)
        if (device_id < 0 || static_cast<int32_t>(sub.device) == device_id)
            return true;
    return false;
}

uint64_t NowUs() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
}

void ReportOp(int32_t device_id, const char *op_type, const char *op_name, uint64_t start_us,
              uint64_t end_us) {
    SubscribeState &s = SubscribeState::Get();
    std::lock_guard<std::mutex> lock(s.mu);
    for (const auto &[model, sub] : s.subs) {
        if (static_cast<int32_t>(sub.device) != device_id)
            continue;
        OpRecord r{};
        r.signature = kSignature;
        r.model_id = model;
        r.device_id = sub.device;
        r.thread_id = static_cast<uint32_t>(::syscall(SYS_gettid));
        r.start_us = sub.time_info ? start_us : 0;
        r.end_us = sub.time_info ? end_us : 0;
        std::strncpy(r.op_type, op_type, sizeof(r.op_type) - 1);
        std::strncpy(r.op_name, op_name, sizeof(r.op_name) - 1);
        struct pollfd p = {sub.fd, POLLOUT, 0};
        if (::poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP | POLLNVAL)) == 0)
            (void)!::write(sub.fd, &r, sizeof(r));
    }
}

}  // namespace npu::rt::prof

int32_t MsprofSetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId) {
    int32_t rc = -1;
    RunApiBody("MsprofSetDeviceIdByGeModelIdx", [&] {
        uint32_t count = 0;
        NPU_RETURN_IF_ERROR(npu::rt::DeviceManager::Get().DeviceCount(&count));
        NPU_ACL_CHECK(deviceId < count, "deviceId %u is not below the %u devices", deviceId, count);
        SubscribeState &s = SubscribeState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        s.models[geModelIdx] = deviceId;
        rc = 0;
        return Error::Ok();
    });
    return rc;
}

int32_t MsprofUnsetDeviceIdByGeModelIdx(const uint32_t geModelIdx, const uint32_t deviceId) {
    int32_t rc = -1;
    RunApiBody("MsprofUnsetDeviceIdByGeModelIdx", [&] {
        SubscribeState &s = SubscribeState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        auto it = s.models.find(geModelIdx);
        NPU_ACL_CHECK(it != s.models.end() && it->second == deviceId,
                      "model %u is not registered on device %u", geModelIdx, deviceId);
        s.models.erase(it);
        rc = 0;
        return Error::Ok();
    });
    return rc;
}

aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
                                                     aclprofAicoreMetrics aicoreMetrics, void *fd) {
    aclprofSubscribeConfig *out = nullptr;
    RunApiBody("aclprofCreateSubscribeConfig", [&] {
        NPU_ACL_CHECK(fd != nullptr, "fd is NULL");
        NPU_ACL_CHECK(timeInfoSwitch == 0 || timeInfoSwitch == 1, "timeInfoSwitch %d is not 0 or 1",
                      timeInfoSwitch);
        auto c = std::make_unique<aclprofSubscribeConfig>();
        c->time_info = timeInfoSwitch;
        c->metrics = npu::rt::EnumValue(aicoreMetrics);
        std::memcpy(&c->fd, fd, sizeof(int));
        SubscribeState &s = SubscribeState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.configs.size() >= kMaxConfigs)
            return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT, "%zu configurations exist already",
                                 kMaxConfigs);
        out = c.get();
        s.configs.emplace(out, std::move(c));
        return Error::Ok();
    });
    return out;
}

aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig) {
    return RunApiBody("aclprofDestroySubscribeConfig", [&] {
        NPU_ACL_CHECK(profSubscribeConfig != nullptr, "profSubscribeConfig is NULL");
        std::unique_ptr<aclprofSubscribeConfig> gone;  // freed after the lock
        SubscribeState &s = SubscribeState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        auto it = s.configs.find(profSubscribeConfig);
        NPU_ACL_CHECK(it != s.configs.end(),
                      "profSubscribeConfig %p is not a live configuration of "
                      "aclprofCreateSubscribeConfig",
                      static_cast<const void *>(profSubscribeConfig));
        gone = std::move(it->second);
        s.configs.erase(it);
        return Error::Ok();
    });
}

aclError aclprofModelSubscribe(uint32_t modelId,
                               const aclprofSubscribeConfig *profSubscribeConfig) {
    return RunApiBody("aclprofModelSubscribe", [&] {
        SubscribeState &s = SubscribeState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        auto m = s.models.find(modelId);
        if (m == s.models.end())
            return Error::Format(ACL_ERROR_INVALID_MODEL_ID,
                                 "model %u does not exist (MsprofSetDeviceIdByGeModelIdx "
                                 "registers one)",
                                 modelId);
        NPU_ACL_CHECK(profSubscribeConfig != nullptr, "profSubscribeConfig is NULL");
        auto c = s.configs.find(profSubscribeConfig);
        NPU_ACL_CHECK(c != s.configs.end(),
                      "profSubscribeConfig %p is not a live configuration of "
                      "aclprofCreateSubscribeConfig",
                      static_cast<const void *>(profSubscribeConfig));
        if (s.subs.count(modelId) != 0)
            return Error::Format(ACL_ERROR_PROF_REPEAT_SUBSCRIBE, "model %u is subscribed already",
                                 modelId);
        NPU_ACL_CHECK(::fcntl(c->second->fd, F_GETFD) != -1, "fd %d is not an open file",
                      c->second->fd);
        s.subs.emplace(modelId, Subscription{m->second, c->second->fd, c->second->time_info == 1});
        return Error::Ok();
    });
}

aclError aclprofModelUnSubscribe(uint32_t modelId) {
    return RunApiBody("aclprofModelUnSubscribe", [&] {
        SubscribeState &s = SubscribeState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.models.count(modelId) == 0)
            return Error::Format(ACL_ERROR_INVALID_MODEL_ID, "model %u does not exist", modelId);
        auto it = s.subs.find(modelId);
        NPU_ACL_CHECK(it != s.subs.end(), "model %u is not subscribed (aclprofModelSubscribe)",
                      modelId);
        ::close(it->second.fd);
        s.subs.erase(it);
        return Error::Ok();
    });
}

aclError aclprofGetOpDescSize(size_t *opDescSize) {
    return RunApiBody("aclprofGetOpDescSize", [&] {
        NPU_ACL_CHECK(opDescSize != nullptr, "opDescSize is NULL");
        *opDescSize = sizeof(OpRecord);
        return Error::Ok();
    });
}

aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber) {
    return RunApiBody("aclprofGetOpNum", [&] {
        const OpRecord *r = nullptr;
        NPU_RETURN_IF_ERROR(Record(opInfo, opInfoLen, 0, &r));
        NPU_ACL_CHECK(opNumber != nullptr, "opNumber is NULL");
        *opNumber = static_cast<uint32_t>(opInfoLen / sizeof(OpRecord));
        return Error::Ok();
    });
}

namespace {

Error FieldLen(const void *opInfo, size_t opInfoLen, uint32_t index, size_t *len, bool type) {
    const OpRecord *r = nullptr;
    NPU_RETURN_IF_ERROR(Record(opInfo, opInfoLen, index, &r));
    NPU_ACL_CHECK(len != nullptr, "%s is NULL", type ? "opTypeLen" : "opNameLen");
    const char *f = type ? r->op_type : r->op_name;
    *len = ::strnlen(f, type ? sizeof(r->op_type) : sizeof(r->op_name)) + 1;
    return Error::Ok();
}

Error FieldCopy(const void *opInfo, size_t opInfoLen, uint32_t index, char *out, size_t n,
                bool type) {
    size_t need = 0;
    NPU_RETURN_IF_ERROR(FieldLen(opInfo, opInfoLen, index, &need, type));
    NPU_ACL_CHECK(out != nullptr, "%s is NULL", type ? "opType" : "opName");
    NPU_ACL_CHECK(n >= need, "%s %zu is below the %zu bytes needed",
                  type ? "opTypeLen" : "opNameLen", n, need);
    const OpRecord *r = static_cast<const OpRecord *>(opInfo) + index;
    std::memcpy(out, type ? r->op_type : r->op_name, need - 1);
    out[need - 1] = '\0';
    return Error::Ok();
}

template <typename T, typename F>
T ReadField(const char *api, const void *opInfo, size_t opInfoLen, uint32_t index, F field) {
    T v = 0;
    RunApiBody(api, [&] {
        const OpRecord *r = nullptr;
        NPU_RETURN_IF_ERROR(Record(opInfo, opInfoLen, index, &r));
        v = static_cast<T>(field(*r));
        return Error::Ok();
    });
    return v;
}

}  // namespace

aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index,
                             size_t *opTypeLen) {
    return RunApiBody("aclprofGetOpTypeLen",
                      [&] { return FieldLen(opInfo, opInfoLen, index, opTypeLen, true); });
}

aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index, char *opType,
                          size_t opTypeLen) {
    return RunApiBody("aclprofGetOpType",
                      [&] { return FieldCopy(opInfo, opInfoLen, index, opType, opTypeLen, true); });
}

aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index,
                             size_t *opNameLen) {
    return RunApiBody("aclprofGetOpNameLen",
                      [&] { return FieldLen(opInfo, opInfoLen, index, opNameLen, false); });
}

aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index, char *opName,
                          size_t opNameLen) {
    return RunApiBody("aclprofGetOpName", [&] {
        return FieldCopy(opInfo, opInfoLen, index, opName, opNameLen, false);
    });
}

uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index) {
    return ReadField<uint64_t>("aclprofGetOpStart", opInfo, opInfoLen, index,
                               [](const OpRecord &r) { return r.start_us; });
}

uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index) {
    return ReadField<uint64_t>("aclprofGetOpEnd", opInfo, opInfoLen, index,
                               [](const OpRecord &r) { return r.end_us; });
}

uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index) {
    return ReadField<uint64_t>("aclprofGetOpDuration", opInfo, opInfoLen, index,
                               [](const OpRecord &r) { return r.end_us - r.start_us; });
}

size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index) {
    return ReadField<size_t>("aclprofGetModelId", opInfo, opInfoLen, index,
                             [](const OpRecord &r) { return r.model_id; });
}
