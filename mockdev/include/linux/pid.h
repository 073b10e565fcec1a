/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: struct pid, the identity of a process that survives pid
 * reuse. Each task holds one reference on its thread group's struct pid;
 * a process that exits and a new one that gets the same number have two
 * different struct pids, so comparing pointers tells them apart.
 *
 * find_pid_ns() names a process by its number in the host's pid namespace
 * (the mock has only init_pid_ns) and returns a struct pid without a
 * reference, valid until rcu_read_unlock() as in the kernel; get_pid_task()
 * turns it into a referenced task, NULL when no such process exists (any
 * more).
 */
#ifndef MOCK_LINUX_PID_H
#define MOCK_LINUX_PID_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/rcupdate.h>

struct task_struct;
struct pid_namespace;

enum pid_type {
	PIDTYPE_PID,
	PIDTYPE_TGID,
	PIDTYPE_PGID,
	PIDTYPE_SID,
	PIDTYPE_MAX,
};

struct pid {
	atomic_t count;	/* get_task_pid()/put_pid(); unused by find_pid_ns()'s */
	pid_t nr;	/* in the host's pid namespace */
};

/* A reference on task's struct pid of that type (the mock keeps TGID only). */
struct pid *get_task_pid(struct task_struct *task, enum pid_type type);
void put_pid(struct pid *pid);

struct pid *find_pid_ns(int nr, struct pid_namespace *ns);
/* Only PIDTYPE_TGID is supported: the thread-group leader of that pid. */
struct task_struct *get_pid_task(struct pid *pid, enum pid_type type);

#endif /* MOCK_LINUX_PID_H */
