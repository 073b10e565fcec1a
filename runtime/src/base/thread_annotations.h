// SPDX-License-Identifier: MIT
// Clang's thread-safety annotations (-Wthread-safety), under the names the
// clang documentation and Abseil use. Under gcc they expand to nothing and
// are documentation: which lock guards a member, which locks a function
// needs. docs/runtime-locks.md lists every lock of the runtime;
// tests/check_locks.sh checks that each one is in that list and says what
// it protects (a GUARDED_BY or a "Protects:" comment at the declaration).
#ifndef NPU_RT_BASE_THREAD_ANNOTATIONS_H
#define NPU_RT_BASE_THREAD_ANNOTATIONS_H

#if defined(__clang__)
#define NPU_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define NPU_THREAD_ANNOTATION(x)
#endif

// The member is read and written only with the lock held.
#define GUARDED_BY(x) NPU_THREAD_ANNOTATION(guarded_by(x))
// What the pointer points to is guarded by the lock.
#define PT_GUARDED_BY(x) NPU_THREAD_ANNOTATION(pt_guarded_by(x))
// The caller holds the lock(s).
#define REQUIRES(...) NPU_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// The caller must not hold the lock(s).
#define EXCLUDES(...) NPU_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// This lock is taken after those.
#define ACQUIRED_AFTER(...) NPU_THREAD_ANNOTATION(acquired_after(__VA_ARGS__))

#endif  // NPU_RT_BASE_THREAD_ANNOTATIONS_H
