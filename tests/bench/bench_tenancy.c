// SPDX-License-Identifier: MIT
/*
 * Tenancy benchmarks: what keeping data from crossing contexts costs.
 *
 * - scrub_alloc_2m_us: allocate plus free 2 MiB that another context
 *   wrote and freed just before, so the driver must hand over zeroed
 *   frames (it swaps the chunk's backing for a fresh one). The same
 *   sequence within one context is malloc_free_2m_us.
 * - release_2m_us: freeing a written 128 MiB allocation, per 2 MiB chunk:
 *   the driver gives the backing of idle chunks back to the host.
 * - hbm_backing_after_free_mb: host memory still backing HBM after 1 GiB
 *   was written and freed (the chunks kept idle for reuse): the driver's
 *   backing_bytes (debugfs file hbm) less the HBM still allocated
 *   (hbm_used_bytes, file counters: the benchmark's own buffers). Only on
 *   the in-process backend, where this process can read those files.
 *
 * Two driver contexts of one process stand for two processes: each
 * npuHalDeviceOpen is a context of its own, with its own owner id.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "npu/hal.h"

#include "bench_report.h"

#define MAX_ITERS 4096
#define SZ_2M (2ull << 20)
#define SZ_128M (128ull << 20)
#define SZ_1G (1ull << 30)

/* Fill @size bytes at device address @va on the device's synchronous queue. */
static int fill(npuHalDevice *dev, uint64_t va, uint64_t size)
{
	struct npu_sqe sqe = { 0 };

	sqe.opcode = NPU_OP_MEMSET;
	sqe.dir = NPU_DIR_H2D;
	sqe.dst = va;
	sqe.len = size;
	sqe.value = 0x5a;
	return npuHalDeviceRun(dev, &sqe, 1);
}

/* Allocate, write and free @size in @dev: its frames are then dirty for @dev. */
static int dirty(npuHalDevice *dev, uint64_t size)
{
	struct npu_mem_alloc a;
	int err = npuHalMemAlloc(dev, size, NPU_POLICY_HUGE_ONLY, 0, &a);

	if (err)
		return err;
	err = fill(dev, a.va, size);
	npuHalMemFree(dev, a.va);
	return err;
}

static double bench_scrub_alloc(npuHalDevice *x, npuHalDevice *y, int iters)
{
	static double t[MAX_ITERS];
	struct npu_mem_alloc a;
	int i, err = 0;

	for (i = 0; !err && i < iters; i++) {
		double t0;

		err = dirty(x, SZ_2M);
		if (err)
			break;
		t0 = bench_now_us();
		err = npuHalMemAlloc(y, SZ_2M, NPU_POLICY_HUGE_ONLY, 0, &a);
		if (!err)
			err = npuHalMemFree(y, a.va);
		t[i] = bench_now_us() - t0;
	}
	return err ? -(double)npuHalErrorToAcl(err) : bench_median(t, iters);
}

static double bench_release(npuHalDevice *x, int runs)
{
	static double t[64];
	struct npu_mem_alloc a;
	int i, err = 0;

	for (i = 0; !err && i < runs; i++) {
		double t0;

		err = npuHalMemAlloc(x, SZ_128M, NPU_POLICY_HUGE_ONLY, 0, &a);
		if (err)
			break;
		err = fill(x, a.va, SZ_128M);
		t0 = bench_now_us();
		if (!err)
			err = npuHalMemFree(x, a.va);
		t[i] = (bench_now_us() - t0) / (double)(SZ_128M / SZ_2M);
	}
	return err ? -(double)npuHalErrorToAcl(err) : bench_median(t, runs);
}

/* The number after "@key " in debugfs file @path; -1 if there is none. */
static double debugfs_value(const char *path, const char *key)
{
	unsigned long long v;
	char buf[1024], *p;
	size_t n = strlen(key);

	if (npuHalInprocDebugfsRead(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; (p = strstr(p, key)); p += n)
		if ((p == buf || p[-1] == '\n') && p[n] == ' ' && sscanf(p + n, " %llu", &v) == 1)
			return (double)v;
	return -1;
}

static double bench_backing_after_free(npuHalDevice *x)
{
	struct npu_mem_alloc a;
	double backing, used;
	int err = npuHalMemAlloc(x, SZ_1G, NPU_POLICY_HUGE_ONLY, 0, &a);

	if (err)
		return -(double)npuHalErrorToAcl(err);
	err = fill(x, a.va, SZ_1G);
	npuHalMemFree(x, a.va);
	if (err)
		return -(double)npuHalErrorToAcl(err);
	backing = debugfs_value("npu/npu0/hbm", "backing_bytes");
	used = debugfs_value("npu/npu0/counters", "hbm_used_bytes");
	if (backing < 0 || used < 0)
		return -1;
	return (backing - used) / (1 << 20);
}

void bench_tenancy(unsigned int iters, unsigned int runs, struct bench_report *rep)
{
	npuHalDevice *x = NULL, *y = NULL;
	double scrub, release;
	int err;

	if (iters > MAX_ITERS)
		iters = MAX_ITERS;
	if (runs > 64)
		runs = 64;
	err = npuHalDeviceOpen(0, &x);
	if (!err)
		err = npuHalDeviceOpen(0, &y);
	if (err) {
		scrub = release = -(double)npuHalErrorToAcl(err);
	} else {
		scrub = bench_scrub_alloc(x, y, (int)iters);
		release = bench_release(x, (int)runs);
		if (!strcmp(npuHalBackendName(), "inproc"))
			bench_report_add(rep, "hbm_backing_after_free_mb",
					 "host memory backing HBM after 1 GiB freed", "MiB",
					 bench_backing_after_free(x));
	}
	if (y)
		npuHalDeviceClose(y);
	if (x)
		npuHalDeviceClose(x);
	bench_report_add(rep, "scrub_alloc_2m_us",
			 "alloc+free 2 MiB another context just freed", "us", scrub);
	bench_report_add(rep, "release_2m_us", "free of written HBM, per 2 MiB chunk", "us",
			 release);
}
