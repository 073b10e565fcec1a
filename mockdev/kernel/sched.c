// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: tasks, mm references, schedule()/wake_up_process() and
 * kthreads.
 *
 * Three kinds of task: the process itself (static, never freed; its mm is
 * the local one), remote processes (npud's clients: refcounted, cached by
 * tgid, with a pidfd that tells when the process has exited, so a pid that
 * was reused is never taken for the old client), and kthreads (a pthread
 * each, mm NULL until kthread_use_mm).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/pid.h>
#include <linux/string.h>
#include <mockdev/host.h>

#include "internal.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif

/* Depth of kernel_fpu_begin() on this thread (asm/fpu/api.h). */
__thread int mock_fpu_depth;
__thread struct task_struct *mock_current_task
	__attribute__((tls_model("initial-exec")));

static void mock_task_wake(struct mock_task *mt);

static void mock_task_init_common(struct mock_task *mt, enum mock_task_kind kind)
{
	mt->kind = kind;
	mt->task.mock = mt;
	atomic_set(&mt->usage, 1);
	pthread_mutex_init(&mt->lock, NULL);
	pthread_cond_init(&mt->cond, NULL);
	INIT_LIST_HEAD(&mt->cache_link);
}

/* struct pid */

static struct pid *mock_pid_alloc(pid_t nr)
{
	struct pid *pid = mock_xzalloc(sizeof(*pid));

	atomic_set(&pid->count, 1);
	pid->nr = nr;
	return pid;
}

struct pid *get_task_pid(struct task_struct *task, enum pid_type type)
{
	struct pid *pid = task->mock_tgid;

	WARN_ON_ONCE(type != PIDTYPE_TGID);
	if (pid)
		atomic_inc(&pid->count);
	return pid;
}

void put_pid(struct pid *pid)
{
	if (pid && atomic_dec_and_test(&pid->count))
		free(pid);
}

/* The process itself */

static struct mm_struct self_mm = {
	.kind = MOCK_MM_LOCAL,
	.pidfd = -1,
	.mem_fd = -1,
	.maps_fd = -1,
	.mm_users = ATOMIC_INIT(1),
	.mm_count = ATOMIC_INIT(1),
	.mock_notifiers = LIST_HEAD_INIT(self_mm.mock_notifiers),
	.mock_watch = LIST_HEAD_INIT(self_mm.mock_watch),
};

static struct mock_task self_task;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t self_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: self pid after fork */

static void read_comm(pid_t pid, char *comm)
{
	char path[64];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	strscpy(comm, "?", TASK_COMM_LEN);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, comm, TASK_COMM_LEN - 1);
	close(fd);
	if (n <= 0)
		n = 0;
	comm[n] = '\0';
	if (n && comm[n - 1] == '\n')
		comm[n - 1] = '\0';
}

static void self_set_pid(void)
{
	/* A forked child is a new process: a new identity, whatever its number. */
	put_pid(self_task.task.mock_tgid);
	self_task.task.mock_tgid = mock_pid_alloc(getpid());
	self_task.task.pid = getpid();
	self_task.task.tgid = self_task.task.pid;
	self_mm.pid = self_task.task.pid;
	read_comm(self_task.task.pid, self_task.task.comm);
	self_task.task.group_leader = &self_task.task;
	self_task.task.start_boottime = mock_pid_start_boottime(self_task.task.pid);
}

/* Set in a child of fork(): the identity is the parent's until renewed. */
static bool self_forked;

static void self_on_fork(void)
{
	__atomic_store_n(&self_forked, true, __ATOMIC_RELEASE);
}

static void self_init(void)
{
	mock_task_init_common(&self_task, MOCK_TASK_SELF);
	self_task.task.mm = &self_mm;
	self_task.task.active_mm = &self_mm;
	self_set_pid();
	pthread_atfork(NULL, NULL, self_on_fork);
}

