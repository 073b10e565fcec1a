// SPDX-License-Identifier: MIT
// fork(): a child forked from a process using the runtime starts afresh.
// The pthread_atfork child handler (core/fork.cpp) closes the parent's
// device files without a single ioctl (halForkChild), then gives every
// process-wide table a new, empty instance. The parent's objects are left
// as they are and never touched again (not even destroyed: their files are
// gone and their memory, MADV_DONTFORK, is not mapped in the child). So
// the child may call aclInit and aclrtSetDevice and works with a context
// of its own; a handle or device pointer inherited from the parent is
// unknown there and gets the usual invalid-handle / invalid-value errors.
#ifndef NPU_RT_CORE_FORK_H
#define NPU_RT_CORE_FORK_H

#include <vector>

namespace npu::rt {

// Keeps the parent's copy of an object reachable (for leak checkers) in a
// forked child, which never uses it again.
template <typename T>
void KeepParentCopy(T *parent) {
    static auto *kept = new std::vector<T *>();
    kept->push_back(parent);
}

// Installs the pthread_atfork handlers, once; the process-wide tables call
// it when they are created, so it happens before any device is opened.
void RegisterForkHandlers();

// Each forgets, in the child, what the parent had.
void PeerAccessForkChild();
void StreamsForkChild();
void EventsForkChild();

}  // namespace npu::rt

#endif  // NPU_RT_CORE_FORK_H
