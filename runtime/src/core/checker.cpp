// SPDX-License-Identifier: MIT
// NPU_CHECK (core/checker.h): the hooks, the lanes and their clocks, and
// the checks of each access.
#include "core/checker.h"

#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "base/singleton.h"
#include "core/checker_report.h"
#include "core/checker_shadow.h"
#include "core/copy_plan.h"
#include "core/stream.h"
#include "npu/hal.h"

namespace npu::rt::check {

namespace {

// Freed allocations remembered for use-after-free and double-free reports.
constexpr size_t kFreedKept = 4096;
// Accesses kept per allocation: AccessRing::kCap; the oldest go first
// beyond that (a race with them is then missed).
//
// A lane's stack is captured again when the API or the frame of the hook
// (the call's depth in the calling thread's stack) changes, and after this
// many accesses otherwise (a capture costs microseconds; a race report
// shows the stack of the other side's call, or of one of the last calls of
// that API from the same depth on that stream).
constexpr uint32_t kStackEvery = 1024;
// An access that starts this far past the end of the allocation below it
// is reported as out of bounds of that allocation.
constexpr uint64_t kPastEndSlack = 1u << 20;

[[gnu::tls_model("initial-exec")]] thread_local const char *t_api = nullptr;

uint64_t HashBytes(const void *p, uint64_t n) {
    const auto *b = static_cast<const unsigned char *>(p);
    uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
    uint64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, b + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    for (; i < n; ++i)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h | 1;  // never 0: 0 marks "not hashed"
}

// A queued copy that reads (hash != 0) or writes pinned host memory.
struct PendingHost {
    uint32_t lane = 0;
    uint64_t clock = 0;
    uint64_t lo = 0, hi = 0;
    uint64_t hash = 0;
    Side side;
};

// The other side of a finding: the recorded access a.
void SetOther(Finding *f, const Access &a) {
    f->has_other = true;
    f->other.api = a.api;
    f->other.stream = a.stream;
    f->other.write = a.write;
    f->other.addr = a.lo;
    f->other.size = a.hi - a.lo;
    f->other.stack = a.stack;
}

class Checker {
  public:
    static Checker *ForkChildCopy(const Checker &) {
        // A forked child starts without the parent's shadows: checking
        // goes off there (the child's view of memory is not the parent's).
        g_kinds.store(0, std::memory_order_relaxed);
        return new Checker;
    }

    std::mutex mu;  // Protects: everything below
    FILE *log = nullptr;
    int exit_code = -1;
    uint64_t findings = 0;
    StackDepot depot;
    std::map<uint64_t, Shadow> live;   // by base: device and host memory
    std::map<uint64_t, Shadow> freed;  // by base, the last kFreedKept
    std::deque<uint64_t> freed_order;
    std::vector<Shadow> reset_leaks;                // live when their device was reset
    std::vector<VectorClock> lanes{VectorClock()};  // [0]: the host
    std::vector<const void *> lane_stream{nullptr};
    std::unordered_map<const Stream *, uint32_t> lane_of;
    std::unordered_map<const void *, VectorClock> signals;
    // Per lane: the clock of its last value wait (0: none), behind which
    // work runs when the program says so, which the checker cannot see.
    std::vector<uint64_t> gate{0};
    struct LaneStack {
        const char *api = nullptr;
        uintptr_t frame = 0;
        uint32_t stack = 0;
        uint32_t uses = 0;
    };
    std::vector<LaneStack> lane_stack{LaneStack()};
    // The frame of the hook running now (Submitted, RanNow): where the
    // calling thread's stack stands, for LaneStackNow.
    uintptr_t hook_frame = 0;
    // The last stream LaneOf looked up, and its lane.
    const Stream *last_stream = nullptr;
    uint32_t last_lane = 0;
    std::vector<PendingHost> pending;
    std::unordered_set<uint64_t> seen;
    uint64_t host_clock = 0;

    bool Kind(uint32_t k) const { return (g_kinds.load(std::memory_order_relaxed) & k) != 0; }

