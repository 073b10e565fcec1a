// SPDX-License-Identifier: MIT
// CANN's profiling API (acl/acl_prof.h) over the runtime's trace
// (base/trace.h): aclprofInit names a directory, aclprofStart begins a
// trace session, aclprofStop writes it to a file of that directory, and the
// msproftx calls (marks, pushed and free ranges, steps) are events in it.
// The README's profiling section describes the file.
//
// Every handle the program gets (configurations, stamps, step infos, range
// ids) is looked up in a table before use, so that a foreign, stale or
// already destroyed one is refused with ACL_ERROR_INVALID_PARAM rather
// than dereferenced; the tables are capped so that a program cannot grow
// them without end.
//
// These calls are not slices of the trace themselves (RunApiBody, not
// RunApi): a push or a mark happens inside its call, so the call's slice
// would cut across the ranges the program draws.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "base/json_text.h"
#include "api/api_boundary.h"
#include "base/singleton.h"
#include "base/trace.h"
#include "core/device_manager.h"

using npu::rt::Error;
using npu::rt::RunApiBody;

// The handle types the header leaves opaque.
struct aclprofConfig {
    std::vector<uint32_t> devices;
    int32_t metrics;
    uint64_t types;
};

struct aclprofStepInfo {
    uint64_t index;
    uint64_t t_start;  // 0: not started
    bool ended;
};

namespace {

constexpr size_t kMaxPathLen = 4096;    // aclprofInit: length below this
constexpr size_t kMaxConfigLen = 256;   // aclprofSetConfig
constexpr uint32_t kMaxStampMsg = 128;  // aclprofSetStampTraceMessage: msgLen below this
constexpr size_t kMaxMarkExMsg = 127;   // aclprofMarkEx
constexpr uint32_t kMaxDevices = 64;    // aclprofCreateConfig's deviceNums
// Caps on what a program can make the runtime hold.
constexpr size_t kMaxHandles = 65536;   // each of: configs, stamps, step infos, open ranges
constexpr size_t kMaxIds = 65536;       // aclprofStr2Id's names kept for aclprofRangePushEx
constexpr size_t kMaxDepth = 1024;      // a thread's aclprofPush (and aclprofRangePushEx) nesting
constexpr size_t kMaxStr2IdLen = 4096;  // characters of aclprofStr2Id's message hashed

// Every ACL_PROF_* bit the header defines: others are refused by
// aclprofStart (ACL_ERROR_PROF_MODULES_UNSUPPORTED).
constexpr uint64_t kKnownTypes =
    ACL_PROF_ACL_API | ACL_PROF_TASK_TIME | ACL_PROF_AICORE_METRICS | ACL_PROF_AICPU |
    ACL_PROF_L2CACHE | ACL_PROF_HCCL_TRACE | ACL_PROF_TRAINING_TRACE | ACL_PROF_MSPROFTX |
    ACL_PROF_RUNTIME_API | ACL_PROF_GE_API_L0 | ACL_PROF_TASK_TIME_L0 | ACL_PROF_TASK_MEMORY |
    ACL_PROF_GE_API_L1 | ACL_PROF_TASK_TIME_L2 | ACL_PROF_OP_ATTR | ACL_PROF_TASK_TIME_L3 |
    ACL_PROF_API_STATS | ACL_PROF_AICORE_SHAPE;

struct Stamp {
    std::string msg;
};

struct RangeOpen {
    std::string name;
    uint64_t t0;
};

// A range a thread pushed, with the session it was pushed in: one pushed
// before the session that is running now is not part of its file.
struct Pushed {
    std::string name;
    uint64_t t0;
    uint64_t session;
};

thread_local std::vector<Pushed> t_pushed;     // aclprofPush
thread_local std::vector<Pushed> t_pushed_ex;  // aclprofRangePushEx

struct ProfState {
    // A leaf but for Tracer::mu (sessions and events are recorded under it,
    // so that a session cannot end between the check and the record).
    std::mutex mu; /* Protects: everything below */
    bool inited = false;
    std::string dir;                          // absolute; aclprofInit or ACL_PROF_PATH
    uint64_t session = 0;                     // the running session's number (1, 2, ...), 0: none
    uint64_t sessions = 0;                    // how many were started
    aclprofConfig running;                    // the running session's configuration
    std::map<int32_t, std::string> settings;  // aclprofSetConfig, by aclprofConfigType
    std::unordered_map<const void *, std::unique_ptr<aclprofConfig>> configs;
    std::unordered_map<const void *, std::unique_ptr<Stamp>> stamps;
    std::unordered_map<const void *, std::unique_ptr<aclprofStepInfo>> steps;
    uint64_t next_step = 0;
    std::unordered_map<uint32_t, RangeOpen> ranges;  // aclprofRangeStart's, by id
    uint32_t next_range = 1;
    std::unordered_map<uint64_t, std::string> names;  // aclprofStr2Id's

