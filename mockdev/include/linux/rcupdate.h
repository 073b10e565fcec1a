/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: RCU as one global reader/writer lock. Readers take it
 * shared; synchronize_rcu() takes it exclusively once, which waits for every
 * reader that started before it, the grace-period guarantee. kfree_rcu
 * waits for a grace period and frees at once (it may sleep here).
 */
#ifndef MOCK_LINUX_RCUPDATE_H
#define MOCK_LINUX_RCUPDATE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <asm/barrier.h>

void rcu_read_lock(void);
void rcu_read_unlock(void);
void synchronize_rcu(void);
void call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void rcu_barrier(void);
void mock_kfree_rcu(const void *ptr);

#define rcu_dereference(p)		smp_load_acquire(&(p))
#define rcu_dereference_protected(p, c)	(p)
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
#define rcu_assign_pointer(p, v)	smp_store_release(&(p), (v))
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE(p, v)
#define kfree_rcu(ptr, rhf)		mock_kfree_rcu(ptr)
#define kvfree_rcu(ptr, ...)		mock_kfree_rcu(ptr)

#endif /* MOCK_LINUX_RCUPDATE_H */