MOCK_EXPORT struct task_struct *mockdev_task_self(void)
{
	pthread_once(&self_once, self_init);
	/*
	 * After fork() the child is a different process. The atfork flag
	 * spares a getpid() per call; a child made by a raw clone system
	 * call runs no atfork handler and must exec before it uses the
	 * driver, as it must before it uses most of libc.
	 */
	if (unlikely(__atomic_load_n(&self_forked, __ATOMIC_ACQUIRE))) {
		pthread_mutex_lock(&self_lock);
		if (self_task.task.tgid != getpid())
			self_set_pid();
		__atomic_store_n(&self_forked, false, __ATOMIC_RELEASE);
		pthread_mutex_unlock(&self_lock);
	}
	return &self_task.task;
}

struct task_struct *mock_task_default(void)
{
	return mockdev_task_self();
}

/* mm references */

static void mm_free(struct mm_struct *mm)
{
	if (mm->pidfd >= 0)
		close(mm->pidfd);
	mock_mm_remote_unbind(mm);
	free(mm);
}

void mmgrab(struct mm_struct *mm)
{
	atomic_inc(&mm->mm_count);
}

void mmdrop(struct mm_struct *mm)
{
	if (atomic_dec_and_test(&mm->mm_count)) {
		BUG_ON(mm == &self_mm);
		mm_free(mm);
	}
}

bool mmget_not_zero(struct mm_struct *mm)
{
	return atomic_inc_not_zero(&mm->mm_users);
}

void mmput(struct mm_struct *mm)
{
	/* The address space keeps one mm_count for all its users. */
	if (atomic_dec_and_test(&mm->mm_users))
		mmdrop(mm);
}

/*
 * The mock's teardown of an address space never runs in mmput() (a remote
 * one ends with its process, mmu_notifier.c), so there is nothing to defer.
 */
void mmput_async(struct mm_struct *mm)
{
	mmput(mm);
}

struct mm_struct *get_task_mm(struct task_struct *task)
{
	struct mm_struct *mm = task->mm;

	if (task->flags & PF_KTHREAD)
		return NULL;
	if (mm && !mmget_not_zero(mm))
		mm = NULL;
	return mm;
}

/* Remote tasks, cached by tgid */

static pthread_mutex_t task_cache_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: task_cache, usage 0 transitions */
static LIST_HEAD(task_cache);

/* True if the process behind pidfd has exited. */
static bool pidfd_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 0) > 0;
}

static void remote_task_free(struct mock_task *mt)
{
	put_pid(mt->task.mock_tgid);
	mmput(mt->task.mm);
	pthread_mutex_destroy(&mt->lock);
	pthread_cond_destroy(&mt->cond);
	free(mt);
}

static struct mock_task *remote_task_create(pid_t tgid)
{
	struct mock_task *mt;
	struct mm_struct *mm;
	int pidfd, err;

	pidfd = syscall(SYS_pidfd_open, tgid, 0);
	if (pidfd < 0)
		return ERR_PTR(-errno);
	mt = calloc(1, sizeof(*mt));
	mm = calloc(1, sizeof(*mm));
	if (!mt || !mm) {
		free(mt);
		free(mm);
		close(pidfd);
		return ERR_PTR(-ENOMEM);
	}
	mm->kind = MOCK_MM_REMOTE;
	mm->pid = tgid;
	mm->pidfd = pidfd;
	mm->mem_fd = -1;
	mm->maps_fd = -1;
	/*
	 * The address space the process has now. Without one (it is exiting,
	 * or the host refused us) the mm is born ended: every access fails
	 * and npud refuses it as a client (mockdev_task_mm_alive()). Out of
	 * descriptors or memory, the lookup itself fails.
	 */
	err = mock_mm_remote_bind(mm, tgid);
	if (err == -EMFILE || err == -ENFILE || err == -ENOMEM) {
		close(pidfd);
		free(mt);
		free(mm);
		return ERR_PTR(err);
	}
	atomic_set(&mm->mm_users, 1);
	atomic_set(&mm->mm_count, 1);
	INIT_LIST_HEAD(&mm->mock_notifiers);
	INIT_LIST_HEAD(&mm->mock_watch);

