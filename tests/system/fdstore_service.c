// SPDX-License-Identifier: MIT
/*
 * fdstore_service NPUD DIR: npud as packaging/systemd/npud.service runs it,
 * with this program playing systemd's part:
 *  - `npud --fuse DIR --mount-only` (ExecStartPre=+) mounts DIR and hands
 *    the /dev/fuse descriptor to the file descriptor store of
 *    $NOTIFY_SOCKET, having first asked to remove any earlier one;
 *  - npud (ExecStart=) gets it as $LISTEN_FDS, in a mount namespace of its
 *    own and without CAP_SYS_ADMIN in its bounding set, as the unit's
 *    sandbox leaves it, and serves DIR to this process on the host;
 *  - `npud --fuse DIR --unmount` (ExecStopPost=+) removes the descriptor
 *    from the store and the mount, also after a kill -9, where a client
 *    must then fail at once instead of waiting for ever.
 * Needs root and /dev/fuse: skipped (77) without them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include <cmocka.h>

#include <npu/npu_uapi.h>

static const char *npud_bin, *mnt_dir;
static struct sockaddr_un notify_addr = { .sun_family = AF_UNIX };
static int notify_sock = -1;
static char notify_dir[] = "/tmp/npud-fdstore-XXXXXX";

/* The store: the descriptor npud-fuse, as systemd would hold it. */
static int stored_fd = -1;

/*
 * The next datagram within @ms into @buf, with a passed descriptor in
 * *@fd (-1 if none). Return: whether one came.
 */
static bool receive(char *buf, size_t len, int *fd, int ms)
{
	union {
		struct cmsghdr align;
		/* SO_PASSCRED adds the sender's credentials before the descriptors. */
		char buf[CMSG_SPACE(sizeof(struct ucred)) + CMSG_SPACE(sizeof(int) * 4)];
	} control;
	struct iovec iov = { .iov_base = buf, .iov_len = len - 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = control.buf, .msg_controllen = sizeof(control.buf) };
	struct pollfd p = { .fd = notify_sock, .events = POLLIN };
	struct cmsghdr *cmsg;
	ssize_t n;

	*fd = -1;
	if (poll(&p, 1, ms) != 1)
		return false;
	n = recvmsg(notify_sock, &msg, MSG_CMSG_CLOEXEC);
	if (n < 0 || (msg.msg_flags & MSG_CTRUNC))
		return false;
	buf[n] = '\0';
	for (cmsg = CMSG_FIRSTHDR(&msg); cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg))
		if (cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS)
			memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	return true;
}

/* Receive one message, as systemd acts on it: the store adds or drops npud-fuse. */
static void expect_message(const char *want, int ms)
{
	char buf[256];
	int fd;

	assert_true(receive(buf, sizeof(buf), &fd, ms));
	print_message("manager got: %s%s\n", buf, fd >= 0 ? " (with a descriptor)" : "");
	assert_string_equal(buf, want);
	if (!strncmp(want, "FDSTOREREMOVE=1", 15)) {
		assert_int_equal(fd, -1);
		if (stored_fd >= 0)
			close(stored_fd);
		stored_fd = -1;
	} else if (!strncmp(want, "FDSTORE=1", 9)) {
		struct stat st;

		assert_true(fd >= 0);
		assert_int_equal(fstat(fd, &st), 0);
		assert_true(S_ISCHR(st.st_mode));
		assert_true(st.st_rdev == makedev(10, 229));
		assert_int_equal(stored_fd, -1);
		stored_fd = fd;
	} else if (fd >= 0) {
		close(fd);
	}
}

/* Whether an npud FUSE file system is mounted at @dir (never looked up). */
static bool mounted(const char *dir)
{
	char line[PATH_MAX * 2], mnt[PATH_MAX];
	bool found = false;
	FILE *f = fopen("/proc/self/mountinfo", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) == 1 && sep &&
		    !strcmp(mnt, dir) && !strncmp(sep + 3, "fuse.npud ", 10))
			found = true;
	}
	fclose(f);
	return found;
}

