/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * How a userspace host runs the driver built against the mock kernel.
 *
 * Two hosts use this: npud (the driver behind CUSE or FUSE files) and the
 * in-process device inside libascendcl. Both do what the VFS does for the
 * real module: load the module, find its misc devices, and call their
 * file_operations with the right "current" task. Neither reaches into the
 * driver any other way.
 *
 * A task is a client process as the driver sees it. Its mm decides how
 * copy_{from,to}_user, pin_user_pages and kthread_use_mm reach that
 * process's memory:
 *  - the self task (the in-process device): direct loads and stores,
 *    guarded so that a bad address gives -EFAULT instead of a crash;
 *  - a remote task (npud's clients): its /proc/PID/mem and maps, opened
 *    at lookup and so bound to that address space, for copies,
 *    and for pinning, the file behind the mapping mapped into the daemon:
 *    only a file the client still holds (pidfd_getfd of its own
 *    descriptor, with its access mode), the inode mapped at that address,
 *    sealed with F_SEAL_SHRINK and covering the range; nothing is ever
 *    opened with the daemon's rights on a client's behalf.
 *
 * All functions return 0 or -errno unless stated otherwise, and are safe to
 * call from several threads at once.
 */
#ifndef MOCKDEV_HOST_H
#define MOCKDEV_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

struct file;
struct miscdevice;
struct task_struct;

/*
 * Load the driver: set its module parameters from a space-separated
 * "name=value" list (e.g. "devices=2 hbm_mb=16384"; NULL or "" for the
 * defaults) and run its module_init. Only one load at a time.
 */
int mockdev_module_load(const char *params);
/* Run module_exit. Every file must have been released first. */
void mockdev_module_unload(void);

/* The misc device the driver registered under name ("npu0", ...), or NULL. */
struct miscdevice *mockdev_misc_find(const char *name);
/* The name of the i-th registered misc device, or NULL past the end. */
const char *mockdev_misc_name(unsigned int index);

/* The calling process itself. Never fails; not reference counted. */
struct task_struct *mockdev_task_self(void);
/*
 * The process with thread-group id tgid, looked up by npud for a client.
 * Reference counted: each successful get needs a put. tgid 0 (unknown,
 * e.g. a caller outside the daemon's pid namespace) gives -EPERM.
 */
int mockdev_task_get(pid_t tgid, struct task_struct **task);
void mockdev_task_put(struct task_struct *task);
/*
 * Whether the address space task had when it was looked up still exists:
 * false once that process has exec'd (its new image is another client)
 * or exited. Every access to a client's memory goes to that address
 * space only, never to whatever the pid runs later (mockdev/kernel/mm_remote.c).
 */
bool mockdev_task_mm_alive(struct task_struct *task);
/* The TGID of the process a thread id belongs to, or -errno. */
pid_t mockdev_tid_to_tgid(pid_t tid);
/*
 * A task for thread tid of process (a task from mockdev_task_get), as the
 * kernel has one per thread: its own pid and signal state, the process's
 * mm. npud runs each relayed call as one, so that interrupting one call
 * does not touch the process's other calls. Put it with mockdev_task_put.
 */
int mockdev_task_thread_get(struct task_struct *process, pid_t tid,
			    struct task_struct **thread);
/*
 * Whether task (a process or one of its threads) is being killed or has
 * exited, as the host tells: SIGKILL pending on the thread (every fatal
 * signal becomes one) or the process gone. If so, a fatal signal is marked
 * pending on task as well.
 */
bool mockdev_task_killed(struct task_struct *task);
/*
 * Mark a signal pending on task (fatal: as for SIGKILL), e.g. when a
 * relayed request is interrupted: the driver's interruptible waits of that
 * task end with -ERESTARTSYS (seen by the host as -EINTR), its killable
 * waits only for a fatal one. A task sleeping in such a wait is woken at
 * once. The mark stays for the task's life.
 */
void mockdev_task_signal(struct task_struct *task, bool fatal);

/* open(): a new struct file on dev, opened by task. */
int mockdev_file_open(struct miscdevice *dev, struct task_struct *task,
		      struct file **filp);
/*
 * unlocked_ioctl() with arg a user address of task, exactly as the kernel
 * calls it: every access of the argument is a guarded user access.
 */
long mockdev_file_ioctl(struct file *filp, struct task_struct *task,
			unsigned int cmd, unsigned long arg);
/*
 * unlocked_ioctl() for a restricted ioctl relayed by CUSE/FUSE. The kernel
 * has already copied _IOC_SIZE(cmd) bytes of the client's argument at
 * address uarg into buf; the driver's copy_{from,to}_user of that range is
 * served from buf (so buf holds the reply afterwards), while every other
 * user address is the client's memory. The in-process device passes its
 * own struct as both uarg and buf: the argument is then copied plainly,
 * as it cannot fault, and only the user memory it points at is guarded.
 */
long mockdev_file_ioctl_relayed(struct file *filp, struct task_struct *task,
				unsigned int cmd, unsigned long uarg,
				void *buf);
/* release(): the last close of filp, by task. */
int mockdev_file_release(struct file *filp, struct task_struct *task);

/*
 * Copy n bytes to or from this process's own memory (@from_user: @src is
 * the program's side, else @dst), guarded as the driver's user copies are:
 * a bad address ends the copy at its first bad page. Returns the bytes not
 * copied.
 */
size_t mock_host_copy(void *dst, const void *src, size_t n, bool from_user);

#ifdef __cplusplus
}
#endif

#endif /* MOCKDEV_HOST_H */
