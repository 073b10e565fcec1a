// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Clients: one struct npud_client per open of a device, holding the
 * driver's struct file and the task of the process that opened it. This
 * is what the VFS does for the real module; FUSE and CUSE only differ in
 * how requests reach us.
 *
 * A file belongs to the process that opened it: an ioctl from any other
 * process (a forked child that inherited the file, a process it was passed
 * to) gets EBADF here, before the driver is asked, and the driver checks
 * the same again. So does the opener's own new image after an exec: the
 * file is bound to the address space it was opened with, and so is every
 * access npud makes to the client's memory (mockdev/kernel/mm_remote.c).
 * Every ioctl runs with the opener's task. When the opener exits or
 * execs, the mock kernel's mm reaper (mmu_notifier.c) tears its contexts
 * down, even while another process (or the new image) still holds the
 * file.
 *
 * Each ioctl runs as a thread task of its own (the calling thread), listed
 * in npud_calls while it is in the driver, so that it can be signalled as
 * the kernel would signal that thread: a FUSE INTERRUPT (the client's
 * thread got a signal) is a signal, fatal if the host says the thread is
 * being killed, and npud's shutdown is fatal for every call. The driver's
 * interruptible (and, for fatal ones, killable) waits then end at once.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "mockdev/host.h"
#include "npu/npu_uapi.h"

#include "npud.h"

struct npud_client {
	struct file *file;
	struct task_struct *task;	/* the opener; one reference */
	pid_t tgid;			/* the opener's TGID */
	unsigned int index;		/* device number */
	struct npud_client *prev, *next;
};

/*
 * Client processes, counted per user. Each costs npud NPUD_FDS_PER_CLIENT
 * descriptors (the task's pidfd and the two files that bind its address
 * space, mockdev/kernel/mm_remote.c), taken from the one table that every
 * user shares: without a cap, one user with enough processes would make
 * npud refuse everybody else's opens with EMFILE. A process is its task,
 * not its pid: the new image of a process that exec'd is another client,
 * and files its old image left open keep the old one charged until their
 * last close, as they keep its descriptors.
 */
struct npud_owner {
	struct task_struct *task;	/* the key; the files hold references */
	pid_t tgid;			/* its process id, for npud_owner_refused() */
	uid_t uid;			/* the user charged: the first opener's */
	unsigned int files;		/* open files of this task */
	struct npud_owner *next;	/* hash chain */
	struct npud_owner *user_prev, *user_next; /* its user's client processes */
};

struct npud_user {
	uid_t uid;
	unsigned int owners;		/* its client processes */
	struct npud_owner *first;	/* them, linked by user_next */
	struct npud_user *next;		/* hash chain */
};

#define NPUD_OWNER_BUCKETS	256

/* Protects: npud_owners, npud_users and their counts (a leaf lock) */
static pthread_mutex_t npud_owners_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npud_owner *npud_owners[NPUD_OWNER_BUCKETS];
static struct npud_user *npud_users[NPUD_OWNER_BUCKETS];
static unsigned int npud_user_clients_max;	/* 0: no limit */

/**
 * npud_clients_set_user_limit() - client processes one user may have
 * @max: the cap; 0 for none
 *
 * Before serving.
 */
void npud_clients_set_user_limit(unsigned int max)
{
	npud_user_clients_max = max;
}

/* Client processes charged to users now (for tests). */
unsigned int npud_clients_charged(void)
{
	unsigned int n = 0, i;
	struct npud_user *u;

	pthread_mutex_lock(&npud_owners_lock);
	for (i = 0; i < NPUD_OWNER_BUCKETS; i++) {
		for (u = npud_users[i]; u; u = u->next)
			n += u->owners;
	}
	pthread_mutex_unlock(&npud_owners_lock);
	return n;
}

static unsigned int npud_owner_hash(const void *key)
{
	uintptr_t v = (uintptr_t)key;

	return (unsigned int)((v >> 4) ^ (v >> 12)) % NPUD_OWNER_BUCKETS;
}

static struct npud_user **npud_user_slot(uid_t uid)
{
	struct npud_user **u = &npud_users[uid % NPUD_OWNER_BUCKETS];

	while (*u && (*u)->uid != uid)
		u = &(*u)->next;
	return u;
}

/*
 * Whether an open by process @tgid of @uid is sure to be refused by the
 * cap of client processes: @uid is at its cap and no client process of
 * its has that id. Asked before npud spends the descriptors that bind a
 * new process (mockdev_task_get()), so that a user at the cap cannot make
 * npud open and close them for every attempt. A reused pid passes here
 * and is refused by npud_owner_get(), which knows the task itself.
 */
