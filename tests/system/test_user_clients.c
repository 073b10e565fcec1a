// SPDX-License-Identifier: MIT
/*
 * npud spends descriptors on every client process (a pidfd and the two
 * files that bind its address space), from one table that all users
 * share. Its --limit-user-clients caps how many client processes one user
 * may have, so that one user's processes cannot make npud refuse everybody
 * else's opens with EMFILE.
 *
 * Against an npud started with --limit-user-clients 2 (fixture
 * npud_clients, NPU_CLIENTS_DEVICE): two processes of nobody hold files; a
 * third is refused with EUSERS, while a second file of a holder, and root,
 * are served; when a holder exits, the third gets in. A process that
 * exec'd is a new client, and the file its old image left open keeps the
 * old one charged until it is closed.
 *
 * Needs root (it becomes nobody).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#define NOBODY		65534
#define USER_CLIENTS	2	/* the fixture's --limit-user-clients */
#define SETTLE_MS	5000	/* FUSE sends RELEASE after the last close, asynchronously */

static const char *device(void)
{
	return getenv("NPU_CLIENTS_DEVICE");
}

static int become_nobody(void)
{
	return setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY) ? -1 : 0;
}

/* open() of the device: the fd, or -errno. */
static int open_device(int flags)
{
	int fd = open(device(), O_RDWR | flags);

	return fd < 0 ? -errno : fd;
}

/*
 * open_device() until it is not refused for the cap, or SETTLE_MS pass:
 * processes that closed their files a moment ago stay charged until npud
 * has their RELEASE, which the kernel sends after the close returned.
 */
static int open_until_served(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int fd, waited;

	for (waited = 0;; waited += 20) {
		fd = open_device(O_CLOEXEC);
		if (fd != -EUSERS || waited >= SETTLE_MS)
			return fd;
		nanosleep(&ts, NULL);
	}
}

/* In a child: close every descriptor above 2 but @a and @b (other children's pipes). */
static void close_others(int a, int b)
{
	int fd;

	for (fd = 3; fd < 1024; fd++) {
		if (fd != a && fd != b)
			close(fd);
	}
}

/*
 * A process of nobody that opens the device (twice, with @second) and
 * reports the results on a pipe, then holds its files until its stdin
 * pipe closes.
 */
struct holder {
	pid_t pid;
	int go;		/* write end: close to let it exit */
	int report[2];	/* its open() results */
};