    static ProfState &Get() { return npu::base::Singleton<ProfState>::Get(); }
};

const char *ConfigTypeName(int32_t type) {
    switch (type) {
        case ACL_PROF_STORAGE_LIMIT:
            return "ACL_PROF_STORAGE_LIMIT";
        case ACL_PROF_SYS_HARDWARE_MEM_FREQ:
            return "ACL_PROF_SYS_HARDWARE_MEM_FREQ";
        case ACL_PROF_LLC_MODE:
            return "ACL_PROF_LLC_MODE";
        case ACL_PROF_SYS_IO_FREQ:
            return "ACL_PROF_SYS_IO_FREQ";
        case ACL_PROF_SYS_INTERCONNECTION_FREQ:
            return "ACL_PROF_SYS_INTERCONNECTION_FREQ";
        case ACL_PROF_DVPP_FREQ:
            return "ACL_PROF_DVPP_FREQ";
        case ACL_PROF_HOST_SYS:
            return "ACL_PROF_HOST_SYS";
        case ACL_PROF_HOST_SYS_USAGE:
            return "ACL_PROF_HOST_SYS_USAGE";
        case ACL_PROF_HOST_SYS_USAGE_FREQ:
            return "ACL_PROF_HOST_SYS_USAGE_FREQ";
        case ACL_PROF_LOW_POWER_FREQ:
            return "ACL_PROF_LOW_POWER_FREQ";
        case ACL_PROF_SYS_MEM_SERVICEFLOW:
            return "ACL_PROF_SYS_MEM_SERVICEFLOW";
        case ACL_PROF_SYS_CPU_FREQ:
            return "ACL_PROF_SYS_CPU_FREQ";
        case ACL_PROF_OPTYPE:
            return "ACL_PROF_OPTYPE";
        case ACL_PROF_NTS_METRICS:
            return "ACL_PROF_NTS_METRICS";
        case ACL_PROF_PATH:
            return "ACL_PROF_PATH";
        default:
            return nullptr;
    }
}

bool IsFrequency(int32_t type) {
    switch (type) {
        case ACL_PROF_SYS_HARDWARE_MEM_FREQ:
        case ACL_PROF_SYS_IO_FREQ:
        case ACL_PROF_SYS_INTERCONNECTION_FREQ:
        case ACL_PROF_DVPP_FREQ:
        case ACL_PROF_HOST_SYS_USAGE_FREQ:
        case ACL_PROF_LOW_POWER_FREQ:
        case ACL_PROF_SYS_CPU_FREQ:
            return true;
        default:
            return false;
    }
}

// The decimal number s (digits only, no sign), if it is one and at most max.
bool ParseDecimal(const std::string &s, uint64_t max, uint64_t *v) {
    if (s.empty() || s.size() > 20)
        return false;
    uint64_t x = 0;
    for (char c : s) {
        if (c < '0' || c > '9')
            return false;
        const uint64_t d = static_cast<uint64_t>(c - '0');
        if (x > (max - d) / 10)
            return false;
        x = x * 10 + d;
    }
    *v = x;
    return true;
}

// otherData.aclprof of a session's file: its configuration and settings.
std::string SessionMeta(const ProfState &s, uint64_t session) {
    std::string m = "{\"session\":" + std::to_string(session) + ",\"devices\":[";
    for (size_t i = 0; i < s.running.devices.size(); i++) {
        if (i != 0)
            m += ",";
        m += std::to_string(s.running.devices[i]);
    }
    char types[32];
    std::snprintf(types, sizeof(types), "0x%" PRIx64, s.running.types);
    m += "],\"aicore_metrics\":" + std::to_string(s.running.metrics) + ",\"data_types\":\"" +
         types + "\",\"settings\":{";
    bool first = true;
    for (const auto &[type, value] : s.settings) {
        if (!first)
            m += ",";
        first = false;
        npu::base::AppendJsonString(&m, ConfigTypeName(type));
        m += ":";
        npu::base::AppendJsonString(&m, value);
    }
    m += "}}";
    return m;
}

// path (length characters, already checked) as an absolute directory that
// exists, made with its missing parents (0750) if need be.
Error MakeDirectory(const std::string &path, std::string *abs) {
    std::string p = path;
    if (p[0] != '/') {
        char cwd[kMaxPathLen];
        if (::getcwd(cwd, sizeof(cwd)) == nullptr)
            return Error::Format(ACL_ERROR_INVALID_PARAM,
                                 "the current directory is unknown (%s), so \"%s\" is too",
                                 std::strerror(errno), path.c_str());
        p = std::string(cwd) + "/" + p;
    }
    // One mkdir per component: bounded by the path's length.
    for (size_t i = 1; i <= p.size(); i++) {
        if (i != p.size() && p[i] != '/')
            continue;
        const std::string prefix = p.substr(0, i);
        if (::mkdir(prefix.c_str(), 0750) != 0 && errno != EEXIST)
            return Error::Format(ACL_ERROR_INVALID_PARAM, "cannot make directory %s: %s",
                                 prefix.c_str(), std::strerror(errno));
    }
    struct stat st;
    if (::stat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return Error::Format(ACL_ERROR_INVALID_PARAM, "%s is not a directory", p.c_str());
    if (::access(p.c_str(), W_OK | X_OK) != 0)
        return Error::Format(ACL_ERROR_INVALID_PARAM, "cannot write in %s: %s", p.c_str(),
                             std::strerror(errno));
    *abs = p;
    return Error::Ok();
}

// ACL_ERROR_PROF_NOT_RUN unless a session runs (s.mu held).
Error RequireSession(const ProfState &s, const char *what) {
    if (s.session == 0)
        return Error::Format(ACL_ERROR_PROF_NOT_RUN,
                             "no profiling session runs: call aclprofInit and aclprofStart "
                             "before %s",
                             what);
    return Error::Ok();
}

Error LookupStamp(const ProfState &s, const void *stamp, Stamp **out) {
    NPU_ACL_CHECK(stamp != nullptr, "stamp is NULL");
    auto it = s.stamps.find(stamp);
    NPU_ACL_CHECK(it != s.stamps.end(), "stamp %p is not a live stamp of aclprofCreateStamp",
                  stamp);
    *out = it->second.get();
    return Error::Ok();
}

// The configuration a call names: a live one of aclprofCreateConfig.
Error LookupConfig(const ProfState &s, const aclprofConfig *config, const aclprofConfig **out) {
    auto it = s.configs.find(config);
    NPU_ACL_CHECK(it != s.configs.end(),
                  "profilerConfig %p is not a live configuration of aclprofCreateConfig",
                  static_cast<const void *>(config));
    *out = it->second.get();
    return Error::Ok();
}

// The device count for a NULL configuration (every device), read before
// ProfState::mu is taken: DeviceManager::mu_ ranks above it.
Error DefaultDeviceCount(const aclprofConfig *config, uint32_t *count) {
    *count = 0;
    if (config != nullptr)
        return Error::Ok();
    return npu::rt::DeviceManager::Get().DeviceCount(count);
}

// The checks of aclprofStart and aclprofStop on a configuration (NULL:
// the first `count` devices with the defaults).
Error ResolveConfig(const ProfState &s, const aclprofConfig *config, uint32_t count,
                    aclprofConfig *out) {
    if (config == nullptr) {
        out->devices.clear();
        for (uint32_t d = 0; d < count && d < kMaxDevices; d++)
            out->devices.push_back(d);
        out->metrics = ACL_AICORE_NONE;
        out->types = ACL_PROF_ACL_API | ACL_PROF_TASK_TIME;
        return Error::Ok();
    }
    const aclprofConfig *c = nullptr;
    NPU_RETURN_IF_ERROR(LookupConfig(s, config, &c));
    NPU_ACL_CHECK(c->types != 0, "the configuration's dataTypeConfig is 0");
    if ((c->types & ~kKnownTypes) != 0)
        return Error::Format(ACL_ERROR_PROF_MODULES_UNSUPPORTED,
                             "dataTypeConfig 0x%" PRIx64 " has bits no ACL_PROF_* names (0x%" PRIx64
                             ")",
                             c->types, c->types & ~kKnownTypes);
    *out = *c;
    return Error::Ok();
}

bool SameConfig(const aclprofConfig &a, const aclprofConfig &b) {
    return a.devices == b.devices && a.types == b.types && a.metrics == b.metrics;
}

// Ends the running session (s.mu held): its file is written.
Error EndSessionLocked(ProfState &s) {
    s.session = 0;
    s.ranges.clear();
    const int err = npu::base::trace::SessionEnd();
    if (err != 0)
        return Error::Format(ACL_ERROR_WRITE_FILE, "cannot write the profiling data in %s: %s",
                             s.dir.c_str(), std::strerror(err));
    return Error::Ok();
}

// aclprofPush and aclprofRangePushEx: a range opened on this thread.
Error PushLocked(const ProfState &s, std::vector<Pushed> *stack, const std::string &name) {
    if (stack->size() >= kMaxDepth)
        return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT,
                             "this thread has %zu ranges open already", kMaxDepth);
    stack->push_back(Pushed{name, npu::base::trace::NowNs(), s.session});
    return Error::Ok();
}

// aclprofPop and aclprofRangePop: the innermost range closed.
Error PopLocked(const ProfState &s, std::vector<Pushed> *stack, const char *push_api) {
    if (stack->empty())
        return Error::Format(ACL_ERROR_FAILURE, "this thread has no open range: call %s first",
                             push_api);
    Pushed p = std::move(stack->back());
    stack->pop_back();
    // Pushed in an earlier session: its start is not in this one's file.
    if (p.session == s.session)
        npu::base::trace::UserRange("msproftx", p.name, p.t0, npu::base::trace::NowNs());
    return Error::Ok();
}

uint64_t HashName(const char *msg, size_t len) {
    // FNV-1a, 64 bits.
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < len; i++) {
        h ^= static_cast<unsigned char>(msg[i]);
        h *= 0x100000001b3ULL;
    }
    return h;
}

}  // namespace

