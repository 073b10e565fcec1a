// SPDX-License-Identifier: MIT
// Dump: the configuration (aclInit's file, aclmdlSetDump), the switches of
// acl/acl_dump.h and the files they produce; dump.h says what is dumped.
#include "base/json_text.h"
#include "core/dump.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>

#include "base/singleton.h"
#include "core/config_file.h"
#include "core/json_value.h"

namespace npu::rt::dump {

namespace {

constexpr size_t kMaxPath = ACL_DUMP_MAX_FILE_PATH_LENGTH;
constexpr size_t kChunk = 1u << 20;  // the most one callback chunk carries

// Upstream's exception dump scenes (aclInit's dump_scene).
bool ExceptionScene(const std::string &s) {
    return s == "aic_err_brief_dump" || s == "aic_err_norm_dump" || s == "aic_err_detail_dump" ||
           s == "lite_exception";
}

// path made absolute (from the current directory) and created with its
// missing parents.
Error MakeDirs(const std::string &path, std::string *abs) {
    std::string p = path;
    if (p.empty())
        p = ".";
    if (p[0] != '/') {
        char cwd[kMaxPath];
        if (::getcwd(cwd, sizeof(cwd)) == nullptr)
            return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG,
                                 "the current directory is unknown: %s", std::strerror(errno));
        p = std::string(cwd) + "/" + p;
    }
    // "/a/./b/" -> "/a/b"
    std::string clean;
    size_t i = 0;
    while (i < p.size()) {
        size_t j = p.find('/', i);
        if (j == std::string::npos)
            j = p.size();
        const std::string part = p.substr(i, j - i);
        if (!part.empty() && part != ".")
            clean += "/" + part;
        i = j + 1;
    }
    if (clean.empty())
        clean = "/";
    if (clean.size() >= kMaxPath)
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG, "path %s is longer than %zu characters",
                             clean.c_str(), kMaxPath - 1);
    for (size_t k = 1; k <= clean.size(); k++) {
        if (k != clean.size() && clean[k] != '/')
            continue;
        const std::string prefix = clean.substr(0, k);
        if (::mkdir(prefix.c_str(), 0750) != 0 && errno != EEXIST)
            return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG, "cannot make directory %s: %s",
                                 prefix.c_str(), std::strerror(errno));
    }
    if (::access(clean.c_str(), W_OK | X_OK) != 0)
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG, "cannot write in %s: %s", clean.c_str(),
                             std::strerror(errno));
    *abs = clean;
    return Error::Ok();
}

// Local time as YYYYMMDDhhmmss, plus milliseconds when ms.
std::string Stamp(bool ms) {
    const auto now = std::chrono::system_clock::now();
    const std::time_t t = std::chrono::system_clock::to_time_t(now);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y%m%d%H%M%S", &tm);
    std::string s = buf;
    if (ms) {
        const auto msec =
            std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() %
            1000;
        std::snprintf(buf, sizeof(buf), "%03d", static_cast<int>(msec));
        s += buf;
    }
    return s;
}

uint64_t NowUs() {
    return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                     std::chrono::system_clock::now().time_since_epoch())
                                     .count());
}

std::string ShapeJson(const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++)
        s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

// The "tensors" array of a header, with each tensor's offset in the data.
std::string TensorsJson(const std::vector<const Tensor *> &tensors) {
    std::string s = "[";
    uint64_t offset = 0;
    for (size_t i = 0; i < tensors.size(); i++) {
        const Tensor &t = *tensors[i];
        char buf[160];
        std::snprintf(buf, sizeof(buf),
                      "%s{\"type\":\"%s\",\"data_type\":%d,\"format\":%d,\"args_offset\":%u,"
                      "\"offset\":%" PRIu64 ",\"size\":%zu,\"shape\":",
                      i ? "," : "", t.type, t.data_type, t.format, t.args_offset, offset,
                      t.data.size());
        s += buf;
        s += ShapeJson(t.shape) + ",\"origin_shape\":" + ShapeJson(t.origin_shape) + "}";
        offset += t.data.size();
    }
    return s + "]";
}

