// SPDX-License-Identifier: MIT
// ThreadState: the calling thread's current context. The thread does not
// own it: when the context is destroyed or its device reset, the thread has
// no current context any more (ACL_ERROR_RT_CONTEXT_NULL).
#ifndef NPU_RT_CORE_THREAD_STATE_H
#define NPU_RT_CORE_THREAD_STATE_H

#include <memory>

#include "core/context.h"
#include "core/error.h"

namespace npu::rt {

class ThreadState {
  public:
    // The current context, or nullptr when there is none. The returned
    // reference keeps the context alive for the duration of a call.
    static std::shared_ptr<Context> CurrentContext();
    // Like CurrentContext(), but a missing context is the error
    // ACL_ERROR_RT_CONTEXT_NULL.
    static Error RequireContext(std::shared_ptr<Context> *out);
    // The error of a call that needs a context when the thread has none.
    static Error NoContextError();
    // Whether ctx is this thread's current context, without taking a
    // reference: for a caller that holds ctx alive by other means (a pinned
    // stream of it) and needs only its identity. No atomic read-modify-write,
    // where CurrentContext() takes and drops a reference (two).
    static bool IsCurrent(const Context *ctx);
    static void SetCurrentContext(const std::shared_ptr<Context> &ctx);
    // In a forked child: no current context, and the parent's one is not
    // released (core/fork.h).
    static void ForgetCurrentContextInChild();
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_THREAD_STATE_H
