// SPDX-License-Identifier: MIT
#include "core/thread_state.h"

namespace npu::rt {
namespace {

// Thread-local, so it needs no lock.
thread_local std::weak_ptr<Context> t_current;

}  // namespace

std::shared_ptr<Context> ThreadState::CurrentContext() {
    return t_current.lock();
}

Error ThreadState::NoContextError() {
    return Error(ACL_ERROR_RT_CONTEXT_NULL,
                 "no current context in this thread (call aclrtSetDevice or "
                 "aclrtSetCurrentContext first)");
}

Error ThreadState::RequireContext(std::shared_ptr<Context> *out) {
    *out = t_current.lock();
    if (!*out)
        return NoContextError();
    return Error::Ok();
}

void ThreadState::SetCurrentContext(const std::shared_ptr<Context> &ctx) {
    t_current = ctx;
}

void ThreadState::ForgetCurrentContextInChild() {
    t_current.reset();  // a weak reference: nothing is destroyed
}

}  // namespace npu::rt
