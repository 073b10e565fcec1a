// SPDX-License-Identifier: MIT
// fork(): a child forked from a process using the runtime starts afresh.
// The pthread_atfork child handler (core/fork.cpp) closes the parent's
// device files without a single ioctl (npuHalForkChild) and forgets the
// forking thread's current context; base's own child handler
// (base/singleton.h) gives every process-wide object a new instance. The
// parent's objects are left as they are and never touched again (not even
// destroyed: their files are gone and their memory, MADV_DONTFORK, is not
// mapped in the child). So the child may call aclInit and aclrtSetDevice
// and works with a context of its own; a handle or device pointer
// inherited from the parent is unknown there and gets the usual
// invalid-handle / invalid-value errors. docs/runtime-locks.md, section 4,
// lists what a child keeps.
#ifndef NPU_RT_CORE_FORK_H
#define NPU_RT_CORE_FORK_H

namespace npu::rt {

// Installs the pthread_atfork handlers, once; the process-wide tables call
// it when they are created, so it happens before any device is opened.
void RegisterForkHandlers();

}  // namespace npu::rt

#endif  // NPU_RT_CORE_FORK_H
