/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: the one pid namespace, the host's. */
#ifndef MOCK_LINUX_PID_NAMESPACE_H
#define MOCK_LINUX_PID_NAMESPACE_H

#include <linux/pid.h>

struct pid_namespace {
	int level;
};

extern struct pid_namespace init_pid_ns;

#endif /* MOCK_LINUX_PID_NAMESPACE_H */
