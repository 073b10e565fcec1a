/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: a task has a signal pending only when the host said so
 * (mockdev_task_signal()); waits in TASK_INTERRUPTIBLE/TASK_KILLABLE then
 * end with -ERESTARTSYS, as in the kernel.
 */
#ifndef MOCK_LINUX_SCHED_SIGNAL_H
#define MOCK_LINUX_SCHED_SIGNAL_H

#include <linux/sched.h>
#include <linux/pid.h>

/* The struct pid of task's thread group, without a reference (get_task_pid() takes one). */
static inline struct pid *task_tgid(struct task_struct *task)
{
	return task->mock_tgid;
}

static inline int signal_pending(struct task_struct *p)
{
	return unlikely(__atomic_load_n(&p->mock_signals, __ATOMIC_ACQUIRE) & 1);
}

static inline int __fatal_signal_pending(struct task_struct *p)
{
	return unlikely(__atomic_load_n(&p->mock_signals, __ATOMIC_ACQUIRE) & 2);
}

static inline int fatal_signal_pending(struct task_struct *p)
{
	return __fatal_signal_pending(p);
}

static inline int signal_pending_state(unsigned int state,
				       struct task_struct *p)
{
	if (!(state & (TASK_INTERRUPTIBLE | TASK_WAKEKILL)))
		return 0;
	if (!signal_pending(p) && !__fatal_signal_pending(p))
		return 0;
	return (state & TASK_INTERRUPTIBLE) || __fatal_signal_pending(p);
}

#endif /* MOCK_LINUX_SCHED_SIGNAL_H */
