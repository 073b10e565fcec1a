/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: spinlocks. A pthread mutex, not a pthread spinlock: on the
 * 2-CPU CI machine a lock holder can be preempted, and spinning on it
 * would only burn the other CPU. Interrupts do not exist here, so the
 * _irq/_irqsave/_bh variants are the plain lock.
 */
#ifndef MOCK_LINUX_SPINLOCK_H
#define MOCK_LINUX_SPINLOCK_H

#include <pthread.h>
#include <linux/types.h>
#include <linux/lockdep.h>

typedef struct spinlock {
	pthread_mutex_t lock;
	struct mock_lock_owner mock_owner;	/* for lockdep_assert_held */
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(name) \
	{ .lock = PTHREAD_MUTEX_INITIALIZER, .mock_owner = { 0 } }
#define DEFINE_SPINLOCK(name)	spinlock_t name = __SPIN_LOCK_UNLOCKED(name)

void spin_lock_init(spinlock_t *lock);
void spin_lock(spinlock_t *lock);
void spin_unlock(spinlock_t *lock);

#endif /* MOCK_LINUX_SPINLOCK_H */
