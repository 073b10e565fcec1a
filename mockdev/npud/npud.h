/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * npud: the mock-kernel build of the npu driver served to other processes,
 * as FUSE files (npud_fuse.c) or CUSE character devices (npud_cuse.c).
 * Both front ends hand every open/ioctl/release to npud_client.c, which
 * calls the driver's file operations with the client as current task, and
 * run their sessions through npud_session.c.
 */
#ifndef NPUD_H
#define NPUD_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <fuse_lowlevel.h>

struct fuse_session;
struct npud_client;

/* --log-level: what npud prints on stderr (errors always); npud_log.c. */
enum npud_log_level { NPUD_LOG_ERROR, NPUD_LOG_WARNING, NPUD_LOG_INFO, NPUD_LOG_DEBUG };
extern enum npud_log_level npud_log_level;
void npud_log(enum npud_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct npud_options {
	const char *fuse_dir;		/* --fuse DIR, or NULL */
	bool cuse;			/* --cuse */
	unsigned int devices;		/* --devices N */
	unsigned long long hbm_mb;	/* --hbm-size, in MiB */
	bool set_mode;			/* --mode given */
	mode_t mode;			/* --mode: CUSE node permissions */
	const char *name;		/* --name: CUSE node names NAME0.., or NULL (npu) */
	bool no_sandbox;		/* --no-sandbox */
	bool require_shared;		/* --require-shared: refuse a mount that does not propagate */
	unsigned int user_clients;	/* --limit-user-clients, or 0 for the default */
	bool mount_only;		/* --mount-only: mount, hand over, exit */
	bool unmount;			/* --unmount: drop a handed-over mount */
	int fuse_fd;			/* a mounted /dev/fuse passed in, or -1 */
};

/*
 * The worker pool. libfuse runs each request on a worker thread, at most
 * NPUD_MAX_THREADS per session, and a call that waits in the driver keeps
 * its worker for as long as it waits. So that no client can take them all,
 * waits are admitted only while the caller's process has fewer than
 * NPUD_CLIENT_WAITS of them in npud and all processes together fewer than
 * NPUD_WAITS_MAX: the other NPUD_RESERVED_THREADS workers of a session are
 * always there for calls that do not wait. A wait past either cap rings
 * the doorbell (to_submit) as asked but does not wait: the call fails with
 * EAGAIN, which the runtime takes as "wait again" after a short sleep.
 * (Replying to waits from a separate waiter thread would need the driver
 * to wait without a thread of its own, which no driver interface offers;
 * the caps keep npud's threads bounded per client as well.)
 */
#define NPUD_MAX_THREADS	256
#define NPUD_RESERVED_THREADS	32
#define NPUD_WAITS_MAX		(NPUD_MAX_THREADS - NPUD_RESERVED_THREADS)
#define NPUD_CLIENT_WAITS	32

/*
 * Descriptors: each client process costs npud NPUD_FDS_PER_CLIENT of them
 * (npud_client.c), and npud keeps NPUD_FDS_RESERVED for itself (sessions,
 * /dev/fuse clones, logs). By default one user may have a quarter of the
 * client processes that npud's descriptor limit leaves room for
 * (--limit-user-clients).
 */
#define NPUD_FDS_PER_CLIENT	3
#define NPUD_FDS_RESERVED	64
#define NPUD_USER_CLIENTS_SHARE	4

/* npud_client.c */
int npud_client_open(unsigned int index, pid_t tid, uid_t uid, struct npud_client **clientp);
void npud_clients_set_user_limit(unsigned int max);
unsigned int npud_clients_charged(void);
void npud_client_ioctl(fuse_req_t req, struct npud_client *client,
		       unsigned int cmd, void *arg, unsigned int flags,
		       const void *in_buf, size_t in_bufsz, size_t out_bufsz);
void npud_client_release(struct npud_client *client);
unsigned int npud_clients_release_all(void);
void npud_calls_stop(void);

/* npud_session.c */
struct npud_session {
	struct fuse_session *se;
	const char *name;		/* for log lines */
	pthread_t thread;
	bool started;
	int result;			/* of fuse_session_loop_mt */
	volatile bool done;		/* the loop has returned */
};

/* SIGTERM to exit, whatever the clients do: at most this long (ms). */
#define NPUD_STOP_MS		1500

void npud_signals_init(void);
int npud_session_start(struct npud_session *s);
bool npud_session_stop(struct npud_session *s);
int npud_wait(struct npud_session **sessions, unsigned int count);
void npud_stop_begin(void);
void npud_notify(const char *state);
bool npud_run_bounded(void *(*fn)(void *), void *arg);
void npud_abandon(int ret) __attribute__((noreturn));
void npud_release_bounded(int ret);

/* npud_sandbox.c: capabilities before any thread, the filter before serving. */
int npud_sandbox_caps(const struct npud_options *opts);
int npud_sandbox_filter(const struct npud_options *opts);

/* npud_fuse.c, npud_cuse.c: 0 on a clean shutdown, else non-zero. */
int npud_fuse_run(const struct npud_options *opts);
int npud_fuse_claim(const char *dir);
int npud_fuse_check_shared(const struct npud_options *opts);
bool npud_fuse_mount_minor(const char *path, unsigned int *minor);

/* npud_fdstore.c: the unit's mount and unmount steps, and the passed connection. */
int npud_fdstore_listen_fd(void);
int npud_fdstore_mount(const struct npud_options *opts);
int npud_fdstore_unmount(const struct npud_options *opts);
int npud_cuse_run(const struct npud_options *opts);

#endif /* NPUD_H */