aclError aclprofInit(const char *profilerResultPath, size_t length) {
    return RunApiBody("aclprofInit", [&] {
        NPU_ACL_CHECK(profilerResultPath != nullptr, "profilerResultPath is NULL");
        NPU_ACL_CHECK(length != 0 && length < kMaxPathLen, "length %zu is not in [1, %zu)", length,
                      kMaxPathLen);
        NPU_ACL_CHECK(::strnlen(profilerResultPath, length + 1) == length,
                      "length %zu is not the length of profilerResultPath", length);
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.inited)
            return Error::Format(ACL_ERROR_REPEAT_INITIALIZE,
                                 "profiling is initialised already (aclprofFinalize first)");
        std::string dir;
        NPU_RETURN_IF_ERROR(MakeDirectory(std::string(profilerResultPath, length), &dir));
        s.dir = dir;
        s.inited = true;
        return Error::Ok();
    });
}

aclError aclprofFinalize(void) {
    return RunApiBody("aclprofFinalize", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        // Like upstream: without aclprofInit there is nothing to end.
        if (!s.inited)
            return Error::Ok();
        Error e = Error::Ok();
        if (s.session != 0)
            e = EndSessionLocked(s);
        s.inited = false;
        return e;
    });
}

aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                   aclprofAicoreMetrics aicoreMetrics,
                                   const aclprofAicoreEvents *aicoreEvents,
                                   uint64_t dataTypeConfig) {
    aclprofConfig *made = nullptr;
    RunApiBody("aclprofCreateConfig", [&] {
        NPU_ACL_CHECK(deviceNums == 0 || deviceIdList != nullptr, "deviceIdList is NULL");
        NPU_ACL_CHECK(aicoreEvents == nullptr, "aicoreEvents must be NULL");
        NPU_ACL_CHECK(deviceNums <= kMaxDevices, "deviceNums %u is above %u", deviceNums,
                      kMaxDevices);
        NPU_ACL_CHECK(deviceNums != 0 || (dataTypeConfig & ACL_PROF_MSPROFTX) != 0,
                      "deviceNums is 0 (allowed only with ACL_PROF_MSPROFTX)");
        uint32_t count = 0;
        NPU_RETURN_IF_ERROR(npu::rt::DeviceManager::Get().DeviceCount(&count));
        NPU_ACL_CHECK(deviceNums <= count, "deviceNums %u is above the %u devices", deviceNums,
                      count);
        auto c = std::make_unique<aclprofConfig>();
        for (uint32_t i = 0; i < deviceNums; i++) {
            const uint32_t d = deviceIdList[i];
            NPU_ACL_CHECK(d < count, "device id %u is not below the device count %u", d, count);
            for (uint32_t seen : c->devices)
                NPU_ACL_CHECK(seen != d, "device id %u is listed twice", d);
            c->devices.push_back(d);
        }
        c->metrics = npu::rt::EnumValue(aicoreMetrics);
        c->types = dataTypeConfig;
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.configs.size() >= kMaxHandles)
            return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT, "%zu configurations exist already",
                                 kMaxHandles);
        made = c.get();
        s.configs.emplace(made, std::move(c));
        return Error::Ok();
    });
    return made;
}

aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig) {
    return RunApiBody("aclprofDestroyConfig", [&] {
        NPU_ACL_CHECK(profilerConfig != nullptr, "profilerConfig is NULL");
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        const aclprofConfig *c = nullptr;
        NPU_RETURN_IF_ERROR(LookupConfig(s, profilerConfig, &c));
        s.configs.erase(c);
        return Error::Ok();
    });
}

aclError aclprofStart(const aclprofConfig *profilerConfig) {
    return RunApiBody("aclprofStart", [&] {
        uint32_t count = 0;
        NPU_RETURN_IF_ERROR(DefaultDeviceCount(profilerConfig, &count));
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        aclprofConfig c;
        NPU_RETURN_IF_ERROR(ResolveConfig(s, profilerConfig, count, &c));
        if (!s.inited)
            return Error::Format(ACL_ERROR_PROF_NOT_RUN,
                                 "profiling is not initialised: call aclprofInit first");
        if (s.session != 0) {
            // Like upstream: the same configuration again is no error.
            if (SameConfig(c, s.running))
                return Error::Ok();
            return Error::Format(ACL_ERROR_INVALID_PROFILING_CONFIG,
                                 "a session with another configuration runs already");
        }
        const uint64_t n = s.sessions + 1;
        char name[64];
        std::snprintf(name, sizeof(name), "/aclprof_%d_%" PRIu64 ".json",
                      static_cast<int>(::getpid()), n);
        s.running = c;
        if (!npu::base::trace::SessionBegin(s.dir + name, SessionMeta(s, n)))
            return Error::Format(ACL_ERROR_PROFILING_FAILURE, "a trace session runs already");
        s.sessions = n;
        s.session = n;
        return Error::Ok();
    });
}

