/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: mm reference counting, as in the kernel: mmgrab/mmdrop keep
 * the struct alive, mmget/mmput keep the address space usable.
 */
#ifndef MOCK_LINUX_SCHED_MM_H
#define MOCK_LINUX_SCHED_MM_H

#include <linux/sched.h>

void mmgrab(struct mm_struct *mm);
void mmdrop(struct mm_struct *mm);
bool mmget_not_zero(struct mm_struct *mm);
void mmput(struct mm_struct *mm);
/* mmput(), with the address space's teardown (if last) left to a worker. */
void mmput_async(struct mm_struct *mm);
/* task->mm with a mmget reference, or NULL for a kthread or a dead task. */
struct mm_struct *get_task_mm(struct task_struct *task);

#endif /* MOCK_LINUX_SCHED_MM_H */
