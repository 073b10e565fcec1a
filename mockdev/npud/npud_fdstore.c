// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npud under a service manager that holds its FUSE connection.
 *
 * A sandboxed service (ProtectSystem=, PrivateTmp=, PrivateDevices=, ...)
 * runs in a mount namespace of its own whose mounts do not reach the host,
 * so an npud that mounted DIR itself there would serve nobody. Instead the
 * unit (packaging/systemd/npud.service.in) splits the work in three:
 *
 *   ExecStartPre=+npud --fuse DIR --mount-only
 *	outside the sandbox: claim DIR as npud_fuse_claim() does, open
 *	/dev/fuse, mount(2) it on DIR, check that the mount propagates
 *	(--require-shared refuses if not), and hand the descriptor to the
 *	manager's file descriptor store (sd_notify FDSTORE=1 with
 *	FDNAME=npud-fuse), after removing any descriptor an earlier run left
 *	there (FDSTOREREMOVE=1), so that the store never holds two;
 *   ExecStart=npud --fuse DIR
 *	sandboxed: the manager passes the stored descriptor ($LISTEN_FDS,
 *	$LISTEN_FDNAMES); npud serves it through libfuse's /dev/fd/N mount
 *	point, so it neither mounts nor unmounts and keeps no CAP_SYS_ADMIN;
 *   ExecStopPost=+npud --fuse DIR --unmount
 *	outside the sandbox: take the descriptor out of the store, abort the
 *	connection (/sys/fs/fuse/connections/N/abort, where fusectl is
 *	mounted) and detach the mount, without ever looking DIR up: a file
 *	system whose server is gone would not answer. While the store still
 *	held the connection, a request that a killed npud had taken would
 *	otherwise wait for ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#include "npud.h"

#define NPUD_FDNAME		"npud-fuse"
#define NPUD_FUSE_MAJOR		10	/* /dev/fuse is misc 10:229 */
#define NPUD_FUSE_MINOR		229
#define NPUD_UNMOUNT_MAX	16	/* stacked npud mounts removed at most */

/*
 * Send @state to $NOTIFY_SOCKET, with @fd attached when it is not -1.
 * Return: 0, or -errno (-ENOTCONN when there is no manager to tell).
 */
static int npud_notify_with_fd(const char *state, int fd)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	struct iovec iov = { .iov_base = (void *)state, .iov_len = strlen(state) };
	struct msghdr msg = { .msg_name = &sa, .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cmsg;
	size_t len;
	int sock, ret = 0;

	if (!path || (path[0] != '/' && path[0] != '@'))
		return -ENOTCONN;
	len = strlen(path);
	if (len >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, len);
	if (sa.sun_path[0] == '@')
		sa.sun_path[0] = '\0';
	msg.msg_namelen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	if (fd >= 0) {
		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sock < 0)
		return -errno;
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		ret = -errno;
	close(sock);
	return ret;
}

static bool npud_is_dev_fuse(int fd)
{
	struct stat st;

	return !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	       st.st_rdev == makedev(NPUD_FUSE_MAJOR, NPUD_FUSE_MINOR);
}

/**
 * npud_fdstore_listen_fd() - the FUSE connection the manager passed us
 *
 * Looks for a descriptor named npud-fuse in $LISTEN_FDS/$LISTEN_FDNAMES,
 * meant for this process ($LISTEN_PID), and takes the variables out of the
 * environment so that nothing npud starts inherits them.
 *
 * Return: the descriptor; -ENOENT when none was passed; -EBADF when the
 * one named is not /dev/fuse; -EINVAL for malformed variables.
 */
int npud_fdstore_listen_fd(void)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	const char *names = getenv("LISTEN_FDNAMES");
	const char *p, *end;
	unsigned long n, i;
	char *tail;
	int fd = -ENOENT;

	if (!pid || !fds)
		return -ENOENT;
	errno = 0;
	if (strtoul(pid, &tail, 10) != (unsigned long)getpid() || *tail || errno)
		return -ENOENT;		/* meant for another process */
	n = strtoul(fds, &tail, 10);
	if (*fds < '0' || *fds > '9' || *tail || errno || n > 64)
		return -EINVAL;
	/* Without names, a single descriptor is taken to be ours. */
	if (!names) {
		if (n == 1)
			fd = 3;
	} else {
		for (i = 0, p = names; i < n && *p; i++, p = *end ? end + 1 : end) {
			end = strchrnul(p, ':');
			if ((size_t)(end - p) == strlen(NPUD_FDNAME) &&
			    !strncmp(p, NPUD_FDNAME, (size_t)(end - p))) {
				fd = 3 + (int)i;
				break;
			}
		}
	}
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (fd < 0)
		return fd;
	if (!npud_is_dev_fuse(fd))
		return -EBADF;
	if (fcntl(fd, F_SETFD, FD_CLOEXEC))
		return -errno;
	return fd;
}