    uint32_t LaneOf(Stream &s) {
        if (last_stream == &s)
            return last_lane;
        auto it = lane_of.find(&s);
        uint32_t lane;
        if (it != lane_of.end()) {
            lane = it->second;
        } else {
            lane = static_cast<uint32_t>(lanes.size());
            lanes.emplace_back();
            gate.push_back(0);
            lane_stack.emplace_back();
            lane_stream.push_back(s.handle());
            lane_of.emplace(&s, lane);
        }
        last_stream = &s;
        last_lane = lane;
        return lane;
    }

    // The stack of the call lane is in now: captured again when the API or
    // the hook's frame changed, or after kStackEvery uses (see there).
    uint32_t LaneStackNow(uint32_t lane) {
        LaneStack &ls = lane_stack[lane];
        if (ls.stack == 0 || ls.api != t_api || ls.frame != hook_frame ||
            ++ls.uses >= kStackEvery) {
            ls.stack = depot.Capture();
            ls.api = t_api;
            ls.frame = hook_frame;
            ls.uses = 0;
        }
        return ls.stack;
    }

    Side Here(const void *stream, bool write, uint64_t addr, uint64_t size) {
        Side s;
        s.api = t_api;
        s.stream = stream;
        s.write = write;
        s.addr = addr;
        s.size = size;
        return s;
    }

    void Report(Finding &f, uint32_t lane, uint32_t other_lane) {
        uint64_t key = std::hash<std::string>()(f.kind);
        key = key * 31 + f.here.addr;
        key = key * 31 + f.here.size;
        key = key * 31 + lane;
        key = key * 31 + (f.has_other ? other_lane + 1 : 0);
        key = key * 31 + std::hash<const void *>()(f.here.api);
        if (!seen.insert(key).second)
            return;
        if (f.here.stack == 0)
            f.here.stack = depot.Capture();
        ++findings;
        Emit(f, depot, log);
    }

    void Describe(Finding &f, const Shadow &sh) {
        f.alloc_base = sh.base;
        f.alloc_size = sh.size;
        f.alloc_stack = sh.alloc_stack;
        f.free_stack = sh.free_stack;
        f.host_memory = sh.host;
    }

    // The shadow of @shadows containing addr, or null.
    static Shadow *Containing(std::map<uint64_t, Shadow> &shadows, uint64_t addr) {
        auto it = shadows.upper_bound(addr);
        if (it == shadows.begin())
            return nullptr;
        --it;
        return addr - it->first < it->second.size ? &it->second : nullptr;
    }
    // The live shadows found last (a copy's source and destination), so
    // that a loop over the same allocations does not search the map: each
    // answers for [lo, hi), its bytes below the next shadow's base (as the
    // search would); emptied whenever live changes.
    struct Hot {
        Shadow *sh = nullptr;
        uint64_t lo = 0, hi = 0;
    };
    Hot hot[2];
    Shadow *LiveAt(uint64_t addr) {
        for (const Hot &h : hot) {
            if (addr - h.lo < h.hi - h.lo)
                return h.sh;
        }
        auto it = live.upper_bound(addr);
        const uint64_t next = it == live.end() ? UINT64_MAX : it->first;
        if (it == live.begin())
            return nullptr;
        --it;
        Shadow &sh = it->second;
        if (addr - it->first >= sh.size)
            return nullptr;
        hot[1] = hot[0];
        hot[0].sh = &sh;
        hot[0].lo = it->first;
        hot[0].hi = sh.size < next - it->first ? it->first + sh.size : next;
        return &sh;
    }
    void LiveChanged() { hot[0] = hot[1] = Hot(); }
    Shadow *FreedAt(uint64_t addr) { return Containing(freed, addr); }
    // The live device allocation that ends at most kPastEndSlack below addr.
    Shadow *LiveBelow(uint64_t addr) {
        auto it = live.upper_bound(addr);
        if (it == live.begin())
            return nullptr;
        --it;
        Shadow &sh = it->second;
        if (sh.host || addr < sh.base + sh.size || addr - (sh.base + sh.size) >= kPastEndSlack)
            return nullptr;
        return &sh;
    }