static void holder_start(struct holder *h, bool second)
{
	int to[2], from[2];

	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	h->pid = fork();
	assert_true(h->pid >= 0);
	if (h->pid == 0) {
		int r[2] = { -EPERM, -EPERM };
		char c;

		close_others(to[0], from[1]);
		if (!become_nobody()) {
			r[0] = open_until_served();
			r[1] = second && r[0] >= 0 ? open_device(O_CLOEXEC) : 0;
		}
		if (write(from[1], r, sizeof(r)) != (ssize_t)sizeof(r))
			_exit(1);
		while (read(to[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(to[0]);
	close(from[1]);
	h->go = to[1];
	assert_int_equal(read(from[0], h->report, sizeof(h->report)), sizeof(h->report));
	close(from[0]);
}

static void holder_stop(struct holder *h)
{
	int status;

	close(h->go);
	assert_int_equal(waitpid(h->pid, &status, 0), h->pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* One process of nobody opens and closes the device: the open's result. */
static int nobody_try_open(void)
{
	int p[2], r = -EPERM, status;
	pid_t pid;

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (!become_nobody()) {
			r = open_device(O_CLOEXEC);
			if (r >= 0) {
				close(r);
				r = 0;
			}
		}
		_exit(write(p[1], &r, sizeof(r)) == (ssize_t)sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	assert_int_equal(read(p[0], &r, sizeof(r)), sizeof(r));
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	return r;
}

/* nobody_try_open() until it succeeds or SETTLE_MS pass: its last result. */
static int nobody_open_eventually(void)
{
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	int r, waited;

	for (waited = 0;; waited += 20) {
		r = nobody_try_open();
		if (r == 0 || waited >= SETTLE_MS)
			return r;
		nanosleep(&ts, NULL);
	}
}

static void test_a_user_past_its_client_processes_is_refused(void **state)
{
	struct holder h[USER_CLIENTS];
	int i, root_fd;

	(void)state;
	/* Whatever an earlier case left is released first. */
	assert_int_equal(nobody_open_eventually(), 0);
	for (i = 0; i < USER_CLIENTS; i++) {
		holder_start(&h[i], i == 0);
		assert_true(h[i].report[0] >= 0);
	}
	/* A second file of a process that holds one costs npud nothing more. */
	assert_true(h[0].report[1] >= 0);

	/* A third process of the same user is refused... */
	assert_int_equal(nobody_try_open(), -EUSERS);
	/* ...another user is not. */
	root_fd = open_device(O_CLOEXEC);
	assert_true(root_fd >= 0);
	close(root_fd);

	/* A holder exits: its charge is given back once npud releases its files. */
	holder_stop(&h[0]);
	assert_int_equal(nobody_open_eventually(), 0);
	holder_stop(&h[1]);
}

/*
 * The exec'd image: opens the device again (as open_until_served()), says
 * so on fd 5, waits for a
 * byte on fd 6, closes fd 3 (the old image's file), says so, and waits for
 * fd 6 to close.
 */
static const char exec_script[] =
	"i=0; until command exec 4<>\"$1\"; do i=$((i + 1)); [ $i -lt 100 ] || exit 1; "
	"sleep 0.05; done 2>/dev/null; echo opened >&5; read x <&6; "
	"exec 3>&-; echo closed >&5; read x <&6; exit 0";

static void expect_line(int fd, const char *want)
{
	char buf[32];
	size_t n = 0;

	while (n < sizeof(buf) - 1 && read(fd, buf + n, 1) == 1 && buf[n] != '\n')
		n++;
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

static void test_an_exec_is_a_new_client_and_the_old_file_stays_charged(void **state)
{
	int to[2], from[2], status;
	pid_t pid;

	(void)state;
	assert_int_equal(nobody_open_eventually(), 0);
	/* Only the dup2() copies (3, 5, 6) reach the shell. */
	assert_int_equal(pipe2(to, O_CLOEXEC), 0);
	assert_int_equal(pipe2(from, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd, dev, out, in;

		if (become_nobody())
			_exit(2);
		fd = open_device(O_CLOEXEC); /* its copy 3 is kept across the exec */
		/*
		 * Out of the way first: any of them may be 3, 5 or 6 already,
		 * and dup2() onto itself would keep O_CLOEXEC.
		 */
		dev = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 100);
		out = fcntl(from[1], F_DUPFD_CLOEXEC, 100);
		in = fcntl(to[0], F_DUPFD_CLOEXEC, 100);
		if (dev < 0 || out < 0 || in < 0 || dup2(dev, 3) < 0 || dup2(out, 5) < 0 ||
		    dup2(in, 6) < 0)
			_exit(3);
		execl("/bin/sh", "sh", "-c", exec_script, "sh", device(), (char *)NULL);
		_exit(4);
	}
	close(to[0]);
	close(from[1]);
	/* The old image's task and the new one's: both of nobody's clients. */
	expect_line(from[0], "opened");
	assert_int_equal(nobody_try_open(), -EUSERS);

	/* The old image's file closed: its client is given back. */
	assert_int_equal(write(to[1], "x\n", 2), 2);
	expect_line(from[0], "closed");
	assert_int_equal(nobody_open_eventually(), 0);

	close(to[1]);
	close(from[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test_user_clients needs root (it becomes nobody)\n");
		return -1;
	}
	if (!device() || !*device()) {
		fprintf(stderr, "NPU_CLIENTS_DEVICE is not set\n");
		return -1;
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_user_past_its_client_processes_is_refused),
		cmocka_unit_test(test_an_exec_is_a_new_client_and_the_old_file_stays_charged),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
