/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: credentials, as far as the driver asks for them: the real
 * UID of the current task (current_uid()). A task here is a client process
 * of npud (or the process itself), so its UID is what the host kernel says
 * the process has now: the first field of the "Uid:" line of
 * /proc/TGID/status. It is read at each call, which the driver makes only
 * when a file is opened. A process that is gone reads as INVALID_UID.
 *
 * The mock has one user namespace; from_kuid() is the identity.
 */
#ifndef MOCK_LINUX_CRED_H
#define MOCK_LINUX_CRED_H

#include <stdio.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/sched.h>

typedef struct {
	uid_t val;
} kuid_t;

struct user_namespace {
	int level;
};

static struct user_namespace init_user_ns __maybe_unused;

#define KUIDT_INIT(value)	((kuid_t){ value })
#define INVALID_UID		KUIDT_INIT((uid_t)-1)

static inline uid_t from_kuid(struct user_namespace *ns, kuid_t kuid)
{
	(void)ns;
	return kuid.val;
}

static inline kuid_t mock_task_uid(const struct task_struct *task)
{
	char path[48], line[128];
	unsigned int uid;
	kuid_t ret = INVALID_UID;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)task->tgid);
	f = fopen(path, "re");
	if (!f)
		return ret;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Uid: %u", &uid) == 1) {
			ret = KUIDT_INIT(uid);
			break;
		}
	}
	fclose(f);
	return ret;
}

#define current_uid()		mock_task_uid(current)

#endif /* MOCK_LINUX_CRED_H */
