// SPDX-License-Identifier: MIT
/*
 * npu-bench --sweep: copy bandwidth against size, 4 KiB to 256 MiB in powers
 * of 4, for H2D and D2H from pageable (mmap) and pinned (aclrtMallocHost)
 * host memory and for D2D, each beside a memcpy of the same size measured
 * in the same rounds (median and the p10-p90 spread of each). Writes DIR/sweep.csv and, when gnuplot is on PATH,
 * DIR/sweep.svg (DIR/sweep.gp is the script, so the plot can be redone).
 *
 * Runs are interleaved as in the 64 MiB measurements: each round does the
 * memcpy and every copy kind once, so a slow phase of the machine hits them
 * alike. Each size gets about 256 MiB of traffic per series (at least 3 and
 * at most 200 rounds), which keeps the whole sweep near 10 s on a 2-core
 * machine. Synchronous aclrtMemcpy throughout: the time of a copy is what a
 * caller waits for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "acl/acl.h"

#include "bench_report.h"

#define SWEEP_MIN (4UL << 10)
#define SWEEP_BYTES_PER_SERIES (256UL << 20)
#define SWEEP_MIN_ROUNDS 3u
#define SWEEP_MAX_ROUNDS 200u

enum { S_MEMCPY, S_H2D_PAGEABLE, S_H2D_PINNED, S_D2D, S_D2H_PAGEABLE, S_D2H_PINNED, S_COUNT };

static const struct {
	const char *dir;
	const char *host;
	const char *title;
} series[S_COUNT] = {
	[S_MEMCPY] = { "memcpy", "pageable", "memcpy (baseline)" },
	[S_H2D_PAGEABLE] = { "H2D", "pageable", "H2D pageable" },
	[S_H2D_PINNED] = { "H2D", "pinned", "H2D pinned" },
	[S_D2D] = { "D2D", "-", "D2D" },
	[S_D2H_PAGEABLE] = { "D2H", "pageable", "D2H pageable" },
	[S_D2H_PINNED] = { "D2H", "pinned", "D2H pinned" },
};

struct sweep_row {
	size_t size;
	unsigned int rounds;
	double med[S_COUNT], lo[S_COUNT], hi[S_COUNT]; /* GB/s: median, p10, p90 */
};

static int sweep_fail(const char *what, aclError ret)
{
	const char *msg = aclGetRecentErrMsg();

	fprintf(stderr, "npu-bench --sweep: %s failed: %d (%s)\n", what, (int)ret,
		msg ? msg : "no message");
	return 1;
}

