// SPDX-License-Identifier: MIT
/*
 * The NPU_TRACE recorder (trace.h says what it records and why the
 * times are what they are). Records live in memory until the file is
 * written; the file is rewritten whole each time (aclFinalize, exit), into
 * a temporary name renamed over FILE, so a reader never sees half of it.
 */
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "npu/npu_uapi.h"

#include "base/json_text.h"
#include "base/log.h"
#include "npu_size.h"
#include "base/singleton.h"
#include "base/trace.h"
#include "base/trace_lanes.h"

namespace npu::base::trace {
namespace {

constexpr uint64_t kDefaultMaxEvents = 1000000;
// Device lanes are grouped in one trace "process" per device, with ids no
// real pid reaches (pid_max is at most 2^22), so they never meet a thread's.
constexpr uint64_t kDevicePidBase = 0x7fff0000;

struct Desc {
    uint64_t seq;
    uint64_t bytes;
    uint64_t t_queued;
    uint64_t t_done;    // 0: not observed
    uint64_t t_engine;  // a TIMESTAMP's own engine time, once the runtime read it; else 0
    uint32_t lane;
    int32_t res;
    uint8_t opcode;
    uint8_t dir;
};

struct Slice {
    const char *name;
    uint64_t t0;
    uint64_t t1;
    uint64_t seq;
    int64_t result;
    uint32_t lane;
    pid_t tid;
};

// An instant event (a checker's finding) on a ring's lane (lane != 0) or a
// thread's.
struct Instant {
    const char *kind;
    uint64_t t;
    uint32_t lane;
    pid_t tid;
};

// Append-only storage in 1 MiB chunks populated when mapped: a record
// never moves once written, and growing costs one mmap per chunk rather
// than a copy of everything so far plus a page fault per page (page
// faults cost microseconds on a VM, which a doubling vector paid per
// record).
template <typename T>
class ChunkedLog {
  public:
    size_t size() const { return n_; }
    // Forgets the records; the chunks stay mapped, for the next ones.
    void clear() { n_ = 0; }
    T &operator[](size_t i) { return chunks_[i / kPer][i % kPer]; }
    const T &operator[](size_t i) const { return chunks_[i / kPer][i % kPer]; }
    bool push_back(const T &v) {
        if (n_ % kPer == 0 && n_ / kPer == chunks_.size()) {
            void *p = ::mmap(nullptr, kChunkBytes, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
            if (p == MAP_FAILED)
                return false;
            chunks_.push_back(static_cast<T *>(p));
        }
        (*this)[n_++] = v;
        return true;
    }

  private:
    static constexpr size_t kChunkBytes = 1 << 20;
    static constexpr size_t kPer = kChunkBytes / sizeof(T);
    std::vector<T *> chunks_;  // never unmapped: the tracer lives as long as the process
    size_t n_ = 0;
};

// A program's own event (api/prof.cpp): an instant (t0 == t1, instant
// set), a nested range of its thread, or an async range with an id.
struct UserEvent {
    enum Kind : uint8_t { kInstant, kRange, kAsync };
    std::string name;
    const char *cat;
    uint64_t t0;
    uint64_t t1;
    uint64_t id;
    uint32_t lane;  // kInstant: a ring's lane, or 0 for the thread's
    pid_t tid;
    Kind kind;
    std::string domain;  // an mstx domain's name ("args"), or empty
};

struct Lane {
    uint32_t device = 0;
    uint32_t ring = 0;
    std::string name;
    // Indices into descs of the recorded descriptors not yet completed,
    // in sequence order (a ring completes in order).
    std::deque<size_t> pending;
    // Indices into descs of every recorded descriptor, in sequence order.
    std::vector<size_t> all;
};

struct Tracer {
    std::mutex mu;     /* Protects: everything below */
    std::string path;  // set once, by Start
    pid_t pid = 0;     // the process that traces (Start)
    uint64_t max_events = kDefaultMaxEvents;
    uint64_t dropped = 0;
    ChunkedLog<Desc> descs;
    ChunkedLog<Slice> slices;
    std::vector<Lane> lanes;  // lane id - 1
    std::map<pid_t, std::string> threads;
    std::vector<Instant> instants;
    std::deque<UserEvent> users;
    // The running profiling session (SessionBegin): its file, its start
    // (what is older is not written to it) and its otherData.aclprof.
    bool session = false;
    std::string session_path;
    std::string session_meta;
    uint64_t session_t0 = 0;

