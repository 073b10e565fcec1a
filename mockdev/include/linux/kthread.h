/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: kthreads over pthreads. kthread_create() makes a thread
 * that waits for wake_up_process() before running threadfn (so
 * kthread_stop() of a never-woken kthread returns -EINTR without running
 * it, as in the kernel). Each kthread has its own task, mm == NULL.
 */
#ifndef MOCK_LINUX_KTHREAD_H
#define MOCK_LINUX_KTHREAD_H

#include <linux/err.h>
#include <linux/sched.h>

#define NUMA_NO_NODE	(-1)

__printf(4, 5)
struct task_struct *kthread_create_on_node(int (*threadfn)(void *data),
					   void *data, int node,
					   const char namefmt[], ...);

#define kthread_create(threadfn, data, namefmt, arg...) \
	kthread_create_on_node(threadfn, data, NUMA_NO_NODE, namefmt, ##arg)

#define kthread_run(threadfn, data, namefmt, ...) ({			\
	struct task_struct *__k						\
		= kthread_create(threadfn, data, namefmt, ##__VA_ARGS__); \
	if (!IS_ERR(__k))						\
		wake_up_process(__k);					\
	__k;								\
})

/* Ask k to stop, wake it, wait for it to exit; threadfn's return value. */
int kthread_stop(struct task_struct *k);
bool kthread_should_stop(void);
void kthread_use_mm(struct mm_struct *mm);
void kthread_unuse_mm(struct mm_struct *mm);

#endif /* MOCK_LINUX_KTHREAD_H */
