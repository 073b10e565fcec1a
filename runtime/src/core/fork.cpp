// SPDX-License-Identifier: MIT
#include "core/fork.h"

#include <pthread.h>

#include "core/device_manager.h"
#include "core/host_pool.h"
#include "core/host_tasks.h"
#include "core/library.h"
#include "core/notify.h"
#include "core/runtime_config.h"
#include "core/share_registry.h"
#include "core/thread_state.h"
#include "npu/hal.h"

namespace npu::rt {
namespace {

void ForkPrepare() {
    halForkPrepare();
}

void ForkParent() {
    halForkParent();
}

// Runs in the child, which has only the thread that called fork().
void ForkChild() {
    halForkChild();
    Library::ForkChild();
    DeviceManager::ForkChild();
    HostPool::ForkChild();
    ShareRegistry::ForkChild();
    PeerAccessForkChild();
    StreamsForkChild();
    EventsForkChild();
    ReportSubscriptions::ForkChild();
    NotifiesForkChild();
    RuntimeConfig::ForkChild();
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
