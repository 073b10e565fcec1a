// SPDX-License-Identifier: MIT
/*
 * notify_wait NPUD ARGS...: run NPUD ARGS... as systemd runs a Type=notify
 * service, with NOTIFY_SOCKET naming a datagram socket of ours; it must
 * send READY=1 within 10 s, and STOPPING=1 after SIGTERM, and then exit 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* The next datagram within @ms, into @buf; false on timeout. */
static int receive(int fd, char *buf, size_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) != 1)
		return 0;
	n = recv(fd, buf, len - 1, 0);
	if (n < 0)
		return 0;
	buf[n] = '\0';
	return 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[] = "/tmp/npud-notify-XXXXXX", buf[256];
	int fd, status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: notify_wait NPUD ARGS...\n");
		return 2;
	}
	if (!mkdtemp(dir))
		return perror("mkdtemp"), 1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/notify", dir);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return perror("socket"), 1;
	pid = fork();
	if (pid == 0) {
		setenv("NOTIFY_SOCKET", sa.sun_path, 1);
		execv(argv[1], argv + 1);
		_exit(127);
	}
	if (!receive(fd, buf, sizeof(buf), 10000) || strcmp(buf, "READY=1")) {
		fprintf(stderr, "FAIL: no READY=1 within 10 s\n");
		kill(pid, SIGKILL);
		return 1;
	}
	printf("npud: %s\n", buf);
	kill(pid, SIGTERM);
	if (!receive(fd, buf, sizeof(buf), 5000) || strcmp(buf, "STOPPING=1")) {
		fprintf(stderr, "FAIL: no STOPPING=1 within 5 s of SIGTERM\n");
		kill(pid, SIGKILL);
		return 1;
	}
	printf("npud: %s\n", buf);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "FAIL: npud did not exit 0 (status 0x%x)\n", status);
		return 1;
	}
	unlink(sa.sun_path);
	rmdir(dir);
	printf("npud exited 0\n");
	return 0;
}
