// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npud --fuse DIR: a FUSE file system with one regular file per device,
 * DIR/npu0 .. DIR/npu{N-1}, that takes restricted ioctls. Nothing else
 * about the files means anything: no read, write or mmap.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include "npud.h"

#define NPUD_INO_FIRST	2	/* inode of npu0; 1 is the root */
#define NPUD_TTL	3600.0	/* the tree never changes */

struct npud_fuse {
	unsigned int devices;
	time_t start;
};

static bool npud_fuse_dev(const struct npud_fuse *fs, fuse_ino_t ino,
			  unsigned int *index)
{
	if (ino < NPUD_INO_FIRST || ino >= NPUD_INO_FIRST + fs->devices)
		return false;
	*index = (unsigned int)(ino - NPUD_INO_FIRST);
	return true;
}

static int npud_fuse_stat(const struct npud_fuse *fs, fuse_ino_t ino,
			  struct stat *st)
{
	unsigned int index;

	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_atime = st->st_mtime = st->st_ctime = fs->start;
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
		return 0;
	}
	if (!npud_fuse_dev(fs, ino, &index))
		return -ENOENT;
	st->st_mode = S_IFREG | 0666;
	st->st_nlink = 1;
	return 0;
}

/*
 * The device a name means: exactly "npu" and the decimal index of a device
 * that exists, without a sign, spaces or leading zeros, so that no other
 * spelling ("npu00", "npu+1", "npu4294967296") reaches a device.
 */
static bool npud_fuse_parse_name(const char *name, unsigned int devices,
				 unsigned int *index)
{
	unsigned long v = 0;
	const char *p = name + 3;

	if (strncmp(name, "npu", 3) != 0 || !*p || (*p == '0' && p[1]))
		return false;
	for (; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
		/* Checked per digit: v stays below devices, so it cannot wrap. */
		if (v >= devices)
			return false;
	}
	*index = (unsigned int)v;
	return true;
}

static void npud_fuse_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	const struct npud_fuse *fs = fuse_req_userdata(req);
	struct fuse_entry_param e;
	unsigned int index;

	if (parent != FUSE_ROOT_ID || !npud_fuse_parse_name(name, fs->devices, &index)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = NPUD_INO_FIRST + index;
	e.attr_timeout = NPUD_TTL;
	e.entry_timeout = NPUD_TTL;
	npud_fuse_stat(fs, e.ino, &e.attr);
	fuse_reply_entry(req, &e);
}

static void npud_fuse_getattr(fuse_req_t req, fuse_ino_t ino,
			      struct fuse_file_info *fi)
{
	const struct npud_fuse *fs = fuse_req_userdata(req);
	struct stat st;
	int ret;

	(void)fi;
	ret = npud_fuse_stat(fs, ino, &st);
	if (ret)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_attr(req, &st, NPUD_TTL);
}

