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
int spin_trylock(spinlock_t *lock);

#define spin_lock_irq(l)	spin_lock(l)
#define spin_unlock_irq(l)	spin_unlock(l)
#define spin_lock_bh(l)		spin_lock(l)
#define spin_unlock_bh(l)	spin_unlock(l)
#define spin_lock_nested(l, s)	spin_lock(l)
#define spin_lock_irqsave(l, flags) \
	do { (flags) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, flags) \
	do { (void)(flags); spin_unlock(l); } while (0)
#define spin_trylock_irqsave(l, flags) \
	({ (flags) = 0; spin_trylock(l); })

static inline int spin_is_locked(spinlock_t *lock)
{
	return __atomic_load_n(&lock->mock_owner.tid, __ATOMIC_RELAXED) != 0;
}

#define assert_spin_locked(l)	lockdep_assert_held(l)

#define local_irq_save(flags)	do { (flags) = 0; } while (0)
#define local_irq_restore(flags) do { (void)(flags); } while (0)
#define local_irq_disable()	do { } while (0)
#define local_irq_enable()	do { } while (0)
#define preempt_disable()	do { } while (0)
#define preempt_enable()	do { } while (0)

#endif /* MOCK_LINUX_SPINLOCK_H */
