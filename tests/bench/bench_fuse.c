// SPDX-License-Identifier: MIT
/*
 * The shared daemon against the in-process device, side by side in one run:
 *   memcpy_4k_fuse_us, memcpy_4k_inproc_us
 *                              synchronous 4 KiB H2D aclrtMemcpy, median
 *   memcpy_4k_fuse_vs_inproc_ratio
 *                              the first over the second
 *   memcpy_4k_pinned_fuse_vs_inproc_ratio
 *                              the same copy from aclrtMallocHost memory, which
 *                              npud maps (the runtime stages small pageable
 *                              copies through such memory, so the two differ
 *                              by the runtime's own copy)
 *   memcpy_4k_fuse_ring_enter_us
 *                              the same through npud with NPU_FUTEX=0: every
 *                              call a FUSE round trip (RING_ENTER), as before
 *                              the futex doorbell
 *   sync_empty_stream_{fuse,inproc}_us, sync_empty_stream_fuse_vs_inproc_ratio
 *                              aclrtSynchronizeStream of a stream with nothing
 *                              on it, median, and the ratio
 *   async_small_fuse_vs_spsc_ratio
 *                              64-byte D2D aclrtMemcpyAsync through npud per
 *                              second over the plain shared-memory ring floor
 *                              (bench_spsc.c) measured right after each run,
 *                              median of the runs
 * Each side runs in a child process of its own (npu-bench --fuse-child),
 * one after the other, with NPU_DEVICE set: "inproc", and an npud FUSE
 * device: the one NPU_DEVICE names when npu-bench runs on npud, else
 * NPU_BENCH_FUSE_DEVICE, else an `npud --fuse` that npu-bench starts on a
 * directory of its own (the npud binary is NPUD_BIN, or found next to
 * npu-bench in the build tree or the install; FUSE needs root). Without
 * any, these keys are left out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "npu/hal.h"

#include "bench_report.h"

#define FUSE_SMALL 64UL
#define FUSE_SLOTS 4096UL
#define FUSE_RUNS 5

struct fuse_side {
	double memcpy_4k_us;
	double pinned_4k_us;
	double sync_empty_us;
	double async_vs_spsc;
};

/* The child: measure this process's backend and print the three figures. */
int bench_fuse_child(unsigned int iters, unsigned int ops)
{
	static char host[4096];
	double *t = calloc(iters, sizeof(double));
	double q[FUSE_RUNS];
	void *dev = NULL, *a = NULL, *b = NULL, *pinned = NULL;
	aclrtStream s = NULL, empty = NULL;
	struct fuse_side out;
	unsigned int i, r;

	if (t == NULL || aclInit(NULL) || aclrtSetDevice(0) ||
	    aclrtMalloc(&dev, sizeof(host), ACL_MEM_MALLOC_NORMAL_ONLY) ||
	    aclrtMalloc(&a, FUSE_SLOTS * FUSE_SMALL, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMalloc(&b, FUSE_SLOTS * FUSE_SMALL, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMemset(a, FUSE_SLOTS * FUSE_SMALL, 1, FUSE_SLOTS * FUSE_SMALL) ||
	    aclrtCreateStream(&s) || aclrtCreateStream(&empty) ||
	    aclrtMallocHost(&pinned, sizeof(host)))
		return 1;
	memset(host, 0x3c, sizeof(host));
	memset(pinned, 0x3c, sizeof(host));

	/* A warm-up round of each, then the timed ones. */
	for (i = 0; i < iters / 10 + 1; i++)
		if (aclrtMemcpy(dev, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE))
			return 1;
	for (i = 0; i < iters; i++) {
		double t0 = bench_now_us();

		if (aclrtMemcpy(dev, sizeof(host), host, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE))
			return 1;
		t[i] = bench_now_us() - t0;
	}
	out.memcpy_4k_us = bench_median(t, iters);

	for (i = 0; i < iters; i++) {
		double t0 = bench_now_us();

		if (aclrtMemcpy(dev, sizeof(host), pinned, sizeof(host), ACL_MEMCPY_HOST_TO_DEVICE))
			return 1;
		t[i] = bench_now_us() - t0;
	}
	out.pinned_4k_us = bench_median(t, iters);

	for (i = 0; i < iters; i++) {
		double t0 = bench_now_us();

		if (aclrtSynchronizeStream(empty))
			return 1;
		t[i] = bench_now_us() - t0;
	}
	out.sync_empty_us = bench_median(t, iters);

	for (r = 0; r <= FUSE_RUNS; r++) {
		double t0 = bench_now_us(), floor;

		for (i = 0; i < ops; i++) {
			size_t off = (i % FUSE_SLOTS) * FUSE_SMALL;

			if (aclrtMemcpyAsync((char *)b + off, FUSE_SMALL, (char *)a + off,
					     FUSE_SMALL, ACL_MEMCPY_DEVICE_TO_DEVICE, s))
				return 1;
		}
		if (aclrtSynchronizeStream(s))
			return 1;
		if (r == 0)
			continue;	/* warm-up */
		t0 = bench_now_us() - t0;
		floor = bench_spsc_once(ops);
		if (floor <= 0)
			return 1;
		q[r - 1] = (double)ops / (t0 / 1e6) / floor;
	}
	out.async_vs_spsc = bench_median(q, FUSE_RUNS);
	printf("%.6g %.6g %.6g %.6g\n", out.memcpy_4k_us, out.pinned_4k_us, out.sync_empty_us,
	       out.async_vs_spsc);
	aclrtFreeHost(pinned);
	free(t);
	aclrtDestroyStream(s);
	aclrtDestroyStream(empty);
	aclrtFree(dev);
	aclrtFree(a);
	aclrtFree(b);
	aclrtResetDevice(0);
	aclFinalize();
	return 0;
}

/* Run a child on @device (NPU_FUTEX=0 if !futex): 0, or -1 if it failed. */
static int fuse_side(const char *device, int futex, unsigned int iters, unsigned int ops,
		     struct fuse_side *out)
{
	char cmd[PATH_MAX + 256];
	int ok;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "NPU_DEVICE='%s' NPU_FUTEX=%s /proc/%d/exe --fuse-child %u %u",
		 device, futex ? "1" : "0", (int)getpid(), iters, ops);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	ok = fscanf(p, "%lf %lf %lf %lf", &out->memcpy_4k_us, &out->pinned_4k_us,
		    &out->sync_empty_us, &out->async_vs_spsc) == 4;
	if (pclose(p) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

static int exists(const char *path, mode_t type)
{
	struct stat st;

	return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* npud: NPUD_BIN, or beside npu-bench in the build tree or the install. */
static int find_npud(char *out, size_t len)
{
	static const char *const rel[] = { "/../../mockdev/npud/npud", "/npud", "/../sbin/npud" };
	char exe[PATH_MAX];
	const char *env = getenv("NPUD_BIN");
	ssize_t n;
	char *slash;
	size_t i;

	if (env != NULL && *env) {
		snprintf(out, len, "%s", env);
		return exists(out, S_IFREG) ? 0 : -1;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return -1;
	exe[n] = '\0';
	slash = strrchr(exe, '/');
	if (slash == NULL)
		return -1;
	*slash = '\0';
	for (i = 0; i < sizeof(rel) / sizeof(rel[0]); i++) {
		snprintf(out, len, "%s%s", exe, rel[i]);
		if (exists(out, S_IFREG) && access(out, X_OK) == 0)
			return 0;
	}
	return -1;
}

/* Start `npud --fuse DIR --devices 1`: its pid, with DIR/npu0 there; or -1. */
static pid_t start_npud(const char *npud, const char *dir)
{
	char dev[PATH_MAX];
	pid_t pid;
	int i;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		freopen("/dev/null", "w", stdout);
		freopen("/dev/null", "w", stderr);
		execl(npud, npud, "--fuse", dir, "--devices", "1", (char *)NULL);
		_exit(127);
	}
	snprintf(dev, sizeof(dev), "%s/npu0", dir);
	for (i = 0; i < 200; i++) {
		int status;

		if (exists(dev, S_IFREG))
			return pid;
		if (waitpid(pid, &status, WNOHANG) == pid)
			return -1;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return -1;
}

static void stop_npud(pid_t pid)
{
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
}

void bench_fuse(unsigned int iters, unsigned int ops, struct bench_report *rep)
{
	char npud[PATH_MAX], dir[] = "/tmp/npu-bench-fuse.XXXXXX", dev[PATH_MAX];
	struct fuse_side in, fu, re;
	const char *env = getenv("NPU_BENCH_FUSE_DEVICE");
	pid_t pid = -1;
	int err = 0;

	if (!npuHalBackendIsInproc()) {
		snprintf(dev, sizeof(dev), "%s", getenv("NPU_DEVICE"));
	} else if (env != NULL && *env) {
		snprintf(dev, sizeof(dev), "%s", env);
	} else {
		if (find_npud(npud, sizeof(npud)) || mkdtemp(dir) == NULL) {
			fprintf(stderr, "npu-bench: no npud to compare with: FUSE keys left out\n");
			return;
		}
		pid = start_npud(npud, dir);
		if (pid < 0) {
			fprintf(stderr, "npu-bench: %s --fuse did not start (FUSE needs root): "
					"FUSE keys left out\n", npud);
			rmdir(dir);
			return;
		}
		snprintf(dev, sizeof(dev), "%s/npu0", dir);
	}
	if (fuse_side("inproc", 1, iters, ops, &in) || fuse_side(dev, 1, iters, ops, &fu) ||
	    fuse_side(dev, 0, iters, ops, &re))
		err = 1;
	if (pid > 0) {
		stop_npud(pid);
		rmdir(dir);
	}
	if (err) {
		bench_report_add(rep, "memcpy_4k_fuse_vs_inproc_ratio",
				 "4 KiB aclrtMemcpy, npud over in-process", "ratio", -1);
		return;
	}
	bench_report_add(rep, "memcpy_4k_inproc_us", "4 KiB aclrtMemcpy H2D, in-process", "us",
			 in.memcpy_4k_us);
	bench_report_add(rep, "memcpy_4k_fuse_us", "the same through npud (futex doorbell)", "us",
			 fu.memcpy_4k_us);
	bench_report_add(rep, "memcpy_4k_fuse_ring_enter_us",
			 "the same through npud, NPU_FUTEX=0 (RING_ENTER)", "us", re.memcpy_4k_us);
	bench_report_add(rep, "memcpy_4k_fuse_vs_inproc_ratio", "4 KiB copy, npud over in-process",
			 "ratio", fu.memcpy_4k_us / in.memcpy_4k_us);
	bench_report_add(rep, "memcpy_4k_pinned_fuse_vs_inproc_ratio",
			 "the same from aclrtMallocHost memory, npud over in-process", "ratio",
			 fu.pinned_4k_us / in.pinned_4k_us);
	bench_report_add(rep, "sync_empty_stream_inproc_us",
			 "aclrtSynchronizeStream of an empty stream, in-process", "us",
			 in.sync_empty_us);
	bench_report_add(rep, "sync_empty_stream_fuse_us", "the same through npud", "us",
			 fu.sync_empty_us);
	bench_report_add(rep, "sync_empty_stream_fuse_vs_inproc_ratio",
			 "empty stream sync, npud over in-process", "ratio",
			 fu.sync_empty_us / in.sync_empty_us);
	bench_report_add(rep, "async_small_fuse_vs_spsc_ratio",
			 "64 B async copies through npud vs the ring floor", "ratio",
			 fu.async_vs_spsc);
}
