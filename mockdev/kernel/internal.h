/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the mock kernel's files share among themselves (never included by
 * the driver).
 */
#ifndef MOCKDEV_KERNEL_INTERNAL_H
#define MOCKDEV_KERNEL_INTERNAL_H

#include <pthread.h>
#include <linux/types.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/atomic.h>

/* Functions of mockdev/host.h and mockdev/mock.h: visible outside the .so. */
#define MOCK_EXPORT __attribute__((visibility("default")))

/* Live object counts (struct mock_counters), updated atomically. */
struct mock_live {
	long kmalloc;
	long vmalloc;
	long pages;
	long pinned_pages;
	long vmaps;
	long kthreads;
	long tasks;
	long files;
};

extern struct mock_live mock_live;

static inline void mock_live_add(long *counter, long delta)
{
	__atomic_fetch_add(counter, delta, __ATOMIC_RELAXED);
}

/* Failure injection: true when this call must fail (each call counts). */
bool mock_inject_alloc_failure(void);
bool mock_inject_copy_from_user_failure(void);
bool mock_inject_copy_to_user_failure(void);
bool mock_inject_pin_failure(void);
/* Gates a test may close at once (mock_gate_close(), uaccess.c). */
#define MOCK_GATES 4

/* Start of process @tgid in ns since boot (/proc/PID/stat field 22); 0 if unknown. */
u64 mock_pid_start_boottime(pid_t tgid);

/* Allocation without injection or counting, for the mock's own needs. */
void *mock_xzalloc(size_t size);

/* The mock's address spaces. */
enum mock_mm_kind {
	MOCK_MM_LOCAL,		/* this process: direct, guarded access */
	MOCK_MM_REMOTE,		/* another process: bound mem and maps files, pidfd */
};

struct mm_struct {
	enum mock_mm_kind kind;
	pid_t pid;		/* remote: the process */
	int pidfd;		/* remote: to detect its death; -1 for local */
	/* remote: /proc/PID/mem and /proc/PID/maps bound to this mm (mm_remote.c); -1 for local */
	int mem_fd;
	int maps_fd;
	atomic_t mm_users;	/* mmget/mmput */
	atomic_t mm_count;	/* mmgrab/mmdrop; freed at 0 */
	/* mmu_notifier.c, under its mn_lock: */
	struct list_head mock_notifiers;	/* registered struct mmu_notifier */
	struct list_head mock_watch;		/* in the reaper's list while it has notifiers */
	bool mock_exited;			/* the reaper saw the process exit */
};

/* A mapping of a remote mm, as /proc/PID/maps shows it (mm_remote.c). */
struct mock_remote_vma {
	unsigned long start, end, offset;
	char perms[5];		/* "rwxp": '-' where the access is not allowed */
	unsigned int major, minor;
	unsigned long inode;
};

/* The address space of another process, bound at creation (mm_remote.c). */
int mock_mm_remote_bind(struct mm_struct *mm, pid_t tgid);
void mock_mm_remote_unbind(struct mm_struct *mm);
/* False once a remote mm has ended (its process exited or exec'd); true for local. */
bool mock_mm_alive(const struct mm_struct *mm);
int mock_mm_remote_vma(const struct mm_struct *mm, unsigned long addr,
		       struct mock_remote_vma *vma);
/* Returns the bytes not transferred. */
size_t mock_mm_remote_rw(const struct mm_struct *mm, void *local,
			 unsigned long remote, size_t n, bool write);

enum mock_task_kind {
	MOCK_TASK_SELF,
	MOCK_TASK_REMOTE,
	MOCK_TASK_KTHREAD,
	MOCK_TASK_THREAD,	/* one thread of a remote process, for one call */
};

struct mock_task {
	struct task_struct task;
	enum mock_task_kind kind;
	atomic_t usage;			/* get/put_task_struct; not for SELF */

	pthread_mutex_t lock;		/* Protects: woken, waiting_on, started, stop, exited */
	pthread_cond_t cond;
	bool woken;			/* wake_up_process() since the last sleep */
	struct wait_queue_head *waiting_on; /* the queue a waiter sleeps on */

	/* MOCK_TASK_KTHREAD */
	pthread_t thread;
	int (*threadfn)(void *data);
	void *data;
	bool started;			/* first wake_up_process() */
	bool stop;			/* kthread_stop() asked */
	bool exited;
	int result;

	/* MOCK_TASK_REMOTE */
	struct list_head cache_link;	/* in the tgid cache while alive */
	bool cached;

	/* MOCK_TASK_THREAD */
	struct mock_task *process;	/* its process (a REMOTE task); one reference */
};

static inline struct mock_task *to_mock_task(struct task_struct *t)
{
	return t->mock;
}

/*
 * For a task of another process (REMOTE or THREAD): if the host says that
 * process has exited or that thread is being killed, mark a fatal signal
 * pending on the task. Returns whether a fatal signal is pending.
 */
bool mock_task_check_host_death(struct task_struct *t);

/* Pages: the owner of a block of struct pages (allocation or pin). */
enum mock_page_owner_kind {
	MOCK_PAGES_ALLOC,	/* alloc_pages */
	MOCK_PAGES_PIN_LOCAL,	/* pinned in this process */
	MOCK_PAGES_PIN_REMOTE,	/* pinned through a shared mapping of a client file */
};

struct mock_page_owner {
	enum mock_page_owner_kind kind;
	unsigned int order;		/* MOCK_PAGES_ALLOC */
	atomic_long_t pinned;		/* pins: pages not yet unpinned */
	void *map;			/* PIN_REMOTE: our mapping of the client's file */
	size_t map_len;
	struct list_head pin_link;	/* PIN_REMOTE: in gup.c's remote_pins */
	unsigned long nr_pages;
	struct page pages[];
};

/*
 * The fault handler is checked once for what runs between these two
 * (uaccess.c); they nest.
 */
void mock_fault_scope_begin(void);
void mock_fault_scope_end(void);

/* Fault-guarded access to this process's memory (uaccess.c). */
size_t mock_guarded_copy(void *dst, const void *src, size_t n,
			 unsigned long ulo, unsigned long uhi);
/* 0 if [addr, addr + len) is readable (and writable if write), else -EFAULT. */
int mock_guarded_probe(unsigned long addr, size_t len, bool write);

/*
 * Called by the SIGBUS/SIGSEGV handler for a fault no guarded copy claims:
 * true if addr is in a remote pin mapping, now poisoned and retryable.
 */
bool mock_pin_fault(unsigned long addr);

/*
 * True once this process has pinned another process's memory (npud, or a
 * test acting as it): from then on plain accesses of ring memory can fault
 * into mock_pin_fault(), so every entry into the driver checks the handler.
 */
bool mock_pin_remote_seen(void);

/*
 * Changes of the SIGSEGV and SIGBUS handlers (sigwatch.c): a snapshot, and
 * whether no change was made since one was taken. MOCK_SIGWATCH_BLIND is
 * the snapshot where changes cannot be seen: it never counts as unchanged.
 */
#define MOCK_SIGWATCH_BLIND (~0UL)
extern unsigned long mock_sigwatch_seq;
unsigned long mock_sigwatch_snapshot(void);
/* Around the mock's own sigaction calls on this thread: not changes. */
void mock_sigwatch_quiet(bool quiet);

static inline bool mock_sigwatch_unchanged(unsigned long snapshot)
{
	return snapshot != MOCK_SIGWATCH_BLIND &&
	       __atomic_load_n(&mock_sigwatch_seq, __ATOMIC_ACQUIRE) == snapshot;
}

#endif /* MOCKDEV_KERNEL_INTERNAL_H */