#define SWEEP_ACL(call)                                  \
	do {                                             \
		aclError ret_ = (call);                  \
		if (ret_ != ACL_SUCCESS)                 \
			return sweep_fail(#call, ret_);  \
	} while (0)

static void *sweep_host_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* One size: rounds of every series; row gets median, p10 and p90 GB/s. */
static int sweep_size(size_t size, unsigned char *src, unsigned char *dst, unsigned char *pin,
		      void *dev_a, void *dev_b, struct sweep_row *row)
{
	unsigned int rounds = (unsigned int)(SWEEP_BYTES_PER_SERIES / size);
	double *v[S_COUNT];
	int ret = 0;

	if (rounds < SWEEP_MIN_ROUNDS)
		rounds = SWEEP_MIN_ROUNDS;
	if (rounds > SWEEP_MAX_ROUNDS)
		rounds = SWEEP_MAX_ROUNDS;
	for (int s = 0; s < S_COUNT; s++) {
		v[s] = calloc(rounds, sizeof(double));
		if (v[s] == NULL) {
			fprintf(stderr, "npu-bench --sweep: out of host memory\n");
			exit(1);
		}
	}
	/* An untimed round first: device frames and host pages get populated. */
	for (unsigned int i = 0; i <= rounds && ret == 0; i++) {
		double t[S_COUNT + 1];
		aclError e = ACL_SUCCESS;

		t[0] = bench_now_us();
		memcpy(dst, src, size);
		__asm__ volatile("" : : "r"(dst) : "memory");
		t[1] = bench_now_us();
		if (e == ACL_SUCCESS)
			e = aclrtMemcpy(dev_a, size, src, size, ACL_MEMCPY_HOST_TO_DEVICE);
		t[2] = bench_now_us();
		if (e == ACL_SUCCESS)
			e = aclrtMemcpy(dev_a, size, pin, size, ACL_MEMCPY_HOST_TO_DEVICE);
		t[3] = bench_now_us();
		if (e == ACL_SUCCESS)
			e = aclrtMemcpy(dev_b, size, dev_a, size, ACL_MEMCPY_DEVICE_TO_DEVICE);
		t[4] = bench_now_us();
		if (e == ACL_SUCCESS)
			e = aclrtMemcpy(dst, size, dev_b, size, ACL_MEMCPY_DEVICE_TO_HOST);
		t[5] = bench_now_us();
		if (e == ACL_SUCCESS)
			e = aclrtMemcpy(pin, size, dev_b, size, ACL_MEMCPY_DEVICE_TO_HOST);
		t[6] = bench_now_us();
		if (e != ACL_SUCCESS) {
			ret = sweep_fail("aclrtMemcpy", e);
			break;
		}
		if (i == 0)
			continue;
		for (int s = 0; s < S_COUNT; s++) {
			const double us = t[s + 1] - t[s];

			v[s][i - 1] = us > 0 ? (double)size / us / 1e3 : 0;
		}
	}
	/* pin held src's bytes and every copy moved them: both ends must too. */
	if (ret == 0 && (memcmp(dst, src, size) != 0 || memcmp(pin, src, size) != 0)) {
		fprintf(stderr, "npu-bench --sweep: %zu bytes read back differ\n", size);
		ret = 1;
	}
	row->size = size;
	row->rounds = rounds;
	for (int s = 0; s < S_COUNT && ret == 0; s++) {
		qsort(v[s], rounds, sizeof(double), bench_cmp_double);
		/* Nearest-rank p10 and p90: min and max with 3 rounds. */
		row->lo[s] = v[s][(rounds - 1) * 10 / 100];
		row->hi[s] = v[s][((rounds - 1) * 90 + 50) / 100];
		row->med[s] = rounds % 2 ? v[s][rounds / 2]
					 : (v[s][rounds / 2 - 1] + v[s][rounds / 2]) / 2;
	}
	for (int s = 0; s < S_COUNT; s++)
		free(v[s]);
	return ret;
}

static int write_csv(const char *path, const struct sweep_row *rows, size_t n)
{
	FILE *f = fopen(path, "w");

	if (f == NULL) {
		fprintf(stderr, "npu-bench --sweep: cannot write %s: %s\n", path, strerror(errno));
		return 1;
	}
	fprintf(f, "size_bytes,direction,host_memory,rounds,median_gbps,p10_gbps,p90_gbps,"
		   "memcpy_median_gbps,ratio_to_memcpy\n");
	for (size_t i = 0; i < n; i++) {
		const struct sweep_row *r = &rows[i];

		for (int s = S_H2D_PAGEABLE; s < S_COUNT; s++) {
			fprintf(f, "%zu,%s,%s,%u,%.4f,%.4f,%.4f,%.4f,%.4f\n", r->size,
				series[s].dir, series[s].host, r->rounds, r->med[s], r->lo[s],
				r->hi[s], r->med[S_MEMCPY],
				r->med[S_MEMCPY] > 0 ? r->med[s] / r->med[S_MEMCPY] : 0);
		}
	}
	if (fclose(f) != 0) {
		fprintf(stderr, "npu-bench --sweep: writing %s failed\n", path);
		return 1;
	}
	return 0;
}

int bench_have_gnuplot(void)
{
	return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

/* Render @gp (a gnuplot script that writes @svg). Return: 0, or 1 with the reason on stderr. */
int bench_gnuplot(const char *gp, const char *svg)
{
	char cmd[8300];

	snprintf(cmd, sizeof(cmd), "gnuplot '%s'", gp);
	if (system(cmd) != 0) {
		fprintf(stderr, "npu-bench: gnuplot %s failed\n", gp);
		return 1;
	}
	fprintf(stderr, "plot: %s\n", svg);
	return 0;
}

/* DIR/sweep.gp with the data inline, then gnuplot renders DIR/sweep.svg. */
static int write_plot(const char *dir, const char *backend, const struct sweep_row *rows,
		      size_t n)
{
	char gp[4096], svg[4096];
	FILE *f;

	snprintf(gp, sizeof(gp), "%s/sweep.gp", dir);
	snprintf(svg, sizeof(svg), "%s/sweep.svg", dir);
	f = fopen(gp, "w");
	if (f == NULL) {
		fprintf(stderr, "npu-bench --sweep: cannot write %s: %s\n", gp, strerror(errno));
		return 1;
	}
	for (int s = 0; s < S_COUNT; s++) {
		fprintf(f, "$s%d << EOD\n", s);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "%zu %.4f %.4f %.4f\n", rows[i].size, rows[i].med[s],
				rows[i].lo[s], rows[i].hi[s]);
		fprintf(f, "EOD\n");
	}
	fprintf(f,
		"set terminal svg size 900,560 dynamic background '#ffffff'\n"
		"set output '%s'\n"
		"set title 'npu-bench --sweep: synchronous aclrtMemcpy on %s (median, p10-p90 bars)'\n"
		"set logscale x 2\n"
		"set logscale y 10\n"
		"set format x '%%.0b%%B'\n"
		"set xlabel 'copy size (bytes)'\n"
		"set ylabel 'GB/s'\n"
		"set key bottom right\n"
		"set grid\n"
		"plot ",
		svg, backend);
	for (int s = 0; s < S_COUNT; s++) {
		fprintf(f, "%s$s%d using 1:2:3:4 with yerrorlines %s title '%s'", s ? ", " : "", s,
			s == S_MEMCPY ? "dashtype 2 lc rgb '#808080'" : "", series[s].title);
	}
	fprintf(f, "\n");
	if (fclose(f) != 0) {
		fprintf(stderr, "npu-bench --sweep: writing %s failed\n", gp);
		return 1;
	}
	return bench_gnuplot(gp, svg);
}

int bench_sweep(const char *dir, size_t max_size, const char *backend)
{
	const size_t max = max_size < SWEEP_MIN ? SWEEP_MIN : max_size;
	struct sweep_row rows[16];
	unsigned char *src = NULL, *dst = NULL;
	void *pin = NULL, *dev_a = NULL, *dev_b = NULL;
	char csv[4096];
	size_t n = 0, size;
	int ret = 0;

	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, "npu-bench --sweep: cannot create %s: %s\n", dir, strerror(errno));
		return 1;
	}
	src = sweep_host_alloc(max);
	dst = sweep_host_alloc(max);
	if (src == NULL || dst == NULL) {
		fprintf(stderr, "npu-bench --sweep: cannot map 2 x %zu bytes\n", max);
		return 1;
	}
	for (size_t i = 0; i < max / sizeof(uint64_t); i++)
		((uint64_t *)src)[i] = (i + 7) * 0x9e3779b97f4a7c15ULL;
	memset(dst, 0, max);

	SWEEP_ACL(aclInit(NULL));
	SWEEP_ACL(aclrtSetDevice(0));
	SWEEP_ACL(aclrtMallocHost(&pin, max));
	SWEEP_ACL(aclrtMalloc(&dev_a, max, ACL_MEM_MALLOC_HUGE_FIRST));
	SWEEP_ACL(aclrtMalloc(&dev_b, max, ACL_MEM_MALLOC_HUGE_FIRST));
	memcpy(pin, src, max);

	printf("npu-bench --sweep on %s: synchronous aclrtMemcpy, GB/s median [p10, p90]\n",
	       backend);
	printf("%10s %7s", "size", "rounds");
	for (int s = 0; s < S_COUNT; s++)
		printf(" %18s", series[s].title);
	printf("\n");
	for (size = SWEEP_MIN; size <= max && n < sizeof(rows) / sizeof(rows[0]); size *= 4) {
		ret = sweep_size(size, src, dst, pin, dev_a, dev_b, &rows[n]);
		if (ret != 0)
			break;
		printf("%10zu %7u", size, rows[n].rounds);
		for (int s = 0; s < S_COUNT; s++)
			printf(" %6.2f [%4.1f,%4.1f]", rows[n].med[s], rows[n].lo[s], rows[n].hi[s]);
		printf("\n");
		fflush(stdout);
		n++;
	}

	SWEEP_ACL(aclrtFree(dev_a));
	SWEEP_ACL(aclrtFree(dev_b));
	SWEEP_ACL(aclrtFreeHost(pin));
	SWEEP_ACL(aclrtResetDevice(0));
	SWEEP_ACL(aclFinalize());
	munmap(src, max);
	munmap(dst, max);
	if (ret != 0)
		return ret;

	snprintf(csv, sizeof(csv), "%s/sweep.csv", dir);
	ret = write_csv(csv, rows, n);
	if (ret != 0)
		return ret;
	printf("csv: %s\n", csv);
	if (!bench_have_gnuplot()) {
		printf("plot: skipped (gnuplot is not on PATH; install it to get %s/sweep.svg)\n",
		       dir);
		return 0;
	}
	return write_plot(dir, backend, rows, n);
}
