// SPDX-License-Identifier: MIT
/*
 * npud keeps no privilege it does not use (docs/security.md, "What npud
 * keeps: privileges"): every one of its threads runs under no_new_privs and
 * a seccomp filter, with exactly the capabilities npud names and nothing
 * in the inheritable and ambient sets, and npud still serves.
 *
 * The npud under test is the one of the system tests' fixture (its pid file
 * in NPUD_PIDFILE), or else the only process named "npud" (the VM's
 * `npud --cuse`). With the kernel module (NPU_VM_BACKEND "kmod...", or
 * /sys/module/npu) there is no npud, and the tests skip.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "npu_sys.h"

/* The capability numbers of linux/capability.h that npud keeps. */
#define CAP_DAC_OVERRIDE_BIT	1
#define CAP_SYS_PTRACE_BIT	19
#define CAP_SYS_ADMIN_BIT	21

struct privs_state {
	pid_t pid;		/* npud's */
	bool cuse;		/* npud --cuse (else --fuse) */
	uint64_t expect;	/* the capabilities it must have, exactly */
	long own_filters;	/* this test's Seccomp_filters, or -1 */
};

static struct privs_state ps;

static bool backend_is_kmod(void)
{
	const char *b = getenv("NPU_VM_BACKEND");
	struct stat st;

	/* "kmod", or a variant of it such as "kmod-ioctl"; "cuse" is npud. */
	if (b && *b)
		return !strncmp(b, "kmod", 4);
	return !stat("/sys/module/npu", &st);
}

/* Read a small /proc file into buf (NUL-terminated); the bytes read or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)len < size - 1 &&
	       (n = read(fd, buf + len, size - 1 - (size_t)len)) > 0)
		len += n;
	close(fd);
	buf[len] = '\0';
	return len;
}

static bool is_npud(pid_t pid)
{
	char path[64], comm[32];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	if (read_small(path, comm, sizeof(comm)) <= 0)
		return false;
	return !strcmp(comm, "npud\n");
}

/* The one process named npud, or 0 if there is none or more than one. */
static pid_t find_npud_by_name(void)
{
	struct dirent *de;
	pid_t found = 0;
	unsigned int n = 0;
	DIR *d = opendir("/proc");

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		if (is_npud((pid_t)atoi(de->d_name))) {
			found = (pid_t)atoi(de->d_name);
			n++;
		}
	}
	closedir(d);
	return n == 1 ? found : 0;
}

static pid_t find_npud(void)
{
	const char *pidfile = getenv("NPUD_PIDFILE");
	char buf[32];
	pid_t pid;

	if (!pidfile || !*pidfile)
		return find_npud_by_name();
	if (read_small(pidfile, buf, sizeof(buf)) <= 0)
		return 0;
	pid = (pid_t)atoi(buf);
	return pid > 0 && is_npud(pid) ? pid : 0;
}

/* Whether npud runs with --cuse, from its command line. */
static bool npud_is_cuse(pid_t pid)
{
	char path[64], buf[4096];
	ssize_t len, i;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	len = read_small(path, buf, sizeof(buf));
	for (i = 0; i < len; i += (ssize_t)strlen(buf + i) + 1) {
		if (!strcmp(buf + i, "--cuse"))
			return true;
	}
	return false;
}

