/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: RCU read-side sections only (the driver reads pids under
 * them; nothing it uses frees behind a grace period). Readers take one
 * global reader/writer lock shared.
 */
#ifndef MOCK_LINUX_RCUPDATE_H
#define MOCK_LINUX_RCUPDATE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <asm/barrier.h>

void rcu_read_lock(void);
void rcu_read_unlock(void);

#endif /* MOCK_LINUX_RCUPDATE_H */
