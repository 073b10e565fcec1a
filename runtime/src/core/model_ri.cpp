// SPDX-License-Identifier: MIT
#include "base/json_text.h"
#include "core/model_ri.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <list>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <unistd.h>

#include "acl/acl_rt.h"
#include "base/singleton.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/event.h"
#include "core/host_tasks.h"
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
    void *event = nullptr;        // kEventRecord, kEventWait: the event's handle
};

struct Model {
    enum class State { kCapturing, kBuilding, kReady };
    const Context *ctx = nullptr;
    State state = State::kCapturing;
    std::vector<ModelTask> tasks;
    uint32_t groups = 0;              // task groups made so far
    std::vector<const void *> bound;  // streams bound by aclmdlRIBindStream
    // aclmdlRICaptureBegin's mode and thread, which streams that join the
    // capture (aclrtStreamWaitEvent on an event it recorded) take.
    int32_t capture_mode = ACL_MODEL_RI_CAPTURE_MODE_GLOBAL;
    pid_t capture_thread = 0;
    // Executions queued by aclmdlRIExecuteAsync and not finished.
    std::atomic<uint32_t> runs{0};
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
    // The stream that began the capture (else it joined it, or is bound).
    bool origin = false;
    // The last task recorded from this stream, and its event.
    TaskKind last = TaskKind::kDefault;
    const void *last_event = nullptr;
    // aclmdlRICaptureTaskUpdateBegin .. End: the new tasks of a group.
    bool updating = false;
    std::shared_ptr<Model> update_model;
    uint32_t update_group = 0;
    std::vector<ModelTask> update_tasks;
};

struct Label {
    char unused = 0;
};

// The last record of an event in a capture still going on: the stream it
// was recorded from, and the captured streams that waited on it since.
struct CapturedRecord {
    std::shared_ptr<Model> model;
    const void *stream = nullptr;
    std::vector<const void *> waited_by;
};

class Runner;

struct Registry {
    // A leaf: no runtime call is made while it is held.
    std::mutex mu;  // Protects: models, streams, groups, labels, lists, events, runners
    std::unordered_map<const void *, std::shared_ptr<Model>> models;
    std::unordered_map<const void *, Recorder> streams;
    std::unordered_map<const void *, std::unique_ptr<Group>> groups;
    std::unordered_map<const void *, std::unique_ptr<Label>> labels;
    std::unordered_map<const void *, std::unique_ptr<std::vector<void *>>> lists;
    std::unordered_map<const void *, CapturedRecord> events;
    // The runner of each stream that executed a model (aclmdlRIExecuteAsync).
    std::unordered_map<const void *, std::shared_ptr<Runner>> runners;
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

// The record of stream s while it captures (aclmdlRICaptureBegin, or a
// stream that joined a capture), else nullptr. Caller holds r.mu.
Recorder *CaptureOf(Registry &r, const Stream &s) {
    auto it = r.streams.find(s.handle());
    return it == r.streams.end() || !it->second.capture ? nullptr : &it->second;
}

Error NotCapturing(const Stream &s) {
    return Error::Format(ACL_ERROR_RT_STREAM_NOT_CAPTURED,
                         "stream %p is not capturing (aclmdlRICaptureBegin)", s.handle());
}

// The record of stream s while aclmdlRIBindStream binds it to a model
// (neither capturing nor updating a task group), else nullptr. Caller
// holds r.mu.
Recorder *BindingOf(Registry &r, const Stream &s) {
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end() || it->second.capture || it->second.updating)
        return nullptr;
    return &it->second;
}

Error NotBound(const Stream &s, const void *model) {
    return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                         "stream %p is not bound to modelRI %p (aclmdlRIBindStream)", s.handle(),
                         model);
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

// Drops the models, recorders and captured events of a capture that
// ended without a model (the origin stream destroyed, or CaptureEnd
// refused the capture).
void DropCapture(Registry &r, const std::shared_ptr<Model> &m) {
    for (auto it = r.streams.begin(); it != r.streams.end();) {
        if (it->second.model == m && it->second.capture)
            it = r.streams.erase(it);
        else
            ++it;
    }
    for (auto it = r.events.begin(); it != r.events.end();) {
        if (it->second.model == m)
            it = r.events.erase(it);
        else
            ++it;
    }
    SyncCount(r);
}