	mock_task_init_common(mt, MOCK_TASK_REMOTE);
	/* The cache makes a new task (and identity) once the old process is gone. */
	mt->task.mock_tgid = mock_pid_alloc(tgid);
	mt->task.pid = tgid;
	mt->task.tgid = tgid;
	mt->task.mm = mm;
	mt->task.active_mm = mm;
	read_comm(tgid, mt->task.comm);
	mt->task.group_leader = &mt->task;
	/* Read after pidfd_open: a reused pid shows the new process's start. */
	mt->task.start_boottime = mock_pid_start_boottime(tgid);
	return mt;
}

MOCK_EXPORT int mockdev_task_get(pid_t tgid, struct task_struct **task)
{
	struct mock_task *mt, *found = NULL;

	*task = NULL;
	if (tgid == 0)
		return -EPERM;
	if (tgid < 0)
		return -ESRCH;

	pthread_mutex_lock(&task_cache_lock);
	list_for_each_entry(mt, &task_cache, cache_link) {
		if (mt->task.tgid == tgid) {
			found = mt;
			break;
		}
	}
	if (found && (pidfd_exited(found->task.mm->pidfd) || !mock_mm_alive(found->task.mm))) {
		/*
		 * That process is gone, and tgid may be somebody new; or it
		 * exec'd, and its new image is a new client with a new mm.
		 */
		list_del_init(&found->cache_link);
		found->cached = false;
		found = NULL;
	}
	if (found) {
		atomic_inc(&found->usage);
	} else {
		found = remote_task_create(tgid);
		if (IS_ERR(found)) {
			pthread_mutex_unlock(&task_cache_lock);
			return PTR_ERR(found);
		}
		list_add(&found->cache_link, &task_cache);
		found->cached = true;
	}
	pthread_mutex_unlock(&task_cache_lock);
	mock_live_add(&mock_live.tasks, 1);
	*task = &found->task;
	return 0;
}

static void remote_task_put(struct mock_task *mt)
{
	bool last;

	pthread_mutex_lock(&task_cache_lock);
	last = atomic_dec_and_test(&mt->usage);
	if (last && mt->cached)
		list_del_init(&mt->cache_link);
	pthread_mutex_unlock(&task_cache_lock);
	mock_live_add(&mock_live.tasks, -1);
	if (last)
		remote_task_free(mt);
}

/* Threads of remote processes: a task of its own for each relayed call */

MOCK_EXPORT int mockdev_task_thread_get(struct task_struct *process, pid_t tid,
					struct task_struct **thread)
{
	struct mock_task *pmt = to_mock_task(process), *mt;

	*thread = NULL;
	if (pmt->kind != MOCK_TASK_REMOTE)
		return -EINVAL;
	if (tid == 0)
		return -EPERM;
	if (tid < 0)
		return -ESRCH;
	mt = calloc(1, sizeof(*mt));
	if (!mt)
		return -ENOMEM;
	mock_task_init_common(mt, MOCK_TASK_THREAD);
	get_task_struct(process);
	mt->process = pmt;
	/* As the kernel's threads: own pid and signals, the process's mm. */
	mt->task.pid = tid;
	mt->task.tgid = process->tgid;
	mt->task.mm = process->mm;
	/* Borrowed: the process task, referenced above, holds them. */
	mt->task.mock_tgid = process->mock_tgid;
	mt->task.group_leader = process;
	mt->task.start_boottime = process->start_boottime;
	mt->task.active_mm = process->mm;
	memcpy(mt->task.comm, process->comm, sizeof(mt->task.comm));
	mock_live_add(&mock_live.tasks, 1);
	*thread = &mt->task;
	return 0;
}

/* As remote_task_put: every get counted one live task. */
static void thread_task_put(struct mock_task *mt)
{
	mock_live_add(&mock_live.tasks, -1);
	if (!atomic_dec_and_test(&mt->usage))
		return;
	remote_task_put(mt->process);
	pthread_mutex_destroy(&mt->lock);
	pthread_cond_destroy(&mt->cond);
	free(mt);
}