    // A forked child traces nothing (the file is the parent's): tracing
    // goes off, and the child's tracer is new and empty.
    static Tracer *ForkChildCopy(const Tracer &) {
        g_on.store(false, std::memory_order_relaxed);
        return new Tracer;
    }
};

// A forked child gets a new, empty tracer, with tracing off (ForkChildCopy).
Tracer &T() {
    return Singleton<Tracer>::Get();  // never destroyed: the exit handler uses it
}

bool RoomLocked(Tracer &t, uint64_t n) {
    if (t.descs.size() + t.slices.size() + t.lanes.size() + t.users.size() + n <= t.max_events)
        return true;
    t.dropped += n;
    return false;
}

void AtExit() {
    Flush();
}

// Kind and bytes of a descriptor, as the trace shows them.
const char *DirName(uint8_t dir) {
    switch (dir) {
        case NPU_DIR_H2D:
            return "H2D";
        case NPU_DIR_D2H:
            return "D2H";
        case NPU_DIR_D2D:
            return "D2D";
        case NPU_DIR_H2H:
            return "H2H";
        default:
            return "?";
    }
}

void DescName(const Desc &d, char *name, size_t name_len, const char **cat, const char **kind) {
    *cat = "sync";
    switch (d.opcode) {
        case NPU_OP_COPY:
            *cat = "copy";
            *kind = DirName(d.dir);
            std::snprintf(name, name_len, "copy %s", *kind);
            return;
        case NPU_OP_COPY2D:
            *cat = "copy";
            *kind = DirName(d.dir);
            std::snprintf(name, name_len, "copy2d %s", *kind);
            return;
        case NPU_OP_COPY_INDIRECT:
            *cat = "copy";
            *kind = "D2D";
            std::snprintf(name, name_len, "copy indirect D2D");
            return;
        case NPU_OP_REDUCE:
            *cat = "copy";
            *kind = "D2D";
            std::snprintf(name, name_len, "reduce D2D");
            return;
        case NPU_OP_MEMSET:
            *cat = "memset";
            *kind = d.dir == NPU_DIR_H2H ? "memset host" : "memset device";
            std::snprintf(name, name_len, "%s", *kind);
            return;
        case NPU_OP_VALUE_WRITE:
            *kind = "value write";
            break;
        case NPU_OP_VALUE_WAIT:
            *kind = "value wait";
            break;
        case NPU_OP_TIMESTAMP:
            *kind = "timestamp";
            break;
        case NPU_OP_NOP:
            *kind = "nop";
            break;
        default:
            *kind = "other";
            std::snprintf(name, name_len, "op %u", d.opcode);
            return;
    }
    std::snprintf(name, name_len, "%s", *kind);
}

uint64_t DescBytes(const struct npu_sqe &s) {
    switch (s.opcode) {
        case NPU_OP_COPY:
        case NPU_OP_MEMSET:
        case NPU_OP_REDUCE:
            return s.len;
        case NPU_OP_COPY2D:
            return s.len * s.value;
        default:
            return 0;
    }
}

void PutEscaped(FILE *f, const std::string &s) {
    std::string quoted;
    AppendJsonString(&quoted, s);
    std::fputs(quoted.c_str(), f);
}

// ,"args":{"domain":...} of an mstx event in a named domain.
void PutDomain(FILE *f, const std::string &domain) {
    if (domain.empty())
        return;
    std::fputs(",\"args\":{\"domain\":", f);
    PutEscaped(f, domain);
    std::fputs("}", f);
}

// Microseconds with ns precision: the format's unit.
void PutUs(FILE *f, uint64_t ns) {
    std::fprintf(f, "%" PRIu64 ".%03" PRIu64, ns / 1000, ns % 1000);
}

// Writes the records of time `since` (ns) and later: all of them for
// NPU_TRACE's file, those of the session for a session's (with meta, a JSON
// object, as otherData.aclprof).
void WriteLocked(Tracer &t, FILE *f, uint64_t since, const std::string *meta) {
    const pid_t pid = t.pid;
    std::fprintf(f,
                 "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"libascendcl "
                 "NPU_TRACE\",\"clock\":\"CLOCK_MONOTONIC\",");
    std::fprintf(f,
                 "\"descriptors\":%zu,\"slices\":%zu,\"user_events\":%zu,\"max_events\":%" PRIu64
                 ",\"dropped_events\":%" PRIu64 ",\"truncated\":%s",
                 t.descs.size(), t.slices.size(), t.users.size(), t.max_events, t.dropped,
                 t.dropped != 0 ? "true" : "false");
    if (meta != nullptr) {
        std::fputs(",\"session_start_us\":", f);
        PutUs(f, since);
        std::fprintf(f, ",\"aclprof\":%s", meta->c_str());
    }
    std::fputs("},\n\"traceEvents\":[\n", f);
    bool first = true;
    auto sep = [&] {
        if (!first)
            std::fputs(",\n", f);
        first = false;
    };

    // Names of the lanes.
    sep();
    std::fprintf(f,
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":"
                 "\"host threads (pid %d)\"}}",
                 pid, pid);
    std::vector<bool> device_named;
    for (size_t i = 0; i < t.lanes.size(); i++) {
        const Lane &l = t.lanes[i];
        const uint64_t dpid = kDevicePidBase + l.device;
        if (device_named.size() <= l.device)
            device_named.resize(l.device + 1);
        if (!device_named[l.device]) {
            device_named[l.device] = true;
            sep();
            std::fprintf(f,
                         "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%" PRIu64
                         ",\"tid\":0,\"args\":{\"name\":\"NPU device %u streams\"}}",
                         dpid, l.device);
        }
        sep();
        std::fprintf(f,
                     "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRIu64
                     ",\"tid\":%zu,\"args\":{\"name\":",
                     dpid, i + 1);
        PutEscaped(f, l.name);
        std::fputs("}}", f);
        sep();
        std::fprintf(f,
                     "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%" PRIu64
                     ",\"tid\":%zu,\"args\":{\"sort_index\":%zu}}",
                     dpid, i + 1, i + 1);
    }
    for (const auto &[tid, name] : t.threads) {
        sep();
        std::fprintf(f,
                     "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{"
                     "\"name\":",
                     pid, tid);
        PutEscaped(f, name);
        std::fputs("}}", f);
    }

    // Descriptors, lane by lane in sequence order. A ring runs its
    // descriptors one after another, so one cannot have started before
    // the previous one ended: the slice starts at the later of its
    // queueing and the previous descriptor's observed end.
    //
    // An engine time (a TIMESTAMP the program read back) is exact and
    // tightens both sides: what came before on the ring ended by then,
    // what comes after started after it.
    for (size_t li = 0; li < t.lanes.size(); li++) {
        const std::vector<size_t> &all = t.lanes[li].all;
        const uint64_t dpid = kDevicePidBase + t.lanes[li].device;
        std::vector<uint64_t> next_engine(all.size() + 1, UINT64_MAX);
        for (size_t k = all.size(); k-- > 0;) {
            const uint64_t te = t.descs[all[k]].t_engine;
            next_engine[k] = te != 0 ? std::min(te, next_engine[k + 1]) : next_engine[k + 1];
        }
        uint64_t prev_end = 0;
        for (size_t k = 0; k < all.size(); k++) {
            const Desc &d = t.descs[all[k]];
            char name[48];
            const char *cat = nullptr, *kind = nullptr;
            DescName(d, name, sizeof(name), &cat, &kind);
            uint64_t start = std::max(d.t_queued, prev_end);
            uint64_t end = start;
            if (d.t_engine != 0) {
                start = end = std::max(d.t_engine, start);
            } else if (d.t_done != 0) {
                end = std::max(std::min(d.t_done, next_engine[k]), start);
            }
            if (d.t_done != 0 || d.t_engine != 0)
                prev_end = end;
            if (d.t_queued < since)
                continue;
            sep();
            std::fprintf(f,
                         "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%" PRIu64
                         ",\"tid\":%u,\"ts\":",
                         cat, name, dpid, d.lane);
            PutUs(f, start);
            std::fputs(",\"dur\":", f);
            PutUs(f, end - start);
            std::fprintf(f,
                         ",\"args\":{\"seq\":%" PRIu64 ",\"kind\":\"%s\",\"bytes\":%" PRIu64
                         ",\"queued_us\":",
                         d.seq, kind, d.bytes);
            PutUs(f, d.t_queued);
            if (d.t_engine != 0) {
                std::fputs(",\"engine_us\":", f);
                PutUs(f, d.t_engine);
            }
            if (d.t_done != 0) {
                std::fputs(",\"completed_us\":", f);
                PutUs(f, d.t_done);
                std::fprintf(f, ",\"res\":%d}}", d.res);
            } else {
                std::fputs(",\"completed_us\":null}}", f);
            }
        }
    }

    // Slices are recorded when they end, so an enclosing call comes after
    // what it encloses: in start order (the longer first on a tie), every
    // viewer nests them.
    std::vector<size_t> order(t.slices.size());
    for (size_t i = 0; i < order.size(); i++)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        const Slice &x = t.slices[a], &y = t.slices[b];
        return x.t0 != y.t0 ? x.t0 < y.t0 : x.t1 > y.t1;
    });
    for (size_t i : order) {
        const Slice &s = t.slices[i];
        if (s.t0 < since)
            continue;
        sep();
        std::fprintf(f,
                     "{\"ph\":\"X\",\"cat\":\"host\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
                     "\"ts\":",
                     s.name, pid, s.tid);
        PutUs(f, s.t0);
        std::fputs(",\"dur\":", f);
        PutUs(f, s.t1 >= s.t0 ? s.t1 - s.t0 : 0);
        std::fprintf(f, ",\"args\":{\"result\":%" PRId64, s.result);
        if (s.lane != 0) {
            std::fprintf(f, ",\"lane\":%u,\"lane_name\":", s.lane);
            PutEscaped(f, t.lanes[s.lane - 1].name);
            std::fprintf(f, ",\"seq\":%" PRIu64, s.seq);
        }
        std::fputs("}}", f);
    }
    for (const Instant &in : t.instants) {
        if (in.t < since)
            continue;
        sep();
        if (in.lane != 0) {
            std::fprintf(f,
                         "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"npu-check\",\"name\":\"npu-check: "
                         "%s\",\"pid\":%" PRIu64 ",\"tid\":%u,\"ts\":",
                         in.kind, kDevicePidBase + t.lanes[in.lane - 1].device, in.lane);
        } else {
            std::fprintf(f,
                         "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"npu-check\",\"name\":\"npu-check: "
                         "%s\",\"pid\":%d,\"tid\":%d,\"ts\":",
                         in.kind, pid, in.tid);
        }
        PutUs(f, in.t);
        std::fputs("}", f);
    }
    // The program's own events, in start order (the longer first on a
    // tie) like the slices, so that its nested ranges nest.
    std::vector<const UserEvent *> users;
    for (const UserEvent &u : t.users) {
        if (u.t0 >= since)
            users.push_back(&u);
    }
    std::stable_sort(users.begin(), users.end(), [](const UserEvent *x, const UserEvent *y) {
        return x->t0 != y->t0 ? x->t0 < y->t0 : x->t1 > y->t1;
    });
    for (const UserEvent *u : users) {
        sep();
        switch (u->kind) {
            case UserEvent::kInstant:
                std::fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"%s\",\"name\":", u->cat);
                PutEscaped(f, u->name);
                if (u->lane != 0)
                    std::fprintf(f, ",\"pid\":%" PRIu64 ",\"tid\":%u,\"ts\":",
                                 kDevicePidBase + t.lanes[u->lane - 1].device, u->lane);
                else
                    std::fprintf(f, ",\"pid\":%d,\"tid\":%d,\"ts\":", pid, u->tid);
                PutUs(f, u->t0);
                PutDomain(f, u->domain);
                std::fputs("}", f);
                break;
            case UserEvent::kRange:
                std::fprintf(f, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":", u->cat);
                PutEscaped(f, u->name);
                std::fprintf(f, ",\"pid\":%d,\"tid\":%d,\"ts\":", pid, u->tid);
                PutUs(f, u->t0);
                std::fputs(",\"dur\":", f);
                PutUs(f, u->t1 >= u->t0 ? u->t1 - u->t0 : 0);
                std::fputs("}", f);
                break;
            case UserEvent::kAsync:
                // A begin and an end with the same category and id.
                for (int end = 0; end < 2; end++) {
                    if (end)
                        std::fputs(",\n", f);
                    std::fprintf(f, "{\"ph\":\"%s\",\"cat\":\"%s\",\"name\":", end ? "e" : "b",
                                 u->cat);
                    PutEscaped(f, u->name);
                    std::fprintf(f,
                                 ",\"id\":\"0x%" PRIx64 "\",\"pid\":%d,\"tid\":%d,\"ts\":", u->id,
                                 pid, u->tid);
                    PutUs(f, end ? std::max(u->t1, u->t0) : u->t0);
                    PutDomain(f, u->domain);
                    std::fputs("}", f);
                }
                break;
        }
    }
    std::fputs("\n]}\n", f);
}

