// SPDX-License-Identifier: MIT
/*
 * npu-bench --processes[=LIST]: many client processes on one device.
 *
 * For each N of LIST (default 1,2,4,8,16), N processes each open device 0
 * (their own aclInit and context) and, from a common start, run
 * synchronous 4 KiB H2D aclrtMemcpy calls for a fixed time. Reported per N:
 * the aggregate copies per second of all of them together, and the median
 * and worst of the processes' own 99th-percentile latencies. On the shared
 * daemon (NPU_DEVICE naming an npud file) this is how the daemon holds up
 * as clients grow past the cores; in-process every process has a device
 * of its own, so the curve shows the machine alone.
 *
 * Runs of N <= online CPUs and N > CPUs are marked apart. With --sweep=DIR
 * (or the default npu-sweep) the rows go to DIR/processes.csv and, when
 * gnuplot is on PATH, DIR/processes.svg through the sweep's plotting path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acl/acl.h"

#include "bench_report.h"

#define PROCS_MAX 64
#define PROCS_LIST_MAX 16
#define PROCS_RUN_US 1000000.0	   /* each process copies for this long */
#define PROCS_SAMPLES_MAX 2000000u /* latencies kept per process */
#define SZ_4K 4096

/* What a process sends back once done. */
struct procs_child_result {
	int err; /* 0, or the failing aclError */
	unsigned int copies;
	double elapsed_us;
	double p50_us, p99_us;
};

struct procs_row {
	unsigned int n;
	double copies_per_s;   /* all processes together */
	double p99_median_us;  /* the median of the per-process p99 */
	double p99_max_us;     /* the worst process's p99 */
	double p50_median_us;  /* the median of the per-process medians */
};

/* One process's run: set up, wait for @go, copy for PROCS_RUN_US, report. */
static void procs_child(int go, int report, unsigned int run_us)
{
	struct procs_child_result r = { 0 };
	static char host[SZ_4K];
	double *t = calloc(PROCS_SAMPLES_MAX, sizeof(*t));
	void *dev = NULL;
	double start, now;
	char c;

	memset(host, 0x3c, sizeof(host));
	if (!t)
		r.err = ACL_ERROR_RT_MEMORY_ALLOCATION;
	if (!r.err)
		r.err = aclInit(NULL);
	if (!r.err)
		r.err = aclrtSetDevice(0);
	if (!r.err)
		r.err = aclrtMalloc(&dev, SZ_4K, ACL_MEM_MALLOC_NORMAL_ONLY);
	/* One copy before the start, so that no set-up is timed. */
	if (!r.err)
		r.err = aclrtMemcpy(dev, SZ_4K, host, SZ_4K, ACL_MEMCPY_HOST_TO_DEVICE);
	if (read(go, &c, 1) != 1)
		_exit(1);
	start = now = bench_now_us();
	while (!r.err && now - start < run_us && r.copies < PROCS_SAMPLES_MAX) {
		double t0 = now;

		r.err = aclrtMemcpy(dev, SZ_4K, host, SZ_4K, ACL_MEMCPY_HOST_TO_DEVICE);
		now = bench_now_us();
		t[r.copies++] = now - t0;
	}
	r.elapsed_us = now - start;
	if (!r.err && r.copies) {
		r.p99_us = bench_quantile(t, r.copies, 0.99);
		r.p50_us = bench_quantile(t, r.copies, 0.5);
	}
	if (dev)
		aclrtFree(dev);
	aclrtResetDevice(0);
	aclFinalize();
	if (write(report, &r, sizeof(r)) != (ssize_t)sizeof(r))
		_exit(1);
	_exit(0);
}