    // Finds the device allocation [addr, addr + len) lies in, reporting a
    // use after free or an out-of-bounds access; returns the shadow and
    // the part of the range inside it (*len clipped), or null.
    Shadow *Locate(uint64_t addr, uint64_t *len, bool write, uint32_t lane, const void *stream) {
        Shadow *sh = LiveAt(addr);
        if (sh != nullptr && sh->host)
            return nullptr;
        if (sh != nullptr) {
            const uint64_t room = sh->base + sh->size - addr;
            if (*len > room) {
                if (Kind(kMemcheck)) {
                    Finding f;
                    f.kind = "out-of-bounds";
                    f.here = Here(stream, write, addr, *len);
                    char what[200];
                    std::snprintf(what, sizeof(what),
                                  "%s of %" PRIu64 " bytes at 0x%" PRIx64 " runs %" PRIu64
                                  " bytes past the end of its allocation",
                                  write ? "write" : "read", *len, addr, *len - room);
                    f.what = what;
                    Describe(f, *sh);
                    Report(f, lane, 0);
                }
                *len = room;
            }
            return sh;
        }
        if (!Kind(kMemcheck))
            return nullptr;
        if (Shadow *gone = FreedAt(addr); gone != nullptr && !gone->host) {
            Finding f;
            f.kind = "use-after-free";
            f.here = Here(stream, write, addr, *len);
            char what[200];
            std::snprintf(what, sizeof(what),
                          "%s of %" PRIu64 " bytes at 0x%" PRIx64 " in device memory already freed",
                          write ? "write" : "read", *len, addr);
            f.what = what;
            Describe(f, *gone);
            Report(f, lane, 0);
            return nullptr;
        }
        if (Shadow *below = LiveBelow(addr); below != nullptr) {
            Finding f;
            f.kind = "out-of-bounds";
            f.here = Here(stream, write, addr, *len);
            char what[200];
            std::snprintf(what, sizeof(what),
                          "%s of %" PRIu64 " bytes at 0x%" PRIx64 ", %" PRIu64
                          " bytes past the end of an allocation",
                          write ? "write" : "read", *len, addr, addr - (below->base + below->size));
            f.what = what;
            Describe(f, *below);
            Report(f, lane, 0);
        }
        return nullptr;
    }

    // Races of the access [lo, hi) by lane (clock v) with the recorded
    // ones, then records it.
    void Track(Shadow &sh, uint64_t lo, uint64_t hi, bool write, uint32_t lane, uint64_t clock,
               const void *stream) {
        const VectorClock &v = lanes[lane];
        uint32_t stack = 0;
        bool raced = false;
        // One pass: the first race with a recorded access is reported, and
        // what this access supersedes goes (ordered before it, inside it,
        // and a read or overwritten). Both need an access that overlaps
        // this one or lies inside it.
        if (sh.recent.MayTouch(lo, hi))
            sh.recent.KeepIf([&](const Access &a) {
                const bool ordered = a.lane == lane || v.Get(a.lane) >= a.clock;
                if (!raced && !ordered && !a.gated && a.lo < hi && lo < a.hi &&
                    (a.write || write)) {
                    raced = true;
                    stack = RaceWith(sh, a, lo, hi, write, lane, stream);
                }
                return !(ordered && lo <= a.lo && a.hi <= hi && (write || !a.write));
            });
        Access a;
        a.lo = lo;
        a.hi = hi;
        a.lane = lane;
        a.clock = clock;
        a.write = write;
        a.gated = Gated(lane);
        a.api = t_api;
        a.stream = stream;
        a.stack = stack != 0 ? stack : LaneStackNow(lane);
        sh.recent.Push(a);
    }

    // Reports the race of the access [lo, hi) by lane with a; returns the
    // stack captured for this side.
    uint32_t RaceWith(const Shadow &sh, const Access &a, uint64_t lo, uint64_t hi, bool write,
                      uint32_t lane, const void *stream) {
        Finding f;
        f.kind = "race";
        f.here = Here(stream, write, lo, hi - lo);
        SetOther(&f, a);
        char what[240];
        std::snprintf(what, sizeof(what),
                      "%s of %" PRIu64 " bytes at 0x%" PRIx64
                      " on %s is not ordered with a %s of the same bytes on %s",
                      write ? "write" : "read", hi - lo, lo, StreamName(stream).c_str(),
                      a.write ? "write" : "read", StreamName(a.stream).c_str());
        f.what = what;
        Describe(f, sh);
        Report(f, lane, a.lane);
        return f.here.stack;
    }

