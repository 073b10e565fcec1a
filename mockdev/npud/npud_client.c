// SPDX-License-Identifier: GPL-2.0
/*
 * Clients: one struct npud_client per open of a device, holding the
 * driver's struct file and the task of the process that opened it. This
 * is what the VFS does for the real module; FUSE and CUSE only differ in
 * how requests reach us.
 *
 * A file belongs to the process that opened it: an ioctl from any other
 * process (a forked child that inherited the file, a process it was passed
 * to) gets EBADF here, before the driver is asked, and the driver checks
 * the same again. Every ioctl runs with the opener's task. When the opener
 * exits, the mock kernel's mm reaper (mmu_notifier.c: it polls the pidfd
 * of every client that has a context) tears its contexts down at once,
 * even while another process still holds the file.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mockdev/host.h"

#include "npud.h"

struct npud_client {
	struct file *file;
	struct task_struct *task;	/* the opener; one reference */
	pid_t tgid;			/* the opener's TGID */
	unsigned int index;		/* device number */
	struct npud_client *prev, *next;
};

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

/**
 * npud_client_open() - open device @index for the process of thread @tid
 * @index: device number (npu<index>)
 * @tid: the calling thread as FUSE reports it; 0 means unknown
 * @clientp: the new client
 *
 * Return: 0 or -errno (-EPERM for an unknown caller).
 */
int npud_client_open(unsigned int index, pid_t tid, struct npud_client **clientp)
{
	struct miscdevice *misc;
	struct npud_client *c;
	char name[16];
	pid_t tgid;
	int ret;

	if (tid <= 0)
		return -EPERM;
	tgid = mockdev_tid_to_tgid(tid);
	if (tgid < 0)
		return tgid;
	snprintf(name, sizeof(name), "npu%u", index);
	misc = mockdev_misc_find(name);
	if (!misc)
		return -ENODEV;

	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->index = index;
	c->tgid = tgid;
	ret = mockdev_task_get(tgid, &c->task);
	if (ret)
		goto err_free;
	ret = mockdev_file_open(misc, c->task, &c->file);
	if (ret)
		goto err_put_task;
	npud_clients_add(c);
	*clientp = c;
	return 0;

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
 * if tid is one of its threads; -EBADF for any other process.
 */
static int npud_client_caller(struct npud_client *c, pid_t tid,
			      struct task_struct **task)
{
	if (tid <= 0)
		return -EPERM;
	if (!npud_tid_in_tgid(tid, c->tgid))
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
 */
void npud_client_ioctl(fuse_req_t req, struct npud_client *client,
		       unsigned int cmd, void *arg, unsigned int flags,
		       const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	unsigned char buf[_IOC_SIZEMASK + 1] __attribute__((aligned(16)));
	size_t size = _IOC_SIZE(cmd);
	size_t want_in = (_IOC_DIR(cmd) & _IOC_WRITE) ? size : 0;
	size_t want_out = (_IOC_DIR(cmd) & _IOC_READ) ? size : 0;
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
	ret = mockdev_file_ioctl_relayed(client->file, task, cmd,
					 (unsigned long)arg, buf);

	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else
		fuse_reply_ioctl(req, (int)ret, want_out ? buf : NULL, want_out);
}

static void npud_client_free(struct npud_client *c)
{
	mockdev_file_release(c->file, c->task);
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