// Writes bytes to path (its directory made first), or hands them to cb.
Error Deliver(Callback cb, const std::string &path, const std::string &bytes) {
    if (path.size() >= kMaxPath)
        return Error::Format(ACL_ERROR_FAILURE, "dump file name %s is too long", path.c_str());
    if (cb != nullptr) {
        const size_t cap = std::min(kChunk, std::max<size_t>(bytes.size(), 1));
        std::unique_ptr<uint8_t[]> mem(new uint8_t[sizeof(acldumpChunk) + cap]);
        auto *chunk = reinterpret_cast<acldumpChunk *>(mem.get());
        size_t off = 0;
        do {
            const size_t n = std::min(cap, bytes.size() - off);
            std::memset(chunk, 0, sizeof(acldumpChunk));
            std::memcpy(chunk->fileName, path.c_str(), path.size() + 1);
            chunk->bufLen = static_cast<uint32_t>(n);
            chunk->isLastChunk = off + n == bytes.size() ? 1 : 0;
            chunk->offset = static_cast<int64_t>(off);
            chunk->flag = 0;
            std::memcpy(chunk->dataBuf, bytes.data() + off, n);
            const int32_t rc = cb(chunk, static_cast<int32_t>(sizeof(acldumpChunk) + n));
            if (rc != 0)
                return Error::Format(ACL_ERROR_FAILURE,
                                     "the dump callback returned %d for %s at offset %zu", rc,
                                     path.c_str(), off);
            off += n;
        } while (off < bytes.size());
        return Error::Ok();
    }
    const size_t slash = path.rfind('/');
    std::string dir;
    NPU_RETURN_IF_ERROR(MakeDirs(path.substr(0, slash), &dir));
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
    if (fd < 0)
        return Error::Format(ACL_ERROR_WRITE_FILE, "cannot create %s: %s", path.c_str(),
                             std::strerror(errno));
    size_t off = 0;
    while (off < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int err = errno;
            ::close(fd);
            return Error::Format(ACL_ERROR_WRITE_FILE, "cannot write %s: %s", path.c_str(),
                                 std::strerror(err));
        }
        off += static_cast<size_t>(n);
    }
    ::close(fd);
    return Error::Ok();
}

}  // namespace

std::string Container(const std::string &header_json, const std::vector<const Tensor *> &tensors) {
    std::string out = "NPUDUMP1";
    uint64_t len = header_json.size();
    for (int i = 0; i < 8; i++)
        out.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
    out += header_json;
    for (const Tensor *t : tensors)
        out.append(reinterpret_cast<const char *>(t->data.data()), t->data.size());
    return out;
}

DumpState &DumpState::Get() {
    return base::Singleton<DumpState>::Get();
}