/* One row: @n processes at once. Return: 0, or non-zero with the reason on stderr. */
static int procs_run(unsigned int n, struct procs_row *row)
{
	struct procs_child_result res[PROCS_MAX];
	double p99[PROCS_MAX], p50[PROCS_MAX], copies = 0, longest = 0;
	int go[2], report[2], ret = 0;
	pid_t pids[PROCS_MAX];
	unsigned int i, started = 0;

	if (pipe2(go, O_CLOEXEC) || pipe2(report, O_CLOEXEC)) {
		perror("npu-bench --processes: pipe");
		return 1;
	}
	for (i = 0; i < n; i++) {
		pids[i] = fork();
		if (pids[i] < 0) {
			perror("npu-bench --processes: fork");
			ret = 1;
			break;
		}
		if (pids[i] == 0) {
			close(go[1]);
			close(report[0]);
			procs_child(go[0], report[1], (unsigned int)PROCS_RUN_US);
		}
		started++;
	}
	close(go[0]);
	close(report[1]);
	/* The start: one byte per process, each waiting in read(). */
	for (i = 0; i < started; i++)
		if (write(go[1], "g", 1) != 1)
			ret = 1;
	close(go[1]);
	for (i = 0; i < started && !ret; i++) {
		struct pollfd p = { .fd = report[0], .events = POLLIN };

		if (poll(&p, 1, 60000) != 1 ||
		    read(report[0], &res[i], sizeof(res[i])) != (ssize_t)sizeof(res[i])) {
			fprintf(stderr, "npu-bench --processes: a process of %u did not report\n",
				n);
			ret = 1;
		} else if (res[i].err) {
			fprintf(stderr, "npu-bench --processes: a process of %u failed: aclError %d\n",
				n, res[i].err);
			ret = 1;
		}
	}
	close(report[0]);
	for (i = 0; i < started; i++) {
		if (ret)
			kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		copies += res[i].copies;
		if (res[i].elapsed_us > longest)
			longest = res[i].elapsed_us;
		p99[i] = res[i].p99_us;
		p50[i] = res[i].p50_us;
	}
	row->n = n;
	row->copies_per_s = longest > 0 ? copies / (longest / 1e6) : 0;
	row->p99_median_us = bench_quantile(p99, n, 0.5);
	row->p99_max_us = bench_quantile(p99, n, 1.0);
	row->p50_median_us = bench_quantile(p50, n, 0.5);
	return 0;
}

/* "1,2,4": at most PROCS_LIST_MAX counts of 1..PROCS_MAX. Return: how many, or 0. */
int bench_procs_parse(const char *text, unsigned int *list)
{
	unsigned int n = 0;
	const char *p = text;

	while (*p && n < PROCS_LIST_MAX) {
		char *end;
		unsigned long v;

		if (*p < '0' || *p > '9')
			return 0;
		v = strtoul(p, &end, 10);
		if (!v || v > PROCS_MAX || (*end && *end != ','))
			return 0;
		list[n++] = (unsigned int)v;
		p = *end ? end + 1 : end;
	}
	return *p ? 0 : (int)n;
}

static int procs_write_csv(const char *dir, const struct procs_row *rows, unsigned int n,
			   long cpus)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/processes.csv", dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "npu-bench --processes: cannot write %s: %s\n", path,
			strerror(errno));
		return 1;
	}
	fprintf(f, "processes,over_cpus,copies_per_s,p50_median_us,p99_median_us,p99_max_us\n");
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%u,%d,%.1f,%.3f,%.3f,%.3f\n", rows[i].n, (long)rows[i].n > cpus,
			rows[i].copies_per_s, rows[i].p50_median_us, rows[i].p99_median_us,
			rows[i].p99_max_us);
	if (fclose(f)) {
		fprintf(stderr, "npu-bench --processes: writing %s failed\n", path);
		return 1;
	}
	fprintf(stderr, "csv: %s\n", path);
	return 0;
}

