/* SPDX-License-Identifier: GPL-2.0 OR MIT */
#ifndef MOCK_LINUX_SCHED_TASK_H
#define MOCK_LINUX_SCHED_TASK_H

#include <linux/sched.h>

struct task_struct *get_task_struct(struct task_struct *t);
void put_task_struct(struct task_struct *t);

#endif /* MOCK_LINUX_SCHED_TASK_H */