Error DumpState::Configure(const std::string &content, const char *origin) {
    JsonValue doc;
    std::string why;
    if (!ParseJson(content, kMaxConfigNesting, &doc, &why))
        return Error::Format(ACL_ERROR_PARSE_FILE, "%s is not valid JSON: %s", origin, why.c_str());
    const JsonValue *d = doc.Find("dump");
    if (d == nullptr)
        return Error::Ok();
    if (d->kind != JsonValue::kObject)
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG, "%s: \"dump\" is not an object",
                             origin);
    auto str = [&](const char *name, const char *dflt, std::string *out) -> Error {
        const JsonValue *v = d->Find(name);
        if (v == nullptr) {
            *out = dflt;
            return Error::Ok();
        }
        if (v->kind != JsonValue::kString)
            return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG, "%s: dump.%s is not a string",
                                 origin, name);
        *out = v->text;
        return Error::Ok();
    };
    std::string op_switch, mode, data, scene, path;
    NPU_RETURN_IF_ERROR(str("dump_op_switch", "off", &op_switch));
    NPU_RETURN_IF_ERROR(str("dump_mode", "output", &mode));
    NPU_RETURN_IF_ERROR(str("dump_data", "tensor", &data));
    NPU_RETURN_IF_ERROR(str("dump_scene", "", &scene));
    NPU_RETURN_IF_ERROR(str("dump_path", "", &path));
    if (op_switch != "on" && op_switch != "off")
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG,
                             "%s: dump.dump_op_switch \"%s\" is not \"on\" or \"off\"", origin,
                             op_switch.c_str());
    if (mode != "input" && mode != "output" && mode != "all")
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG,
                             "%s: dump.dump_mode \"%s\" is not input, output or all", origin,
                             mode.c_str());
    if (data != "tensor")
        return Error::Format(
            ACL_ERROR_INVALID_DUMP_CONFIG,
            "%s: dump.dump_data \"%s\": only \"tensor\" is dumped here (statistics "
            "need the device's own reductions)",
            origin, data.c_str());
    if (!scene.empty() && !ExceptionScene(scene))
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG,
                             "%s: dump.dump_scene \"%s\" is not an exception dump scene", origin,
                             scene.c_str());
    const JsonValue *list = d->Find("dump_list");
    if (list != nullptr && list->kind != JsonValue::kArray)
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG, "%s: dump.dump_list is not an array",
                             origin);
    const bool models = list != nullptr && !list->items.empty();
    const bool ops = op_switch == "on";
    const bool data_on = ops || models;
    if ((data_on || !scene.empty()) && path.empty())
        return Error::Format(ACL_ERROR_INVALID_DUMP_CONFIG, "%s: dump.dump_path is missing",
                             origin);
    std::string abs;
    if (data_on || !scene.empty())
        NPU_RETURN_IF_ERROR(MakeDirs(path, &abs));
    std::lock_guard<std::mutex> lock(mu_);
    data_on_ = data_on;
    ops_on_ = ops;
    dump_inputs_ = mode != "output";
    dump_outputs_ = mode != "input";
    data_path_ = data_on ? abs : std::string();
    data_stamp_ = Stamp(false);
    exception_on_ = !scene.empty();
    exception_root_ = exception_on_ ? abs : std::string();
    return Error::Ok();
}

void DumpState::Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    model_dump_inited_ = false;
    data_on_ = ops_on_ = exception_on_ = false;
}

Error DumpState::InitModelDump() {
    std::lock_guard<std::mutex> lock(mu_);
    if (model_dump_inited_)
        return Error::Format(ACL_ERROR_REPEAT_INITIALIZE,
                             "aclmdlInitDump was called already (aclmdlFinalizeDump ends it)");
    model_dump_inited_ = true;
    return Error::Ok();
}

Error DumpState::SetModelDump(const char *path) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (!model_dump_inited_)
            return Error::Format(ACL_ERROR_DUMP_NOT_RUN,
                                 "call aclmdlInitDump before aclmdlSetDump");
    }
    if (path == nullptr)
        return Error::Format(ACL_ERROR_INVALID_PARAM, "dumpCfgPath is NULL");
    std::string content;
    NPU_RETURN_IF_ERROR(ReadConfigFile(path, &content));
    return Configure(content, path);
}

Error DumpState::FinalizeModelDump() {
    std::lock_guard<std::mutex> lock(mu_);
    if (!model_dump_inited_)
        return Error::Format(ACL_ERROR_DUMP_NOT_RUN,
                             "call aclmdlInitDump before aclmdlFinalizeDump");
    model_dump_inited_ = false;
    data_on_ = ops_on_ = false;
    return Error::Ok();
}

Error DumpState::StartArgs(const std::string &path) {
    std::string abs;
    Error e = MakeDirs(path, &abs);
    if (!e.ok())
        return Error::Format(ACL_ERROR_FAILURE, "%s", e.message().c_str());
    std::lock_guard<std::mutex> lock(mu_);
    args_on_ = true;
    args_path_ = abs;
    args_stamp_ = Stamp(false);
    return Error::Ok();
}

void DumpState::StopArgs() {
    std::lock_guard<std::mutex> lock(mu_);
    args_on_ = false;
}

void DumpState::SetCallback(Callback cb) {
    std::lock_guard<std::mutex> lock(mu_);
    callback_ = cb;
}

const char *DumpState::PathOf(int32_t type) {
    std::lock_guard<std::mutex> lock(mu_);
    switch (type) {
        case AIC_ERR_BRIEF_DUMP:
        case AIC_ERR_NORM_DUMP:
        case AIC_ERR_DETAIL_DUMP:
            if (!exception_on_)
                return nullptr;
            exception_shown_ = exception_root_ + "/extra-info";
            return exception_shown_.c_str();
        case DATA_DUMP:
        case OVERFLOW_DUMP:
            return data_on_ ? data_path_.c_str() : nullptr;
        default:
            return nullptr;
    }
}