static int procs_write_plot(const char *dir, const char *backend, const struct procs_row *rows,
			    unsigned int n, long cpus)
{
	char gp[4096], svg[4096];
	FILE *f;

	snprintf(gp, sizeof(gp), "%s/processes.gp", dir);
	snprintf(svg, sizeof(svg), "%s/processes.svg", dir);
	f = fopen(gp, "w");
	if (!f) {
		fprintf(stderr, "npu-bench --processes: cannot write %s: %s\n", gp, strerror(errno));
		return 1;
	}
	fprintf(f, "$d << EOD\n");
	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%u %.1f %.3f %.3f\n", rows[i].n, rows[i].copies_per_s,
			rows[i].p99_median_us, rows[i].p99_max_us);
	fprintf(f, "EOD\n");
	fprintf(f,
		"set terminal svg size 900,560 dynamic background '#ffffff'\n"
		"set output '%s'\n"
		"set title 'npu-bench --processes on %s: synchronous 4 KiB aclrtMemcpy, %ld CPUs'\n"
		"set logscale x 2\n"
		"set xlabel 'client processes'\n"
		"set yrange [0:*]\n"
		"set y2range [0:*]\n"
		"set ylabel 'copies/s, all processes'\n"
		"set y2label 'p99 latency (us)'\n"
		"set ytics nomirror\n"
		"set y2tics\n"
		"set arrow from %ld, graph 0 to %ld, graph 1 nohead dashtype 2 lc rgb '#808080'\n"
		"set key top left\n"
		"set grid\n"
		"plot $d using 1:2 with linespoints title 'copies/s', "
		"$d using 1:3 axes x1y2 with linespoints title 'p99, median process', "
		"$d using 1:4 axes x1y2 with linespoints title 'p99, worst process'\n",
		svg, backend, cpus, cpus, cpus);
	if (fclose(f)) {
		fprintf(stderr, "npu-bench --processes: writing %s failed\n", gp);
		return 1;
	}
	return bench_gnuplot(gp, svg);
}

int bench_procs(const unsigned int *list, unsigned int n, const char *dir, int json,
		const char *backend)
{
	struct procs_row rows[PROCS_LIST_MAX];
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int i;
	int ret;

	if (cpus < 1)
		cpus = 1;
	for (i = 0; i < n; i++) {
		ret = procs_run(list[i], &rows[i]);
		if (ret)
			return ret;
	}
	if (json) {
		printf("{\"backend\": \"%s\", \"cpus\": %ld", backend, cpus);
		for (i = 0; i < n; i++)
			printf(",\n \"procs_%u_copies_per_s\": %.1f,\n \"procs_%u_p99_us\": %.3f,"
			       "\n \"procs_%u_p99_max_us\": %.3f",
			       rows[i].n, rows[i].copies_per_s, rows[i].n, rows[i].p99_median_us,
			       rows[i].n, rows[i].p99_max_us);
		printf("}\n");
	} else {
		printf("npu-bench --processes on %s: synchronous 4 KiB H2D aclrtMemcpy for %.0f s "
		       "per process, %ld CPUs\n",
		       backend, PROCS_RUN_US / 1e6, cpus);
		printf("%10s %10s %14s %12s %14s %12s\n", "processes", "vs CPUs", "copies/s",
		       "p50 (us)", "p99 med (us)", "p99 max (us)");
		for (i = 0; i < n; i++)
			printf("%10u %10s %14.0f %12.2f %14.2f %12.2f\n", rows[i].n,
			       (long)rows[i].n > cpus ? "over" : "within", rows[i].copies_per_s,
			       rows[i].p50_median_us, rows[i].p99_median_us, rows[i].p99_max_us);
	}
	if (!dir)
		return 0;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		fprintf(stderr, "npu-bench --processes: cannot create %s: %s\n", dir,
			strerror(errno));
		return 1;
	}
	ret = procs_write_csv(dir, rows, n, cpus);
	if (ret)
		return ret;
	if (!bench_have_gnuplot()) {
		fprintf(stderr, "plot: skipped (gnuplot is not on PATH)\n");
		return 0;
	}
	return procs_write_plot(dir, backend, rows, n, cpus);
}
