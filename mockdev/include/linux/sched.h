/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: tasks. A task is a client process (or a kthread) as the
 * driver sees it. `current` is per thread: the host layer sets it around
 * each file operation (mockdev/host.h), a kthread has its own task, and
 * any other thread is the calling process itself (mockdev_task_self()).
 */
#ifndef __KERNEL__
#include_next <linux/sched.h>
#else
#ifndef MOCK_LINUX_SCHED_H
#define MOCK_LINUX_SCHED_H

#include <limits.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/err.h>
#include <asm/barrier.h>
#include <asm/processor.h>

struct mm_struct;
struct mock_task;

#define TASK_COMM_LEN		16

#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_WAKEKILL		0x0100

#define PF_KTHREAD		0x00200000

#define MAX_SCHEDULE_TIMEOUT	LONG_MAX

struct task_struct {
	unsigned int __state;		/* TASK_*; see set_current_state() */
	unsigned int flags;		/* PF_* */
	pid_t pid;
	pid_t tgid;
	struct mm_struct *mm;		/* NULL for a kthread outside kthread_use_mm */
	struct mm_struct *active_mm;
	char comm[TASK_COMM_LEN];
	struct task_struct *group_leader;	/* the task of the process (itself here) */
	u64 start_boottime;		/* process start, ns since boot (leader's field) */
	unsigned long mock_signals;	/* bit 0: signal pending, bit 1: fatal */
	struct pid *mock_tgid;		/* task_tgid(): the thread group's identity, one reference */
	struct mock_task *mock;		/* the mock's bookkeeping */
};

/* The task the calling thread runs as; NULL means "the process itself". */
extern __thread struct task_struct *mock_current_task
	__attribute__((tls_model("initial-exec"), visibility("hidden")));
struct task_struct *mock_task_default(void);

static __always_inline struct task_struct *mock_get_current(void)
{
	struct task_struct *t = mock_current_task;

	return likely(t) ? t : mock_task_default();
}

#define current mock_get_current()

static inline pid_t task_tgid_nr(const struct task_struct *tsk)
{
	return tsk->tgid;
}

#define __set_current_state(state_value)				\
	WRITE_ONCE(current->__state, (state_value))
#define set_current_state(state_value)					\
	do {								\
		WRITE_ONCE(current->__state, (state_value));		\
		smp_mb();						\
	} while (0)

/*
 * Sleep until wake_up_process() (or, with TASK_INTERRUPTIBLE, a signal)
 * if the state is not TASK_RUNNING; return at once otherwise.
 */
void schedule(void);
long schedule_timeout_interruptible(long timeout);
long schedule_timeout_uninterruptible(long timeout);
int wake_up_process(struct task_struct *tsk);

static inline int cond_resched(void)
{
	return 0;
}

#endif /* MOCK_LINUX_SCHED_H */
#endif /* __KERNEL__ */