/* Run `npud --fuse @dir @step` to its end; with @notify, under our manager. */
static int run_step_at(const char *dir, const char *step, bool notify, int ms)
{
	int status, waited = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		if (notify)
			setenv("NOTIFY_SOCKET", notify_addr.sun_path, 1);
		else
			unsetenv("NOTIFY_SOCKET");
		execl(npud_bin, "npud", "--fuse", dir, step, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (waited >= ms) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("npud %s did not end within %d ms", step, ms);
		}
		usleep(10000);
		waited += 10;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int run_step(const char *step, bool notify, int ms)
{
	return run_step_at(mnt_dir, step, notify, ms);
}

/*
 * Start npud as the unit's ExecStart: the stored descriptor as fd 3,
 * $LISTEN_*, a mount namespace of its own whose mounts do not reach ours,
 * and no CAP_SYS_ADMIN in the bounding set.
 */
static pid_t start_served(void)
{
	char buf[256];
	int fd;
	pid_t pid;

	assert_true(stored_fd >= 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char pidbuf[16];

		if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) ||
		    prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0))
			_exit(126);
		if (dup2(stored_fd, 3) != 3)
			_exit(126);
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)getpid());
		setenv("LISTEN_PID", pidbuf, 1);
		setenv("LISTEN_FDS", "1", 1);
		setenv("LISTEN_FDNAMES", "npud-fuse", 1);
		setenv("NOTIFY_SOCKET", notify_addr.sun_path, 1);
		execl(npud_bin, "npud", "--fuse", mnt_dir, "--devices", "1", "--hbm-size", "64M",
		      (char *)NULL);
		_exit(127);
	}
	assert_true(receive(buf, sizeof(buf), &fd, 20000));
	assert_int_equal(fd, -1);
	assert_string_equal(buf, "READY=1");
	return pid;
}

/* An ioctl every device answers; -errno on failure. */
static int get_version(int fd)
{
	struct npu_version v;

	memset(&v, 0, sizeof(v));
	if (ioctl(fd, NPU_IOCTL_GET_VERSION, &v))
		return -errno;
	return v.abi_major == NPU_ABI_VERSION_MAJOR && v.device_count == 1 ? 0 : -EPROTO;
}