// The calling thread's id; gettid is a system call, which costs
// microseconds on a VM.
pid_t Tid() {
    static thread_local pid_t t_tid = 0;
    if (t_tid == 0)
        t_tid = static_cast<pid_t>(::gettid());
    return t_tid;
}

// Names the calling thread's lane the first time it records something.
void NameThreadLocked(Tracer &t, pid_t tid) {
    if (t.threads.find(tid) != t.threads.end())
        return;
    char buf[32] = {};
    if (pthread_getname_np(pthread_self(), buf, sizeof(buf)) != 0 || buf[0] == '\0')
        std::snprintf(buf, sizeof(buf), "thread");
    t.threads.emplace(tid, std::string(buf) + " (tid " + std::to_string(tid) + ")");
}

// The lane of a stream handle (never dereferenced), or 0: a stream's lane
// is named "stream <handle> (device N)" (core/stream.cpp).
uint32_t StreamLaneLocked(const Tracer &t, const void *stream) {
    if (stream == nullptr)
        return 0;
    char key[40];
    std::snprintf(key, sizeof(key), "%p (", stream);
    for (size_t i = 0; i < t.lanes.size(); i++) {
        if (t.lanes[i].name.find(key) != std::string::npos)
            return static_cast<uint32_t>(i + 1);
    }
    return 0;
}

