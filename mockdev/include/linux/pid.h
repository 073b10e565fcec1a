/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mock kernel: struct pid, the identity of a process that survives pid
 * reuse. Each task holds one reference on its thread group's struct pid;
 * a process that exits and a new one that gets the same number have two
 * different struct pids, so comparing pointers tells them apart.
 */
#ifndef MOCK_LINUX_PID_H
#define MOCK_LINUX_PID_H

#include <linux/types.h>

struct task_struct;
struct pid;

enum pid_type {
	PIDTYPE_PID,
	PIDTYPE_TGID,
	PIDTYPE_PGID,
	PIDTYPE_SID,
	PIDTYPE_MAX,
};

/* A reference on task's struct pid of that type (the mock keeps TGID only). */
struct pid *get_task_pid(struct task_struct *task, enum pid_type type);
void put_pid(struct pid *pid);
pid_t pid_nr(struct pid *pid);

#endif /* MOCK_LINUX_PID_H */
