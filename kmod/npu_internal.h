/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Every kernel facility the npu driver uses, in one place (the pattern of
 * mm/vma_internal.h). The driver's .c files include only this header, their
 * own npu_*.h headers and the uapi. The mock kernel provides each of these
 * headers with the real kernel's names and semantics, so the driver builds
 * unchanged as npu.ko and in userspace; docs/kernel-api.md is the contract.
 */
#ifndef _NPU_INTERNAL_H
#define _NPU_INTERNAL_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <asm/barrier.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/overflow.h>
#include <linux/build_bug.h>
#include <linux/bug.h>
#include <linux/printk.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rcupdate.h>
#include <linux/kthread.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/pid.h>
#include <linux/mmu_notifier.h>
#include <linux/wait.h>
#include <linux/jiffies.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/atomic.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/idr.h>
#include <linux/hashtable.h>
#include <linux/random.h>
#include <linux/uaccess.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/init.h>

#endif /* _NPU_INTERNAL_H */