Error DumpState::ExceptionPath(int32_t device_id, std::string *out) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!exception_on_)
        return Error::Format(ACL_ERROR_FAILURE,
                             "exception dump is off: set dump.dump_scene in aclInit's file");
    *out = exception_root_ + "/extra-info/data-dump/" + std::to_string(device_id) + "/";
    return Error::Ok();
}

Plan DumpState::Current() {
    std::lock_guard<std::mutex> lock(mu_);
    Plan p;
    p.inputs = ops_on_ && dump_inputs_;
    p.outputs = ops_on_ && dump_outputs_;
    p.args = args_on_;
    return p;
}

Error DumpState::WriteOperator(const OpRun &run, const Plan &plan) {
    Callback cb;
    std::string data_dir, args_dir;
    uint64_t task;
    {
        std::lock_guard<std::mutex> lock(mu_);
        cb = callback_;
        task = next_task_++;
        const std::string dev = "/" + std::to_string(run.device_id) + "/";
        if (plan.inputs || plan.outputs)
            data_dir = data_path_ + "/" + data_stamp_ + dev;
        if (plan.args)
            args_dir = args_path_ + "/" + args_stamp_ + dev;
    }
    const uint64_t now = NowUs();
    char base[256];
    std::snprintf(base, sizeof(base), "%s.%s.%" PRIu64 ".%d.%" PRIu64, run.op_type, run.op_name,
                  task, run.stream_id, now);
    char head[256];
    std::snprintf(head, sizeof(head),
                  "{\"op_type\":\"%s\",\"op_name\":\"%s\",\"task_id\":%" PRIu64
                  ",\"stream_id\":%d,\"device_id\":%d,\"timestamp_us\":%" PRIu64,
                  run.op_type, run.op_name, task, run.stream_id, run.device_id, now);
    if (!data_dir.empty()) {
        std::vector<const Tensor *> ts;
        for (const Tensor &t : run.tensors)
            ts.push_back(&t);
        const std::string header = std::string(head) + ",\"tensors\":" + TensorsJson(ts) + "}";
        NPU_RETURN_IF_ERROR(Deliver(cb, data_dir + base, Container(header, ts)));
    }
    if (!args_dir.empty()) {
        // The arguments as a kernel would get them: one 64-bit word each.
        Tensor words{"args", ACL_UINT64, ACL_FORMAT_ND, {}, {}, 0, {}};
        std::string names = "[";
        for (size_t i = 0; i < run.args.size(); i++) {
            const uint64_t v = run.args[i].second;
            for (int b = 0; b < 8; b++)
                words.data.push_back(static_cast<uint8_t>((v >> (8 * b)) & 0xFF));
            names += std::string(i ? "," : "") + "\"" + run.args[i].first + "\"";
        }
        words.shape = {static_cast<int64_t>(run.args.size())};
        words.origin_shape = words.shape;
        const std::string header = std::string(head) + ",\"args\":" + names + "]" +
                                   ",\"tensors\":" + TensorsJson({&words}) + "}";
        NPU_RETURN_IF_ERROR(Deliver(cb, args_dir + base + ".args", Container(header, {&words})));
    }
    return Error::Ok();
}

Error DumpState::SaveException(int32_t device_id, const std::string &file_name,
                               const std::string &tag, const std::vector<Tensor> &tensors) {
    std::string root;
    NPU_RETURN_IF_ERROR(ExceptionPath(device_id, &root));
    std::vector<const Tensor *> ts;
    for (const Tensor &t : tensors)
        ts.push_back(&t);
    std::string header = "{\"user_tag\":";
    npu::base::AppendJsonString(&header, tag);
    header +=
        ",\"device_id\":" + std::to_string(device_id) + ",\"tensors\":" + TensorsJson(ts) + "}";
    // Exception files always go to disk: they are what is left to look at
    // after a failure.
    return Deliver(nullptr, root + file_name + ".custom." + Stamp(true), Container(header, ts));
}

}  // namespace npu::rt::dump
