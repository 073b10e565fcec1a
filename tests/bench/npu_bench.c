// SPDX-License-Identifier: MIT
/*
 * npu-bench: how fast the memory path is on whatever backend NPU_DEVICE
 * selects, against baselines measured in the same run on the same machine.
 *
 * Every number is a median of individually timed runs, never a mean, so
 * one descheduled run (common on a 2-vCPU nested-virt host) does not move
 * it. Bandwidths are decimal GB/s. Ratios divide our bandwidth by the
 * baseline's:
 *   copy_*_64m_ratio         aclrtMemcpy vs. memcpy of warm host buffers
 *   copy_h2d_64m_pvm_ratio   H2D vs. process_vm_readv from another process,
 *                            which is what npud does for pageable memory
 *   copy_d2h_64m_pvm_ratio   D2H vs. process_vm_writev
 *
 * This is a benchmark, not a test: it fails only when a call fails or the
 * data it copied is wrong, never because something is slow.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "npu/hal.h"

#include "bench_report.h"

#define SIZE_64M (64UL << 20)
#define SIZE_2M (2UL << 20)
#define SIZE_4K 4096UL

/* How many timed runs each measurement gets. */
struct bench_iters {
	unsigned int big;	/* each 64 MiB copy, memcpy and process_vm_* */
	unsigned int malloc;	/* aclrtMalloc + aclrtFree of 2 MiB */
	unsigned int small;	/* synchronous 4 KiB H2D */
	unsigned int nop;	/* npuHalNop */
	unsigned int live;	/* live 4 KiB allocations of the scale measurements */
};

static const struct bench_iters iters_default = { 9, 200, 2000, 20000, 1000000 };
static const struct bench_iters iters_quick = { 3, 20, 200, 1000, 10000 };

struct bench_result {
	double memcpy_gbps;
	double h2d_gbps;
	double d2h_gbps;
	double d2d_gbps;
	double pvm_readv_gbps;
	double pvm_writev_gbps;
	double malloc_free_2m_us;
	double memcpy_4k_us;
	double ioctl_floor_us;
};

/* Host and device buffers shared by the 64 MiB measurements. */
struct bench_bufs {
	unsigned char *host_src;
	unsigned char *host_dst;
	void *dev_a;
	void *dev_b;
};

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of n samples; sorts them in place. */
static double median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double *samples_alloc(unsigned int n)
{
	double *v = calloc(n, sizeof(*v));

	if (!v) {
		fprintf(stderr, "npu-bench: out of host memory\n");
		exit(1);
	}
	return v;
}

static double gbps(size_t bytes, double sec)
{
	return sec > 0 ? (double)bytes / sec / 1e9 : 0;
}

static double ratio(double ours, double base)
{
	return base > 0 ? ours / base : 0;
}

/* Keeps the compiler from dropping a copy whose result it cannot see used. */
static void clobber(void *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void die_acl(const char *what, aclError ret)
{
	const char *msg = aclGetRecentErrMsg();

	fprintf(stderr, "npu-bench: %s failed: %d (%s)\n", what, (int)ret,
		msg ? msg : "no message");
	exit(1);
}

#define CHECK_ACL(call)                         \
	do {                                    \
		aclError ret_ = (call);         \
		if (ret_ != ACL_SUCCESS)        \
			die_acl(#call, ret_);   \
	} while (0)

static void *host_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		perror("npu-bench: mmap");
		exit(1);
	}
	return p;
}

static void fill_pattern(unsigned char *p, size_t size, uint64_t seed)
{
	uint64_t *w = (uint64_t *)p;

	for (size_t i = 0; i < size / sizeof(*w); i++)
		w[i] = (seed + i) * 0x9e3779b97f4a7c15ULL;
}

static void expect_equal(const void *a, const void *b, size_t size, const char *what)
{
	if (memcmp(a, b, size)) {
		fprintf(stderr, "npu-bench: %s: data read back differs\n", what);
		exit(1);
	}
}