static bool npud_owner_refused(pid_t tgid, uid_t uid)
{
	struct npud_user *user;
	struct npud_owner *o;
	bool refused = false;

	pthread_mutex_lock(&npud_owners_lock);
	user = *npud_user_slot(uid);
	if (!user || !npud_user_clients_max || user->owners < npud_user_clients_max)
		goto out;
	refused = true;
	/* The user's own client processes: exactly its cap of them. */
	for (o = user->first; o; o = o->user_next) {
		if (o->tgid == tgid) {
			refused = false;
			break;
		}
	}
out:
	pthread_mutex_unlock(&npud_owners_lock);
	return refused;
}

/*
 * Count one more file of @task (process @tgid), opened by @uid. Return: 0,
 * -EUSERS if the task is a new client process and @uid has its cap of
 * them, -ENOMEM.
 */
static int npud_owner_get(struct task_struct *task, pid_t tgid, uid_t uid)
{
	struct npud_owner **o, *owner;
	struct npud_user **u, *user;
	int ret = 0;

	pthread_mutex_lock(&npud_owners_lock);
	o = &npud_owners[npud_owner_hash(task)];
	while (*o && (*o)->task != task)
		o = &(*o)->next;
	if (*o) {
		(*o)->files++;
		goto out;
	}
	u = npud_user_slot(uid);
	user = *u;
	if (user && npud_user_clients_max && user->owners >= npud_user_clients_max) {
		ret = -EUSERS;
		goto out;
	}
	owner = calloc(1, sizeof(*owner));
	if (!user)
		user = calloc(1, sizeof(*user));
	if (!owner || !user) {
		free(owner);
		if (!*u)
			free(user);
		ret = -ENOMEM;
		goto out;
	}
	if (!*u) {
		user->uid = uid;
		*u = user;
	}
	user->owners++;
	owner->task = task;
	owner->tgid = tgid;
	owner->uid = uid;
	owner->files = 1;
	owner->user_next = user->first;
	if (user->first)
		user->first->user_prev = owner;
	user->first = owner;
	*o = owner;
out:
	pthread_mutex_unlock(&npud_owners_lock);
	return ret;
}

/* One file of @task fewer; the last one gives its user's count back. */
static void npud_owner_put(struct task_struct *task)
{
	struct npud_owner **o, *owner;
	struct npud_user **u, *user;

	pthread_mutex_lock(&npud_owners_lock);
	o = &npud_owners[npud_owner_hash(task)];
	while (*o && (*o)->task != task)
		o = &(*o)->next;
	owner = *o;
	if (!owner || --owner->files)
		goto out;
	*o = owner->next;
	u = npud_user_slot(owner->uid);
	user = *u;
	if (owner->user_prev)
		owner->user_prev->user_next = owner->user_next;
	else if (user)
		user->first = owner->user_next;
	if (owner->user_next)
		owner->user_next->user_prev = owner->user_prev;
	if (user && !--user->owners) {
		*u = user->next;
		free(user);
	}
	free(owner);
out:
	pthread_mutex_unlock(&npud_owners_lock);
}

/* Protects: npud_clients, the list of every client not yet released */
static pthread_mutex_t npud_clients_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npud_client npud_clients = { .prev = &npud_clients, .next = &npud_clients };

static void npud_clients_add(struct npud_client *c)
{
	pthread_mutex_lock(&npud_clients_lock);
	c->next = &npud_clients;
	c->prev = npud_clients.prev;
	npud_clients.prev->next = c;
	npud_clients.prev = c;
	pthread_mutex_unlock(&npud_clients_lock);
}

static void npud_clients_del(struct npud_client *c)
{
	pthread_mutex_lock(&npud_clients_lock);
	c->prev->next = c->next;
	c->next->prev = c->prev;
	c->prev = c->next = c;
	pthread_mutex_unlock(&npud_clients_lock);
}

/* One ioctl in the driver. */
struct npud_call {
	struct task_struct *thread;	/* the calling thread; one reference */
	pid_t tgid;			/* its process */
	bool waits;			/* counted in npud_waits */
	struct npud_call *prev, *next;
};

/*
 * Protects: npud_calls (every call in the driver), npud_waits (those that
 * may wait, over all processes), npud_stopping
 */
static pthread_mutex_t npud_calls_lock = PTHREAD_MUTEX_INITIALIZER;
static struct npud_call npud_calls = { .prev = &npud_calls, .next = &npud_calls };
static unsigned int npud_waits;
static bool npud_stopping;