// Forgets model m, as aclmdlRIDestroy does: the streams still bound to it
// (aclmdlRIUnbindStream not called), capturing into it or updating its
// task groups leave it, and its task groups and captured records go.
// Executions that hold it finish. Caller holds r.mu.
void ForgetModel(Registry &r, const std::shared_ptr<Model> &m) {
    r.models.erase(m.get());
    std::erase_if(r.streams, [&m](const auto &s) { return s.second.model == m; });
    std::erase_if(r.groups, [&m](const auto &g) { return g.second->model.lock() == m; });
    std::erase_if(r.events, [&m](const auto &e) { return e.second.model == m; });
    SyncCount(r);
}

// One aclmdlRIExecuteAsync: the model, kept alive (and counted as
// running) until the runner walked it or was destroyed.
struct Execution {
    Execution(std::shared_ptr<Model> m, Runner *r, uint64_t g)
        : model(std::move(m)), runner(r), gen(g) {
        model->runs.fetch_add(1, std::memory_order_acq_rel);
    }
    ~Execution() { model->runs.fetch_sub(1, std::memory_order_acq_rel); }
    Execution(const Execution &) = delete;
    Execution &operator=(const Execution &) = delete;

    std::shared_ptr<Model> model;
    Runner *runner;
    uint64_t gen;  // the runner's aborts when it was queued
};

// The executions of one stream. aclmdlRIExecuteAsync queues a host task
// on the stream (core/host_tasks.h) that the runner's own thread serves:
// when the stream reaches it, the thread walks the model, reading each
// task under the registry's lock as it comes to it, and queues the tasks
// on the runner's lane (a stream of its own) in order; it waits for the
// lane after each event wait, so that the tasks after a wait are read once
// the wait is over, as upstream's device reads them, and at the end. The
// stream goes on when the walk is done. A label switch reads its index
// once the lane has run the work before it.
class Runner {
  public:
    Runner(Context *ctx, std::shared_ptr<DeviceSession> session, void *lane)
        : ctx_(ctx), lane_(lane), thread_(std::make_unique<HostFuncThread>(std::move(session))) {}
    // Stops the walks (the stream is gone: every walk it reached is over),
    // joins the thread and destroys the lane.
    ~Runner() {
        Stop(true);
        thread_.reset();
        (void)ctx_->streams().Destroy(lane_, true);
    }
    Runner(const Runner &) = delete;
    Runner &operator=(const Runner &) = delete;

    Error Queue(Stream &s, const std::shared_ptr<Model> &m) {
        auto x = std::make_unique<Execution>(m, this, gen_.load(std::memory_order_acquire));
        Execution *raw = x.get();
        {
            std::lock_guard<std::mutex> lock(mu_);
            runs_.push_back(std::move(x));
        }
        HostTaskQueue *q = nullptr;
        Error e = thread_->Queue(&q);
        if (e.ok())
            e = QueueHostTask(s, &Runner::RunOne, raw, true, *q, &Runner::DropOne);
        if (!e.ok())
            Forget(raw);
        return e;
    }

    // The stream is being destroyed: a label switch that jumps back ends
    // its walk, and a wait for an event never recorded waits no more.
    // abort (aclrtDestroyStreamForce, the context destroyed or its device
    // reset): the walks end at the next task, the lane's work is dropped.
    void Stop(bool abort) {
        stopping_.store(true, std::memory_order_release);
        if (!abort || aborting_.exchange(true, std::memory_order_acq_rel))
            return;
        StreamRef lane;
        if (AcquireStream(lane_, &lane).ok())
            (void)lane->Abort();
    }

    // aclrtStreamAbort of the stream: the executions queued so far end (those
    // it dropped never run), the lane's work is dropped; later ones run.
    void AbortRuns() {
        gen_.fetch_add(1, std::memory_order_acq_rel);
        StreamRef lane;
        if (AcquireStream(lane_, &lane).ok())
            (void)lane->Abort();
    }

    // The first error of a walk since the last call.
    Error TakeError() {
        std::lock_guard<std::mutex> lock(mu_);
        Error e = error_;
        error_ = Error::Ok();
        return e;
    }

  private:
    static void RunOne(void *arg) {
        auto *x = static_cast<Execution *>(arg);
        Runner *self = x->runner;
        Error e = self->Walk(*x);
        if (!e.ok() && !self->stopping_.load(std::memory_order_acquire) && !self->Cancelled(*x)) {
            std::lock_guard<std::mutex> lock(self->mu_);
            if (self->error_.ok())
                self->error_ = e;
        }
        self->Forget(x);
    }

    // Its stream dropped it (aclrtStreamAbort, or destroyed without
    // running it): it never runs.
    static void DropOne(void *arg) {
        auto *x = static_cast<Execution *>(arg);
        x->runner->Forget(x);
    }