aclError aclprofStop(const aclprofConfig *profilerConfig) {
    return RunApiBody("aclprofStop", [&] {
        uint32_t count = 0;
        NPU_RETURN_IF_ERROR(DefaultDeviceCount(profilerConfig, &count));
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        // Like upstream: without aclprofInit there is nothing to stop.
        if (!s.inited)
            return Error::Ok();
        aclprofConfig c;
        if (profilerConfig == nullptr && s.session != 0)
            c = s.running;
        else
            NPU_RETURN_IF_ERROR(ResolveConfig(s, profilerConfig, count, &c));
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofStop"));
        if (!SameConfig(c, s.running))
            return Error::Format(ACL_ERROR_INVALID_PROFILING_CONFIG,
                                 "the configuration is not the one the session started with");
        return EndSessionLocked(s);
    });
}

aclError aclprofSetConfig(aclprofConfigType configType, const char *config, size_t configLength) {
    return RunApiBody("aclprofSetConfig", [&] {
        const int32_t type = npu::rt::EnumValue(configType);
        NPU_ACL_CHECK(type > ACL_PROF_ARGS_MIN && type < ACL_PROF_ARGS_MAX,
                      "configType %d is not in (%d, %d)", type, ACL_PROF_ARGS_MIN,
                      ACL_PROF_ARGS_MAX);
        NPU_ACL_CHECK(configLength <= kMaxConfigLen, "configLength %zu is above %zu", configLength,
                      kMaxConfigLen);
        NPU_ACL_CHECK(config != nullptr, "config is NULL");
        NPU_ACL_CHECK(::strnlen(config, configLength + 1) == configLength,
                      "configLength %zu is not the length of config", configLength);
        const char *name = ConfigTypeName(type);
        if (name == nullptr)
            return Error::Format(ACL_ERROR_INVALID_PROFILING_CONFIG,
                                 "configType %d names no setting", type);
        const std::string value(config, configLength);
        uint64_t v = 0;
        if (IsFrequency(type) && (!ParseDecimal(value, 100, &v) || v == 0))
            return Error::Format(ACL_ERROR_INVALID_PROFILING_CONFIG,
                                 "%s must be a whole number in [1, 100]", name);
        if (type == ACL_PROF_STORAGE_LIMIT &&
            (value.size() < 3 || value.compare(value.size() - 2, 2, "MB") != 0 ||
             !ParseDecimal(value.substr(0, value.size() - 2), UINT32_MAX, &v) || v < 200))
            return Error::Format(ACL_ERROR_INVALID_PROFILING_CONFIG,
                                 "ACL_PROF_STORAGE_LIMIT must be <N>MB with N in [200, %u]",
                                 UINT32_MAX);
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (type == ACL_PROF_PATH) {
            NPU_ACL_CHECK(!value.empty(), "ACL_PROF_PATH is empty");
            std::string dir;
            NPU_RETURN_IF_ERROR(MakeDirectory(value, &dir));
            s.dir = dir;
        }
        s.settings[type] = value;
        return Error::Ok();
    });
}