/*
 * List a call; with @wait, admit it as a wait if its process and npud
 * have room (see NPUD_CLIENT_WAITS). The scan is O(calls in flight), which
 * the worker pool bounds. Return: whether the wait was admitted (true when
 * !@wait).
 */
static bool npud_call_begin(struct npud_call *call, bool wait)
{
	unsigned int mine = 0;
	struct npud_call *c;
	bool ok = true;

	pthread_mutex_lock(&npud_calls_lock);
	if (wait) {
		for (c = npud_calls.next; c != &npud_calls; c = c->next) {
			if (c->waits && c->tgid == call->tgid)
				mine++;
		}
		ok = mine < NPUD_CLIENT_WAITS && npud_waits < NPUD_WAITS_MAX;
	}
	call->waits = wait && ok;
	if (call->waits)
		npud_waits++;
	call->next = &npud_calls;
	call->prev = npud_calls.prev;
	npud_calls.prev->next = call;
	npud_calls.prev = call;
	/* Too late to wait: npud is going away. */
	if (npud_stopping)
		mockdev_task_signal(call->thread, true);
	pthread_mutex_unlock(&npud_calls_lock);
	return ok;
}

static void npud_call_end(struct npud_call *call)
{
	pthread_mutex_lock(&npud_calls_lock);
	if (call->waits)
		npud_waits--;
	call->prev->next = call->next;
	call->next->prev = call->prev;
	pthread_mutex_unlock(&npud_calls_lock);
}

/*
 * FUSE INTERRUPT for a call (libfuse runs this with the request locked; it
 * must not reply). The kernel sends one when the calling thread gets a
 * signal, and for a fatal one then waits for our reply uninterruptibly:
 * the thread stays unkillable until the driver returns.
 */
static void npud_call_interrupted(fuse_req_t req, void *data)
{
	struct npud_call *call = data;

	(void)req;
	mockdev_task_signal(call->thread, mockdev_task_killed(call->thread));
}

/**
 * npud_calls_stop() - signal every call in the driver, and every later one
 *
 * For shutdown: waits in the driver end with EINTR, as for a killed client.
 */
void npud_calls_stop(void)
{
	struct npud_call *c;

	pthread_mutex_lock(&npud_calls_lock);
	npud_stopping = true;
	for (c = npud_calls.next; c != &npud_calls; c = c->next)
		mockdev_task_signal(c->thread, true);
	pthread_mutex_unlock(&npud_calls_lock);
}

/* A RING_ENTER that may block until completions come. */
static bool npud_ioctl_may_wait(unsigned int cmd, const void *buf)
{
	const struct npu_ring_enter *re = buf;

	return cmd == NPU_IOCTL_RING_ENTER && (re->flags & NPU_ENTER_GETEVENTS);
}

/*
 * A refusal for the user cap, said at most once a second: the client only
 * sees EUSERS, and a flood must not flood the log as well.
 */
static void npud_log_user_cap(uid_t uid, pid_t tgid)
{
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: last */
	static time_t last;
	time_t now = time(NULL);
	bool say;

	pthread_mutex_lock(&lock);
	say = now != last;
	if (say)
		last = now;
	pthread_mutex_unlock(&lock);
	if (say)
		npud_log(NPUD_LOG_WARNING,
			 "npud: open by pid %d refused: uid %u has %u client processes, the most --limit-user-clients allows\n",
			 (int)tgid, (unsigned int)uid, npud_user_clients_max);
}

/*
 * Every refused open is logged at info or above, since the client only
 * sees an errno; at most NPUD_REFUSALS_PER_SEC lines a second, the rest
 * counted and said with the next line, so that a flood of refused opens
 * cannot flood the log too.
 */
#define NPUD_REFUSALS_PER_SEC	10