    void Forget(Execution *x) {
        std::unique_ptr<Execution> gone;  // freed after the lock
        std::lock_guard<std::mutex> lock(mu_);
        for (auto it = runs_.begin(); it != runs_.end(); ++it) {
            if (it->get() == x) {
                gone = std::move(*it);
                runs_.erase(it);
                break;
            }
        }
    }

    bool Aborting() const { return aborting_.load(std::memory_order_acquire); }
    bool Cancelled(const Execution &x) const {
        return Aborting() || x.gen != gen_.load(std::memory_order_acquire);
    }

    Error Aborted() const {
        return Error::Format(ACL_ERROR_RT_STREAM_ABORT,
                             "the model's execution was ended: its stream was aborted "
                             "(aclrtStreamAbort) or destroyed");
    }

    // An event wait of a model waits for a record, as upstream's model
    // waits for the event's value: until one is in effect, the execution is
    // cancelled or the runner stops. The record wakes it; the other two are
    // looked at every slice.
    Error AwaitRecord(const Execution &x, void *event) {
        constexpr uint64_t kSliceNs = 5ULL * 1000 * 1000;
        for (;;) {
            {
                EventRef e;
                if (!AcquireEvent(event, &e).ok() || e->AwaitRecorded(kSliceNs))
                    return Error::Ok();  // destroyed: the wait task says so
            }
            if (Cancelled(x))
                return Aborted();
            if (stopping_.load(std::memory_order_acquire))
                return Error::Ok();
        }
    }

    Error Walk(const Execution &x) {
        const std::shared_ptr<Model> &m = x.model;
        StreamRef lane;
        if (Cancelled(x) || !AcquireStream(lane_, &lane).ok())
            return Aborted();
        Registry &r = Registry::Get();
        for (size_t i = 0;;) {
            if (Cancelled(x))
                return Aborted();
            ModelTask t;
            {
                std::lock_guard<std::mutex> lock(r.mu);
                if (i >= m->tasks.size())
                    break;
                t = m->tasks[i];
            }
            if (t.kind == TaskKind::kEnd)
                break;
            if (t.kind == TaskKind::kLabelSet) {
                i++;
                continue;
            }
            if (t.kind == TaskKind::kLabelSwitch) {
                // The index is device memory written by the work before
                // the switch: wait for it, read it, continue at the label.
                NPU_RETURN_IF_ERROR(lane->Synchronize());
                uint32_t v = 0;
                NPU_RETURN_IF_ERROR(CopyNow(*ctx_, &v, t.index, sizeof(v)));
                if (v >= t.targets.size()) {
                    i++;  // out of range: no branch, the next task follows
                    continue;
                }
                size_t to = i + 1;
                {
                    std::lock_guard<std::mutex> lock(r.mu);
                    void *l = t.targets[v];
                    auto at =
                        std::find_if(m->tasks.begin(), m->tasks.end(), [l](const ModelTask &u) {
                            return u.kind == TaskKind::kLabelSet && u.label == l;
                        });
                    to = static_cast<size_t>(at - m->tasks.begin());
                }
                if (to <= i && stopping_.load(std::memory_order_acquire))
                    break;  // a loop, and the stream is being destroyed
                i = to;
                continue;
            }
            if (t.kind == TaskKind::kEventWait && t.event != nullptr)
                NPU_RETURN_IF_ERROR(AwaitRecord(x, t.event));
            if (t.run)
                NPU_RETURN_IF_ERROR(t.run(lane, ctx_));
            if (t.kind == TaskKind::kEventWait)
                NPU_RETURN_IF_ERROR(lane->Synchronize());
            i++;
        }
        return lane->Synchronize();
    }

    Context *const ctx_;
    void *const lane_;
    std::atomic<bool> stopping_{false}, aborting_{false};
    std::atomic<uint64_t> gen_{0};  // aborts of the stream (AbortRuns)
    std::mutex mu_;                 // Protects: runs_, error_
    // runs_: the executions queued and not walked; error_: the first error
    // of a walk since TakeError.
    std::list<std::unique_ptr<Execution>> runs_;
    Error error_;
    std::unique_ptr<HostFuncThread> thread_;
};

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

void StopModelRuns(const void *stream_handle, bool abort) {
    std::shared_ptr<Runner> runner;
    {
        Registry &r = Registry::Get();
        std::lock_guard<std::mutex> lock(r.mu);
        auto it = r.runners.find(stream_handle);
        if (it == r.runners.end())
            return;
        runner = it->second;
    }
    runner->Stop(abort);
}

