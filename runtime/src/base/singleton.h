// SPDX-License-Identifier: MIT
// Singleton<T>: the one way the runtime makes a process-wide object.
//
// Get() returns the instance, made on first use with `new T()` and never
// destroyed (static destructors and atexit code may still call the API).
//
// fork(). A forked child starts afresh: a pthread_atfork child handler
// (installed when the first singleton is made) gives every singleton made
// so far a new instance, `new T()`, or T::ForkChildCopy(parent) where T
// keeps something of the parent's (a function registration: the code it
// names is the child's too). The parent's instance is not destroyed and
// not locked: in the child its locks may be held by threads that do not
// exist there, and its destructor would join threads and call the driver
// on files that are gone. It stays reachable (for leak checkers) and is
// never used again. ForkChildCopy runs in the child with only the forking
// thread: it reads the parent's fields without the parent's lock, and
// must copy only what the parent could not have been halfway through
// changing (plain values, vectors of function pointers).
//
// Cost: Get() is a static guard check and a load, as a function-local
// static is. docs/runtime-locks.md, section 4, says what the child keeps.
#ifndef NPU_RT_BASE_SINGLETON_H
#define NPU_RT_BASE_SINGLETON_H

namespace npu::base {

// One singleton's entry in the list of those a forked child replaces.
struct ForkResetNode {
    void (*reset)();  // replaces the instance; runs in the child only
    ForkResetNode *next;
};

// Adds node to that list: once per singleton, when its first instance is
// made. Lock free, so that a fork at any moment finds the list consistent.
void ForkResetAdd(ForkResetNode *node);

// Keeps the parent's instance reachable in the child (for leak checkers).
void KeepParentCopy(const void *parent);

template <typename T>
class Singleton {
  public:
    static T &Get() {
        static const bool made = Make();
        (void)made;
        return *slot_;
    }

  private:
    static bool Make() {
        slot_ = new T();
        ForkResetAdd(&node_);
        return true;
    }
    static void ResetInChild() {
        T *parent = slot_;
        KeepParentCopy(parent);
        if constexpr (requires { T::ForkChildCopy(*parent); })
            slot_ = T::ForkChildCopy(*parent);
        else
            slot_ = new T();
    }

    static inline T *slot_ = nullptr;
    static inline ForkResetNode node_{&ResetInChild, nullptr};
};

}  // namespace npu::base

#endif  // NPU_RT_BASE_SINGLETON_H