/* The effective capabilities of @pid, from /proc. */
static uint64_t cap_eff(pid_t pid)
{
	char path[64], line[256];
	unsigned long long caps = ~0ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

static void test_mount_only_needs_a_manager(void **state)
{
	(void)state;
	/* The connection would die with the step: refused, nothing mounted. */
	assert_int_equal(run_step("--mount-only", false, 10000), 1);
	assert_false(mounted(mnt_dir));
	/* --unmount takes an absolute path only (usage error): it never resolves one. */
	assert_int_equal(run_step_at("relative/dir", "--unmount", true, 10000), 2);
	/* Nothing mounted: nothing to do, and no message for the manager either way. */
	assert_int_equal(run_step("--unmount", false, 10000), 0);
}

static void test_served_from_the_store(void **state)
{
	char path[PATH_MAX];
	int status, fd;
	pid_t pid;

	(void)state;
	assert_int_equal(run_step("--mount-only", true, 10000), 0);
	expect_message("FDSTOREREMOVE=1\nFDNAME=npud-fuse", 1000);
	expect_message("FDSTORE=1\nFDNAME=npud-fuse", 1000);
	assert_true(mounted(mnt_dir));

	pid = start_served();
	snprintf(path, sizeof(path), "%s/npu0", mnt_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(get_version(fd), 0);
	close(fd);
	/* Serving a passed connection, npud keeps no CAP_SYS_ADMIN. */
	assert_int_equal(cap_eff(pid) & (1ULL << CAP_SYS_ADMIN), 0);

	kill(pid, SIGTERM);
	expect_message("STOPPING=1", 5000);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* npud leaves the mount to the manager's stop step. */
	assert_true(mounted(mnt_dir));
	assert_int_equal(run_step("--unmount", true, 10000), 0);
	expect_message("FDSTOREREMOVE=1\nFDNAME=npud-fuse", 1000);
	assert_false(mounted(mnt_dir));
	/* Nothing left to do: the step is idempotent. */
	assert_int_equal(run_step("--unmount", false, 10000), 0);
}

/* One byte from @fd within @ms, or 0. */
static char read_byte(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	char c = 0;

	if (poll(&p, 1, ms) != 1 || read(fd, &c, 1) != 1)
		return 0;
	return c;
}

/*
 * A client process: opens the device and calls it ('o' on @report), waits
 * for a byte on @go, calls again and reports 'y' if that failed with
 * ENOTCONN. It alone holds the file: a process that closed it while npud
 * is dead and the store still holds the connection would wait in FLUSH
 * until the stop step, so neither this program nor the steps it starts may
 * have it open.
 */
static pid_t start_client(int report, int go)
{
	char path[PATH_MAX];
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char c;
		int fd;

		/* Only the manager holds the stored connection (fork copied it). */
		close(stored_fd);
		snprintf(path, sizeof(path), "%s/npu0", mnt_dir);
		fd = open(path, O_RDWR | O_CLOEXEC);
		c = fd >= 0 && get_version(fd) == 0 ? 'o' : 'x';
		if (write(report, &c, 1) != 1 || read(go, &c, 1) != 1)
			_exit(1);
		c = get_version(fd) == -ENOTCONN ? 'y' : 'n';
		if (write(report, &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	return pid;
}

static void test_stop_step_after_kill_fails_clients_at_once(void **state)
{
	int status, report[2], go[2];
	pid_t pid, client;
	char verdict;

	(void)state;
	assert_int_equal(run_step("--mount-only", true, 10000), 0);
	expect_message("FDSTOREREMOVE=1\nFDNAME=npud-fuse", 1000);
	expect_message("FDSTORE=1\nFDNAME=npud-fuse", 1000);
	pid = start_served();
	assert_int_equal(pipe2(report, O_CLOEXEC), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	client = start_client(report[1], go[0]);
	close(report[1]);
	close(go[0]);
	assert_int_equal(read_byte(report[0], 10000), 'o');

	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	/* The store still holds the connection: the stop step must end it. */
	assert_int_equal(run_step("--unmount", true, 10000), 0);
	expect_message("FDSTOREREMOVE=1\nFDNAME=npud-fuse", 1000);
	assert_false(mounted(mnt_dir));

	/* The client's next call fails at once instead of waiting for ever. */
	assert_int_equal(write(go[1], "g", 1), 1);
	verdict = read_byte(report[0], 10000);
	if (!verdict)
		kill(client, SIGKILL);
	assert_int_equal(waitpid(client, &status, 0), client);
	close(report[0]);
	close(go[1]);
	assert_int_equal(verdict, 'y');
}

static int setup(void **state)
{
	(void)state;
	assert_true(mkdtemp(notify_dir) != NULL);
	snprintf(notify_addr.sun_path, sizeof(notify_addr.sun_path), "%s/notify", notify_dir);
	notify_sock = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (notify_sock < 0 ||
	    bind(notify_sock, (struct sockaddr *)&notify_addr, sizeof(notify_addr)))
		return -1;
	/* systemd accepts descriptors only from a socket that passes credentials. */
	return setsockopt(notify_sock, SOL_SOCKET, SO_PASSCRED, &(int){ 1 }, sizeof(int));
}

static int teardown(void **state)
{
	(void)state;
	if (mounted(mnt_dir))
		run_step("--unmount", false, 10000);
	if (stored_fd >= 0)
		close(stored_fd);
	close(notify_sock);
	unlink(notify_addr.sun_path);
	rmdir(notify_dir);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mount_only_needs_a_manager),
		cmocka_unit_test(test_served_from_the_store),
		cmocka_unit_test(test_stop_step_after_kill_fails_clients_at_once),
	};
	static char dir[PATH_MAX];

	if (argc != 3) {
		fprintf(stderr, "usage: fdstore_service NPUD DIR\n");
		return 2;
	}
	if (geteuid() != 0 || access("/dev/fuse", R_OK | W_OK)) {
		printf("skipped: needs root and /dev/fuse\n");
		return 77;
	}
	npud_bin = argv[1];
	/* The mount table spells DIR absolute and resolved. */
	if (mkdir(argv[2], 0755) && errno != EEXIST)
		return perror(argv[2]), 1;
	if (!realpath(argv[2], dir))
		return perror(argv[2]), 1;
	mnt_dir = dir;
	return cmocka_run_group_tests(tests, setup, teardown);
}