void AbortModelRuns(const void *stream_handle) {
    std::shared_ptr<Runner> runner;
    {
        Registry &r = Registry::Get();
        std::lock_guard<std::mutex> lock(r.mu);
        auto it = r.runners.find(stream_handle);
        if (it == r.runners.end())
            return;
        runner = it->second;
    }
    runner->AbortRuns();
}

void ForgetStreamRecording(const void *stream_handle) {
    Registry &r = Registry::Get();
    std::shared_ptr<Runner> runner;  // destroyed after the lock
    std::shared_ptr<Model> dropped;
    std::lock_guard<std::mutex> lock(r.mu);
    if (auto run = r.runners.find(stream_handle); run != r.runners.end()) {
        runner = std::move(run->second);
        r.runners.erase(run);
    }
    auto it = r.streams.find(stream_handle);
    if (it == r.streams.end())
        return;
    // A capture whose origin stream is gone can never end: its model is
    // dropped, with the streams that joined it.
    if (it->second.capture && it->second.origin) {
        dropped = it->second.model;
        r.models.erase(dropped.get());
        DropCapture(r, dropped);
        return;
    }
    r.streams.erase(it);
    SyncCount(r);
}

bool AnyRecording() {
    return Registry::Get().recording.load(std::memory_order_acquire) != 0;
}

std::string TaskText(const char *fmt, ...) {
    char text[192];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    return text;
}

Error RecordTaskText(Stream &s, TaskKind kind, std::string text, TaskRun run, bool *recorded,
                     void *event) {
    *recorded = false;
    Registry &r = Registry::Get();
    if (r.recording.load(std::memory_order_acquire) == 0)
        return Error::Ok();
    // A wait on an event recorded in a capture joins the capture (unless
    // the event is ACL_EVENT_EXTERNAL, which crosses captures).
    bool joinable = false;
    if (kind == TaskKind::kEventWait && event != nullptr) {
        EventRef e;
        joinable = AcquireEvent(event, &e).ok() && (e->flags() & ACL_EVENT_EXTERNAL) == 0;
    }
    std::lock_guard<std::mutex> lock(r.mu);
    auto it = r.streams.find(s.handle());
    if (it == r.streams.end()) {
        if (!joinable)
            return Error::Ok();
        auto ev = r.events.find(event);
        if (ev == r.events.end() || ev->second.model->state != Model::State::kCapturing)
            return Error::Ok();
        const std::shared_ptr<Model> &m = ev->second.model;
        if (m->ctx != s.context()) {
            return Error::Format(ACL_ERROR_RT_STREAM_CONTEXT,
                                 "event %p was recorded in a capture of another context than "
                                 "stream %p's: the stream cannot join it",
                                 event, s.handle());
        }
        Recorder join;
        join.model = m;
        join.capture = true;
        join.mode = m->capture_mode;
        join.thread = m->capture_thread;
        join.ctx = m->ctx;
        it = r.streams.emplace(s.handle(), std::move(join)).first;
        SyncCount(r);
    }
    Recorder &rec = it->second;
    ModelTask t;
    t.kind = kind;
    t.text = std::move(text);
    t.run = std::move(run);
    t.event = event;
    if (rec.capture && !rec.updating) {
        rec.last = kind;
        rec.last_event = event;
        if (kind == TaskKind::kEventRecord && event != nullptr) {
            CapturedRecord &cr = r.events[event];
            cr.model = rec.model;
            cr.stream = s.handle();
            cr.waited_by.clear();
        } else if (kind == TaskKind::kEventWait && event != nullptr) {
            auto ev = r.events.find(event);
            if (ev != r.events.end() && ev->second.model == rec.model)
                ev->second.waited_by.push_back(s.handle());
        }
    }
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
    m->capture_mode = mode;
    m->capture_thread = ::gettid();
    r.models.emplace(m.get(), m);
    Recorder rec;
    rec.model = std::move(m);
    rec.capture = true;
    rec.origin = true;
    rec.mode = mode;
    rec.thread = ::gettid();
    rec.ctx = &ctx;
    r.streams.emplace(s.handle(), std::move(rec));
    SyncCount(r);
    return Error::Ok();
}