/*
 * process_vm_readv/writev of 64 MiB between this process and a forked
 * child that owns (and has touched) its own buffer. Run before aclInit, so
 * the fork happens while the process is still single threaded.
 */
static void bench_pvm(const struct bench_bufs *b, unsigned int n,
		      struct bench_result *r)
{
	double *rd = samples_alloc(n), *wr = samples_alloc(n);
	int ready[2], hold[2];
	void *remote;
	pid_t child;

	if (pipe(ready) || pipe(hold)) {
		perror("npu-bench: pipe");
		exit(1);
	}
	child = fork();
	if (child < 0) {
		perror("npu-bench: fork");
		exit(1);
	}
	if (child == 0) {
		void *buf = mmap(NULL, SIZE_64M, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		char c;

		close(ready[0]);
		close(hold[1]);
		if (buf == MAP_FAILED)
			_exit(1);
		memset(buf, 0x5a, SIZE_64M);
		if (write(ready[1], &buf, sizeof(buf)) != sizeof(buf))
			_exit(1);
		/* Stay alive until the parent closes its end. */
		while (read(hold[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	if (read(ready[0], &remote, sizeof(remote)) != sizeof(remote)) {
		fprintf(stderr, "npu-bench: child did not start\n");
		exit(1);
	}
	for (unsigned int i = 0; i < 2 * n; i++) {
		int writing = i >= n;
		size_t done = 0;
		double t0 = now_sec();

		while (done < SIZE_64M) {
			struct iovec local = {
				(writing ? b->host_src : b->host_dst) + done,
				SIZE_64M - done
			};
			struct iovec rem = { (char *)remote + done, SIZE_64M - done };
			ssize_t got = writing ?
				process_vm_writev(child, &local, 1, &rem, 1, 0) :
				process_vm_readv(child, &local, 1, &rem, 1, 0);

			if (got <= 0) {
				perror("npu-bench: process_vm_readv/writev");
				exit(1);
			}
			done += (size_t)got;
		}
		if (writing)
			wr[i - n] = now_sec() - t0;
		else
			rd[i] = now_sec() - t0;
	}
	close(hold[1]);
	close(ready[0]);
	waitpid(child, NULL, 0);
	r->pvm_readv_gbps = gbps(SIZE_64M, median(rd, n));
	r->pvm_writev_gbps = gbps(SIZE_64M, median(wr, n));
	free(rd);
	free(wr);
}

/*
 * memcpy and the three 64 MiB copy kinds, interleaved run by run so that a
 * slow phase of the machine hits all of them alike.
 */
static void bench_copy_64m(const struct bench_bufs *b, unsigned int n,
			   struct bench_result *r)
{
	double *mc = samples_alloc(n), *h2d = samples_alloc(n);
	double *d2h = samples_alloc(n), *d2d = samples_alloc(n);
	double t0;

	for (unsigned int i = 0; i < n; i++) {
		t0 = now_sec();
		memcpy(b->host_dst, b->host_src, SIZE_64M);
		clobber(b->host_dst);
		mc[i] = now_sec() - t0;

		t0 = now_sec();
		CHECK_ACL(aclrtMemcpy(b->dev_a, SIZE_64M, b->host_src, SIZE_64M,
				      ACL_MEMCPY_HOST_TO_DEVICE));
		h2d[i] = now_sec() - t0;

		t0 = now_sec();
		CHECK_ACL(aclrtMemcpy(b->dev_b, SIZE_64M, b->dev_a, SIZE_64M,
				      ACL_MEMCPY_DEVICE_TO_DEVICE));
		d2d[i] = now_sec() - t0;

		t0 = now_sec();
		CHECK_ACL(aclrtMemcpy(b->host_dst, SIZE_64M, b->dev_b, SIZE_64M,
				      ACL_MEMCPY_DEVICE_TO_HOST));
		d2h[i] = now_sec() - t0;
	}
	/* The last round went H2D, D2D, D2H: it must have come back intact. */
	expect_equal(b->host_dst, b->host_src, SIZE_64M, "64 MiB H2D+D2D+D2H");
	r->memcpy_gbps = gbps(SIZE_64M, median(mc, n));
	r->h2d_gbps = gbps(SIZE_64M, median(h2d, n));
	r->d2h_gbps = gbps(SIZE_64M, median(d2h, n));
	r->d2d_gbps = gbps(SIZE_64M, median(d2d, n));
	free(mc);
	free(h2d);
	free(d2h);
	free(d2d);
}

static void bench_malloc_free(unsigned int n, struct bench_result *r)
{
	double *v = samples_alloc(n);

	for (unsigned int i = 0; i < n; i++) {
		void *p = NULL;
		double t0 = now_sec();

		CHECK_ACL(aclrtMalloc(&p, SIZE_2M, ACL_MEM_MALLOC_HUGE_FIRST));
		CHECK_ACL(aclrtFree(p));
		v[i] = (now_sec() - t0) * 1e6;
	}
	r->malloc_free_2m_us = median(v, n);
	free(v);
}

static void bench_memcpy_4k(const struct bench_bufs *b, unsigned int n,
			    struct bench_result *r)
{
	double *v = samples_alloc(n);

	for (unsigned int i = 0; i < n; i++) {
		double t0 = now_sec();

		CHECK_ACL(aclrtMemcpy(b->dev_a, SIZE_4K, b->host_src, SIZE_4K,
				      ACL_MEMCPY_HOST_TO_DEVICE));
		v[i] = (now_sec() - t0) * 1e6;
	}
	CHECK_ACL(aclrtMemcpy(b->host_dst, SIZE_4K, b->dev_a, SIZE_4K,
			      ACL_MEMCPY_DEVICE_TO_HOST));
	expect_equal(b->host_dst, b->host_src, SIZE_4K, "4 KiB H2D");
	r->memcpy_4k_us = median(v, n);
	free(v);
}

/* The no-op ioctl through a HAL device of its own, on the same backend. */
static void bench_nop(unsigned int n, struct bench_result *r)
{
	double *v = samples_alloc(n);
	npuHalDevice *dev;
	int err = npuHalDeviceOpen(0, &dev);

	if (err) {
		fprintf(stderr, "npu-bench: npuHalDeviceOpen: %s\n", strerror(-err));
		exit(1);
	}
	for (unsigned int i = 0; i < n; i++) {
		double t0 = now_sec();

		err = npuHalNop(dev);
		v[i] = (now_sec() - t0) * 1e6;
		if (err) {
			fprintf(stderr, "npu-bench: npuHalNop: %s\n", strerror(-err));
			exit(1);
		}
	}
	npuHalDeviceClose(dev);
	r->ioctl_floor_us = median(v, n);
	free(v);
}

/* Prints s as a JSON string literal. */
static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

void bench_report_add(struct bench_report *rep, const char *key, const char *what,
		      const char *unit, double value)
{
	if (rep->n == BENCH_REPORT_MAX) {
		fprintf(stderr, "npu-bench: more than %d extra keys\n", BENCH_REPORT_MAX);
		exit(1);
	}
	rep->v[rep->n++] = (struct bench_extra){ key, what, unit, value };
}

static void print_json(const char *backend, const struct bench_iters *it,
		       const struct bench_result *r, const struct bench_report *rep)
{
	unsigned int i;

	printf("{\"backend\": ");
	json_string(backend);
	printf(",\n \"copy_h2d_64m_ratio\": %.3f,\n \"copy_d2h_64m_ratio\": %.3f,"
	       "\n \"copy_d2d_64m_ratio\": %.3f,\n",
	       ratio(r->h2d_gbps, r->memcpy_gbps), ratio(r->d2h_gbps, r->memcpy_gbps),
	       ratio(r->d2d_gbps, r->memcpy_gbps));
	printf(" \"copy_h2d_64m_pvm_ratio\": %.3f,\n \"copy_d2h_64m_pvm_ratio\": %.3f,\n",
	       ratio(r->h2d_gbps, r->pvm_readv_gbps),
	       ratio(r->d2h_gbps, r->pvm_writev_gbps));
	printf(" \"memcpy_64m_gbps\": %.3f,\n \"copy_h2d_64m_gbps\": %.3f,\n"
	       " \"copy_d2h_64m_gbps\": %.3f,\n \"copy_d2d_64m_gbps\": %.3f,\n"
	       " \"pvm_readv_64m_gbps\": %.3f,\n \"pvm_writev_64m_gbps\": %.3f,\n",
	       r->memcpy_gbps, r->h2d_gbps, r->d2h_gbps, r->d2d_gbps,
	       r->pvm_readv_gbps, r->pvm_writev_gbps);
	printf(" \"malloc_free_2m_us\": %.3f,\n \"memcpy_4k_us\": %.3f,\n"
	       " \"ioctl_floor_us\": %.3f,\n",
	       r->malloc_free_2m_us, r->memcpy_4k_us, r->ioctl_floor_us);
	for (i = 0; i < rep->n; i++)
		printf(" \"%s\": %.6g,\n", rep->v[i].key, rep->v[i].value);
	printf(" \"iters_64m\": %u,\n \"iters_malloc_free_2m\": %u,\n"
	       " \"iters_memcpy_4k\": %u,\n \"iters_ioctl_floor\": %u}\n",
	       it->big, it->malloc, it->small, it->nop);
}

static void print_table(const char *backend, const struct bench_iters *it,
			const struct bench_result *r, const struct bench_report *rep)
{
	unsigned int i;

	printf("npu-bench on backend %s (medians)\n\n", backend);
	printf("%-28s %10s %10s %8s\n", "64 MiB copy", "GB/s", "baseline", "ratio");
	printf("%-28s %10.2f %10s %8s\n", "memcpy (baseline)", r->memcpy_gbps, "-", "-");
	printf("%-28s %10.2f %10s %8.3f\n", "aclrtMemcpy H2D", r->h2d_gbps, "memcpy",
	       ratio(r->h2d_gbps, r->memcpy_gbps));
	printf("%-28s %10.2f %10s %8.3f\n", "aclrtMemcpy D2H", r->d2h_gbps, "memcpy",
	       ratio(r->d2h_gbps, r->memcpy_gbps));
	printf("%-28s %10.2f %10s %8.3f\n", "aclrtMemcpy D2D", r->d2d_gbps, "memcpy",
	       ratio(r->d2d_gbps, r->memcpy_gbps));
	printf("%-28s %10.2f %10s %8s\n", "process_vm_readv", r->pvm_readv_gbps, "-", "-");
	printf("%-28s %10.2f %10s %8s\n", "process_vm_writev", r->pvm_writev_gbps, "-", "-");
	printf("%-28s %10.2f %10s %8.3f\n", "aclrtMemcpy H2D", r->h2d_gbps, "readv",
	       ratio(r->h2d_gbps, r->pvm_readv_gbps));
	printf("%-28s %10.2f %10s %8.3f\n", "aclrtMemcpy D2H", r->d2h_gbps, "writev",
	       ratio(r->d2h_gbps, r->pvm_writev_gbps));
	printf("\n%-28s %10s %8s\n", "latency", "us", "runs");
	printf("%-28s %10.2f %8u\n", "aclrtMalloc+aclrtFree 2 MiB", r->malloc_free_2m_us,
	       it->malloc);
	printf("%-28s %10.2f %8u\n", "aclrtMemcpy H2D 4 KiB", r->memcpy_4k_us, it->small);
	printf("%-28s %10.2f %8u\n", "npuHalNop (ioctl floor)", r->ioctl_floor_us, it->nop);
	if (rep->n)
		printf("\n%-40s %12s %8s\n", "more", "value", "unit");
	for (i = 0; i < rep->n; i++)
		printf("%-40s %12.6g %8s\n", rep->v[i].what, rep->v[i].value, rep->v[i].unit);
	printf("\n64 MiB measurements: %u runs each\n", it->big);
}

static void usage(FILE *f)
{
	fprintf(f, "usage: npu-bench [--json] [--quick] [--iters N]\n"
		   "       npu-bench --sweep[=DIR] [--sweep-max SIZE]\n"
		   "  --json     print one JSON object instead of a table\n"
		   "  --quick    few iterations (CI smoke run)\n"
		   "  --iters N  runs of each 64 MiB measurement (default %u)\n"
		   "  --sweep[=DIR]\n"
		   "             only the bandwidth sweep: synchronous H2D and D2H (pageable and\n"
		   "             pinned host memory) and D2D copies from 4 KiB to 256 MiB in powers\n"
		   "             of 4, each beside memcpy of the same size; median, p10 and p90\n"
		   "             GB/s go to DIR/sweep.csv (DIR: default npu-sweep, created), and a\n"
		   "             plot to DIR/sweep.svg when gnuplot is on PATH (about 10-20 s)\n"
		   "  --sweep-max SIZE\n"
		   "             largest size of the sweep (bytes, or with K, M, G; default 256M)\n"
		   "  --processes[=LIST]\n"
		   "             only the many-process run: for each N of LIST (default\n"
		   "             1,2,4,8,16; at most 64) N processes copy 4 KiB synchronously for\n"
		   "             1 s each on device 0; aggregate copies/s and per-process p99.\n"
		   "             With --sweep[=DIR], also DIR/processes.csv and, with gnuplot,\n"
		   "             DIR/processes.svg\n"
		   "  --fuse-vs-inproc\n"
		   "             only the npud against in-process keys (each side in a child\n"
		   "             process; an npud --fuse is started when NPU_DEVICE is inproc\n"
		   "             and NPU_BENCH_FUSE_DEVICE is unset), one JSON object\n"
		   "The backend is chosen by NPU_DEVICE (inproc or a device path).\n",
		iters_default.big);
}


/*
 * NPU_CHECK's cost on the small async-copy benchmark: 64-byte D2D
 * aclrtMemcpyAsync on one stream (as async_small_copies_per_s), run by a
 * child process per setting (the checker reads NPU_CHECK when the library
 * loads), the three settings in turn, three rounds, median of each:
 *   check_off_small_copies_per_s    NPU_CHECK unset
 *   check_mem_init_leak_cost_ratio  memcheck,initcheck,leakcheck: off's rate
 *                                   over this one's (a slowdown, 1 = free)
 *   check_all_cost_ratio            all, the same way
 */
#define CHECK_SLOTS 4096UL
#define CHECK_ROUNDS 3

static int check_child(unsigned int ops, unsigned int runs)
{
	double t[64];
	void *src = NULL, *dst = NULL;
	aclrtStream s = NULL;
	unsigned int r, i;

	if (runs > 64)
		runs = 64;
	if (aclInit(NULL) || aclrtSetDevice(0) ||
	    aclrtMalloc(&src, CHECK_SLOTS * 64, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMalloc(&dst, CHECK_SLOTS * 64, ACL_MEM_MALLOC_HUGE_FIRST) ||
	    aclrtMemset(src, CHECK_SLOTS * 64, 1, CHECK_SLOTS * 64) ||
	    aclrtMemset(dst, CHECK_SLOTS * 64, 0, CHECK_SLOTS * 64) || aclrtCreateStream(&s))
		return 1;
	for (r = 0; r < runs; r++) {
		double t0 = now_sec();

		for (i = 0; i < ops; i++) {
			size_t off = (i % CHECK_SLOTS) * 64;

			if (aclrtMemcpyAsync((char *)dst + off, 64, (char *)src + off, 64,
					     ACL_MEMCPY_DEVICE_TO_DEVICE, s))
				return 1;
		}
		if (aclrtSynchronizeStream(s))
			return 1;
		t[r] = (double)ops / (now_sec() - t0);
	}
	qsort(t, runs, sizeof(t[0]), cmp_double);
	printf("%.6g\n", t[runs / 2]);
	aclrtDestroyStream(s);
	aclrtFree(src);
	aclrtFree(dst);
	aclrtResetDevice(0);
	aclFinalize();
	return 0;
}

static double check_rate(const char *setting, unsigned int ops, unsigned int runs)
{
	char cmd[256];
	double v = -1;
	FILE *p;

	if (setting != NULL)
		snprintf(cmd, sizeof(cmd), "NPU_CHECK=%s /proc/%d/exe --check-child %u %u", setting,
			 (int)getpid(), ops, runs);
	else
		snprintf(cmd, sizeof(cmd), "env -u NPU_CHECK /proc/%d/exe --check-child %u %u",
			 (int)getpid(), ops, runs);
	p = popen(cmd, "r");
	if (p == NULL)
		return -1;
	if (fscanf(p, "%lf", &v) != 1)
		v = -1;
	if (pclose(p) != 0)
		v = -1;
	return v;
}

static void bench_check(unsigned int ops, unsigned int runs, struct bench_report *rep)
{
	static const char *const settings[3] = { NULL, "memcheck,initcheck,leakcheck", "all" };
	double rate[3][CHECK_ROUNDS];
	double med[3];
	int k, round;

	for (round = 0; round < CHECK_ROUNDS; round++)
		for (k = 0; k < 3; k++)
			rate[k][round] = check_rate(settings[k], ops, runs);
	for (k = 0; k < 3; k++) {
		qsort(rate[k], CHECK_ROUNDS, sizeof(double), cmp_double);
		med[k] = rate[k][CHECK_ROUNDS / 2];
	}
	bench_report_add(rep, "check_off_small_copies_per_s",
			 "aclrtMemcpyAsync D2D 64 B, NPU_CHECK unset", "/s", med[0]);
	bench_report_add(rep, "check_mem_init_leak_cost_ratio",
			 "the same, memcheck,initcheck,leakcheck: slowdown", "ratio",
			 med[0] > 0 && med[1] > 0 ? med[0] / med[1] : -1);
	bench_report_add(rep, "check_all_cost_ratio", "the same, NPU_CHECK=all: slowdown", "ratio",
			 med[0] > 0 && med[2] > 0 ? med[0] / med[2] : -1);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "quick", no_argument, NULL, 'q' },
		{ "iters", required_argument, NULL, 'i' },
		{ "sweep", optional_argument, NULL, 's' },
		{ "sweep-max", required_argument, NULL, 'm' },
		{ "processes", optional_argument, NULL, 'p' },
		{ "fuse-vs-inproc", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_iters it = iters_default;
	struct bench_result r = { 0 };
	struct bench_bufs b = { 0 };
	struct bench_report rep = { 0 };
	long big = 0;
	const char *sweep_dir = NULL;
	size_t sweep_max = 256UL << 20;
	int json = 0, failed = 0, c, nprocs = 0, fuse_only = 0;
	unsigned int i, procs[16];

	if (argc == 4 && strcmp(argv[1], "--fuse-child") == 0)
		return bench_fuse_child((unsigned int)strtoul(argv[2], NULL, 10),
					(unsigned int)strtoul(argv[3], NULL, 10));
	if (argc == 4 && strcmp(argv[1], "--check-child") == 0)
		return check_child((unsigned int)strtoul(argv[2], NULL, 10),
				   (unsigned int)strtoul(argv[3], NULL, 10));
	while ((c = getopt_long(argc, argv, "jqi:s::m:p::fh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = 1;
			break;
		case 'q':
			it = iters_quick;
			break;
		case 'f':
			fuse_only = 1;
			break;
		case 'i':
			big = strtol(optarg, NULL, 10);
			if (big < 1 || big > 100000) {
				fprintf(stderr, "npu-bench: --iters wants 1..100000\n");
				return 2;
			}
			break;
		case 's':
			sweep_dir = optarg != NULL ? optarg : "npu-sweep";
			break;
		case 'p':
			nprocs = bench_procs_parse(optarg != NULL ? optarg : "1,2,4,8,16", procs);
			if (!nprocs) {
				fprintf(stderr, "npu-bench: --processes wants a list such as "
						"1,2,4 of at most 16 counts of 1..64\n");
				return 2;
			}
			break;
		case 'm': {
			char *end = NULL;
			unsigned long long v = strtoull(optarg, &end, 10);
			int shift = 0;

			if (*end == 'K' || *end == 'k')
				shift = 10;
			else if (*end == 'M' || *end == 'm')
				shift = 20;
			else if (*end == 'G' || *end == 'g')
				shift = 30;
			if (shift)
				end++;
			if (end == optarg || *end != '\0' || v == 0 || v > (4ULL << 30) >> shift) {
				fprintf(stderr, "npu-bench: --sweep-max wants a size of 4K..4G\n");
				return 2;
			}
			sweep_max = (size_t)(v << shift);
			break;
		}
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (big)
		it.big = (unsigned int)big;
	if (nprocs)
		return bench_procs(procs, (unsigned int)nprocs, sweep_dir, json,
				   npuHalBackendName());
	if (sweep_dir != NULL)
		return bench_sweep(sweep_dir, sweep_max, npuHalBackendName());
	if (fuse_only) {
		bench_fuse(it.small, it.small * 32, &rep);
		printf("{\"backend\": ");
		json_string(npuHalBackendName());
		for (i = 0; i < rep.n; i++) {
			printf(",\n \"%s\": %.6g", rep.v[i].key, rep.v[i].value);
			failed |= rep.v[i].value < 0;
		}
		printf("}\n");
		return rep.n == 0 || failed;
	}

	/* Both host buffers are touched before anything is timed. */
	b.host_src = host_alloc(SIZE_64M);
	b.host_dst = host_alloc(SIZE_64M);
	fill_pattern(b.host_src, SIZE_64M, 1);
	memset(b.host_dst, 0, SIZE_64M);

	bench_pvm(&b, it.big, &r);

	CHECK_ACL(aclInit(NULL));
	CHECK_ACL(aclrtSetDevice(0));
	CHECK_ACL(aclrtMalloc(&b.dev_a, SIZE_64M, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK_ACL(aclrtMalloc(&b.dev_b, SIZE_64M, ACL_MEM_MALLOC_HUGE_FIRST));
	/* Warm-up round: populates the device's lazily backed frames. */
	CHECK_ACL(aclrtMemcpy(b.dev_a, SIZE_64M, b.host_src, SIZE_64M,
			      ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK_ACL(aclrtMemcpy(b.dev_b, SIZE_64M, b.dev_a, SIZE_64M,
			      ACL_MEMCPY_DEVICE_TO_DEVICE));

	bench_copy_64m(&b, it.big, &r);
	bench_memcpy_4k(&b, it.small, &r);
	bench_malloc_free(it.malloc, &r);
	bench_nop(it.nop, &r);
	bench_share(it.small, &rep);
	bench_async(it.big, it.small * 32, &rep);
	bench_check(it.small * 32, it.big, &rep);
	bench_tenancy(it.malloc, it.big, &rep);
	bench_scale(it.small, it.live, &rep);
	bench_fuse(it.small, it.small * 32, &rep);

	if (json)
		print_json(npuHalBackendName(), &it, &r, &rep);
	else
		print_table(npuHalBackendName(), &it, &r, &rep);
	for (i = 0; i < rep.n; i++) {
		if (rep.v[i].value < 0) {
			fprintf(stderr, "npu-bench: %s failed with aclError %.0f\n", rep.v[i].key,
				-rep.v[i].value);
			failed = 1;
		}
	}

	CHECK_ACL(aclrtFree(b.dev_a));
	CHECK_ACL(aclrtFree(b.dev_b));
	CHECK_ACL(aclrtResetDevice(0));
	CHECK_ACL(aclFinalize());
	munmap(b.host_src, SIZE_64M);
	munmap(b.host_dst, SIZE_64M);
	return failed;
}
