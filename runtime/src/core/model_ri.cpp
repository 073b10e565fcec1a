// SPDX-License-Identifier: MIT
#include "core/model_ri.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <unistd.h>

#include "acl/acl_rt.h"
#include "base/singleton.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/stream.h"

namespace npu::rt {
namespace {

struct ModelTask {
    TaskKind kind = TaskKind::kDefault;
    std::string text;
    TaskRun run;
    uint32_t group = 0;           // its task group (aclmdlRICaptureTaskGrpBegin), 0: none
    void *label = nullptr;        // kLabelSet: the label
    std::vector<void *> targets;  // kLabelSwitch: the labels, by index
    const void *index = nullptr;  // kLabelSwitch: the device word holding the index
};

struct Model {
    enum class State { kCapturing, kBuilding, kReady };
    const Context *ctx = nullptr;
    State state = State::kCapturing;
    std::vector<ModelTask> tasks;
    uint32_t groups = 0;              // task groups made so far
    std::vector<const void *> bound;  // streams bound by aclmdlRIBindStream
};

// A task group's handle (aclrtTaskGrp).
struct Group {
    std::weak_ptr<Model> model;
    uint32_t id = 0;
};

// What a recording stream records into.
struct Recorder {
    std::shared_ptr<Model> model;
    bool capture = false;  // aclmdlRICaptureBegin (else bound by aclmdlRIBindStream)
    int32_t mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
    pid_t thread = 0;
    const Context *ctx = nullptr;
    uint32_t open_group = 0;  // between aclmdlRICaptureTaskGrpBegin and End
    // aclmdlRICaptureTaskUpdateBegin .. End: the new tasks of a group.
    bool updating = false;
    std::shared_ptr<Model> update_model;
    uint32_t update_group = 0;
    std::vector<ModelTask> update_tasks;
};

struct Label {
    char unused = 0;
};

struct Registry {
    // A leaf: no runtime call is made while it is held.
    std::mutex mu;  // Protects: models, streams, groups, labels, lists
    std::unordered_map<const void *, std::shared_ptr<Model>> models;
    std::unordered_map<const void *, Recorder> streams;
    std::unordered_map<const void *, std::unique_ptr<Group>> groups;
    std::unordered_map<const void *, std::unique_ptr<Label>> labels;
    std::unordered_map<const void *, std::unique_ptr<std::vector<void *>>> lists;
    // streams.size(), read without the lock on every submission.
    std::atomic<size_t> recording{0};

    static Registry &Get() { return base::Singleton<Registry>::Get(); }
};

// aclmdlRICaptureThreadExchangeMode's mode of the calling thread.
thread_local int32_t t_exchange_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;

constexpr size_t kMaxModels = 1u << 16;
constexpr size_t kMaxLabels = 1u << 16;

void SyncCount(Registry &r) {
    r.recording.store(r.streams.size(), std::memory_order_release);
}

Error NotLiveModel(const void *model) {
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                         "modelRI %p is not a live model runtime instance (destroyed, or not "
                         "made by aclmdlRICaptureEnd or aclmdlRIBuildBegin)",
                         model);
}

Error ModelOf(Registry &r, const void *model, std::shared_ptr<Model> *out) {
    auto it = r.models.find(model);
    if (it == r.models.end())
        return NotLiveModel(model);
    *out = it->second;
    return Error::Ok();
}

std::string Escape(const std::string &s) {
    std::string o;
    for (char c : s) {
        if (c == '"' || c == '\\') {
            o += '\\';
            o += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char b[8];
            std::snprintf(b, sizeof(b), "\\u%04x", c);
            o += b;
        } else {
            o += c;
        }
    }
    return o;
}

}  // namespace

const char *TaskKindName(TaskKind k) {
    switch (k) {
        case TaskKind::kDefault:
            return "DEFAULT";
        case TaskKind::kKernel:
            return "KERNEL";
        case TaskKind::kEventRecord:
            return "EVENT_RECORD";
        case TaskKind::kEventWait:
            return "EVENT_WAIT";
        case TaskKind::kEventReset:
            return "EVENT_RESET";
        case TaskKind::kMemcpy:
            return "MEMCPY";
        case TaskKind::kMemset:
            return "MEMSET";
        case TaskKind::kReduce:
            return "REDUCE";
        case TaskKind::kHostFunc:
            return "HOST_FUNC";
        case TaskKind::kLabelSet:
            return "LABEL_SET";
        case TaskKind::kLabelSwitch:
            return "LABEL_SWITCH_BY_INDEX";
        case TaskKind::kEnd:
            return "MODEL_END";
    }
    return "DEFAULT";
}