/* The value of "Name:\t..." in a status file, or NULL. */
static const char *status_field(const char *status, const char *name)
{
	size_t len = strlen(name);
	const char *p = status;

	while (p && *p) {
		if (!strncmp(p, name, len) && p[len] == ':')
			return p + len + 1;
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

static uint64_t status_hex(const char *status, const char *name)
{
	const char *v = status_field(status, name);

	assert_non_null(v);
	return strtoull(v, NULL, 16);
}

static long status_long(const char *status, const char *name)
{
	const char *v = status_field(status, name);

	return v ? strtol(v, NULL, 10) : -1;
}

/* Check the status file of npud or of one of its threads, read from path. */
static void check_status(const char *path, const char *status)
{
	long filters;

	fprintf(stderr, "%s: CapEff %016llx NoNewPrivs %ld Seccomp %ld\n", path,
		(unsigned long long)status_hex(status, "CapEff"),
		status_long(status, "NoNewPrivs"), status_long(status, "Seccomp"));
	assert_int_equal(status_long(status, "NoNewPrivs"), 1);
	assert_int_equal(status_long(status, "Seccomp"), 2);	/* SECCOMP_MODE_FILTER */
	/* npud's own filter comes on top of any it inherited (a container's). */
	filters = status_long(status, "Seccomp_filters");
	if (filters >= 0 && ps.own_filters >= 0)
		assert_true(filters > ps.own_filters);
	assert_int_equal(status_hex(status, "CapEff"), ps.expect);
	assert_int_equal(status_hex(status, "CapPrm"), ps.expect);
	assert_int_equal(status_hex(status, "CapBnd"), ps.expect);
	assert_int_equal(status_hex(status, "CapInh"), 0);
	assert_int_equal(status_hex(status, "CapAmb"), 0);
}

static void test_npud_process_is_sandboxed(void **state)
{
	char path[64], status[8192];

	(void)state;
	if (!ps.pid)
		skip();
	snprintf(path, sizeof(path), "/proc/%d/status", (int)ps.pid);
	assert_true(read_small(path, status, sizeof(status)) > 0);
	check_status(path, status);
}

/* Capabilities are per thread: the engines' and libfuse's workers too. */
static void test_every_npud_thread_is_sandboxed(void **state)
{
	char path[64], file[300], status[8192];
	struct dirent *de;
	unsigned int threads = 0;
	DIR *d;

	(void)state;
	if (!ps.pid)
		skip();
	snprintf(path, sizeof(path), "/proc/%d/task", (int)ps.pid);
	d = opendir(path);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "/proc/%d/task/%s/status", (int)ps.pid,
			 de->d_name);
		/* A worker that libfuse retired meanwhile is gone: not a failure. */
		if (read_small(file, status, sizeof(status)) <= 0)
			continue;
		check_status(file, status);
		threads++;
	}
	closedir(d);
	fprintf(stderr, "npud (pid %d): %u threads checked\n", (int)ps.pid, threads);
	/* The main thread, the session thread(s) and the engine kthreads at least. */
	assert_true(threads >= 3);
}

static void test_npud_still_serves(void **state)
{
	struct npu_device_info info = { 0 };
	const char *dev = getenv("NPU_DEVICE");
	int fd;

	(void)state;
	if (!ps.pid)
		skip();
	assert_non_null(dev);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_DEVICE_INFO, &info), 0);
	assert_true(info.hbm_total > 0);
	assert_true(info.hbm_free <= info.hbm_total);
	close(fd);
}

static int setup(void **state)
{
	char status[8192];
	uint64_t bnd;

	(void)state;
	if (backend_is_kmod()) {
		fprintf(stderr, "backend: kernel module, no npud to check\n");
		return 0;
	}
	ps.pid = find_npud();
	if (!ps.pid) {
		fprintf(stderr, "no npud found (NPUD_PIDFILE=%s, or one process named npud)\n",
			getenv("NPUD_PIDFILE") ? getenv("NPUD_PIDFILE") : "");
		return -1;
	}
	ps.cuse = npud_is_cuse(ps.pid);
	ps.expect = 1ULL << CAP_SYS_PTRACE_BIT | 1ULL << CAP_DAC_OVERRIDE_BIT;
	if (!ps.cuse)
		ps.expect |= 1ULL << CAP_SYS_ADMIN_BIT;
	/*
	 * npud keeps only what it was given: started with fewer capabilities
	 * (a container's bounding set, which this test shares), it has fewer.
	 */
	if (read_small("/proc/self/status", status, sizeof(status)) <= 0)
		return -1;
	bnd = status_hex(status, "CapBnd");
	ps.expect &= bnd;
	ps.own_filters = status_long(status, "Seccomp_filters");
	fprintf(stderr, "npud pid %d (%s), expected capabilities %016llx\n", (int)ps.pid,
		ps.cuse ? "cuse" : "fuse", (unsigned long long)ps.expect);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_npud_process_is_sandboxed),
		cmocka_unit_test(test_every_npud_thread_is_sandboxed),
		cmocka_unit_test(test_npud_still_serves),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