static void npud_log_refusal(enum npud_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void npud_log_refusal(enum npud_log_level level, const char *fmt, ...)
{
	/* Protects: second, said, dropped */
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	static time_t second;
	static unsigned int said, dropped;
	unsigned int missed = 0;
	time_t now = time(NULL);
	char line[512];
	bool say;
	va_list ap;

	pthread_mutex_lock(&lock);
	if (now != second) {
		second = now;
		said = 0;
	}
	say = said < NPUD_REFUSALS_PER_SEC;
	if (say) {
		said++;
		missed = dropped;
		dropped = 0;
	} else {
		dropped++;
	}
	pthread_mutex_unlock(&lock);
	if (!say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (missed)
		npud_log(level, "%s (and %u more refusals not logged)\n", line, missed);
	else
		npud_log(level, "%s\n", line);
}

/**
 * npud_client_open() - open device @index for the process of thread @tid
 * @index: device number (npu<index>)
 * @tid: the calling thread as FUSE reports it; 0 means unknown
 * @uid: the caller's user as FUSE reports it, charged for a new process
 * @clientp: the new client
 *
 * Return: 0 or -errno (-EREMOTE for a caller outside npud's pid namespace,
 * which FUSE and CUSE report as thread 0; -EUSERS when @uid has
 * its cap of client processes, --limit-user-clients).
 */
int npud_client_open(unsigned int index, pid_t tid, uid_t uid, struct npud_client **clientp)
{
	struct miscdevice *misc;
	struct npud_client *c;
	char name[16];
	pid_t tgid;
	int ret;

	/*
	 * The kernel gives us no pid for a caller outside npud's pid
	 * namespace: npud cannot reach such a process's memory at all.
	 */
	if (tid <= 0) {
		npud_log_refusal(NPUD_LOG_WARNING,
				 "npud: open of npu%u refused: the caller is in a pid namespace npud cannot see (run npud in the host's pid namespace, e.g. podman/docker run --pid host)",
				 index);
		return -EREMOTE;
	}
	tgid = mockdev_tid_to_tgid(tid);
	if (tgid < 0) {
		npud_log_refusal(NPUD_LOG_INFO,
				 "npud: open of npu%u by thread %d refused: no such thread in npud's /proc (%s)",
				 index, (int)tid, strerror(-tgid));
		return tgid;
	}
	snprintf(name, sizeof(name), "npu%u", index);
	misc = mockdev_misc_find(name);
	if (!misc) {
		npud_log_refusal(NPUD_LOG_INFO, "npud: open of npu%u by pid %d refused: no such device",
				 index, (int)tgid);
		return -ENODEV;
	}

	if (npud_owner_refused(tgid, uid)) {
		npud_log_user_cap(uid, tgid);
		return -EUSERS;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->index = index;
	c->tgid = tgid;
	ret = mockdev_task_get(tgid, &c->task);
	if (ret) {
		npud_log_refusal(NPUD_LOG_INFO, "npud: open of npu%u by pid %d refused: %s", index,
				 (int)tgid, strerror(-ret));
		goto err_free;
	}
	/*
	 * The file belongs to the address space the opener has now (its
	 * thread waits for this reply, so the process cannot exec meanwhile).
	 * Without one we could not serve it safely.
	 */
	if (!mockdev_task_mm_alive(c->task)) {
		npud_log_refusal(NPUD_LOG_WARNING,
				 "npud: open of npu%u by pid %d refused: its address space cannot be bound (is npud missing CAP_SYS_PTRACE, or is the process exiting?)",
				 index, (int)tgid);
		ret = -EPERM;
		goto err_put_task;
	}
	ret = npud_owner_get(c->task, tgid, uid);
	if (ret == -EUSERS)
		npud_log_user_cap(uid, tgid);
	if (ret)
		goto err_put_task;
	ret = mockdev_file_open(misc, c->task, &c->file);
	if (ret) {
		npud_log_refusal(NPUD_LOG_INFO, "npud: open of npu%u by pid %d refused by the driver: %s",
				 index, (int)tgid, strerror(-ret));
		goto err_put_owner;
	}
	npud_clients_add(c);
	*clientp = c;
	return 0;

err_put_owner:
	npud_owner_put(c->task);
err_put_task:
	mockdev_task_put(c->task);
err_free:
	free(c);
	return ret;
}

/* True when thread tid is, right now, a thread of process tgid. */
static bool npud_tid_in_tgid(pid_t tid, pid_t tgid)
{
	char path[64];

	if (tid == tgid)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)tgid, (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * The task the driver sees for a call from thread tid: the opener's, only
 * if tid is one of its threads and the address space it opened with still
 * exists; -EBADF for any other process, and for the new image of an opener
 * that exec'd (which keeps the pid and, without O_CLOEXEC, the file). The
 * caller waits for our reply, so its process cannot exec while the driver
 * serves this call.
 */
static int npud_client_caller(struct npud_client *c, pid_t tid,
			      struct task_struct **task)
{
	if (tid <= 0)
		return -EPERM;
	if (!npud_tid_in_tgid(tid, c->tgid) || !mockdev_task_mm_alive(c->task))
		return -EBADF;
	*task = c->task;
	return 0;
}

/**
 * npud_client_ioctl() - run one restricted ioctl and reply to it
 * @req: the FUSE/CUSE request; always answered
 * @client: the file it is for
 * @cmd: the command (32 bits, as FUSE carries it)
 * @arg: the client's argument address
 * @flags: FUSE_IOCTL_*
 * @in_buf: the _IOC_SIZE(cmd) bytes the kernel fetched (for _IOC_WRITE)
 * @in_bufsz: their count
 * @out_bufsz: bytes the kernel will copy back (for _IOC_READ)
 *
 * The kernel sizes both directions from @cmd in restricted mode; anything
 * else is refused with EINVAL. FUSE_IOCTL_COMPAT (a 32-bit caller) is served
 * like a native call, as compat_ptr_ioctl() would: the ABI has no
 * pointer-sized or padding-dependent field. Unknown commands are the
 * driver's business (it answers ENOTTY).
 *
 * A RING_ENTER with NPU_ENTER_GETEVENTS beyond the caller's share of the
 * worker pool gets EAGAIN after its doorbell (see NPUD_CLIENT_WAITS).
 */
void npud_client_ioctl(fuse_req_t req, struct npud_client *client,
		       unsigned int cmd, void *arg, unsigned int flags,
		       const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	unsigned char buf[_IOC_SIZEMASK + 1] __attribute__((aligned(16)));
	size_t size = _IOC_SIZE(cmd);
	size_t want_in = (_IOC_DIR(cmd) & _IOC_WRITE) ? size : 0;
	size_t want_out = (_IOC_DIR(cmd) & _IOC_READ) ? size : 0;
	bool wait, refused = false;
	struct npud_call call = { 0 };
	struct task_struct *task;
	long ret;

	if ((flags & FUSE_IOCTL_UNRESTRICTED) || in_bufsz != want_in ||
	    out_bufsz != want_out) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	memset(buf, 0, size);
	if (in_bufsz)
		memcpy(buf, in_buf, in_bufsz);

	ret = npud_client_caller(client, fuse_req_ctx(req)->pid, &task);
	if (ret) {
		fuse_reply_err(req, (int)-ret);
		return;
	}
	call.tgid = client->tgid;
	ret = mockdev_task_thread_get(task, fuse_req_ctx(req)->pid, &call.thread);
	if (ret) {
		fuse_reply_err(req, (int)-ret);
		return;
	}
	wait = npud_ioctl_may_wait(cmd, buf);
	if (!npud_call_begin(&call, wait)) {
		/* No room to wait: ring the doorbell only (see NPUD_CLIENT_WAITS). */
		((struct npu_ring_enter *)buf)->flags &= ~NPU_ENTER_GETEVENTS;
		refused = true;
	}
	fuse_req_interrupt_func(req, npud_call_interrupted, &call);
	ret = mockdev_file_ioctl_relayed(client->file, call.thread, cmd,
					 (unsigned long)arg, buf);
	/* Returns once a running npud_call_interrupted() has finished. */
	fuse_req_interrupt_func(req, NULL, NULL);
	npud_call_end(&call);
	mockdev_task_put(call.thread);
	if (refused && ret >= 0)
		ret = -EAGAIN;

	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else
		fuse_reply_ioctl(req, (int)ret, want_out ? buf : NULL, want_out);
}

static void npud_client_free(struct npud_client *c)
{
	mockdev_file_release(c->file, c->task);
	npud_owner_put(c->task);
	mockdev_task_put(c->task);
	free(c);
}

/**
 * npud_client_release() - the last close of a client's file
 * @client: the client; freed
 *
 * Runs as the opener, whoever closed last (the kernel sends RELEASE
 * asynchronously, often after the process is gone).
 */
void npud_client_release(struct npud_client *client)
{
	npud_clients_del(client);
	npud_client_free(client);
}

/**
 * npud_clients_release_all() - release files whose clients never closed
 *
 * For shutdown, after every session has stopped.
 *
 * Return: how many were released.
 */
unsigned int npud_clients_release_all(void)
{
	struct npud_client *c;
	unsigned int n = 0;

	for (;;) {
		pthread_mutex_lock(&npud_clients_lock);
		c = npud_clients.next;
		if (c == &npud_clients) {
			pthread_mutex_unlock(&npud_clients_lock);
			return n;
		}
		c->prev->next = c->next;
		c->next->prev = c->prev;
		pthread_mutex_unlock(&npud_clients_lock);
		npud_client_free(c);
		n++;
	}
}
