// SPDX-License-Identifier: MIT
#include "base/singleton.h"

#include <pthread.h>

#include <atomic>
#include <vector>

namespace npu::base {
namespace {

// The singletons made so far, newest first. Only ever pushed to; read by
// the child handler, where no other thread exists.
std::atomic<ForkResetNode *> g_nodes{nullptr};

void ResetAllInChild() {
    for (ForkResetNode *n = g_nodes.load(std::memory_order_acquire); n != nullptr; n = n->next)
        n->reset();
}

}  // namespace

void ForkResetAdd(ForkResetNode *node) {
    static const int registered = pthread_atfork(nullptr, nullptr, ResetAllInChild);
    (void)registered;
    ForkResetNode *head = g_nodes.load(std::memory_order_relaxed);
    do {
        node->next = head;
    } while (!g_nodes.compare_exchange_weak(head, node, std::memory_order_release,
                                            std::memory_order_relaxed));
}

void KeepParentCopy(const void *parent) {
    // Touched only in children, which have one thread.
    static auto *kept = new std::vector<const void *>();
    kept->push_back(parent);
}

}  // namespace npu::base