    // Whether work queued now on lane runs behind a wait the checker cannot
    // order (a value wait, a notify or IPC event wait with no record seen).
    bool Gated(uint32_t lane) const {
        return lane != 0 && gate[lane] != 0 && lanes[0].Get(lane) < gate[lane];
    }

    // An access: the last one of its lane (memcheck: a free while it may
    // not have run), and the races (racecheck).
    void Use(Shadow &sh, uint64_t lo, uint64_t hi, bool write, uint32_t lane, uint64_t clock,
             const void *stream) {
        if (Kind(kRacecheck))
            Track(sh, lo, hi, write, lane, clock, stream);
        if (Kind(kMemcheck) && lane != 0) {
            Access *u = nullptr;
            for (Access &a : sh.last_use)
                u = a.lane == lane ? &a : u;
            if (u == nullptr)
                u = &sh.last_use.emplace_back();
            u->lo = lo;
            u->hi = hi;
            u->lane = lane;
            u->clock = clock;
            u->write = write;
            u->api = t_api;
            u->stream = stream;
            u->stack = Kind(kRacecheck) && !sh.recent.empty() ? sh.recent.back().stack : 0;
        }
    }

    // A read of device bytes [addr, addr + len).
    Shadow *DeviceRead(uint64_t addr, uint64_t len, uint32_t lane, uint64_t clock,
                       const void *stream, bool init_matters) {
        Shadow *sh = Locate(addr, &len, false, lane, stream);
        if (sh == nullptr)
            return nullptr;
        if (init_matters && Kind(kInitcheck) && !sh->mapped && !Gated(lane)) {
            const uint64_t off = addr - sh->base;
            const uint64_t miss = sh->FirstUnwritten(off, off + len);
            if (miss < off + len) {
                Finding f;
                f.kind = "uninitialized";
                f.here = Here(stream, false, addr, len);
                char what[200];
                std::snprintf(what, sizeof(what),
                              "read of %" PRIu64 " bytes at 0x%" PRIx64
                              " includes bytes that nothing wrote (the first at 0x%" PRIx64 ")",
                              len, addr, sh->base + miss);
                f.what = what;
                Describe(f, *sh);
                Report(f, lane, 0);
            }
        }
        Use(*sh, addr, addr + len, false, lane, clock, stream);
        return sh;
    }

    // A write of device bytes [addr, addr + len); from (may be null) the
    // shadow of a D2D source at src, whose initialised bytes it copies.
    void DeviceWrite(uint64_t addr, uint64_t len, uint32_t lane, uint64_t clock, const void *stream,
                     const Shadow *from, uint64_t src) {
        Shadow *sh = Locate(addr, &len, true, lane, stream);
        if (sh == nullptr)
            return;
        Use(*sh, addr, addr + len, true, lane, clock, stream);
        if (!Kind(kInitcheck) || sh->mapped)
            return;
        const uint64_t off = addr - sh->base;
        if (from == nullptr || from->mapped || Gated(lane)) {
            sh->Wrote(off, off + len);
            return;
        }
        // Initialisation follows the bytes: only what was written at the
        // source is written at the destination.
        const uint64_t soff = src - from->base;
        if (sh->all_written)
            return;
        if (from->FirstUnwritten(soff, soff + len) == soff + len) {
            sh->Wrote(off, off + len);
            return;
        }
        std::vector<std::pair<uint64_t, uint64_t>> parts;
        from->init.ForEach(soff, soff + len,
                           [&](uint64_t a, uint64_t b) { parts.emplace_back(a, b); });
        for (const auto &[a, b] : parts)
            sh->Wrote(off + (a - soff), off + (b - soff));
    }

    // The host side of a queued copy: pinned memory it reads or writes.
    void HostSide(uint64_t addr, uint64_t len, bool read, uint32_t lane, uint64_t clock,
                  const void *stream) {
        Shadow *sh = LiveAt(addr);
        if (sh == nullptr || !sh->host)
            return;
        const uint64_t room = sh->base + sh->size - addr;
        if (len > room)
            len = room;
        for (PendingHost &o : pending) {
            // Bytes a queued copy writes change under a queued read too:
            // its content says nothing of the host then.
            if (!read && o.lo < addr + len && addr < o.hi)
                o.hash = 0;
        }
        bool written = false;
        for (const PendingHost &o : pending)
            written = written || (o.hash == 0 && o.lo < addr + len && addr < o.hi);
        PendingHost p;
        p.lane = lane;
        p.clock = clock;
        p.lo = addr;
        p.hi = addr + len;
        p.hash = read && !written && Kind(kRacecheck)
                     ? HashBytes(reinterpret_cast<const void *>(addr), len)
                     : 0;
        p.side = Here(stream, !read, addr, len);
        p.side.stack = Kind(kRacecheck) ? LaneStackNow(lane) : 0;
        pending.push_back(p);
    }