// Writes the records of `since` and later to path, through a temporary
// name renamed over it so that a reader never sees half a file. 0 or an
// errno.
int WriteFileLocked(Tracer &t, const std::string &path, uint64_t since, const std::string *meta) {
    const std::string tmp = path + ".tmp";
    FILE *f = std::fopen(tmp.c_str(), "we");
    if (f == nullptr) {
        const int err = errno;
        Log(LogLevel::kError, "trace: cannot write %s: %s", tmp.c_str(), std::strerror(err));
        return err;
    }
    WriteLocked(t, f, since, meta);
    const bool bad = std::ferror(f) != 0;
    if (std::fclose(f) != 0 || bad) {
        Log(LogLevel::kError, "trace: writing %s failed", tmp.c_str());
        ::unlink(tmp.c_str());
        return EIO;
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int err = errno;
        Log(LogLevel::kError, "trace: cannot rename %s to %s: %s", tmp.c_str(), path.c_str(),
            std::strerror(err));
        ::unlink(tmp.c_str());
        return err;
    }
    Log(LogLevel::kInfo, "trace: wrote %zu descriptors, %zu slices and %zu user events to %s%s",
        t.descs.size(), t.slices.size(), t.users.size(), path.c_str(),
        t.dropped ? " (truncated)" : "");
    return 0;
}

}  // namespace