/**
 * npud_fdstore_mount() - --mount-only: mount DIR and store the connection
 * @opts: parsed options; opts->fuse_dir is set
 *
 * Return: the exit status.
 */
int npud_fdstore_mount(const struct npud_options *opts)
{
	const char *dir = opts->fuse_dir;
	char data[128];
	int lock, fd, ret;

	/* Without a manager to hold it, the connection would die with us. */
	if (!getenv("NOTIFY_SOCKET")) {
		fprintf(stderr, "npud: --mount-only hands the FUSE connection to a service "
				"manager, and $NOTIFY_SOCKET names none (run npud --fuse %s "
				"instead)\n", dir);
		return 1;
	}
	lock = npud_fuse_claim(dir);
	if (lock < 0)
		return 1;
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "npud: cannot open /dev/fuse: %s\n", strerror(errno));
		close(lock);
		return 1;
	}
	/* What libfuse's own mount passes, for a root-owned directory tree. */
	snprintf(data, sizeof(data), "fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other",
		 fd);
	if (mount("npud", dir, "fuse.npud", MS_NOSUID | MS_NODEV | MS_NOEXEC, data)) {
		fprintf(stderr, "npud: cannot mount %s: %s\n", dir, strerror(errno));
		goto fail;
	}
	if (npud_fuse_check_shared(opts)) {
		umount2(dir, MNT_DETACH);
		goto fail;
	}
	ret = npud_notify_with_fd("FDSTOREREMOVE=1\nFDNAME=" NPUD_FDNAME, -1);
	if (!ret)
		ret = npud_notify_with_fd("FDSTORE=1\nFDNAME=" NPUD_FDNAME, fd);
	if (ret) {
		fprintf(stderr, "npud: cannot hand the connection to the service manager: %s\n",
			strerror(-ret));
		umount2(dir, MNT_DETACH);
		goto fail;
	}
	npud_log(NPUD_LOG_INFO, "npud: mounted %s; the service manager holds its connection\n",
		 dir);
	close(fd);
	close(lock);
	return 0;
fail:
	close(fd);
	close(lock);
	return 1;
}

/* Abort the FUSE connection whose device minor is @minor, if fusectl is there. */
static void npud_fuse_abort(unsigned int minor)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/sys/fs/fuse/connections/%u/abort", minor);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) != 1)
		npud_log(NPUD_LOG_WARNING, "npud: cannot abort FUSE connection %u: %s\n",
			 minor, strerror(errno));
	close(fd);
}

/**
 * npud_fdstore_unmount() - --unmount: drop the stored connection and the mount
 * @opts: parsed options; opts->fuse_dir is set
 *
 * DIR is named only to the mount table and to umount2(), never looked up,
 * so this finishes whatever state the connection is in.
 *
 * Return: the exit status: 0 when no npud mount is left at DIR.
 */
int npud_fdstore_unmount(const struct npud_options *opts)
{
	const char *dir = opts->fuse_dir;
	unsigned int minor, round;
	int ret;

	ret = npud_notify_with_fd("FDSTOREREMOVE=1\nFDNAME=" NPUD_FDNAME, -1);
	if (ret && ret != -ENOTCONN)
		npud_log(NPUD_LOG_WARNING, "npud: cannot tell the service manager to drop "
			 "the connection: %s\n", strerror(-ret));
	for (round = 0; round < NPUD_UNMOUNT_MAX; round++) {
		if (!npud_fuse_mount_minor(dir, &minor))
			return 0;
		npud_fuse_abort(minor);
		if (umount2(dir, MNT_DETACH)) {
			fprintf(stderr, "npud: cannot unmount %s: %s\n", dir, strerror(errno));
			return 1;
		}
		npud_log(NPUD_LOG_INFO, "npud: unmounted %s\n", dir);
	}
	fprintf(stderr, "npud: more than %d npud mounts at %s\n", NPUD_UNMOUNT_MAX, dir);
	return 1;
}