    // The accesses of one descriptor by lane at clock.
    void Desc(const RingDesc &d, uint32_t lane, uint64_t clock, const void *stream, bool queued) {
        struct npu_sqe q;
        std::memcpy(&q, d.raw, sizeof(q));
        switch (q.opcode) {
            case NPU_OP_COPY:
            case NPU_OP_COPY2D: {
                const uint64_t rows = q.opcode == NPU_OP_COPY2D ? q.value : 1;
                for (uint64_t r = 0; r < rows; ++r) {
                    const uint64_t dst = q.dst + r * q.dpitch, src = q.src + r * q.spitch;
                    const bool dd = q.dir == NPU_DIR_H2D || q.dir == NPU_DIR_D2D;
                    const bool sd = q.dir == NPU_DIR_D2H || q.dir == NPU_DIR_D2D;
                    const Shadow *from = nullptr;
                    if (sd)
                        from = DeviceRead(src, q.len, lane, clock, stream, true);
                    else if (queued)
                        HostSide(src, q.len, true, lane, clock, stream);
                    if (dd)
                        DeviceWrite(dst, q.len, lane, clock, stream, sd ? from : nullptr, src);
                    else if (queued)
                        HostSide(dst, q.len, false, lane, clock, stream);
                }
                break;
            }
            case NPU_OP_REDUCE: {
                // Reads both operands, writes the destination.
                const Shadow *from = DeviceRead(q.src, q.len, lane, clock, stream, true);
                DeviceRead(q.dst, q.len, lane, clock, stream, true);
                DeviceWrite(q.dst, q.len, lane, clock, stream, from, q.src);
                break;
            }
            case NPU_OP_MEMSET:
                if (q.dir == NPU_DIR_H2D)
                    DeviceWrite(q.dst, q.len, lane, clock, stream, nullptr, 0);
                else if (queued)  // NPU_DIR_H2H: a queued fill of host (managed) memory
                    HostSide(q.dst, q.len, false, lane, clock, stream);
                break;
            case NPU_OP_VALUE_WRITE:
            case NPU_OP_VALUE_WAIT: {
                // Words of a protocol between streams and the host
                // (aclrtValueWrite/Wait), not data: bounds and
                // initialisation only.
                Shadow *sh = LiveAt(q.dst);
                if (sh == nullptr || sh->host)
                    break;
                uint64_t len = sizeof(uint64_t);
                sh = Locate(q.dst, &len, q.opcode == NPU_OP_VALUE_WRITE, lane, stream);
                if (sh != nullptr && q.opcode == NPU_OP_VALUE_WRITE)
                    sh->Wrote(q.dst - sh->base, q.dst - sh->base + len);
                if (q.opcode == NPU_OP_VALUE_WAIT && lane != 0)
                    gate[lane] = clock;
                break;
            }
            default:
                // Indirect copies name their operands in device memory,
                // read when they run; the runtime's own words are not the
                // program's.
                break;
        }
    }

    // The host learned more: queued host reads now known complete are
    // compared with what they were when queued.
    void SettlePending() {
        const VectorClock &h = lanes[0];
        std::erase_if(pending, [&](const PendingHost &p) {
            if (h.Get(p.lane) < p.clock)
                return false;
            if (p.hash != 0 &&
                HashBytes(reinterpret_cast<const void *>(p.lo), p.hi - p.lo) != p.hash) {
                Finding f;
                f.kind = "host-race";
                f.here = Here(nullptr, true, p.lo, p.hi - p.lo);
                f.has_other = true;
                f.other = p.side;
                char what[240];
                std::snprintf(what, sizeof(what),
                              "the host wrote host memory at 0x%" PRIx64 " (%" PRIu64
                              " bytes) that a copy queued on %s had not yet been known to read",
                              p.lo, p.hi - p.lo, StreamName(p.side.stream).c_str());
                f.what = what;
                if (Shadow *sh = LiveAt(p.lo))
                    Describe(f, *sh);
                Report(f, 0, p.lane);
            }
            return true;
        });
    }