bool StreamRecording(const Stream &s) {
    Registry &r = Registry::Get();
    if (r.recording.load(std::memory_order_acquire) == 0)
        return false;
    std::lock_guard<std::mutex> lock(r.mu);
    return r.streams.count(s.handle()) != 0;
}

void ForgetStreamRecording(const void *stream_handle) {
    Registry &r = Registry::Get();
    if (r.recording.load(std::memory_order_acquire) == 0)
        return;
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(stream_handle);
    if (it == r.streams.end())
        return;
    // A capture whose stream is gone can never end: its model is dropped.
    if (it->second.capture) {
        for (auto m = r.models.begin(); m != r.models.end(); ++m) {
            if (m->second == it->second.model) {
                r.models.erase(m);
                break;
            }
        }
    }
    r.streams.erase(it);
    SyncCount(r);
}

Error RecordTask(Stream &s, TaskKind kind, std::string text, TaskRun run, bool *recorded) {
    *recorded = false;
    Registry &r = Registry::Get();
    if (r.recording.load(std::memory_order_acquire) == 0)
        return Error::Ok();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end())
        return Error::Ok();
    Recorder &rec = it->second;
    ModelTask t;
    t.kind = kind;
    t.text = std::move(text);
    t.run = std::move(run);
    if (rec.updating) {
        rec.update_tasks.push_back(std::move(t));
    } else {
        if (rec.model->state == Model::State::kReady) {
            return Error::Format(ACL_ERROR_RT_MODEL_CAPTURED,
                                 "stream %p is bound to a model runtime instance whose build "
                                 "ended (aclmdlRIBuildEnd): unbind it first",
                                 s.handle());
        }
        t.group = rec.open_group;
        rec.model->tasks.push_back(std::move(t));
    }
    *recorded = true;
    return Error::Ok();
}

Error CheckCaptureMode(const Context *ctx, const char *api) {
    Registry &r = Registry::Get();
    if (r.recording.load(std::memory_order_acquire) == 0)
        return Error::Ok();
    const int32_t exchange = t_exchange_mode;
    if (exchange == ACL_MODEL_RI_CAPTURE_MODE_RELAXED)
        return Error::Ok();
    const pid_t me = ::gettid();
    bool ctx_global = false, any = false;
    int32_t thread_mode = -1;  // the strictest mode of the captures this thread began
    {
        std::lock_guard<std::mutex> lock(r.mu);
        for (const auto &[h, rec] : r.streams) {
            if (!rec.capture || rec.ctx != ctx)
                continue;
            any = true;
            ctx_global = ctx_global || rec.mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
            if (rec.thread == me && (thread_mode < 0 || rec.mode < thread_mode))
                thread_mode = rec.mode;
        }
    }
    if (!any)
        return Error::Ok();
    bool refused = false;
    if (exchange == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL)
        refused = ctx_global || thread_mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    else if (exchange == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL)
        refused = thread_mode == ACL_MODEL_RI_CAPTURE_MODE_GLOBAL ||
                  thread_mode == ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL;
    if (!refused)
        return Error::Ok();
    return Error::Format(ACL_ERROR_RT_CAPTURE_MODE_NOT_SUPPORT,
                         "%s is not allowed while a stream of this context captures (capture "
                         "mode %s of this thread): only ACL_MODEL_RI_CAPTURE_MODE_RELAXED allows "
                         "it; aclmdlRICaptureThreadExchangeMode changes the thread's mode",
                         api, thread_mode >= 0 ? "of the capture it began" : "GLOBAL");
}

Error CaptureBegin(Context &ctx, Stream &s, int32_t mode) {
    if (mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
        return Error::Format(ACL_ERROR_INVALID_PARAM,
                             "mode %d is not an aclmdlRICaptureMode (0..2)", mode);
    }
    if (s.kind() == Stream::Kind::kDefault) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "the default stream cannot be captured: capture a stream of "
                             "aclrtCreateStream");
    }
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it != r.streams.end()) {
        return Error::Format(ACL_ERROR_RT_STREAM_CAPTURED, "stream %p is already %s", s.handle(),
                             it->second.capture ? "capturing (aclmdlRICaptureBegin)"
                                                : "bound to a model (aclmdlRIBindStream)");
    }
    if (r.models.size() >= kMaxModels)
        return Error::Format(ACL_ERROR_RT_NO_MODEL_RESOURCE, "%zu models exist already",
                             kMaxModels);
    auto m = std::make_shared<Model>();
    m->ctx = &ctx;
    m->state = Model::State::kCapturing;
    r.models.emplace(m.get(), m);
    Recorder rec;
    rec.model = std::move(m);
    rec.capture = true;
    rec.mode = mode;
    rec.thread = ::gettid();
    rec.ctx = &ctx;
    r.streams.emplace(s.handle(), std::move(rec));
    SyncCount(r);
    return Error::Ok();
}

