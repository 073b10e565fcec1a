// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: pid lookups and process start times.
 *
 * A task's start_boottime is the start time of its process since boot, in
 * nanoseconds, as the kernel keeps it in task->group_leader->start_boottime:
 * here field 22 of /proc/PID/stat (clock ticks) converted to nanoseconds,
 * so it is the same for every lookup of one process and differs for a new
 * process that got the same pid (once a clock tick has passed).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/ktime.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <mockdev/host.h>

#include "internal.h"

struct pid_namespace init_pid_ns;

/*
 * find_pid_ns() hands out a struct pid without a reference that stays valid
 * until rcu_read_unlock(): a few per-thread slots, reused in turn.
 */
static __thread struct pid pid_slot[4];
static __thread unsigned int pid_slot_next;

u64 mock_pid_start_boottime(pid_t tgid)
{
	char path[64], buf[1024], *p, *end;
	unsigned long long ticks;
	long hz = sysconf(_SC_CLK_TCK);
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tgid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* comm (field 2) may hold spaces and parentheses: start after its last ')'. */
	p = strrchr(buf, ')');
	if (!p)
		return 0;
	/* p is at the space before field 3; fields are separated by single spaces. */
	p++;
	for (field = 3; field < 22 && p; field++)
		p = strchr(p + 1, ' ');
	if (!p)
		return 0;
	ticks = strtoull(p + 1, &end, 10);
	if (end == p + 1 || hz <= 0)
		return 0;
	return (u64)ticks * (NSEC_PER_SEC / (u64)hz);
}

struct pid *find_pid_ns(int nr, struct pid_namespace *ns)
{
	struct pid *pid;

	WARN_ON_ONCE(ns != &init_pid_ns);
	if (nr <= 0)
		return NULL;
	if (kill(nr, 0) && errno == ESRCH)
		return NULL;
	pid = &pid_slot[pid_slot_next++ % ARRAY_SIZE(pid_slot)];
	pid->nr = nr;
	return pid;
}

struct task_struct *get_pid_task(struct pid *pid, enum pid_type type)
{
	struct task_struct *task;

	if (!pid || WARN_ON_ONCE(type != PIDTYPE_TGID))
		return NULL;
	if (pid->nr == getpid())
		return get_task_struct(mockdev_task_self());
	/* Fails for a thread that is not a group leader, as PIDTYPE_TGID does. */
	if (mockdev_task_get(pid->nr, &task))
		return NULL;
	return task;
}