    void Remember(Shadow &&sh) {
        // A new allocation at these addresses replaces what was freed there.
        const uint64_t base = sh.base;
        freed.erase(base);
        freed.emplace(base, std::move(sh));
        freed_order.push_back(base);
        while (freed_order.size() > kFreedKept) {
            freed.erase(freed_order.front());
            freed_order.pop_front();
        }
    }

    void Forget(uint64_t lo, uint64_t hi) {
        auto it = freed.lower_bound(lo);
        if (it != freed.begin() && std::prev(it)->second.base + std::prev(it)->second.size > lo)
            --it;
        while (it != freed.end() && it->first < hi)
            it = freed.erase(it);
    }

    void Leaks(const char *when) {
        if (!Kind(kLeakcheck))
            return;
        auto one = [&](Shadow &sh) {
            if (sh.mapped || sh.leak_reported)
                return;
            sh.leak_reported = true;
            Finding f;
            f.kind = "leak";
            f.here = Here(nullptr, false, sh.base, sh.size);
            f.here.access = false;
            f.here.stack = depot.Capture();
            char what[200];
            std::snprintf(what, sizeof(what),
                          "%" PRIu64 " bytes of %s at 0x%" PRIx64 " still allocated at %s", sh.size,
                          sh.host
                              ? (sh.registered ? "registered host memory" : "pinned host memory")
                              : "device memory",
                          sh.base, when);
            f.what = what;
            Describe(f, sh);
            ++findings;
            Emit(f, depot, log);
        };
        for (auto &[base, sh] : live)
            one(sh);
        for (Shadow &sh : reset_leaks)
            one(sh);
    }
};

Checker &C() {
    return base::Singleton<Checker>::Get();
}

void AtExit() {
    if (!On())
        return;
    Checker &c = C();
    int code = -1;
    {
        std::lock_guard<std::mutex> lock(c.mu);
        c.Leaks("exit");
        if (c.findings != 0 && c.exit_code >= 0)
            code = c.exit_code;
    }
    if (code >= 0) {
        std::fflush(nullptr);
        ::_exit(code);
    }
}

// Reads NPU_CHECK when the library loads.
[[gnu::constructor]] void Start() {
    const char *env = std::getenv("NPU_CHECK");
    if (env == nullptr || *env == '\0')
        return;
    uint32_t kinds = 0;
    std::string list(env);
    size_t pos = 0;
    while (pos <= list.size()) {
        size_t comma = list.find(',', pos);
        if (comma == std::string::npos)
            comma = list.size();
        const std::string w = list.substr(pos, comma - pos);
        if (w == "all")
            kinds |= kMemcheck | kRacecheck | kInitcheck | kLeakcheck;
        else if (w == "memcheck")
            kinds |= kMemcheck;
        else if (w == "racecheck")
            kinds |= kRacecheck;
        else if (w == "initcheck")
            kinds |= kInitcheck;
        else if (w == "leakcheck")
            kinds |= kLeakcheck;
        else if (!w.empty())
            std::fprintf(stderr, "npu-check: NPU_CHECK: unknown kind \"%s\" ignored\n", w.c_str());
        pos = comma + 1;
    }
    if (kinds == 0)
        return;
    Checker &c = C();
    if (const char *path = std::getenv("NPU_CHECK_LOG"); path != nullptr && *path != '\0') {
        c.log = std::fopen(path, "ae");
        if (c.log == nullptr)
            std::fprintf(stderr, "npu-check: cannot open NPU_CHECK_LOG %s\n", path);
    }
    if (const char *code = std::getenv("NPU_CHECK_EXITCODE"); code != nullptr && *code != '\0')
        c.exit_code = std::atoi(code);
    std::atexit(AtExit);
    g_kinds.store(kinds, std::memory_order_relaxed);
}

}  // namespace

const char *SwapApi(const char *api) {
    const char *old = t_api;
    t_api = api;
    return old;
}

namespace {
// A new live range, device or host: what was freed there before is
// forgotten, and the allocating call's stack is kept for reports. Inlined:
// the stack skips exactly Capture and the hook (StackDepot::Capture).
[[gnu::always_inline]] inline void Track(Shadow sh) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    c.Forget(sh.base, sh.base + sh.size);
    sh.alloc_stack = c.depot.Capture();
    c.LiveChanged();
    const uint64_t base = sh.base;
    c.live[base] = std::move(sh);
}
}  // namespace