Error CaptureEnd(Stream &s, void **model) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || !it->second.capture) {
        return Error::Format(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                             "stream %p is not capturing (aclmdlRICaptureBegin)", s.handle());
    }
    Recorder &rec = it->second;
    if (rec.mode != ACL_MODEL_RI_CAPTURE_MODE_RELAXED && rec.thread != ::gettid()) {
        return Error::Format(ACL_ERROR_RT_STREAM_CAPTURE_WRONG_THREAD,
                             "the capture of stream %p began on thread %d, in a mode other than "
                             "ACL_MODEL_RI_CAPTURE_MODE_RELAXED: it must end there",
                             s.handle(), static_cast<int>(rec.thread));
    }
    if (rec.open_group != 0) {
        return Error::Format(ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                             "stream %p has a task group open (aclmdlRICaptureTaskGrpBegin "
                             "without aclmdlRICaptureTaskGrpEnd)",
                             s.handle());
    }
    rec.model->state = Model::State::kReady;
    *model = rec.model.get();
    r.streams.erase(it);
    SyncCount(r);
    return Error::Ok();
}

Error CaptureInfo(Stream &s, int32_t *status, void **model) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || !it->second.capture) {
        *status = ACL_MODEL_RI_CAPTURE_STATUS_NONE;
        if (model != nullptr)
            *model = nullptr;
        return Error::Ok();
    }
    *status = ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    if (model != nullptr)
        *model = it->second.model.get();
    return Error::Ok();
}

Error ExchangeCaptureMode(int32_t *mode) {
    if (*mode < ACL_MODEL_RI_CAPTURE_MODE_GLOBAL || *mode > ACL_MODEL_RI_CAPTURE_MODE_RELAXED) {
        return Error::Format(ACL_ERROR_INVALID_PARAM,
                             "*mode %d is not an aclmdlRICaptureMode (0..2)", *mode);
    }
    std::swap(*mode, t_exchange_mode);
    return Error::Ok();
}

Error TaskGroupBegin(Stream &s) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || !it->second.capture) {
        return Error::Format(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                             "stream %p is not capturing (aclmdlRICaptureBegin)", s.handle());
    }
    if (it->second.open_group != 0) {
        return Error::Format(ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                             "stream %p already has a task group open", s.handle());
    }
    it->second.open_group = ++it->second.model->groups;
    return Error::Ok();
}

Error TaskGroupEnd(Stream &s, void **group) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || !it->second.capture) {
        return Error::Format(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                             "stream %p is not capturing (aclmdlRICaptureBegin)", s.handle());
    }
    if (it->second.open_group == 0) {
        return Error::Format(ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                             "stream %p has no task group open (aclmdlRICaptureTaskGrpBegin)",
                             s.handle());
    }
    auto g = std::make_unique<Group>();
    g->model = it->second.model;
    g->id = it->second.open_group;
    it->second.open_group = 0;
    *group = g.get();
    r.groups.emplace(g.get(), std::move(g));
    return Error::Ok();
}

Error TaskUpdateBegin(Stream &s, void *group) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto g = r.groups.find(group);
    if (g == r.groups.end()) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "handle %p is not a task group of aclmdlRICaptureTaskGrpEnd", group);
    }
    std::shared_ptr<Model> m = g->second->model.lock();
    if (!m || r.models.count(m.get()) == 0) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "the model of task group %p was destroyed",
                             group);
    }
    if (r.streams.count(s.handle()) != 0) {
        return Error::Format(ACL_ERROR_RT_STREAM_CAPTURED,
                             "stream %p is capturing or bound to a model: update on another "
                             "stream",
                             s.handle());
    }
    Recorder rec;
    rec.model = m;
    rec.updating = true;
    rec.update_model = m;
    rec.update_group = g->second->id;
    rec.thread = ::gettid();
    rec.ctx = m->ctx;
    r.streams.emplace(s.handle(), std::move(rec));
    SyncCount(r);
    return Error::Ok();
}