namespace {

// Every stream that joined the capture of m must have rejoined the origin:
// its last task records an event that a captured stream waited on, and the
// origin waited on one of those.
Error CheckJoined(Registry &r, const std::shared_ptr<Model> &m, const void *origin) {
    bool joined = false, back = false;
    for (const auto &[h, rec] : r.streams) {
        if (h == origin || rec.model != m || !rec.capture)
            continue;
        joined = true;
        if (rec.last != TaskKind::kEventRecord) {
            return Error::Format(ACL_ERROR_RT_STREAM_UNJOINED,
                                 "stream %p joined the capture of stream %p, and its last task is "
                                 "%s, not an event record: record an event on it "
                                 "(aclrtRecordEvent) and wait for it on the origin stream "
                                 "(aclrtStreamWaitEvent) before aclmdlRICaptureEnd",
                                 h, origin, TaskKindName(rec.last));
        }
        auto ev = r.events.find(rec.last_event);
        const bool waited = ev != r.events.end() && ev->second.stream == h &&
                            std::any_of(ev->second.waited_by.begin(), ev->second.waited_by.end(),
                                        [h](const void *w) { return w != h; });
        if (!waited) {
            return Error::Format(ACL_ERROR_RT_STREAM_UNJOINED,
                                 "stream %p joined the capture of stream %p, and no captured "
                                 "stream waits on event %p, its last record: wait for it on the "
                                 "origin stream (aclrtStreamWaitEvent) before aclmdlRICaptureEnd",
                                 h, origin, rec.last_event);
        }
        back = back || std::find(ev->second.waited_by.begin(), ev->second.waited_by.end(),
                                 origin) != ev->second.waited_by.end();
    }
    if (joined && !back) {
        return Error::Format(ACL_ERROR_RT_STREAM_UNJOINED,
                             "the origin stream %p waits on none of the events last recorded by "
                             "the streams that joined its capture: they are not joined back "
                             "(aclrtStreamWaitEvent on the origin stream)",
                             origin);
    }
    return Error::Ok();
}

}  // namespace

Error CaptureEnd(Stream &s, void **model) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    Recorder *capture = CaptureOf(r, s);
    if (capture == nullptr)
        return NotCapturing(s);
    Recorder &rec = *capture;
    if (!rec.origin) {
        return Error::Format(ACL_ERROR_RT_STREAM_CAPTURE_UNMATCHED,
                             "stream %p joined a capture (it waited on an event recorded in it); "
                             "the capture ends on the stream that began it (aclmdlRICaptureBegin)",
                             s.handle());
    }
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
    std::shared_ptr<Model> m = rec.model;
    Error joined = CheckJoined(r, m, s.handle());
    if (!joined.ok()) {
        // As upstream, a capture that fails the check is gone: the model
        // is destroyed, and every stream leaves the capture.
        r.models.erase(m.get());
        DropCapture(r, m);
        return joined;
    }
    m->state = Model::State::kReady;
    *model = m.get();
    DropCapture(r, m);
    return Error::Ok();
}

Error CaptureInfo(Stream &s, int32_t *status, void **model) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    const Recorder *rec = CaptureOf(r, s);
    *status =
        rec == nullptr ? ACL_MODEL_RI_CAPTURE_STATUS_NONE : ACL_MODEL_RI_CAPTURE_STATUS_ACTIVE;
    if (model != nullptr)
        *model = rec == nullptr ? nullptr : rec->model.get();
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
    Recorder *rec = CaptureOf(r, s);
    if (rec == nullptr)
        return NotCapturing(s);
    if (rec->open_group != 0) {
        return Error::Format(ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                             "stream %p already has a task group open", s.handle());
    }
    rec->open_group = ++rec->model->groups;
    return Error::Ok();
}

