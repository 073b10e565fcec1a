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

void init_rwsem(struct rw_semaphore *sem);
void down_read(struct rw_semaphore *sem);
void up_read(struct rw_semaphore *sem);
void down_write(struct rw_semaphore *sem);
void up_write(struct rw_semaphore *sem);

#endif /* MOCK_LINUX_RWSEM_H */