Error TaskUpdateEnd(Stream &s) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || !it->second.updating) {
        return Error::Format(ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                             "stream %p is not updating a task group "
                             "(aclmdlRICaptureTaskUpdateBegin)",
                             s.handle());
    }
    Recorder rec = std::move(it->second);
    r.streams.erase(it);
    SyncCount(r);
    std::vector<ModelTask> &tasks = rec.update_model->tasks;
    std::vector<size_t> at;
    for (size_t i = 0; i < tasks.size(); i++)
        if (tasks[i].group == rec.update_group)
            at.push_back(i);
    if (at.size() != rec.update_tasks.size()) {
        return Error::Format(ACL_ERROR_RT_MODEL_UPDATE_FAILED,
                             "the update recorded %zu tasks, task group %u has %zu: an update "
                             "keeps the number and kinds of the group's tasks",
                             rec.update_tasks.size(), rec.update_group, at.size());
    }
    for (size_t i = 0; i < at.size(); i++) {
        if (tasks[at[i]].kind != rec.update_tasks[i].kind) {
            return Error::Format(ACL_ERROR_RT_MODEL_UPDATE_FAILED,
                                 "task %zu of the update is %s, the group's is %s: an update "
                                 "keeps the kinds of the group's tasks",
                                 i, TaskKindName(rec.update_tasks[i].kind),
                                 TaskKindName(tasks[at[i]].kind));
        }
    }
    for (size_t i = 0; i < at.size(); i++) {
        rec.update_tasks[i].group = rec.update_group;
        tasks[at[i]] = std::move(rec.update_tasks[i]);
    }
    return Error::Ok();
}

Error BuildBegin(Context &ctx, void **model) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.models.size() >= kMaxModels)
        return Error::Format(ACL_ERROR_RT_NO_MODEL_RESOURCE, "%zu models exist already",
                             kMaxModels);
    auto m = std::make_shared<Model>();
    m->ctx = &ctx;
    m->state = Model::State::kBuilding;
    *model = m.get();
    r.models.emplace(m.get(), std::move(m));
    return Error::Ok();
}

Error BindStream(void *model, Stream &s) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    std::shared_ptr<Model> m;
    NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
    if (m->state != Model::State::kBuilding) {
        return Error::Format(ACL_ERROR_RT_MODEL_CAPTURED,
                             "modelRI %p is not being built (aclmdlRIBuildBegin .. "
                             "aclmdlRIBuildEnd)",
                             model);
    }
    if (s.kind() == Stream::Kind::kDefault) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "the default stream cannot be bound to a model");
    }
    if (r.streams.count(s.handle()) != 0) {
        return Error::Format(ACL_ERROR_RT_STREAM_CAPTURED,
                             "stream %p is already capturing or bound to a model", s.handle());
    }
    Recorder rec;
    rec.model = m;
    rec.ctx = m->ctx;
    rec.thread = ::gettid();
    r.streams.emplace(s.handle(), std::move(rec));
    m->bound.push_back(s.handle());
    SyncCount(r);
    return Error::Ok();
}

Error UnbindStream(void *model, Stream &s) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    std::shared_ptr<Model> m;
    NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || it->second.capture || it->second.updating ||
        it->second.model != m) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "stream %p is not bound to modelRI %p (aclmdlRIBindStream)",
                             s.handle(), model);
    }
    r.streams.erase(it);
    m->bound.erase(std::remove(m->bound.begin(), m->bound.end(), s.handle()), m->bound.end());
    SyncCount(r);
    return Error::Ok();
}

Error EndTask(void *model, Stream &s) {
    {
        Registry &r = Registry::Get();
        std::lock_guard<std::mutex> lock(r.mu);
        std::shared_ptr<Model> m;
        NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
        auto it = r.streams.find(s.handle());
        if (it == r.streams.end() || it->second.model != m || it->second.capture) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "stream %p is not bound to modelRI %p (aclmdlRIBindStream)",
                                 s.handle(), model);
        }
    }
    bool recorded = false;
    NPU_RETURN_IF_ERROR(RecordTask(s, TaskKind::kEnd, "end of the model", nullptr, &recorded));
    return Error::Ok();
}

