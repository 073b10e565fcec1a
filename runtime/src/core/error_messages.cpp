// SPDX-License-Identifier: MIT
#include "core/error_messages.h"

#include <deque>

namespace npu::rt {
namespace {

struct ThreadMessages {
    std::deque<std::string> pending;  // oldest first
    std::string taken;                // what the last Take() returned
    int32_t last_code = 0;            // newest runtime-layer code
};

// Thread-local, so it needs no lock.
thread_local ThreadMessages t_messages;

}  // namespace

void ErrorMessages::Record(std::string message) {
    ThreadMessages &tm = t_messages;
    if (tm.pending.size() == kMaxMessages)
        tm.pending.pop_front();
    tm.pending.push_back(std::move(message));
}

const char *ErrorMessages::Take() {
    ThreadMessages &tm = t_messages;
    if (tm.pending.empty())
        return nullptr;
    tm.taken.clear();
    for (auto it = tm.pending.rbegin(); it != tm.pending.rend(); ++it) {
        if (!tm.taken.empty())
            tm.taken += '\n';
        tm.taken += *it;
    }
    tm.pending.clear();
    return tm.taken.c_str();
}

void ErrorMessages::RecordCode(int32_t code) {
    // Runtime-layer codes are 107xxx, 207xxx and 507xxx.
    if (code > 0 && code / 1000 % 100 == 7)
        t_messages.last_code = code;
}

int32_t ErrorMessages::LastCode(bool clear) {
    const int32_t code = t_messages.last_code;
    if (clear)
        t_messages.last_code = 0;
    return code;
}

}  // namespace npu::rt