aclprofStepInfo *aclprofCreateStepInfo(void) {
    aclprofStepInfo *made = nullptr;
    RunApiBody("aclprofCreateStepInfo", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.steps.size() >= kMaxHandles)
            return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT, "%zu step infos exist already",
                                 kMaxHandles);
        auto step = std::make_unique<aclprofStepInfo>(aclprofStepInfo{s.next_step++, 0, false});
        made = step.get();
        s.steps.emplace(made, std::move(step));
        return Error::Ok();
    });
    return made;
}

void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo) {
    RunApiBody("aclprofDestroyStepInfo", [&] {
        NPU_ACL_CHECK(stepinfo != nullptr, "stepinfo is NULL");
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_ACL_CHECK(s.steps.erase(stepinfo) != 0,
                      "stepinfo %p is not a live step info of aclprofCreateStepInfo",
                      static_cast<void *>(stepinfo));
        return Error::Ok();
    });
}

aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag,
                                 aclrtStream stream) {
    (void)stream;  // the step is a range of the host's, whatever stream runs it
    return RunApiBody("aclprofGetStepTimestamp", [&] {
        NPU_ACL_CHECK(stepInfo != nullptr, "stepInfo is NULL");
        const int32_t t = npu::rt::EnumValue(tag);
        NPU_ACL_CHECK(t == ACL_STEP_START || t == ACL_STEP_END, "tag %d is not a step tag", t);
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_ACL_CHECK(s.steps.count(stepInfo) != 0,
                      "stepInfo %p is not a live step info of aclprofCreateStepInfo",
                      static_cast<void *>(stepInfo));
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofGetStepTimestamp"));
        const uint64_t now = npu::base::trace::NowNs();
        if (t == ACL_STEP_START) {
            NPU_ACL_CHECK(stepInfo->t_start == 0, "step %" PRIu64 " has started already",
                          stepInfo->index);
            stepInfo->t_start = now;
            return Error::Ok();
        }
        NPU_ACL_CHECK(stepInfo->t_start != 0, "step %" PRIu64 " has not started", stepInfo->index);
        NPU_ACL_CHECK(!stepInfo->ended, "step %" PRIu64 " has ended already", stepInfo->index);
        stepInfo->ended = true;
        npu::base::trace::UserAsyncRange("step", "step " + std::to_string(stepInfo->index),
                                         stepInfo->index, stepInfo->t_start, now);
        return Error::Ok();
    });
}

