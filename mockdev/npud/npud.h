/* SPDX-License-Identifier: GPL-2.0 */
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

struct npud_options {
	const char *fuse_dir;		/* --fuse DIR, or NULL */
	bool cuse;			/* --cuse */
	unsigned int devices;		/* --devices N */
	unsigned long long hbm_mb;	/* --hbm-size, in MiB */
	bool set_mode;			/* --mode given */
	mode_t mode;			/* --mode: CUSE node permissions */
};

/* npud_client.c */
int npud_client_open(unsigned int index, pid_t tid, struct npud_client **clientp);
void npud_client_ioctl(fuse_req_t req, struct npud_client *client,
		       unsigned int cmd, void *arg, unsigned int flags,
		       const void *in_buf, size_t in_bufsz, size_t out_bufsz);
void npud_client_release(struct npud_client *client);
unsigned int npud_clients_release_all(void);

/* npud_session.c */
struct npud_session {
	struct fuse_session *se;
	const char *name;		/* for log lines */
	pthread_t thread;
	bool started;
	int result;			/* of fuse_session_loop_mt */
	volatile bool done;		/* the loop has returned */
};

void npud_signals_init(void);
int npud_session_start(struct npud_session *s);
void npud_session_stop(struct npud_session *s);
int npud_wait(struct npud_session **sessions, unsigned int count);

/* npud_fuse.c, npud_cuse.c: 0 on a clean shutdown, else non-zero. */
int npud_fuse_run(const struct npud_options *opts);
int npud_cuse_run(const struct npud_options *opts);

#endif /* NPUD_H */
