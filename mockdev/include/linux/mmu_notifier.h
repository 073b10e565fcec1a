/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: mmu notifiers, the release callback only. ->release runs
 * once the address space is torn down (the kernel's exit_mmap(): its
 * process exited) or from mmu_notifier_unregister() if that comes first.
 *
 * The mock's address spaces: the process's own mm is never torn down (the
 * driver dies with the process), and the mm of a remote process (an npud
 * client) is torn down when its pidfd becomes readable, which a reaper
 * thread of the mock kernel watches. As in the kernel, ->release may sleep
 * and may run concurrently with mmu_notifier_unregister(), which waits for
 * it to return; it must not call mmu_notifier_unregister() itself.
 */
#ifndef MOCK_LINUX_MMU_NOTIFIER_H
#define MOCK_LINUX_MMU_NOTIFIER_H

#include <linux/types.h>
#include <linux/list.h>

struct mm_struct;
struct mmu_notifier;

struct mmu_notifier_ops {
	void (*release)(struct mmu_notifier *subscription, struct mm_struct *mm);
};

struct mmu_notifier {
	struct list_head mock_link;	/* in the mm's list while registered ("hashed") */
	const struct mmu_notifier_ops *ops;
	struct mm_struct *mm;
	unsigned int users;
};

/*
 * Subscribe to mm (which must have users: the caller's own mm at open);
 * takes an mmgrab reference that mmu_notifier_unregister() drops.
 * Return: 0, -ENOMEM, or -EINTR when current has a signal pending.
 */
int mmu_notifier_register(struct mmu_notifier *subscription, struct mm_struct *mm);
/*
 * Unsubscribe: runs ->release if the mm's teardown has not, waits for a
 * ->release in progress, drops the reference. May sleep.
 */
void mmu_notifier_unregister(struct mmu_notifier *subscription, struct mm_struct *mm);

#endif /* MOCK_LINUX_MMU_NOTIFIER_H */
