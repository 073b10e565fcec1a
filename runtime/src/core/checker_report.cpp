// SPDX-License-Identifier: MIT
// The checker's stacks and reports (core/checker_report.h).
#include "base/json_text.h"
#include "core/checker_report.h"

#include <execinfo.h>

#include <cinttypes>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "base/trace.h"

namespace npu::rt::check {

uint32_t StackDepot::Capture() {
    Stack s;
    void *raw[kDepth + 3];
    // Skips Capture and the hook that called it.
    const int n = ::backtrace(raw, kDepth + 3);
    const int skip = n > 2 ? 2 : 0;
    s.n = n - skip > kDepth ? kDepth : n - skip;
    std::memcpy(s.pc, raw + skip, sizeof(void *) * static_cast<size_t>(s.n));
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < s.n; ++i)
        h = (h ^ reinterpret_cast<uintptr_t>(s.pc[i])) * 1099511628211ull;
    std::vector<uint32_t> &same = by_hash_[h];
    for (uint32_t id : same) {
        const Stack &o = stacks_[id];
        if (o.n == s.n && std::memcmp(o.pc, s.pc, sizeof(void *) * static_cast<size_t>(s.n)) == 0)
            return id;
    }
    stacks_.push_back(s);
    const auto id = static_cast<uint32_t>(stacks_.size() - 1);
    same.push_back(id);
    return id;
}

void StackDepot::Print(uint32_t id, std::string *out) const {
    if (id == 0 || id >= stacks_.size()) {
        *out += "    (no stack)\n";
        return;
    }
    const Stack &s = stacks_[id];
    std::unique_ptr<char *, decltype(&std::free)> names(
        ::backtrace_symbols(const_cast<void *const *>(s.pc), s.n), &std::free);
    // From the API the program called: the runtime's frames inside it
    // (the checker's hook, the planner) say nothing to the program.
    int from = 0;
    for (int i = 0; names && i < s.n; ++i) {
        if (std::strstr(names.get()[i], "(acl") != nullptr)
            from = i;
    }
    for (int i = from; i < s.n; ++i) {
        char line[512];
        std::snprintf(line, sizeof(line), "    #%d %p %s\n", i - from, s.pc[i],
                      names ? names.get()[i] : "");
        *out += line;
    }
}

std::string StreamName(const void *stream) {
    if (stream == nullptr)
        return "host";
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%p", stream);
    return buf;
}

namespace {

const char *Api(const char *api) {
    return api != nullptr ? api : "(unknown call)";
}

void SideLine(const char *label, const Side &s, const StackDepot &depot, std::string *out) {
    char line[256];
    if (!s.access) {
        std::snprintf(line, sizeof(line), "  in %s on %s%s:\n", Api(s.api),
                      s.stream != nullptr ? "stream " : "",
                      s.stream != nullptr ? StreamName(s.stream).c_str() : "the host");
        *out += line;
        depot.Print(s.stack, out);
        return;
    }
    std::snprintf(line, sizeof(line),
                  "  %s %s of %" PRIu64 " bytes at 0x%" PRIx64 " by %s on %s%s:\n", label,
                  s.write ? "write" : "read", s.size, s.addr, Api(s.api),
                  s.stream != nullptr ? "stream " : "",
                  s.stream != nullptr ? StreamName(s.stream).c_str() : "the host");
    *out += line;
    depot.Print(s.stack, out);
}

}  // namespace

void Emit(const Finding &f, const StackDepot &depot, FILE *log) {
    std::string block = "npu-check: ";
    block += f.kind;
    block += ": ";
    block += f.what;
    block += '\n';
    SideLine("this", f.here, depot, &block);
    if (f.has_other)
        SideLine("other", f.other, depot, &block);
    if (f.alloc_base != 0) {
        char line[160];
        std::snprintf(line, sizeof(line),
                      "  %s [0x%" PRIx64 ", 0x%" PRIx64 ") of %" PRIu64 " bytes, allocated at:\n",
                      f.host_memory ? "host memory" : "device memory", f.alloc_base,
                      f.alloc_base + f.alloc_size, f.alloc_size);
        block += line;
        depot.Print(f.alloc_stack, &block);
        if (f.free_stack != 0) {
            block += "  freed at:\n";
            depot.Print(f.free_stack, &block);
        }
    }
    std::fputs(block.c_str(), stderr);
    std::fflush(stderr);

    if (log != nullptr) {
        std::string j = "{\"kind\":";
        npu::base::AppendJsonString(&j, f.kind);
        j += ",\"what\":";
        npu::base::AppendJsonString(&j, f.what);
        j += ",\"api\":";
        npu::base::AppendJsonString(&j, Api(f.here.api));
        char num[96];
        std::snprintf(num, sizeof(num), ",\"address\":%" PRIu64 ",\"size\":%" PRIu64, f.here.addr,
                      f.here.size);
        j += num;
        if (f.here.access) {
            j += ",\"access\":";
            j += f.here.write ? "\"write\"" : "\"read\"";
        }
        j += ",\"stream\":";
        npu::base::AppendJsonString(&j, StreamName(f.here.stream));
        if (f.has_other) {
            j += ",\"other_api\":";
            npu::base::AppendJsonString(&j, Api(f.other.api));
            j += ",\"other_stream\":";
            npu::base::AppendJsonString(&j, StreamName(f.other.stream));
            std::snprintf(num, sizeof(num),
                          ",\"other_address\":%" PRIu64 ",\"other_size\":%" PRIu64, f.other.addr,
                          f.other.size);
            j += num;
            j += ",\"other_access\":";
            j += f.other.write ? "\"write\"" : "\"read\"";
        }
        if (f.alloc_base != 0) {
            std::snprintf(num, sizeof(num), ",\"alloc_base\":%" PRIu64 ",\"alloc_size\":%" PRIu64,
                          f.alloc_base, f.alloc_size);
            j += num;
        }
        j += "}\n";
        std::fputs(j.c_str(), log);
        std::fflush(log);
    }
    if (base::trace::On())
        base::trace::Finding(f.kind, f.here.stream, f.has_other ? f.other.stream : nullptr);
}

}  // namespace npu::rt::check