MOCK_EXPORT void mockdev_task_put(struct task_struct *task)
{
	struct mock_task *mt;

	if (!task)
		return;
	mt = to_mock_task(task);
	switch (mt->kind) {
	case MOCK_TASK_REMOTE:
		remote_task_put(mt);
		break;
	case MOCK_TASK_THREAD:
		thread_task_put(mt);
		break;
	case MOCK_TASK_SELF:
		break;
	case MOCK_TASK_KTHREAD:
		WARN(1, "mockdev_task_put of a kthread\n");
		break;
	}
}

/* True if SIGKILL is pending on thread tid of process tgid, or it is gone. */
static bool host_thread_killed(pid_t tgid, pid_t tid)
{
	char path[64], buf[2048];
	unsigned long long mask;
	const char *key[] = { "\nSigPnd:", "\nShdPnd:" };
	unsigned int i;
	ssize_t n;
	char *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", (int)tgid, (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	for (i = 0; i < ARRAY_SIZE(key); i++) {
		p = strstr(buf, key[i]);
		if (!p)
			continue;
		mask = strtoull(p + strlen(key[i]), NULL, 16);
		/* Every fatal signal becomes SIGKILL (9) on each thread. */
		if (mask & (1ULL << (9 - 1)))
			return true;
	}
	return false;
}

bool mock_task_check_host_death(struct task_struct *t)
{
	struct mock_task *mt = to_mock_task(t);
	bool dead;

	if (fatal_signal_pending(t))
		return true;
	switch (mt->kind) {
	case MOCK_TASK_REMOTE:
		dead = pidfd_exited(t->mm->pidfd);
		break;
	case MOCK_TASK_THREAD:
		dead = pidfd_exited(t->mm->pidfd) ||
		       host_thread_killed(t->tgid, t->pid);
		break;
	default:
		return false;
	}
	if (dead)
		__atomic_fetch_or(&t->mock_signals, 3UL, __ATOMIC_RELEASE);
	return dead;
}

MOCK_EXPORT bool mockdev_task_mm_alive(struct task_struct *task)
{
	return task->mm && mock_mm_alive(task->mm);
}

MOCK_EXPORT bool mockdev_task_killed(struct task_struct *task)
{
	return mock_task_check_host_death(task);
}

MOCK_EXPORT pid_t mockdev_tid_to_tgid(pid_t tid)
{
	char path[64], buf[1024];
	ssize_t n;
	char *p;
	int fd;

	if (tid == 0)
		return -EPERM;
	if (tid < 0)
		return -ESRCH;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = '\0';
	p = strstr(buf, "\nTgid:");
	if (!p)
		return -ESRCH;
	return (pid_t)strtol(p + 6, NULL, 10);
}

MOCK_EXPORT void mockdev_task_signal(struct task_struct *task, bool fatal)
{
	__atomic_fetch_or(&task->mock_signals, fatal ? 3UL : 1UL,
			  __ATOMIC_RELEASE);
	mock_task_wake(to_mock_task(task));
}

struct task_struct *get_task_struct(struct task_struct *t)
{
	struct mock_task *mt = to_mock_task(t);

	if (mt->kind != MOCK_TASK_SELF) {
		atomic_inc(&mt->usage);
		if (mt->kind == MOCK_TASK_REMOTE || mt->kind == MOCK_TASK_THREAD)
			mock_live_add(&mock_live.tasks, 1);
	}
	return t;
}

static void kthread_free(struct mock_task *mt);

void put_task_struct(struct task_struct *t)
{
	struct mock_task *mt = to_mock_task(t);

	switch (mt->kind) {
	case MOCK_TASK_SELF:
		break;
	case MOCK_TASK_REMOTE:
		remote_task_put(mt);
		break;
	case MOCK_TASK_THREAD:
		thread_task_put(mt);
		break;
	case MOCK_TASK_KTHREAD:
		if (atomic_dec_and_test(&mt->usage))
			kthread_free(mt);
		break;
	}
}

/* Sleeping and waking */