Error BuildEnd(void *model) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    std::shared_ptr<Model> m;
    NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
    if (m->state != Model::State::kBuilding) {
        return Error::Format(ACL_ERROR_RT_MODEL_CAPTURED,
                             "modelRI %p is not being built (aclmdlRIBuildBegin)", model);
    }
    // Every switch must lead to a label set in the model.
    for (const ModelTask &t : m->tasks) {
        for (void *l : t.targets) {
            bool found = std::any_of(m->tasks.begin(), m->tasks.end(), [l](const ModelTask &u) {
                return u.kind == TaskKind::kLabelSet && u.label == l;
            });
            if (!found) {
                return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                     "label %p of a switch (aclrtSwitchLabelByIndex) is not set "
                                     "in modelRI %p (aclrtSetLabel on a bound stream)",
                                     l, model);
            }
        }
    }
    m->state = Model::State::kReady;
    return Error::Ok();
}

Error CheckModel(void *model, const Context *ctx) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    std::shared_ptr<Model> m;
    NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
    if (m->ctx != ctx) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "modelRI %p belongs to another context than the current one", model);
    }
    return Error::Ok();
}

Error Execute(void *model, StreamRef &ref, Context *ctx) {
    std::vector<ModelTask> tasks;
    {
        Registry &r = Registry::Get();
        std::lock_guard<std::mutex> lock(r.mu);
        std::shared_ptr<Model> m;
        NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
        if (m->ctx != ctx) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "modelRI %p belongs to another context than the current one",
                                 model);
        }
        if (m->state != Model::State::kReady) {
            return Error::Format(
                ACL_ERROR_RT_MODEL_CAPTURED, "modelRI %p is still %s: end it first (%s)", model,
                m->state == Model::State::kCapturing ? "capturing" : "being built",
                m->state == Model::State::kCapturing ? "aclmdlRICaptureEnd" : "aclmdlRIBuildEnd");
        }
        if (r.streams.count(ref->handle()) != 0) {
            return Error::Format(ACL_ERROR_RT_STREAM_CAPTURED,
                                 "stream %p is capturing or bound to a model: a model runs on "
                                 "a stream that records nothing",
                                 ref->handle());
        }
        tasks = m->tasks;
    }
    for (size_t i = 0; i < tasks.size();) {
        const ModelTask &t = tasks[i];
        if (t.kind == TaskKind::kEnd)
            break;
        if (t.kind == TaskKind::kLabelSet) {
            i++;
            continue;
        }
        if (t.kind == TaskKind::kLabelSwitch) {
            // The index is device memory written by the work before the
            // switch: wait for it, read it, continue at the label.
            NPU_RETURN_IF_ERROR(ref->Synchronize());
            uint32_t v = 0;
            NPU_RETURN_IF_ERROR(CopyNow(*ctx, &v, t.index, sizeof(v)));
            if (v >= t.targets.size()) {
                i++;  // out of range: no branch, the next task follows
                continue;
            }
            void *l = t.targets[v];
            auto at = std::find_if(tasks.begin(), tasks.end(), [l](const ModelTask &u) {
                return u.kind == TaskKind::kLabelSet && u.label == l;
            });
            i = static_cast<size_t>(at - tasks.begin());
            continue;
        }
        NPU_RETURN_IF_ERROR(t.run(ref, ctx));
        i++;
    }
    return Error::Ok();
}

Error DestroyModel(void *model) {
    std::shared_ptr<Model> gone;  // freed after the lock is released
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.models.find(model);
    if (it == r.models.end())
        return NotLiveModel(model);
    if (it->second->state == Model::State::kCapturing) {
        return Error::Format(ACL_ERROR_RT_MODEL_CAPTURED,
                             "modelRI %p is still capturing: end it first (aclmdlRICaptureEnd)",
                             model);
    }
    gone = it->second;
    r.models.erase(it);
    // Streams still bound to it (aclmdlRIUnbindStream not called) are unbound.
    for (auto s = r.streams.begin(); s != r.streams.end();) {
        if (s->second.model == gone)
            s = r.streams.erase(s);
        else
            ++s;
    }
    for (auto g = r.groups.begin(); g != r.groups.end();) {
        if (g->second->model.lock() == gone)
            g = r.groups.erase(g);
        else
            ++g;
    }
    SyncCount(r);
    return Error::Ok();
}

Error DebugText(void *model, std::string *out) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    std::shared_ptr<Model> m;
    NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
    char line[96];
    std::snprintf(line, sizeof(line), "modelRI %p: %zu tasks\n", model, m->tasks.size());
    *out = line;
    for (size_t i = 0; i < m->tasks.size(); i++) {
        const ModelTask &t = m->tasks[i];
        std::snprintf(line, sizeof(line), "  task %zu: %s", i, TaskKindName(t.kind));
        *out += line;
        if (t.group != 0) {
            std::snprintf(line, sizeof(line), " (task group %u)", t.group);
            *out += line;
        }
        *out += ": " + t.text + "\n";
    }
    return Error::Ok();
}

