// SPDX-License-Identifier: MIT
/*
 * npu-smi: what the driver says about each device's memory, who uses it,
 * and which keys and shareable handles are exported to whom. Works on
 * whichever backend NPU_DEVICE selects (in-process shows this process only).
 *
 *   npu-smi [info] [-q] [-i ID] [--json | --format=csv] [-l SECONDS]
 *   npu-smi -L | --version | --help
 *   npu-smi cdi generate [--output DIR]
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "npu/hal.h"

#include "npu_smi.h"

/**
 * npu_smi_device_file() - the file device @d is opened through
 * @d: device number
 * @buf: its path ("inproc" for the in-process device)
 * @len: size of @buf
 *
 * Device 0's is the backend's name (NPU_DEVICE, or the default path);
 * device N's replaces that name's final 0 with N, as the runtime does.
 *
 * Return: 0, -ENODEV when the backend names one device only, -ENAMETOOLONG.
 */
int npu_smi_device_file(uint32_t d, char *buf, size_t len)
{
	const char *name = npuHalBackendName();
	size_t n = strlen(name);
	int w;

	if (d == 0 || npuHalBackendIsInproc()) {
		w = snprintf(buf, len, "%s", name);
	} else {
		if (n < 2 || name[n - 1] != '0')
			return -ENODEV;
		w = snprintf(buf, len, "%.*s%u", (int)(n - 1), name, d);
	}
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

static const char *const class_names[NPU_CLASS_COUNT] = { "4K", "2M", "1G" };

static double mib(uint64_t bytes)
{
	return (double)bytes / (1024.0 * 1024.0);
}

/* What query() asks for. */
enum smi_query { SMI_PROCS, SMI_SHARES, SMI_USERS };

/* Records of one query, grown until they all fit. */
static void *query(npuHalDevice *dev, enum smi_query what, size_t rec_size, uint32_t *n)
{
	uint32_t count = 16, total = 0;
	void *buf = NULL;

	for (;;) {
		void *nb = realloc(buf, (size_t)count * rec_size);
		int ret;

		if (!nb)
			break;
		buf = nb;
		if (what == SMI_SHARES)
			ret = npuHalSmiShares(dev, buf, count, &total);
		else if (what == SMI_USERS)
			ret = npuHalSmiUsers(dev, buf, count, &total);
		else
			ret = npuHalSmiProcs(dev, buf, count, &total);
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

static bool is_bytes(int kind)
{
	return kind == NPU_LIMIT_PIN_BYTES || kind == NPU_LIMIT_HBM_BYTES ||
	       kind == NPU_LIMIT_RING_BYTES;
}

/* "used/limit" of one limit into buf ("-" for a limit that is not set). */
static const char *use_of(char *buf, size_t len, const __u64 *used, const __u64 *limit,
			  int kind)
{
	char lim[24];

	if (limit[kind] == NPU_LIMIT_NONE)
		snprintf(lim, sizeof(lim), "-");
	else if (is_bytes(kind))
		snprintf(lim, sizeof(lim), "%.1f", mib(limit[kind]));
	else
		snprintf(lim, sizeof(lim), "%llu", (unsigned long long)limit[kind]);
	if (is_bytes(kind))
		snprintf(buf, len, "%.1f/%s", mib(used[kind]), lim);
	else
		snprintf(buf, len, "%llu/%s", (unsigned long long)used[kind], lim);
	return buf;
}

/* One line of the limits tables: the owner (TGID or UID), then every kind. */
static void print_limit_line(uint32_t who, const char *extra, const __u64 *used,
			     const __u64 *limit)
{
	char b[NPU_LIMIT_COUNT][48];
	int k;

	for (k = 0; k < NPU_LIMIT_COUNT; k++)
		use_of(b[k], sizeof(b[k]), used, limit, k);
	printf("    %-8u%-6s %-11s %-17s %-17s %-13s %-13s %-15s %-15s %s\n", who, extra,
	       b[NPU_LIMIT_RINGS], b[NPU_LIMIT_ALLOCATIONS], b[NPU_LIMIT_PHYS_HANDLES],
	       b[NPU_LIMIT_IPC_KEYS], b[NPU_LIMIT_SHARE_HANDLES], b[NPU_LIMIT_PIN_BYTES],
	       b[NPU_LIMIT_HBM_BYTES], b[NPU_LIMIT_RING_BYTES]);
}

static void print_limit_header(const char *who, const char *extra)
{
	printf("    %-8s%-6s %-11s %-17s %-17s %-13s %-13s %-15s %-15s %s\n", who, extra, "RINGS",
	       "ALLOCS", "PHYS", "IPC KEYS", "SHARES", "PINNED", "HBM", "RING MEM");
}

/*
 * Each process's use of its per-process limits on the device: one line per
 * TGID (its contexts share one budget), in the order of its first context.
 */
static void print_limits(const struct npu_smi_proc *procs, uint32_t n)
{
	uint32_t i, j;

	printf("  Limits per process (used/limit; MiB for PINNED, HBM and RING MEM)\n");
	print_limit_header("TGID", "");
	for (i = 0; i < n; i++) {
		for (j = 0; j < i && procs[j].tgid != procs[i].tgid; j++)
			;
		if (j == i)
			print_limit_line(procs[i].tgid, "", procs[i].used, procs[i].limit);
	}
}

/* Each user's use of its per-user limits on the device ("-": no limit). */
static void print_users(npuHalDevice *dev)
{
	struct npu_smi_user *users;
	char procs[16];
	uint32_t n, i;

	users = query(dev, SMI_USERS, sizeof(*users), &n);
	printf("  Limits per user, all its processes (used/limit; MiB as above; -: none)\n");
	print_limit_header("UID", "PROCS");
	for (i = 0; i < n; i++) {
		snprintf(procs, sizeof(procs), " %u", users[i].procs);
		print_limit_line(users[i].uid, procs, users[i].used, users[i].limit);
	}
	free(users);
}

static void print_device(uint32_t d, npuHalDevice *dev)
{
	char file[PATH_MAX];
	struct npu_device_info info;
	struct npu_smi_proc *procs;
	uint32_t n, i, c;

	if (npuHalDeviceInfo(dev, &info) < 0)
		return;
	printf("Device %u\n", d);
	if (!npu_smi_device_file(d, file, sizeof(file)))
		printf("  Backend file %s\n", file);
	printf("  HBM total %.1f MiB, free %.1f MiB\n", mib(info.hbm_total), mib(info.hbm_free));
	printf("  Engines %u, busy %.3f s of %.3f s up (%.1f%% of their time)\n", info.engines,
	       info.busy_ns / 1e9, info.up_ns / 1e9,
	       info.up_ns && info.engines ? 100.0 * info.busy_ns / ((double)info.up_ns * info.engines)
					  : 0.0);
	for (c = 0; c < NPU_CLASS_COUNT; c++)
		printf("  free %s pages: %.1f MiB of %.1f MiB\n", class_names[c], mib(info.free[c]),
		       mib(info.total[c]));
	procs = query(dev, SMI_PROCS, sizeof(*procs), &n);
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
	print_users(dev);
}

static void print_shares(npuHalDevice *dev)
{
	struct npu_smi_share *recs;
	uint32_t n = 0, i;

	recs = query(dev, SMI_SHARES, sizeof(*recs), &n);
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

static const char *const limit_names[NPU_LIMIT_COUNT] = {
	"rings", "allocations", "phys_handles", "ipc_keys", "share_handles", "pinned_bytes",
	"hbm_bytes", "ring_bytes",
};

/* "name": {"used": N, "limit": N} for every kind; a limit that is not set is null. */
static void json_limits(const __u64 *used, const __u64 *limit)
{
	int k;

	for (k = 0; k < NPU_LIMIT_COUNT; k++) {
		printf("%s\"%s\": {\"used\": %llu, \"limit\": ", k ? ", " : "", limit_names[k],
		       (unsigned long long)used[k]);
		if (limit[k] == NPU_LIMIT_NONE)
			printf("null}");
		else
			printf("%llu}", (unsigned long long)limit[k]);
	}
}

enum smi_format { SMI_TEXT, SMI_JSON, SMI_CSV };

/* @s as a JSON string literal. */
static void json_str(const char *s)
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

struct smi_opts {
	enum smi_format format;
	bool list;
	int device;		/* -1: all */
	unsigned int interval;	/* -l: seconds between reports, 0: once */
};

static void json_device(uint32_t d, npuHalDevice *dev, bool first)
{
	struct npu_device_info info;
	struct npu_smi_user *users;
	struct npu_smi_proc *procs;
	uint32_t n, i, c;

	if (npuHalDeviceInfo(dev, &info) < 0)
		return;
	printf("%s\n  {\"id\": %u, \"hbm_total\": %llu, \"hbm_free\": %llu, \"engines\": %u, "
	       "\"engine_busy_ns\": %llu, \"up_ns\": %llu, "
	       "\"contexts\": %u, \"allocations\": %llu,\n   \"pages\": [",
	       first ? "" : ",", d, (unsigned long long)info.hbm_total,
	       (unsigned long long)info.hbm_free, info.engines, (unsigned long long)info.busy_ns,
	       (unsigned long long)info.up_ns, info.contexts,
	       (unsigned long long)info.allocations);
	for (c = 0; c < NPU_CLASS_COUNT; c++)
		printf("%s{\"page\": \"%s\", \"total\": %llu, \"free\": %llu}", c ? ", " : "",
		       class_names[c], (unsigned long long)info.total[c],
		       (unsigned long long)info.free[c]);
	printf("],\n   \"processes\": [");
	procs = query(dev, SMI_PROCS, sizeof(*procs), &n);
	for (i = 0; i < n; i++) {
		const struct npu_smi_proc *p = &procs[i];

		printf("%s\n    {\"tgid\": %u, \"ctx\": %u, \"mapped_bytes\": %llu, \"allocations\": "
		       "%llu, \"imports\": %llu, \"phys_handles\": %llu, \"phys_bytes\": %llu, "
		       "\"limits\": {",
		       i ? "," : "", p->tgid, p->ctx_id, (unsigned long long)p->mapped_bytes,
		       (unsigned long long)p->allocations, (unsigned long long)p->imports,
		       (unsigned long long)p->phys_handles, (unsigned long long)p->phys_bytes);
		json_limits(p->used, p->limit);
		printf("}}");
	}
	free(procs);
	printf("],\n   \"users\": [");
	users = query(dev, SMI_USERS, sizeof(*users), &n);
	for (i = 0; i < n; i++) {
		printf("%s\n    {\"uid\": %u, \"procs\": %u, \"limits\": {", i ? "," : "",
		       users[i].uid, users[i].procs);
		json_limits(users[i].used, users[i].limit);
		printf("}}");
	}
	printf("]}");
	free(users);
}

static void json_shares(npuHalDevice *dev)
{
	struct npu_smi_share *recs;
	uint32_t n = 0, i;
	bool open = false, first = true;

	recs = query(dev, SMI_SHARES, sizeof(*recs), &n);
	printf(",\n \"exports\": [");
	for (i = 0; i < n; i++) {
		const struct npu_smi_share *r = &recs[i];

		if (r->kind == NPU_SMI_IMPORTER) {
			printf("%s{\"tgid\": %u, \"size\": %llu}", open ? ", " : "", r->tgid,
			       (unsigned long long)r->size);
			open = true;
			continue;
		}
		printf("%s%s\n  {\"kind\": \"%s\", \"tag\": \"%.*s\", \"tgid\": %u, \"device\": %u, "
		       "\"size\": %llu, \"whitelist\": %lld, \"importers\": [",
		       i ? "]}" : "", first ? "" : ",",
		       r->kind == NPU_SMI_IPC_KEY ? "ipc_key" : "share_handle",
		       (int)strnlen(r->tag, sizeof(r->tag)), r->tag, r->tgid, r->device,
		       (unsigned long long)r->size,
		       r->whitelist == UINT32_MAX ? -1LL : (long long)r->whitelist);
		first = false;
		open = false;
	}
	printf("%s]}\n", n ? "]}" : "");
	free(recs);
}

static void csv_device(uint32_t d, npuHalDevice *dev)
{
	struct npu_device_info info;
	uint32_t c;

	if (npuHalDeviceInfo(dev, &info) < 0)
		return;
	printf("%u,%llu,%llu,%u,%u,%llu", d, (unsigned long long)info.hbm_total,
	       (unsigned long long)info.hbm_free, info.engines, info.contexts,
	       (unsigned long long)info.allocations);
	for (c = 0; c < NPU_CLASS_COUNT; c++)
		printf(",%llu,%llu", (unsigned long long)info.total[c],
		       (unsigned long long)info.free[c]);
	printf("\n");
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: npu-smi [info] [-q] [-i ID] [--json | --format=csv] [-l SECONDS]\n"
		"       npu-smi -L | --version | --help\n"
		"       npu-smi cdi generate [--output DIR]   a CDI spec of the devices\n"
		"  info           each device's HBM, its processes and users and their limits,\n"
		"                 the exports\n"
		"                 (the default; -q is the same report)\n"
		"  -i, --id ID    only device ID\n"
		"  --json         the same as one JSON object\n"
		"  --format=csv   one line per device: id,hbm_total,hbm_free,engines,contexts,\n"
		"                 allocations,total_4K,free_4K,total_2M,free_2M,total_1G,free_1G\n"
		"  -l SECONDS     report again every SECONDS until interrupted\n"
		"  -L, --list     one line per device\n"
		"The backend comes from NPU_DEVICE (see the README); in-process shows this\n"
		"process only.\n");
}

/* Parse the command line: 0, 1 (done: --help or --version printed), or 2. */
static int parse(int argc, char **argv, struct smi_opts *o)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "format", required_argument, NULL, 'f' },
		{ "list", no_argument, NULL, 'L' },
		{ "id", required_argument, NULL, 'i' },
		{ "query", no_argument, NULL, 'q' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	long v;
	int c;

	o->format = SMI_TEXT;
	o->list = false;
	o->device = -1;
	o->interval = 0;
	while ((c = getopt_long(argc, argv, "qi:l:L", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			o->format = SMI_JSON;
			break;
		case 'f':
			if (strcmp(optarg, "csv")) {
				fprintf(stderr, "npu-smi: --format %s: only csv is known\n", optarg);
				return 2;
			}
			o->format = SMI_CSV;
			break;
		case 'L':
			o->list = true;
			break;
		case 'i':
		case 'l':
			v = strtol(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || v < (c == 'l') || v > 3600) {
				fprintf(stderr, "npu-smi: bad -%c %s\n", c, optarg);
				return 2;
			}
			if (c == 'i')
				o->device = (int)v;
			else
				o->interval = (unsigned int)v;
			break;
		case 'q':
			break;
		case 'V':
			printf("npu-smi %s\n", NPU_SMI_VERSION);
			return 1;
		case 'h':
			usage(stdout);
			return 1;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && !strcmp(argv[optind], "info"))
		optind++;
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	return 0;
}

static int list_devices(uint32_t count)
{
	char file[PATH_MAX];
	struct npu_version ver;
	npuHalDevice *dev;
	uint32_t d;
	int ret;

	for (d = 0; d < count; d++) {
		ret = npuHalDeviceOpen(d, &dev);
		if (ret < 0) {
			fprintf(stderr, "npu-smi: device %u: %s\n", d, strerror(-ret));
			return 1;
		}
		ret = npuHalGetVersion(dev, &ver);
		npuHalDeviceClose(dev);
		if (ret < 0) {
			fprintf(stderr, "npu-smi: device %u: %s\n", d, strerror(-ret));
			return 1;
		}
		if (npu_smi_device_file(d, file, sizeof(file)))
			snprintf(file, sizeof(file), "%s", npuHalBackendName());
		printf("NPU %u: %.0f MiB HBM, driver ABI %u.%u (backend %s)\n", d,
		       mib(ver.hbm_size), ver.abi_major, ver.abi_minor, file);
	}
	return 0;
}

/* One report of every selected device and the exports: 0 or 1. */
static int report(const struct smi_opts *o, uint32_t count)
{
	bool first = true;
	npuHalDevice *dev;
	uint32_t d;
	int ret;

	if (o->format == SMI_TEXT) {
		printf("npu-smi: backend %s, %u device(s)\n", npuHalBackendName(), count);
	} else if (o->format == SMI_JSON) {
		printf("{\"backend\": ");
		json_str(npuHalBackendName());
		printf(", \"device_count\": %u,\n \"devices\": [", count);
	} else {
		printf("id,hbm_total,hbm_free,engines,contexts,allocations,total_4K,free_4K,"
		       "total_2M,free_2M,total_1G,free_1G\n");
	}
	/* One device open at a time: each open reserves a device-VA aperture. */
	for (d = 0; d < count; d++) {
		if (o->device >= 0 && (uint32_t)o->device != d)
			continue;
		ret = npuHalDeviceOpen(d, &dev);
		if (ret < 0) {
			fprintf(stderr, "npu-smi: device %u: %s\n", d, strerror(-ret));
			return 1;
		}
		if (o->format == SMI_TEXT)
			print_device(d, dev);
		else if (o->format == SMI_JSON)
			json_device(d, dev, first);
		else
			csv_device(d, dev);
		first = false;
		npuHalDeviceClose(dev);
	}
	if (o->format == SMI_CSV)
		return 0;
	if (o->format == SMI_JSON)
		printf("]");
	/* The export table is one per driver instance: any device shows it. */
	ret = npuHalDeviceOpen(0, &dev);
	if (ret < 0) {
		fprintf(stderr, "npu-smi: device 0: %s\n", strerror(-ret));
		return 1;
	}
	if (o->format == SMI_JSON)
		json_shares(dev);
	else
		print_shares(dev);
	npuHalDeviceClose(dev);
	return 0;
}

int main(int argc, char **argv)
{
	struct smi_opts o;
	uint32_t count = 0;
	int ret;

	if (argc > 1 && !strcmp(argv[1], "cdi"))
		return npu_smi_cdi(argc - 2, argv + 2);
	ret = parse(argc, argv, &o);
	if (ret)
		return ret == 1 ? 0 : 2;
	if (npuHalGetDeviceCount(&count) < 0 || count == 0) {
		fprintf(stderr, "npu-smi: no device (backend %s)\n", npuHalBackendName());
		return 1;
	}
	if (o.device >= 0 && (uint32_t)o.device >= count) {
		fprintf(stderr, "npu-smi: no device %d (%u device(s))\n", o.device, count);
		return 2;
	}
	if (o.list)
		return list_devices(count);
	for (;;) {
		ret = report(&o, count);
		fflush(stdout);
		if (ret || !o.interval)
			return ret;
		sleep(o.interval);
	}
}
