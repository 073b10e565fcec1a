/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: reader/writer semaphores over a pthread rwlock. */
#ifndef MOCK_LINUX_RWSEM_H
#define MOCK_LINUX_RWSEM_H

#include <pthread.h>
#include <linux/types.h>
#include <linux/lockdep.h>

struct rw_semaphore {
	pthread_rwlock_t lock;
	struct mock_lock_owner mock_owner;	/* the writer, for lockdep */
};

#define __RWSEM_INITIALIZER(name) \
	{ .lock = PTHREAD_RWLOCK_INITIALIZER, .mock_owner = { 0 } }
#define DECLARE_RWSEM(name) struct rw_semaphore name = __RWSEM_INITIALIZER(name)

void init_rwsem(struct rw_semaphore *sem);
void down_read(struct rw_semaphore *sem);
int down_read_trylock(struct rw_semaphore *sem);
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
int down_write_trylock(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);
void downgrade_write(struct rw_semaphore *sem);

static inline int down_read_interruptible(struct rw_semaphore *sem)
{
	down_read(sem);
	return 0;
}

static inline int down_write_killable(struct rw_semaphore *sem)
{
	down_write(sem);
	return 0;
}

/* Readers are not tracked; this only catches "not held for write". */
#define lockdep_assert_held_write(l) \
	WARN_ON(!mock_lock_owner_is_me(&(l)->mock_owner))
#define lockdep_assert_held_read(l)	do { (void)(l); } while (0)

#endif /* MOCK_LINUX_RWSEM_H */
