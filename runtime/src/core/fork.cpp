// SPDX-License-Identifier: MIT
#include "core/fork.h"

#include <pthread.h>

#include "core/thread_state.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

void ForkPrepare() {
    npuHalForkPrepare();
}

void ForkParent() {
    npuHalForkParent();
}

// Runs in the child, which has only the thread that called fork(). The
// process-wide objects are replaced by base's handler (base/singleton.h),
// which touches none of the parent's files: the order of the two does not
// matter.
void ForkChild() {
    npuHalForkChild();
    // The forking thread's current context is the parent's: forget it
    // without releasing it (the parent's objects are never destroyed here).
    ThreadState::ForgetCurrentContextInChild();
}

}  // namespace

void RegisterForkHandlers() {
    static const int registered = pthread_atfork(ForkPrepare, ForkParent, ForkChild);
    (void)registered;
}

}  // namespace npu::rt