Error DebugJson(void *model, std::string *out) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    std::shared_ptr<Model> m;
    NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
    char buf[96];
    std::snprintf(buf, sizeof(buf), "{\n  \"modelRI\": \"%p\",\n  \"tasks\": [", model);
    *out = buf;
    for (size_t i = 0; i < m->tasks.size(); i++) {
        const ModelTask &t = m->tasks[i];
        std::snprintf(buf, sizeof(buf),
                      "%s\n    {\"index\": %zu, \"type\": \"%s\", \"group\": %u, ",
                      i == 0 ? "" : ",", i, TaskKindName(t.kind), t.group);
        *out += buf;
        *out += "\"detail\": \"" + Escape(t.text) + "\"}";
    }
    *out += m->tasks.empty() ? "]\n}\n" : "\n  ]\n}\n";
    return Error::Ok();
}

Error CreateLabel(void **label) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.labels.size() >= kMaxLabels)
        return Error::Format(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%zu labels exist already",
                             kMaxLabels);
    auto l = std::make_unique<Label>();
    *label = l.get();
    r.labels.emplace(l.get(), std::move(l));
    return Error::Ok();
}

Error DestroyLabel(void *label) {
    std::unique_ptr<Label> gone;
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.labels.find(label);
    if (it == r.labels.end())
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "label %p is not a live label", label);
    gone = std::move(it->second);
    r.labels.erase(it);
    return Error::Ok();
}

Error SetLabel(void *label, Stream &s) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    if (r.labels.count(label) == 0)
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "label %p is not a live label", label);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || it->second.capture || it->second.updating ||
        it->second.model->state != Model::State::kBuilding) {
        return Error::Format(ACL_ERROR_RT_STREAM_MODEL,
                             "stream %p is not bound to a model being built (aclmdlRIBindStream)",
                             s.handle());
    }
    for (const ModelTask &t : it->second.model->tasks) {
        if (t.kind == TaskKind::kLabelSet && t.label == label) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                 "label %p is already set in this model", label);
        }
    }
    ModelTask t;
    t.kind = TaskKind::kLabelSet;
    char text[64];
    std::snprintf(text, sizeof(text), "label %p", label);
    t.text = text;
    t.label = label;
    it->second.model->tasks.push_back(std::move(t));
    return Error::Ok();
}

Error CreateLabelList(void *const *labels, size_t n, void **list) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    for (size_t i = 0; i < n; i++) {
        if (r.labels.count(labels[i]) == 0) {
            return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "labels[%zu] %p is not a live label",
                                 i, labels[i]);
        }
    }
    if (r.lists.size() >= kMaxLabels)
        return Error::Format(ACL_ERROR_RT_RESOURCE_ALLOC_FAIL, "%zu label lists exist already",
                             kMaxLabels);
    auto l = std::make_unique<std::vector<void *>>(labels, labels + n);
    *list = l.get();
    r.lists.emplace(l.get(), std::move(l));
    return Error::Ok();
}

Error DestroyLabelList(void *list) {
    std::unique_ptr<std::vector<void *>> gone;
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.lists.find(list);
    if (it == r.lists.end()) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "labelList %p is not a live label list",
                             list);
    }
    gone = std::move(it->second);
    r.lists.erase(it);
    return Error::Ok();
}

Error SwitchLabelByIndex(void *ptr, uint32_t max_value, void *list, Stream &s) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto l = r.lists.find(list);
    if (l == r.lists.end()) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "labelList %p is not a live label list",
                             list);
    }
    if (max_value == 0 || max_value > l->second->size()) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "maxValue %u is not in [1, %zu], the labels of labelList %p",
                             max_value, l->second->size(), list);
    }
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || it->second.capture || it->second.updating ||
        it->second.model->state != Model::State::kBuilding) {
        return Error::Format(ACL_ERROR_RT_STREAM_MODEL,
                             "stream %p is not bound to a model being built (aclmdlRIBindStream)",
                             s.handle());
    }
    ModelTask t;
    t.kind = TaskKind::kLabelSwitch;
    char text[96];
    std::snprintf(text, sizeof(text), "index at %p, %u labels of list %p", ptr, max_value, list);
    t.text = text;
    t.index = ptr;
    t.targets.assign(l->second->begin(), l->second->begin() + max_value);
    it->second.model->tasks.push_back(std::move(t));
    return Error::Ok();
}

}  // namespace npu::rt
