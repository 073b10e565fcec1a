/*
 * npu-smi: what the driver says about each device's memory, who uses it,
 * and which keys and shareable handles are exported to whom. Works on
 * whichever backend NPU_DEVICE selects (in-process shows this process only).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npu/hal.h"

static const char *const class_names[NPU_CLASS_COUNT] = { "4K", "2M", "1G" };

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

/* Records of one query, grown until they all fit. */
static void *query(halDevice *dev, int shares, size_t rec_size, uint32_t *n)
{
	uint32_t count = 16, total = 0;
	void *buf = NULL;

	for (;;) {
		void *nb = realloc(buf, (size_t)count * rec_size);
		int ret;

		if (!nb)
			break;
		buf = nb;
		ret = shares ? halSmiShares(dev, buf, count, &total)
			     : halSmiProcs(dev, buf, count, &total);
		if (ret < 0) {
			fprintf(stderr, "npu-smi: query failed: %s\n", strerror(-ret));
			break;
		}
		if (total <= count) {
			*n = total;
			return buf;
		}
		count = total + 16;
	}
	free(buf);
	*n = 0;
	return NULL;
}

/* "used/limit" of one per-process limit into buf. */
static const char *use_of(char *buf, size_t len, const struct npu_smi_proc *p, int kind)
{
	if (kind == NPU_LIMIT_PIN_BYTES || kind == NPU_LIMIT_HBM_BYTES)
		snprintf(buf, len, "%.1f/%.1f", mib(p->used[kind]), mib(p->limit[kind]));
	else
		snprintf(buf, len, "%llu/%llu", (unsigned long long)p->used[kind],
			 (unsigned long long)p->limit[kind]);
	return buf;
}

/*
 * Each process's use of its per-process limits on the device: one line per
 * TGID (its contexts share one budget), in the order of its first context.
 */
static void print_limits(const struct npu_smi_proc *procs, uint32_t n)
{
	char b[NPU_LIMIT_COUNT][48];
	uint32_t i, j;

	printf("  Limits per process (used/limit; MiB for PINNED and HBM)\n");
	printf("    %-8s %-11s %-17s %-17s %-13s %-13s %-15s %s\n", "TGID", "RINGS", "ALLOCS",
	       "PHYS", "IPC KEYS", "SHARES", "PINNED", "HBM");
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && procs[j].tgid != procs[i].tgid; j++)
			;
		if (j < i)
			continue;
		printf("    %-8u %-11s %-17s %-17s %-13s %-13s %-15s %s\n", procs[i].tgid,
		       use_of(b[0], sizeof(b[0]), &procs[i], NPU_LIMIT_RINGS),
		       use_of(b[1], sizeof(b[1]), &procs[i], NPU_LIMIT_ALLOCATIONS),
		       use_of(b[2], sizeof(b[2]), &procs[i], NPU_LIMIT_PHYS_HANDLES),
		       use_of(b[3], sizeof(b[3]), &procs[i], NPU_LIMIT_IPC_KEYS),
		       use_of(b[4], sizeof(b[4]), &procs[i], NPU_LIMIT_SHARE_HANDLES),
		       use_of(b[5], sizeof(b[5]), &procs[i], NPU_LIMIT_PIN_BYTES),
		       use_of(b[6], sizeof(b[6]), &procs[i], NPU_LIMIT_HBM_BYTES));
	}
}

static void print_device(uint32_t d, halDevice *dev)
{
	struct npu_device_info info;
	struct npu_smi_proc *procs;
	uint32_t n, i, c;

	if (halDeviceInfo(dev, &info) < 0)
		return;
	printf("Device %u\n", d);
	printf("  HBM total %.1f MiB, free %.1f MiB\n", mib(info.hbm_total), mib(info.hbm_free));
	for (c = 0; c < NPU_CLASS_COUNT; c++)
		printf("  free %s pages: %.1f MiB of %.1f MiB\n", class_names[c], mib(info.free[c]),
		       mib(info.total[c]));
	procs = query(dev, 0, sizeof(*procs), &n);
	printf("  Processes (%u contexts)\n", n);
	printf("    %-8s %-6s %12s %6s %7s %6s %12s\n", "TGID", "CTX", "MAPPED MiB", "ALLOCS",
	       "IMPORTS", "PHYS", "PHYS MiB");
	for (i = 0; i < n; i++) {
		const struct npu_smi_proc *p = &procs[i];

		printf("    %-8u %-6u %12.1f %6llu %7llu %6llu %12.1f%s\n",
		       p->tgid, p->ctx_id, mib(p->mapped_bytes),
		       (unsigned long long)p->allocations, (unsigned long long)p->imports,
		       (unsigned long long)p->phys_handles, mib(p->phys_bytes),
		       p->tgid == (uint32_t)getpid() ? "  (npu-smi)" : "");
	}
	print_limits(procs, n);
	free(procs);
}

static void print_shares(halDevice *dev)
{
	struct npu_smi_share *recs;
	uint32_t n = 0, i;

	recs = query(dev, 1, sizeof(*recs), &n);
	printf("Exports (%u records)\n", n);
	for (i = 0; i < n; i++) {
		const struct npu_smi_share *r = &recs[i];

		if (r->kind == NPU_SMI_IMPORTER) {
			printf("    imported by tgid %u (%.1f MiB)\n", r->tgid, mib(r->size));
			continue;
		}
		printf("  %s %s... exporter tgid %u device %u size %.1f MiB whitelist ",
		       r->kind == NPU_SMI_IPC_KEY ? "ipc key" : "handle ", r->tag, r->tgid,
		       r->device, mib(r->size));
		if (r->whitelist == UINT32_MAX)
			printf("off\n");
		else
			printf("%u pid(s)\n", r->whitelist);
	}
	free(recs);
}

int main(int argc, char **argv)
{
	uint32_t count = 0, d;
	halDevice *dev;
	int ret;

	if (argc > 1) {
		fprintf(stderr, "usage: %s   (the backend comes from NPU_DEVICE)\n", argv[0]);
		return 2;
	}
	if (halGetDeviceCount(&count) < 0 || count == 0) {
		fprintf(stderr, "npu-smi: no device (backend %s)\n", halBackendName());
		return 1;
	}
	printf("npu-smi: backend %s, %u device(s)\n", halBackendName(), count);
	/* One device open at a time: each open reserves a device-VA aperture. */
	for (d = 0; d < count; d++) {
		ret = halDeviceOpen(d, &dev);
		if (ret < 0) {
			fprintf(stderr, "npu-smi: device %u: %s\n", d, strerror(-ret));
			continue;
		}
		print_device(d, dev);
		halDeviceClose(dev);
	}
	/* The export table is one per driver instance: any device shows it. */
	ret = halDeviceOpen(0, &dev);
	if (ret < 0) {
		fprintf(stderr, "npu-smi: device 0: %s\n", strerror(-ret));
		return 1;
	}
	print_shares(dev);
	halDeviceClose(dev);
	return 0;
}
