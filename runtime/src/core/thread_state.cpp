// SPDX-License-Identifier: MIT
#include "core/thread_state.h"

namespace npu::rt {
namespace {

// Thread-local, so they need no lock. t_current_ptr is what t_current was
// set to, for IsCurrent(). Both are read on every stream call: the
// initial-exec model reaches them without a __tls_get_addr() call (the
// library already needs static TLS for the mock kernel's own).
[[gnu::tls_model("initial-exec")]] thread_local std::weak_ptr<Context> t_current;
[[gnu::tls_model("initial-exec")]] thread_local const Context *t_current_ptr = nullptr;

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

bool ThreadState::IsCurrent(const Context *ctx) {
    // Not expired: the context t_current_ptr names is alive, so no other
    // live context can have its address. Expired: it is destroyed or being
    // destroyed, and there is no current context, as CurrentContext()
    // would say.
    return ctx != nullptr && ctx == t_current_ptr && !t_current.expired();
}

void ThreadState::SetCurrentContext(const std::shared_ptr<Context> &ctx) {
    t_current = ctx;
    t_current_ptr = ctx.get();
}

void ThreadState::ForgetCurrentContextInChild() {
    t_current.reset();  // a weak reference: nothing is destroyed
    t_current_ptr = nullptr;
}

}  // namespace npu::rt