/* Wake a task sleeping in schedule() or in a mock wait queue. */
static void mock_task_wake(struct mock_task *mt)
{
	struct wait_queue_head *wq;

	pthread_mutex_lock(&mt->lock);
	mt->woken = true;
	WRITE_ONCE(mt->task.__state, TASK_RUNNING);
	wq = mt->waiting_on;
	pthread_cond_broadcast(&mt->cond);
	pthread_mutex_unlock(&mt->lock);
	/* A sleeper in a wait queue wakes when the sequence number moves. */
	if (wq) {
		pthread_mutex_lock(&wq->lock);
		wq->seq++;
		pthread_cond_broadcast(&wq->cond);
		pthread_mutex_unlock(&wq->lock);
	}
}

int wake_up_process(struct task_struct *tsk)
{
	struct mock_task *mt = to_mock_task(tsk);
	bool was_running = READ_ONCE(tsk->__state) == TASK_RUNNING;

	if (mt->kind == MOCK_TASK_KTHREAD) {
		pthread_mutex_lock(&mt->lock);
		mt->started = true;
		pthread_mutex_unlock(&mt->lock);
	}
	mock_task_wake(mt);
	return !was_running;
}

/*
 * Sleep in the current state until woken, the timeout (jiffies) or, for
 * interruptible states, a signal. Returns the jiffies left.
 */
static long schedule_sleep(long timeout)
{
	struct task_struct *t = current;
	struct mock_task *mt = to_mock_task(t);
	bool forever = timeout >= MAX_SCHEDULE_TIMEOUT;
	struct timespec deadline;
	s64 end_ns = 0;
	long left = timeout;

	if (!forever) {
		end_ns = ktime_get() + jiffies_to_nsecs(timeout);
		deadline.tv_sec = end_ns / NSEC_PER_SEC;
		deadline.tv_nsec = end_ns % NSEC_PER_SEC;
	}
	pthread_mutex_lock(&mt->lock);
	while (!mt->woken && READ_ONCE(t->__state) != TASK_RUNNING &&
	       !signal_pending_state(READ_ONCE(t->__state), t)) {
		if (forever) {
			pthread_cond_wait(&mt->cond, &mt->lock);
		} else if (pthread_cond_clockwait(&mt->cond, &mt->lock,
						  CLOCK_MONOTONIC,
						  &deadline) == ETIMEDOUT) {
			break;
		}
	}
	mt->woken = false;
	WRITE_ONCE(t->__state, TASK_RUNNING);
	pthread_mutex_unlock(&mt->lock);
	if (!forever) {
		s64 ns = end_ns - ktime_get();

		left = ns > 0 ? (long)max(1UL, nsecs_to_jiffies(ns)) : 0;
	}
	return left;
}

void schedule(void)
{
	if (READ_ONCE(current->__state) == TASK_RUNNING) {
		sched_yield();
		return;
	}
	schedule_sleep(MAX_SCHEDULE_TIMEOUT);
}

static long schedule_timeout(long timeout)
{
	if (timeout < 0) {
		WARN(1, "schedule_timeout: wrong timeout value %lx\n", timeout);
		__set_current_state(TASK_RUNNING);
		return 0;
	}
	if (READ_ONCE(current->__state) == TASK_RUNNING) {
		sched_yield();
		return timeout;
	}
	return schedule_sleep(timeout);
}

long schedule_timeout_interruptible(long timeout)
{
	__set_current_state(TASK_INTERRUPTIBLE);
	return schedule_timeout(timeout);
}

long schedule_timeout_uninterruptible(long timeout)
{
	__set_current_state(TASK_UNINTERRUPTIBLE);
	return schedule_timeout(timeout);
}

/* kthreads */

static void kthread_free(struct mock_task *mt)
{
	put_pid(mt->task.mock_tgid);
	pthread_mutex_destroy(&mt->lock);
	pthread_cond_destroy(&mt->cond);
	free(mt);
}