void DeviceAllocated(const void *base, size_t size, int32_t device, bool mapped) {
    Shadow sh;
    sh.base = reinterpret_cast<uint64_t>(base);
    sh.size = size;
    sh.device = device;
    sh.mapped = mapped;
    Track(std::move(sh));
}

void DeviceFreeing(const void *ptr) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    const auto p = reinterpret_cast<uint64_t>(ptr);
    auto it = c.live.find(p);
    if (it == c.live.end() || it->second.host || it->second.mapped) {
        if (!c.Kind(kMemcheck))
            return;
        Finding f;
        f.here = c.Here(nullptr, true, p, 0);
        f.here.access = false;
        if (Shadow *gone = c.FreedAt(p); gone != nullptr && gone->base == p && !gone->host) {
            f.kind = "double-free";
            f.what = "device memory at " + StreamName(ptr) + " freed twice";
            c.Describe(f, *gone);
        } else {
            f.kind = "invalid-free";
            f.what = StreamName(ptr) + " does not start a device allocation";
            if (Shadow *in = c.LiveAt(p))
                c.Describe(f, *in);
        }
        c.Report(f, 0, 0);
        return;
    }
    Shadow &sh = it->second;
    if (c.Kind(kMemcheck)) {
        const VectorClock &h = c.lanes[0];
        for (const Access &a : sh.last_use) {
            if (a.lane == 0 || h.Get(a.lane) >= a.clock)
                continue;
            Finding f;
            f.kind = "use-after-free";
            f.here = c.Here(nullptr, true, sh.base, sh.size);
            f.here.access = false;
            SetOther(&f, a);
            f.what = "device memory at " + StreamName(ptr) + " freed while a " +
                     (a.write ? "write" : "read") + " queued on " + StreamName(a.stream) +
                     " may not have run";
            c.Describe(f, sh);
            c.Report(f, 0, a.lane);
            break;
        }
    }
    sh.free_stack = c.depot.Capture();
    sh.recent.clear();
    sh.last_use.clear();
    c.Remember(std::move(sh));
    c.LiveChanged();
    c.live.erase(it);
}

void DeviceUnmapped(const void *base) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.live.find(reinterpret_cast<uint64_t>(base));
    if (it != c.live.end() && it->second.mapped)
        c.LiveChanged();
    c.live.erase(it);
}

void DeviceReset(int32_t user_id) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    for (auto it = c.live.begin(); it != c.live.end();) {
        Shadow &sh = it->second;
        if (sh.host || (user_id >= 0 && sh.device != user_id)) {
            ++it;
            continue;
        }
        if (!sh.mapped) {
            sh.reset = true;
            sh.recent.clear();
            sh.last_use.clear();
            sh.ForgetWrites();
            c.reset_leaks.push_back(std::move(sh));
        }
        c.LiveChanged();
        it = c.live.erase(it);
    }
}

void HostAllocated(const void *base, size_t size, bool registered) {
    Shadow sh;
    sh.base = reinterpret_cast<uint64_t>(base);
    sh.size = size;
    sh.host = true;
    sh.registered = registered;
    Track(std::move(sh));
}

