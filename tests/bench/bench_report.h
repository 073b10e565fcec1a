/* SPDX-License-Identifier: MIT */
/*
 * Measurements that bench_*.c modules add to npu-bench's output. Each
 * module has one entry point, called by main() after the core measurements
 * with a device set, that appends its keys here; print_json and print_table
 * print them after the core keys. A negative value is a failed measurement
 * (minus the aclError) and makes npu-bench exit non-zero.
 */
#ifndef NPU_BENCH_REPORT_H
#define NPU_BENCH_REPORT_H

#include <stdlib.h>
#include <time.h>

#define BENCH_REPORT_MAX 48

/* Microseconds on the monotonic clock. */
static inline double bench_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The @q quantile (0..1) of @n > 0 samples, nearest rank; sorts @v. */
static inline double bench_quantile(double *v, unsigned int n, double q)
{
	qsort(v, n, sizeof(*v), bench_cmp_double);
	return v[(unsigned int)(q * (n - 1) + 0.5)];
}

/* The median of @n > 0 samples (the upper one of an even count); sorts @v. */
static inline double bench_median(double *v, unsigned int n)
{
	return bench_quantile(v, n, 0.5);
}

struct bench_extra {
	const char *key;	/* JSON key */
	const char *what;	/* the table's row label */
	const char *unit;	/* the table's unit column: "us", "ratio", "/s", ... */
	double value;
};

struct bench_report {
	unsigned int n;
	struct bench_extra v[BENCH_REPORT_MAX];
};

void bench_report_add(struct bench_report *rep, const char *key, const char *what,
		      const char *unit, double value);

/* The modules. iters is the run count for small operations (--quick lowers it). */
void bench_share(unsigned int iters, struct bench_report *rep);
/*
 * Streams: runs timed runs of each measurement (the 64 MiB run count),
 * ops 64-byte async copies per small-copy run.
 */
void bench_async(unsigned int runs, unsigned int ops, struct bench_report *rep);
/* Scrubbing for a new owner (iters runs) and releasing freed HBM (runs runs). */
void bench_tenancy(unsigned int iters, unsigned int runs, struct bench_report *rep);

/*
 * Two plain threads through a ring, the ceiling of one stream: one run of
 * @ops descriptors, per second (negative on failure).
 */
double bench_spsc_once(unsigned int ops);
/*
 * npud against the in-process device, each in a child process (iters
 * synchronous calls, ops 64-byte async copies per run); bench_fuse_child
 * is that child (npu-bench --fuse-child ITERS OPS).
 */
void bench_fuse(unsigned int iters, unsigned int ops, struct bench_report *rep);
int bench_fuse_child(unsigned int iters, unsigned int ops);
/* Costs with @live allocations alive over none (iters runs each). */
void bench_scale(unsigned int iters, unsigned int live, struct bench_report *rep);

/*
 * --sweep: on its own (it initialises and finalises ACL itself), copy
 * bandwidth from 4 KiB to max_size in powers of 4, into dir/sweep.csv (and
 * dir/sweep.svg with gnuplot). Returns the exit status.
 */
#include <stddef.h>
int bench_sweep(const char *dir, size_t max_size, const char *backend);
/* The sweep's plotting path: whether gnuplot is on PATH, and a script rendered. */
int bench_have_gnuplot(void);
int bench_gnuplot(const char *gp, const char *svg);
/*
 * --processes: @n rows, @list[i] client processes each; CSV and plot into
 * @dir unless it is NULL. Parse "1,2,4" into @list: the count, or 0.
 */
int bench_procs_parse(const char *text, unsigned int *list);
int bench_procs(const unsigned int *list, unsigned int n, const char *dir, int json,
		const char *backend);

#endif /* NPU_BENCH_REPORT_H */