uint64_t NowNs() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ULL + static_cast<uint64_t>(ts.tv_nsec);
}

void Start() {
    static std::once_flag once;
    std::call_once(once, [] {
        const char *path = std::getenv("NPU_TRACE");
        if (path == nullptr || path[0] == '\0')
            return;
        Tracer &t = T();
        uint64_t max = 0;
        const char *max_env = std::getenv("NPU_TRACE_MAX_EVENTS");
        std::lock_guard<std::mutex> guard(t.mu);
        t.path = path;
        // A relative FILE names the directory the program started in,
        // even if it changes directory before the file is written.
        if (path[0] != '/') {
            char cwd[4096];
            if (::getcwd(cwd, sizeof(cwd)) != nullptr)
                t.path = std::string(cwd) + "/" + path;
        }
        t.pid = ::getpid();
        if (max_env != nullptr && npu_parse_size(max_env, &max) == 0 && max != 0)
            t.max_events = max;
        // Registered after the library's statics exist, so it runs before
        // they are destroyed; the tracer itself is never destroyed.
        std::atexit(AtExit);
        Log(LogLevel::kInfo, "tracing to %s (at most %" PRIu64 " events)", t.path.c_str(),
            t.max_events);
        g_on.store(true, std::memory_order_release);
    });
}

