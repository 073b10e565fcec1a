/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: the lockdep assertions that can be checked cheaply. Every
 * mock lock records its owner thread, so lockdep_assert_held() warns when
 * the calling thread does not hold the lock (a driver bug the real kernel
 * only finds with CONFIG_LOCKDEP).
 */
#ifndef MOCK_LINUX_LOCKDEP_H
#define MOCK_LINUX_LOCKDEP_H

#include <linux/bug.h>

/* Owner of a mock lock: the locking thread's id, 0 when unlocked. */
struct mock_lock_owner {
	unsigned long tid;
};

unsigned long mock_thread_id(void);

static inline void mock_lock_owner_set(struct mock_lock_owner *o)
{
	__atomic_store_n(&o->tid, mock_thread_id(), __ATOMIC_RELAXED);
}

static inline void mock_lock_owner_clear(struct mock_lock_owner *o)
{
	__atomic_store_n(&o->tid, 0, __ATOMIC_RELAXED);
}

static inline bool mock_lock_owner_is_me(const struct mock_lock_owner *o)
{
	return __atomic_load_n(&o->tid, __ATOMIC_RELAXED) == mock_thread_id();
}

#define lockdep_assert_held(l)	\
	WARN_ON(!mock_lock_owner_is_me(&(l)->mock_owner))

#endif /* MOCK_LINUX_LOCKDEP_H */
