// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npud --cuse: one CUSE character device per driver device, /dev/npuN
 * (/dev/NAMEN with --name), each with its own session and thread. Ioctls
 * are restricted (flags 0): every command of the ABI has a fixed-size
 * struct, so the kernel moves the argument itself and no retry round trip
 * is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cuse_lowlevel.h>

#include "npud.h"

#define NPUD_CUSE_PATH		"/dev/cuse"
#define NPUD_NODE_WAIT_MS	10000	/* for the device node to appear */

struct npud_cuse_dev {
	unsigned int index;
	struct npud_session session;
	char name[32];		/* "npuN" */
	char devname[40];	/* "DEVNAME=npuN" */
	char mount[32];		/* "/dev/fd/N": the opened /dev/cuse */
	int fd;
};

static void npud_cuse_open(fuse_req_t req, struct fuse_file_info *fi)
{
	const struct npud_cuse_dev *dev = fuse_req_userdata(req);
	struct npud_client *client;
	int ret;

	ret = npud_client_open(dev->index, fuse_req_ctx(req)->pid, fuse_req_ctx(req)->uid,
			       &client);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fi->fh = (uintptr_t)client;
	fi->direct_io = 1;
	fi->nonseekable = 1;
	if (fuse_reply_open(req, fi) == -ENOENT)
		npud_client_release(client);
}

static void npud_cuse_release(fuse_req_t req, struct fuse_file_info *fi)
{
	npud_client_release((struct npud_client *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

/* libfuse 3.14 passes cmd as int here (unsigned int for FUSE). */
static void npud_cuse_ioctl(fuse_req_t req, int cmd, void *arg,
			    struct fuse_file_info *fi, unsigned int flags,
			    const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	npud_client_ioctl(req, (struct npud_client *)(uintptr_t)fi->fh,
			  (unsigned int)cmd, arg, flags, in_buf, in_bufsz, out_bufsz);
}

static const struct cuse_lowlevel_ops npud_cuse_ops = {
	.open = npud_cuse_open,
	.release = npud_cuse_release,
	.ioctl = npud_cuse_ioctl,
};

static int npud_cuse_dev_init(struct npud_cuse_dev *dev, const char *name,
			      unsigned int index)
{
	char *argv[] = { "npud", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(1, argv);
	const char *info[1];
	struct cuse_info ci;

	dev->index = index;
	dev->fd = -1;
	snprintf(dev->name, sizeof(dev->name), "%s%u", name, index);
	snprintf(dev->devname, sizeof(dev->devname), "DEVNAME=%s", dev->name);
	dev->session.name = dev->name;

	/*
	 * Open /dev/cuse ourselves (instead of cuse_lowlevel_setup()) so that
	 * the failure is explicit and the signal handling stays ours.
	 */
	dev->fd = open(NPUD_CUSE_PATH, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		fprintf(stderr, "npud: cannot open %s (try modprobe cuse): %s\n",
			NPUD_CUSE_PATH, strerror(errno));
		return -1;
	}
	snprintf(dev->mount, sizeof(dev->mount), "/dev/fd/%d", dev->fd);

	memset(&ci, 0, sizeof(ci));
	info[0] = dev->devname;
	ci.dev_info_argc = 1;
	ci.dev_info_argv = info;
	ci.flags = 0;	/* restricted ioctls */
	dev->session.se = cuse_lowlevel_new(&args, &ci, &npud_cuse_ops, dev);
	fuse_opt_free_args(&args);
	if (!dev->session.se) {
		fprintf(stderr, "npud: %s: cannot create the CUSE session\n", dev->name);
		goto err_close;
	}
	/* A "/dev/fd/N" mount point makes libfuse use that descriptor. */
	if (fuse_session_mount(dev->session.se, dev->mount)) {
		fprintf(stderr, "npud: %s: cannot attach %s\n", dev->name, NPUD_CUSE_PATH);
		goto err_destroy;
	}
	return 0;

err_destroy:
	fuse_session_destroy(dev->session.se);
	dev->session.se = NULL;
err_close:
	close(dev->fd);
	dev->fd = -1;
	return -1;
}

/* The session owns the descriptor once attached, and closes it. */
static void npud_cuse_dev_fini(struct npud_cuse_dev *dev)
{
	if (dev->session.se)
		fuse_session_destroy(dev->session.se);
	else if (dev->fd >= 0)
		close(dev->fd);
}

/* CUSE nodes appear root-only (0600); open them up as --mode asks. */
static void npud_cuse_chmod(const struct npud_cuse_dev *dev, unsigned int count,
			    mode_t mode)
{
	char path[48];
	unsigned int i;
	int waited;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "/dev/%s", dev[i].name);
		for (waited = 0; access(path, F_OK) && waited < NPUD_NODE_WAIT_MS; waited += 20)
			usleep(20 * 1000);
		if (chmod(path, mode))
			fprintf(stderr, "npud: cannot chmod %s: %s\n", path, strerror(errno));
	}
}

/**
 * npud_cuse_run() - create /dev/npu0.. (or --name's) and serve them until a shutdown signal
 * @opts: parsed options
 *
 * Return: 0 after a clean shutdown, else non-zero.
 */
int npud_cuse_run(const struct npud_options *opts)
{
	struct npud_session **sessions;
	struct npud_cuse_dev *devs;
	bool stopped = true;
	unsigned int i, n;
	int ret = 1, sig;

	devs = calloc(opts->devices, sizeof(*devs));
	sessions = calloc(opts->devices, sizeof(*sessions));
	if (!devs || !sessions) {
		fprintf(stderr, "npud: out of memory\n");
		goto out_free;
	}
	for (n = 0; n < opts->devices; n++) {
		if (npud_cuse_dev_init(&devs[n], opts->name ? opts->name : "npu", n))
			goto out_fini;
	}
	/* Attached: nothing after this needs more than the sandbox leaves. */
	if (npud_sandbox_filter(opts)) {
		fprintf(stderr, "npud: cannot load the system call filter (--no-sandbox "
				"runs without it)\n");
		goto out_fini;
	}
	for (i = 0; i < n; i++) {
		sessions[i] = &devs[i].session;
		if (npud_session_start(&devs[i].session)) {
			fprintf(stderr, "npud: cannot start a session thread\n");
			goto out_stop;
		}
	}
	if (opts->set_mode)
		npud_cuse_chmod(devs, n, opts->mode);
	npud_log(NPUD_LOG_INFO, "npud: serving %u CUSE device(s), %llu MiB HBM each\n", n,
		 opts->hbm_mb);
	npud_notify("READY=1");

	sig = npud_wait(sessions, n);
	if (sig)
		npud_log(NPUD_LOG_INFO, "npud: %s, shutting down\n", strsignal(sig));
	ret = sig ? 0 : 1;

out_stop:
	npud_stop_begin();
	for (i = 0; i < n; i++) {
		if (!npud_session_stop(&devs[i].session))
			stopped = false;
	}
	/* Exiting closes /dev/cuse, which removes the device nodes. */
	if (!stopped)
		npud_abandon(ret);
	npud_release_bounded(ret);
out_fini:
	while (n--)
		npud_cuse_dev_fini(&devs[n]);
out_free:
	free(sessions);
	free(devs);
	return ret;
}