Error TaskGroupEnd(Stream &s, void **group) {
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    Recorder *rec = CaptureOf(r, s);
    if (rec == nullptr)
        return NotCapturing(s);
    if (rec->open_group == 0) {
        return Error::Format(ACL_ERROR_STREAM_TASK_GROUP_STATUS,
                             "stream %p has no task group open (aclmdlRICaptureTaskGrpBegin)",
                             s.handle());
    }
    auto g = std::make_unique<Group>();
    g->model = rec->model;
    g->id = rec->open_group;
    rec->open_group = 0;
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
    const Recorder *rec = BindingOf(r, s);
    if (rec == nullptr || rec->model != m)
        return NotBound(s, model);
    r.streams.erase(s.handle());
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
        const Recorder *rec = BindingOf(r, s);
        if (rec == nullptr || rec->model != m)
            return NotBound(s, model);
    }
    bool recorded = false;
    NPU_RETURN_IF_ERROR(RecordTaskText(s, TaskKind::kEnd, "end of the model", nullptr, &recorded));
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
    Registry &r = Registry::Get();
    std::shared_ptr<Model> m;
    std::shared_ptr<Runner> runner;
    std::vector<void *> records;  // the events the model records
    {
        std::lock_guard<std::mutex> lock(r.mu);
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
        for (const ModelTask &t : m->tasks)
            if (t.kind == TaskKind::kEventRecord && t.event != nullptr)
                records.push_back(t.event);
        if (auto it = r.runners.find(ref->handle()); it != r.runners.end())
            runner = it->second;
    }
    if (!runner) {
        void *lane = nullptr;
        NPU_RETURN_IF_ERROR(ctx->streams().Create(0, ref->priority(), &lane));
        auto made = std::make_shared<Runner>(ctx, ref->session_ptr(), lane);
        std::lock_guard<std::mutex> lock(r.mu);
        // Another thread may have made one first: then ours goes, after
        // the lock (made is declared before it).
        runner = r.runners.emplace(ref->handle(), made).first->second;
    }
    // An error of an earlier execution on this stream.
    NPU_RETURN_IF_ERROR(runner->TakeError());
    NPU_RETURN_IF_ERROR(runner->Queue(*ref.get(), m));
    // The model's events are recorded once its execution is over, as of
    // now: a wait queued after this call waits for the execution (the
    // execution records them again as it runs).
    for (void *ev : records) {
        EventRef e;
        if (AcquireEvent(ev, &e).ok())
            NPU_RETURN_IF_ERROR(e->Record(*ref.get()));
    }
    return Error::Ok();
}

namespace {

// How long aclmdlRIDestroy waits for running executions before it returns
// ACL_ERROR_RT_MODEL_RUNNING: upstream's 10 s, or NPU_MODEL_DESTROY_WAIT_MS
// (0..600000), which tests set to see that error without waiting 10 s.
int DestroyWaitMs() {
    static const int ms = [] {
        constexpr int kDefaultMs = 10000;
        const char *v = std::getenv("NPU_MODEL_DESTROY_WAIT_MS");
        if (v == nullptr || *v == '\0')
            return kDefaultMs;
        char *end = nullptr;
        const unsigned long n = std::strtoul(v, &end, 10);
        if (*end != '\0' || n > 600000)
            return kDefaultMs;
        return static_cast<int>(n);
    }();
    return ms;
}

}  // namespace

Error DestroyModel(void *model) {
    Registry &r = Registry::Get();
    {
        std::shared_ptr<Model> m;
        {
            std::lock_guard<std::mutex> lock(r.mu);
            NPU_RETURN_IF_ERROR(ModelOf(r, model, &m));
        }
        // As upstream, executions queued or running are waited for, up to
        // 10 s (a model that loops for ever is ended by its stream's
        // destruction, not here). The bound is a deadline, not a count of
        // sleeps: on a loaded host each 1 ms sleep may last far longer.
        const int wait_ms = DestroyWaitMs();
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
        while (m->runs.load(std::memory_order_acquire) != 0) {
            if (std::chrono::steady_clock::now() >= deadline) {
                return Error::Format(ACL_ERROR_RT_MODEL_RUNNING,
                                     "modelRI %p is still running after %d ms (%u executions "
                                     "of aclmdlRIExecuteAsync queued or running): synchronise "
                                     "their streams first",
                                     model, wait_ms, m->runs.load(std::memory_order_relaxed));
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    std::shared_ptr<Model> gone;  // freed after the lock is released
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
    ForgetModel(r, gone);
    return Error::Ok();
}

void DropContextModels(const Context *ctx) {
    std::vector<std::shared_ptr<Model>> gone;  // freed after the lock is released
    Registry &r = Registry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    for (const auto &[handle, m] : r.models)
        if (m->ctx == ctx)
            gone.push_back(m);
    for (const std::shared_ptr<Model> &m : gone)
        ForgetModel(r, m);
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
        *out += "\"detail\": \"" + npu::base::JsonEscaped(t.text) + "\"}";
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
    Recorder *rec = BindingOf(r, s);
    if (rec == nullptr || rec->model->state != Model::State::kBuilding) {
        return Error::Format(ACL_ERROR_RT_STREAM_MODEL,
                             "stream %p is not bound to a model being built (aclmdlRIBindStream)",
                             s.handle());
    }
    for (const ModelTask &t : rec->model->tasks) {
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
    rec->model->tasks.push_back(std::move(t));
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
