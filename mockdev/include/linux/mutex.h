/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: sleeping mutex over a pthread mutex. */
#ifndef MOCK_LINUX_MUTEX_H
#define MOCK_LINUX_MUTEX_H

#include <pthread.h>
#include <linux/types.h>
#include <linux/lockdep.h>

struct mutex {
	pthread_mutex_t lock;
	struct mock_lock_owner mock_owner;	/* for lockdep_assert_held */
};

#define __MUTEX_INITIALIZER(name) \
	{ .lock = PTHREAD_MUTEX_INITIALIZER, .mock_owner = { 0 } }
#define DEFINE_MUTEX(name)	struct mutex name = __MUTEX_INITIALIZER(name)

void mutex_init(struct mutex *lock);
void mutex_destroy(struct mutex *lock);
void mutex_lock(struct mutex *lock);
void mutex_unlock(struct mutex *lock);

static inline bool mutex_is_locked(struct mutex *lock)
{
	return __atomic_load_n(&lock->mock_owner.tid, __ATOMIC_RELAXED) != 0;
}

#endif /* MOCK_LINUX_MUTEX_H */