static void *kthread_main(void *arg)
{
	struct mock_task *mt = arg;
	bool run;
	int ret = -EINTR;

	mock_current_task = &mt->task;
	pthread_mutex_lock(&mt->lock);
	while (!mt->started && !mt->stop)
		pthread_cond_wait(&mt->cond, &mt->lock);
	run = !mt->stop;
	mt->woken = false;
	pthread_mutex_unlock(&mt->lock);

	/* Stopped before it was ever woken: threadfn does not run. */
	if (run)
		ret = mt->threadfn(mt->data);

	if (mt->task.mm) {
		WARN(1, "kthread %s exited inside kthread_use_mm\n",
		     mt->task.comm);
		kthread_unuse_mm(mt->task.mm);
	}
	pthread_mutex_lock(&mt->lock);
	mt->result = ret;
	mt->exited = true;
	pthread_cond_broadcast(&mt->cond);
	pthread_mutex_unlock(&mt->lock);
	mock_live_add(&mock_live.kthreads, -1);
	return NULL;
}

struct task_struct *kthread_create_on_node(int (*threadfn)(void *data),
					   void *data, int node,
					   const char namefmt[], ...)
{
	struct mock_task *mt;
	pthread_attr_t attr;
	va_list args;
	int err;

	(void)node;
	mt = calloc(1, sizeof(*mt));
	if (!mt)
		return ERR_PTR(-ENOMEM);
	mock_task_init_common(mt, MOCK_TASK_KTHREAD);
	mt->threadfn = threadfn;
	mt->data = data;
	mt->task.flags = PF_KTHREAD;
	mt->task.__state = TASK_UNINTERRUPTIBLE;
	va_start(args, namefmt);
	vsnprintf(mt->task.comm, sizeof(mt->task.comm), namefmt, args);
	va_end(args);
	/* Kernel pids are not ours to hand out; a kthread looks like the process. */
	mt->task.tgid = getpid();
	mt->task.pid = mt->task.tgid;
	mt->task.group_leader = &mt->task;
	/* Its own identity: a kthread is no thread of any opener. */
	mt->task.mock_tgid = mock_pid_alloc(mt->task.tgid);

	mock_live_add(&mock_live.kthreads, 1);
	pthread_attr_init(&attr);
	err = pthread_create(&mt->thread, &attr, kthread_main, mt);
	pthread_attr_destroy(&attr);
	if (err) {
		mock_live_add(&mock_live.kthreads, -1);
		kthread_free(mt);
		return ERR_PTR(-err);
	}
	pthread_setname_np(mt->thread, mt->task.comm);
	return &mt->task;
}

int kthread_stop(struct task_struct *k)
{
	struct mock_task *mt = to_mock_task(k);
	int ret;

	if (WARN_ON(mt->kind != MOCK_TASK_KTHREAD))
		return -EINVAL;
	pthread_mutex_lock(&mt->lock);
	mt->stop = true;
	pthread_mutex_unlock(&mt->lock);
	mock_task_wake(mt);

	pthread_join(mt->thread, NULL);
	ret = mt->result;
	put_task_struct(k);
	return ret;
}

bool kthread_should_stop(void)
{
	struct mock_task *mt = to_mock_task(current);
	bool stop;

	if (mt->kind != MOCK_TASK_KTHREAD)
		return false;
	pthread_mutex_lock(&mt->lock);
	stop = mt->stop;
	pthread_mutex_unlock(&mt->lock);
	return stop;
}

void kthread_use_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;

	WARN_ON_ONCE(!(tsk->flags & PF_KTHREAD));
	WARN_ON_ONCE(tsk->mm);
	mmgrab(mm);
	tsk->active_mm = mm;
	tsk->mm = mm;
	/* An engine's batch: its guarded copies share one handler check. */
	mock_fault_scope_begin();
}

void kthread_unuse_mm(struct mm_struct *mm)
{
	struct task_struct *tsk = current;

	WARN_ON_ONCE(!(tsk->flags & PF_KTHREAD));
	WARN_ON_ONCE(tsk->mm != mm);
	mock_fault_scope_end();
	tsk->mm = NULL;
	tsk->active_mm = NULL;
	mmdrop(mm);
}