void HostFreeing(const void *ptr, bool registered) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    const auto p = reinterpret_cast<uint64_t>(ptr);
    auto it = c.live.find(p);
    if (it == c.live.end() || !it->second.host || it->second.registered != registered) {
        if (!c.Kind(kMemcheck) || registered)
            return;  // an unknown unregister: the call's own error says it
        Finding f;
        f.here = c.Here(nullptr, true, p, 0);
        f.here.access = false;
        if (Shadow *gone = c.FreedAt(p); gone != nullptr && gone->base == p && gone->host) {
            f.kind = "double-free";
            f.what = "pinned host memory at " + StreamName(ptr) + " freed twice";
            c.Describe(f, *gone);
        } else {
            f.kind = "invalid-free";
            f.what = StreamName(ptr) + " does not start pinned host memory from aclrtMallocHost";
        }
        c.Report(f, 0, 0);
        return;
    }
    Shadow &sh = it->second;
    const VectorClock &h = c.lanes[0];
    bool reported = false;
    std::erase_if(c.pending, [&](const PendingHost &q) {
        if (q.hi <= sh.base || sh.base + sh.size <= q.lo)
            return false;
        if (h.Get(q.lane) < q.clock && !reported && c.Kind(kMemcheck | kRacecheck)) {
            reported = true;
            Finding f;
            f.kind = "host-race";
            f.here = c.Here(nullptr, true, sh.base, sh.size);
            f.here.access = false;
            f.has_other = true;
            f.other = q.side;
            f.what = std::string(registered ? "unregistered" : "freed") + " host memory at " +
                     StreamName(ptr) + " that a copy queued on " + StreamName(q.side.stream) +
                     (q.side.write ? " writes" : " reads") + " and that may not have run";
            c.Describe(f, sh);
            c.Report(f, 0, q.lane);
        }
        return true;
    });
    sh.free_stack = c.depot.Capture();
    c.Remember(std::move(sh));
    c.LiveChanged();
    c.live.erase(it);
}

void Submitted(Stream &s, const RingDesc *descs, uint32_t n, uint64_t last) {
    if (n == 0 || last < n)
        return;
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    const uint32_t lane = c.LaneOf(s);
    c.hook_frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    c.lanes[lane].Join(c.lanes[0]);  // after everything the host did so far
    const uint64_t first = last - n + 1;
    for (uint32_t i = 0; i < n; ++i) {
        c.lanes[lane].Set(lane, first + i);
        c.Desc(descs[i], lane, first + i, s.handle(), true);
    }
}

void RanNow(const RingDesc *descs, uint32_t n) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    c.hook_frame = reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
    c.lanes[0].Set(0, ++c.host_clock);
    for (uint32_t i = 0; i < n; ++i)
        c.Desc(descs[i], 0, c.host_clock, nullptr, false);
}

void Completed(Stream &s, uint64_t seq) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.lane_of.find(&s);
    if (it == c.lane_of.end())
        return;
    const uint32_t lane = it->second;
    VectorClock &h = c.lanes[0];
    const uint64_t before = h.Get(lane);
    if (before >= seq)
        return;
    // What the stream had joined by now (a little more than by seq: a
    // race after that point may be missed, none is invented).
    h.Join(c.lanes[lane]);
    h.Set(lane, seq);
    c.SettlePending();
}

void HostWorkQueued(Stream &s) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.lane_of.find(&s);
    if (it == c.lane_of.end())
        return;
    // A host function on s may write what earlier copies on s read.
    for (PendingHost &p : c.pending) {
        if (p.lane == it->second)
            p.hash = 0;
    }
}

void StreamGone(Stream &s) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    auto it = c.lane_of.find(&s);
    if (it == c.lane_of.end())
        return;
    c.lanes[0].Join(c.lanes[it->second]);
    c.lane_of.erase(it);
    c.last_stream = nullptr;
    c.SettlePending();
}

void SignalRecorded(const void *signal, Stream &s, uint64_t seq) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    const uint32_t lane = c.LaneOf(s);
    VectorClock v = c.lanes[lane];
    v.Set(lane, seq);
    c.signals[signal] = std::move(v);
}

void SignalWaited(const void *signal, Stream &s, bool consume) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    const uint32_t lane = c.LaneOf(s);
    auto it = c.signals.find(signal);
    if (it == c.signals.end()) {
        // A record the checker has not seen (queued later, or by another
        // process): what follows on s is not checked against the host.
        c.gate[lane] = c.lanes[lane].Get(lane);
        return;
    }
    c.lanes[lane].Join(it->second);
    if (consume)
        c.signals.erase(it);
}

void RangeRefused(const void *ptr, size_t len) {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    uint64_t n = len;
    c.Locate(reinterpret_cast<uint64_t>(ptr), &n, false, 0, nullptr);
}

void Finalizing() {
    Checker &c = C();
    std::lock_guard<std::mutex> lock(c.mu);
    c.Leaks("aclFinalize");
}

}  // namespace npu::rt::check