static void npud_fuse_readdir(fuse_req_t req, fuse_ino_t ino, size_t size,
			      off_t off, struct fuse_file_info *fi)
{
	const struct npud_fuse *fs = fuse_req_userdata(req);
	unsigned int entries = fs->devices + 2, i;
	char *buf, name[16];
	size_t used = 0, len;
	struct stat st;

	(void)fi;
	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	/* Entry i is ".", "..", then npu{i-2}; its offset cookie is i + 1. */
	for (i = (unsigned int)off; i < entries; i++) {
		memset(&st, 0, sizeof(st));
		if (i < 2) {
			snprintf(name, sizeof(name), "%s", i ? ".." : ".");
			st.st_ino = FUSE_ROOT_ID;
			st.st_mode = S_IFDIR;
		} else {
			snprintf(name, sizeof(name), "npu%u", i - 2);
			st.st_ino = NPUD_INO_FIRST + i - 2;
			st.st_mode = S_IFREG;
		}
		len = fuse_add_direntry(req, buf + used, size - used, name, &st, i + 1);
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

static void npud_fuse_open(fuse_req_t req, fuse_ino_t ino,
			   struct fuse_file_info *fi)
{
	const struct npud_fuse *fs = fuse_req_userdata(req);
	struct npud_client *client;
	unsigned int index;
	int ret;

	if (ino == FUSE_ROOT_ID) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if (!npud_fuse_dev(fs, ino, &index)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	ret = npud_client_open(index, fuse_req_ctx(req)->pid, fuse_req_ctx(req)->uid, &client);
	if (ret) {
		fuse_reply_err(req, -ret);
		return;
	}
	fi->fh = (uintptr_t)client;
	fi->direct_io = 1;
	fi->nonseekable = 1;
	if (fuse_reply_open(req, fi) == -ENOENT) {
		/* The opener was interrupted and is gone: no RELEASE will come. */
		npud_client_release(client);
	}
}

static void npud_fuse_release(fuse_req_t req, fuse_ino_t ino,
			      struct fuse_file_info *fi)
{
	(void)ino;
	npud_client_release((struct npud_client *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}

static void npud_fuse_ioctl(fuse_req_t req, fuse_ino_t ino, unsigned int cmd,
			    void *arg, struct fuse_file_info *fi, unsigned int flags,
			    const void *in_buf, size_t in_bufsz, size_t out_bufsz)
{
	(void)ino;
	npud_client_ioctl(req, (struct npud_client *)(uintptr_t)fi->fh, cmd, arg,
			  flags, in_buf, in_bufsz, out_bufsz);
}

static const struct fuse_lowlevel_ops npud_fuse_ops = {
	.lookup = npud_fuse_lookup,
	.getattr = npud_fuse_getattr,
	.readdir = npud_fuse_readdir,
	.open = npud_fuse_open,
	.release = npud_fuse_release,
	.ioctl = npud_fuse_ioctl,
};

/* Mount points in /proc/self/mountinfo escape these characters as \ooo. */
static void npud_unescape(char *s)
{
	char *d = s;

	while (*s) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else {
			*d++ = *s++;
		}
	}
	*d = '\0';
}

/**
 * npud_fuse_mount_minor() - find an npud FUSE file system mounted at @path
 * @path: an absolute path, as the mount table spells it
 * @minor: set to the device minor of the topmost such mount, which is its
 *	FUSE connection's number in /sys/fs/fuse/connections
 *
 * Reads only /proc/self/mountinfo: @path itself is never looked up.
 *
 * Return: whether one is mounted there.
 */
bool npud_fuse_mount_minor(const char *path, unsigned int *minor)
{
	char line[PATH_MAX * 2], mnt[PATH_MAX], *sep;
	unsigned int maj, min;
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		/* id parent major:minor root mount-point options ... - fstype ... */
		if (sscanf(line, "%*s %*s %u:%u %*s %4095s", &maj, &min, mnt) != 3)
			continue;
		sep = strstr(line, " - ");
		npud_unescape(mnt);
		if (sep && !strcmp(mnt, path) && !strncmp(sep + 3, "fuse.npud ", 10)) {
			/* Later lines are mounted on top of earlier ones. */
			*minor = min;
			found = true;
		}
	}
	fclose(f);
	return found;
}

/*
 * Whether the mount at @path takes part in mount propagation: its line of
 * /proc/self/mountinfo has a "shared:N" optional field. Without one,
 * nothing mounted here is seen outside npud's own mount namespace: in a
 * container, neither the host nor other containers see the device files.
 */
static bool npud_fuse_shared(const char *path)
{
	char line[PATH_MAX * 2], mnt[PATH_MAX], *sep, *shared;
	bool found = false, is_shared = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		sep = strstr(line, " - ");
		npud_unescape(mnt);
		if (!sep || strcmp(mnt, path) || strncmp(sep + 3, "fuse.npud ", 10))
			continue;
		/* The last matching line is the mount on top. */
		*sep = '\0';
		shared = strstr(line, " shared:");
		found = true;
		is_shared = shared != NULL;
	}
	fclose(f);
	return found && is_shared;
}

/*
 * After mounting: a mount that does not propagate serves only npud's own
 * mount namespace. Say so, or with --require-shared refuse (-1).
 */
int npud_fuse_check_shared(const struct npud_options *opts)
{
	char path[PATH_MAX];

	if (!realpath(opts->fuse_dir, path) || npud_fuse_shared(path))
		return 0;
	if (opts->require_shared) {
		fprintf(stderr, "npud: --require-shared: the mount at %s does not propagate (it is not "
				"on a shared mount): clients outside this mount namespace would not "
				"see it; share a parent directory (mount --make-rshared, or a bind "
				"mount with bind-propagation=rshared) and serve a subdirectory of it\n",
			opts->fuse_dir);
		return -1;
	}
	npud_log(NPUD_LOG_WARNING,
		 "npud: warning: the mount at %s does not propagate (it is not on a shared mount): "
		 "only this mount namespace sees it; in a container, bind its parent directory "
		 "with rshared propagation\n",
		 opts->fuse_dir);
	return 0;
}

/*
 * Make DIR ready for our mount: an npud that was killed leaves its mount
 * behind ("Transport endpoint is not connected"), which is taken away; a
 * live npud mounted there keeps it, and this one refuses to start. The
 * directory is created if needed and locked (flock) against a second npud
 * starting at the same moment; the lock lives as long as the returned fd.
 *
 * Return: the locked directory's fd, or -1 with the reason on stderr.
 */
int npud_fuse_claim(const char *dir)
{
	char path[PATH_MAX];
	unsigned int minor;
	struct statfs sfs;
	int fd;

	/*
	 * Ask the connection itself: statfs() always goes to the daemon,
	 * while stat() may be answered from the kernel's attribute cache
	 * long after a killed npud's connection is gone.
	 */
	if (statfs(dir, &sfs) && errno == ENOTCONN) {
		if (umount2(dir, MNT_DETACH)) {
			fprintf(stderr, "npud: %s is the mount of an npud that is gone, and it "
					"cannot be unmounted: %s (try fusermount3 -u -z %s)\n",
				dir, strerror(errno), dir);
			return -1;
		}
		npud_log(NPUD_LOG_INFO, "npud: removed the stale mount at %s\n", dir);
	}
	if (mkdir(dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "npud: cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (realpath(dir, path) && npud_fuse_mount_minor(path, &minor)) {
		fprintf(stderr, "npud: another npud serves %s already (stop it first)\n", dir);
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "npud: cannot open %s: %s\n", dir, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "npud: another npud is starting on %s\n", dir);
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * npud_fuse_run() - mount DIR, serve it until a shutdown signal, unmount;
 * or serve the connection a service manager passed (opts->fuse_fd), which
 * the manager mounted and unmounts
 * @opts: parsed options; opts->fuse_dir is set
 *
 * Return: 0 after a clean shutdown, else non-zero.
 */
int npud_fuse_run(const struct npud_options *opts)
{
	char *argv[] = { "npud", "-o", "allow_other,fsname=npud,subtype=npud", NULL };
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct npud_session session = { .name = opts->fuse_dir };
	struct npud_session *sessions[] = { &session };
	struct npud_fuse fs = { .devices = opts->devices, .start = time(NULL) };
	char passed[32];
	bool stopped = true;
	int ret = 1, sig, lock = -1;

	/*
	 * A connection the service manager mounted and passed (npud_fdstore.c)
	 * is served as libfuse's /dev/fd/N mount point: no mount, no unmount.
	 */
	if (opts->fuse_fd >= 0) {
		snprintf(passed, sizeof(passed), "/dev/fd/%d", opts->fuse_fd);
	} else {
		lock = npud_fuse_claim(opts->fuse_dir);
		if (lock < 0)
			return 1;
	}
	session.se = fuse_session_new(&args, &npud_fuse_ops, sizeof(npud_fuse_ops), &fs);
	if (!session.se) {
		fprintf(stderr, "npud: cannot create the FUSE session\n");
		goto out_args;
	}
	if (fuse_session_mount(session.se, opts->fuse_fd >= 0 ? passed : opts->fuse_dir)) {
		fprintf(stderr, "npud: cannot mount %s\n", opts->fuse_dir);
		goto out_destroy;
	}
	/*
	 * A passed connection was mounted, and checked, by the service
	 * manager's mount step in the host's namespace; here, in the service's
	 * own, the mount is only a copy.
	 */
	if (opts->fuse_fd < 0 && npud_fuse_check_shared(opts))
		goto out_unmount;
	/* Mounted: nothing after this needs more than the sandbox leaves. */
	if (npud_sandbox_filter(opts)) {
		fprintf(stderr, "npud: cannot load the system call filter (--no-sandbox "
				"runs without it)\n");
		goto out_unmount;
	}
	if (npud_session_start(&session)) {
		fprintf(stderr, "npud: cannot start the session thread\n");
		goto out_unmount;
	}
	npud_log(NPUD_LOG_INFO, "npud: serving %u device(s), %llu MiB HBM each, at %s\n",
		 opts->devices, opts->hbm_mb, opts->fuse_dir);
	npud_notify("READY=1");

	sig = npud_wait(sessions, 1);
	if (sig)
		npud_log(NPUD_LOG_INFO, "npud: %s, shutting down\n", strsignal(sig));
	npud_stop_begin();
	stopped = npud_session_stop(&session);
	ret = sig ? 0 : 1;

out_unmount:
	fuse_session_unmount(session.se);
	if (!stopped)
		npud_abandon(ret);
	npud_stop_begin();
	npud_release_bounded(ret);
out_destroy:
	fuse_session_destroy(session.se);
out_args:
	fuse_opt_free_args(&args);
	if (lock >= 0)
		close(lock);
	return ret;
}
