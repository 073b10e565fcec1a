// SPDX-License-Identifier: MIT
#include "core/error_messages.h"

#include <deque>

namespace npu::rt {
namespace {

struct ThreadMessages {
    std::deque<std::string> pending;  // oldest first
    std::string taken;                // what the last Take() returned
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

}  // namespace npu::rt