void *aclprofCreateStamp(void) {
    void *made = nullptr;
    RunApiBody("aclprofCreateStamp", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (!s.inited)
            return Error::Format(ACL_ERROR_PROF_NOT_RUN,
                                 "profiling is not initialised: call aclprofInit first");
        if (s.stamps.size() >= kMaxHandles)
            return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT, "%zu stamps exist already",
                                 kMaxHandles);
        auto stamp = std::make_unique<Stamp>();
        made = stamp.get();
        s.stamps.emplace(made, std::move(stamp));
        return Error::Ok();
    });
    return made;
}

void aclprofDestroyStamp(void *stamp) {
    RunApiBody("aclprofDestroyStamp", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        Stamp *st = nullptr;
        NPU_RETURN_IF_ERROR(LookupStamp(s, stamp, &st));
        s.stamps.erase(stamp);
        return Error::Ok();
    });
}

aclError aclprofSetStampTraceMessage(void *stamp, const char *msg, uint32_t msgLen) {
    return RunApiBody("aclprofSetStampTraceMessage", [&] {
        NPU_ACL_CHECK(msg != nullptr, "msg is NULL");
        NPU_ACL_CHECK(msgLen < kMaxStampMsg, "msgLen %u is not below %u", msgLen, kMaxStampMsg);
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        Stamp *st = nullptr;
        NPU_RETURN_IF_ERROR(LookupStamp(s, stamp, &st));
        // At most msgLen characters, up to a NUL inside them.
        st->msg.assign(msg, ::strnlen(msg, msgLen));
        return Error::Ok();
    });
}

aclError aclprofMark(void *stamp) {
    return RunApiBody("aclprofMark", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofMark"));
        Stamp *st = nullptr;
        NPU_RETURN_IF_ERROR(LookupStamp(s, stamp, &st));
        npu::base::trace::UserMark("msproftx", st->msg, nullptr);
        return Error::Ok();
    });
}

aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream) {
    return RunApiBody("aclprofMarkEx", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofMarkEx"));
        NPU_ACL_CHECK(msg != nullptr, "msg is NULL");
        NPU_ACL_CHECK(stream != nullptr, "stream is NULL");
        NPU_ACL_CHECK(msgLen >= 1 && msgLen <= kMaxMarkExMsg, "msgLen %zu is not in [1, %zu]",
                      msgLen, kMaxMarkExMsg);
        NPU_ACL_CHECK(::strnlen(msg, msgLen + 1) == msgLen, "msgLen %zu is not the length of msg",
                      msgLen);
        npu::base::trace::UserMark("msproftx", std::string(msg, msgLen), stream);
        return Error::Ok();
    });
}

