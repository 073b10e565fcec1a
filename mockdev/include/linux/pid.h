/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mock kernel: process ids. A struct pid names a process by its number in
 * the host's pid namespace (the mock has only init_pid_ns). find_pid_ns()
 * returns it without a reference, valid until rcu_read_unlock() as in the
 * kernel; get_pid_task() turns it into a referenced task, NULL when no
 * such process exists (any more).
 */
#ifndef MOCK_LINUX_PID_H
#define MOCK_LINUX_PID_H

#include <linux/types.h>
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
	int nr;		/* in the host's pid namespace */
};

struct pid *find_pid_ns(int nr, struct pid_namespace *ns);
/* Only PIDTYPE_TGID is supported: the thread-group leader of that pid. */
struct task_struct *get_pid_task(struct pid *pid, enum pid_type type);

#endif /* MOCK_LINUX_PID_H */