uint32_t LaneOpen(uint32_t device, uint32_t ring_id) {
    if (!On())
        return 0;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    // Lanes count against the cap too: a program making rings without end
    // must not grow the trace without end.
    if (!RoomLocked(t, 1))
        return 0;
    Lane l;
    l.device = device;
    l.ring = ring_id;
    l.name = "ring " + std::to_string(ring_id);
    t.lanes.push_back(std::move(l));
    return static_cast<uint32_t>(t.lanes.size());
}

void SetLaneName(uint32_t lane, const std::string &name) {
    if (lane == 0)
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (lane <= t.lanes.size())
        t.lanes[lane - 1].name = name + " (ring " + std::to_string(t.lanes[lane - 1].ring) + ")";
}

void LaneClose(uint32_t lane) {
    if (lane == 0)
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (lane <= t.lanes.size())
        t.lanes[lane - 1].pending.clear();
}

void Queued(uint32_t lane, uint64_t first_seq, const struct npu_sqe *sqes, uint32_t n,
            uint64_t t_ns) {
    // A ring opened during a profiling session keeps its lane after it.
    if (lane == 0 || !On())
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (lane > t.lanes.size() || !RoomLocked(t, n))
        return;
    Lane &l = t.lanes[lane - 1];
    for (uint32_t i = 0; i < n; i++) {
        Desc d = {};
        d.seq = first_seq + i;
        d.bytes = DescBytes(sqes[i]);
        d.t_queued = t_ns;
        d.lane = lane;
        d.opcode = sqes[i].opcode;
        d.dir = sqes[i].dir;
        if (!t.descs.push_back(d)) {
            t.dropped += n - i;
            return;
        }
        l.pending.push_back(t.descs.size() - 1);
        l.all.push_back(t.descs.size() - 1);
    }
}

void Completed(uint32_t lane, uint64_t seq, int32_t res, uint64_t t_ns) {
    if (lane == 0 || !On())
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (lane > t.lanes.size())
        return;
    Lane &l = t.lanes[lane - 1];
    while (!l.pending.empty()) {
        Desc &d = t.descs[l.pending.front()];
        if (d.seq > seq)
            break;
        d.t_done = t_ns;
        if (d.seq == seq && res != 0)
            d.res = res;
        l.pending.pop_front();
    }
}

void EngineTime(uint32_t lane, uint64_t seq, uint64_t ns) {
    if (lane == 0 || ns == 0)
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (lane > t.lanes.size())
        return;
    const std::vector<size_t> &all = t.lanes[lane - 1].all;
    // Sequence numbers only grow along all: O(log n).
    auto it = std::lower_bound(all.begin(), all.end(), seq,
                               [&](size_t i, uint64_t s) { return t.descs[i].seq < s; });
    if (it != all.end() && t.descs[*it].seq == seq && t.descs[*it].opcode == NPU_OP_TIMESTAMP)
        t.descs[*it].t_engine = ns;
}