aclError aclprofPush(void *stamp) {
    return RunApiBody("aclprofPush", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofPush"));
        Stamp *st = nullptr;
        NPU_RETURN_IF_ERROR(LookupStamp(s, stamp, &st));
        return PushLocked(s, &t_pushed, st->msg);
    });
}

aclError aclprofPop(void) {
    return RunApiBody("aclprofPop", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofPop"));
        return PopLocked(s, &t_pushed, "aclprofPush");
    });
}

aclError aclprofRangeStart(void *stamp, uint32_t *rangeId) {
    return RunApiBody("aclprofRangeStart", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofRangeStart"));
        Stamp *st = nullptr;
        NPU_RETURN_IF_ERROR(LookupStamp(s, stamp, &st));
        NPU_ACL_CHECK(rangeId != nullptr, "rangeId is NULL");
        if (s.ranges.size() >= kMaxHandles)
            return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT, "%zu ranges are open already",
                                 kMaxHandles);
        // The next id not in use (and not 0): fewer than kMaxHandles are.
        uint32_t id = s.next_range;
        while (id == 0 || s.ranges.count(id) != 0)
            id++;
        s.next_range = id + 1;
        s.ranges.emplace(id, RangeOpen{st->msg, npu::base::trace::NowNs()});
        *rangeId = id;
        return Error::Ok();
    });
}

aclError aclprofRangeStop(uint32_t rangeId) {
    return RunApiBody("aclprofRangeStop", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofRangeStop"));
        auto it = s.ranges.find(rangeId);
        NPU_ACL_CHECK(it != s.ranges.end(), "range %u is not open (aclprofRangeStart)", rangeId);
        npu::base::trace::UserAsyncRange("msproftx", it->second.name, rangeId, it->second.t0,
                                         npu::base::trace::NowNs());
        s.ranges.erase(it);
        return Error::Ok();
    });
}

uint64_t aclprofStr2Id(const char *message) {
    uint64_t id = 0;
    RunApiBody("aclprofStr2Id", [&] {
        NPU_ACL_CHECK(message != nullptr, "message is NULL");
        const size_t len = ::strnlen(message, kMaxStr2IdLen);
        id = HashName(message, len);
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        // Kept to name aclprofRangePushEx's ranges; past the cap they are
        // named by id.
        if (s.names.size() < kMaxIds)
            s.names.emplace(id, std::string(message, len));
        return Error::Ok();
    });
    return id;
}

aclError aclprofRangePushEx(aclprofEventAttributes *attr) {
    return RunApiBody("aclprofRangePushEx", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofRangePushEx"));
        NPU_ACL_CHECK(attr != nullptr, "attr is NULL");
        NPU_ACL_CHECK(attr->version >= 1, "attr->version %u is not a version", attr->version);
        NPU_ACL_CHECK(attr->messageType == ACL_PROF_MESSAGE_TYPE_TENSOR_INFO,
                      "attr->messageType %u is not ACL_PROF_MESSAGE_TYPE_TENSOR_INFO",
                      attr->messageType);
        const aclprofTensorInfo *info = attr->message.tensorInfo;
        NPU_ACL_CHECK(info != nullptr, "attr->message.tensorInfo is NULL");
        auto it = s.names.find(info->opNameId);
        std::string name;
        if (it != s.names.end()) {
            name = it->second;
        } else {
            char buf[40];
            std::snprintf(buf, sizeof(buf), "op 0x%" PRIx64, info->opNameId);
            name = buf;
        }
        return PushLocked(s, &t_pushed_ex, name);
    });
}

aclError aclprofRangePop(void) {
    return RunApiBody("aclprofRangePop", [&] {
        ProfState &s = ProfState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        NPU_RETURN_IF_ERROR(RequireSession(s, "aclprofRangePop"));
        return PopLocked(s, &t_pushed_ex, "aclprofRangePushEx");
    });
}
