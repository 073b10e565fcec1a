// SPDX-License-Identifier: MIT
/*
 * fork(): what a forked child must not keep of its parent's HAL.
 *
 * A child gets copies of the parent's device file descriptors, but the
 * files belong to the parent (the driver answers any other process with
 * EBADF) and the child's copies would keep the parent's contexts alive
 * after the parent is gone. So the child closes them at once, without a
 * single ioctl, together with the ring, pool and io_uring descriptors (the
 * memory they map is MADV_DONTFORK, so the child has no mapping of it
 * anyway). The parent's HAL objects that the child still has (leaked
 * copies the runtime never uses again) answer -EBADF: they compare the
 * fork generation they were made in with the current one.
 */
#include <atomic>
#include <mutex>
#include <set>

#include <unistd.h>

// The library is built with hidden visibility; the HAL is part of its ABI.
#pragma GCC visibility push(default)
#include "npu/hal.h"
#pragma GCC visibility pop

#include "hal_internal.h"

namespace npu::hal {
namespace {

struct ForkState {
    std::mutex mu; /* Protects: fds */
    std::set<int> fds;
};

ForkState &State() {
    static auto *state = new ForkState;  // never destroyed: used by atfork handlers
    return *state;
}

std::atomic<uint32_t> g_generation{0};
std::atomic<bool> g_inproc_unusable{false};

}  // namespace

uint32_t ForkGeneration() {
    return g_generation.load(std::memory_order_relaxed);
}

}  // namespace npu::hal

extern "C" {

void npuHalForkTrackFd(int fd) {
    if (fd < 0)
        return;
    npu::hal::ForkState &s = npu::hal::State();
    std::lock_guard<std::mutex> guard(s.mu);
    s.fds.insert(fd);
}

void npuHalForkUntrackFd(int fd) {
    if (fd < 0)
        return;
    npu::hal::ForkState &s = npu::hal::State();
    std::lock_guard<std::mutex> guard(s.mu);
    s.fds.erase(fd);
}

// Held across fork() so that the child's copy of the set is consistent.
void npuHalForkPrepare(void) {
    npu::hal::State().mu.lock();
}

void npuHalForkParent(void) {
    npu::hal::State().mu.unlock();
}

void npuHalForkChild(void) {
    npu::hal::ForkState &s = npu::hal::State();
    npu::hal::g_generation.fetch_add(1, std::memory_order_relaxed);
    if (npu::hal::InprocLoaded())
        npu::hal::g_inproc_unusable.store(true, std::memory_order_relaxed);
    for (int fd : s.fds)
        ::close(fd);
    s.fds.clear();
    s.mu.unlock();
}

int npuHalForkInprocUnusable(void) {
    return npu::hal::g_inproc_unusable.load(std::memory_order_relaxed) ? 1 : 0;
}

}  // extern "C"