void ThreadSlice(const char *name, uint64_t t0_ns, uint64_t t1_ns, uint32_t lane, uint64_t seq,
                 int64_t result) {
    if (!On())
        return;
    const pid_t tid = Tid();
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (!RoomLocked(t, 1))
        return;
    NameThreadLocked(t, tid);
    Slice s = {};
    s.name = name;
    s.t0 = t0_ns;
    s.t1 = t1_ns;
    s.seq = seq;
    s.result = result;
    s.lane = lane <= t.lanes.size() ? lane : 0;
    s.tid = tid;
    if (!t.slices.push_back(s))
        t.dropped++;
}

void Finding(const char *kind, const void *stream, const void *other_stream) {
    if (!On())
        return;
    const uint64_t now = NowNs();
    const pid_t tid = static_cast<pid_t>(::gettid());
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    bool placed = false;
    for (const void *s : {stream, other_stream}) {
        const uint32_t lane = StreamLaneLocked(t, s);
        if (lane == 0 || !RoomLocked(t, 1))
            continue;
        t.instants.push_back(Instant{kind, now, lane, tid});
        placed = true;
    }
    if (!placed && RoomLocked(t, 1))
        t.instants.push_back(Instant{kind, now, 0, tid});
}

void Flush() {
    // Off in a forked child (Tracer::ForkChildCopy), which so never takes a lock that
    // a thread of its parent may have held at the fork.
    if (!On())
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    // On for a profiling session only: no NPU_TRACE file to write.
    if (t.path.empty() || ::getpid() != t.pid)
        return;
    (void)WriteFileLocked(t, t.path, 0, nullptr);
}

bool SessionBegin(const std::string &file, const std::string &meta) {
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (t.session)
        return false;
    if (t.pid == 0)
        t.pid = ::getpid();
    t.session = true;
    t.session_path = file;
    t.session_meta = meta;
    t.session_t0 = NowNs();
    g_on.store(true, std::memory_order_release);
    return true;
}

int SessionEnd() {
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    if (!t.session)
        return ESRCH;
    const int err = WriteFileLocked(t, t.session_path, t.session_t0, &t.session_meta);
    t.session = false;
    t.session_path.clear();
    t.session_meta.clear();
    if (t.path.empty()) {
        // No NPU_TRACE: nothing else wants the records. The lanes stay
        // (rings keep their ids), empty; chunks already mapped are reused.
        g_on.store(false, std::memory_order_release);
        t.descs.clear();
        t.slices.clear();
        for (Lane &l : t.lanes) {
            l.pending.clear();
            l.all.clear();
        }
        t.instants.clear();
        t.users.clear();
        t.dropped = 0;
    }
    return err;
}

namespace {

void AddUserLocked(Tracer &t, UserEvent &&u) {
    if (!RoomLocked(t, 1))
        return;
    NameThreadLocked(t, u.tid);
    t.users.push_back(std::move(u));
}

}  // namespace

void UserMark(const char *cat, const std::string &name, const void *stream,
              const std::string &domain) {
    if (!On())
        return;
    const uint64_t now = NowNs();
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    AddUserLocked(t, UserEvent{name, cat, now, now, 0, StreamLaneLocked(t, stream), Tid(),
                               UserEvent::kInstant, domain});
}

void UserRange(const char *cat, const std::string &name, uint64_t t0_ns, uint64_t t1_ns) {
    if (!On())
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    AddUserLocked(t, UserEvent{name, cat, t0_ns, t1_ns, 0, 0, Tid(), UserEvent::kRange, {}});
}

void UserAsyncRange(const char *cat, const std::string &name, uint64_t id, uint64_t t0_ns,
                    uint64_t t1_ns, const std::string &domain) {
    if (!On())
        return;
    Tracer &t = T();
    std::lock_guard<std::mutex> guard(t.mu);
    AddUserLocked(t, UserEvent{name, cat, t0_ns, t1_ns, id, 0, Tid(), UserEvent::kAsync, domain});
}

}  // namespace npu::base::trace
