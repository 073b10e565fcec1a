// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * npud: run the npu driver (built against the mock kernel) in this process
 * and serve it to others, as FUSE files or CUSE devices.
 *
 *   npud --fuse DIR [--require-shared] [--devices N] [--hbm-size SIZE]
 *               [--limit-* N|SIZE ...]
 *   npud --fuse DIR --mount-only | --unmount
 *   npud --cuse [--devices N] [--hbm-size SIZE] [--mode MODE] [--name NAME]
 *               [--limit-* N|SIZE ...]
 *
 * Once set up, npud keeps only the capabilities it uses and runs under
 * no_new_privs and a system call filter (npud_sandbox.c); --no-sandbox
 * turns that off for debugging.
 *
 * The --limit-* options set the driver's per-process limits, the
 * --limit-user-* options its per-user ones (its limit_* and limit_user_*
 * module parameters).
 *
 * Under a service manager, --mount-only and --unmount are the unit's steps
 * around the sandboxed npud, which then serves the connection the manager
 * passes it (npud_fdstore.c).
 *
 * Runs in the foreground; SIGINT/SIGTERM shut it down cleanly (exit 0)
 * within NPUD_STOP_MS, whatever its clients are doing.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mockdev/host.h"
#include "npu_size.h"

#include "npud.h"

#define NPUD_MAX_DEVICES	64
#define NPUD_DEFAULT_HBM_MB	(16ULL * 1024)	/* 16 GiB per device */
#define NPUD_MAX_NAME		16		/* --name: characters */

static void npud_usage(FILE *out)
{
	fprintf(out,
		"usage: npud --fuse DIR [--require-shared] [--devices N] [--hbm-size SIZE]\n"
		"                   [--limit-* N|SIZE]...\n"
		"       npud --fuse DIR --mount-only | --unmount\n"
		"       npud --cuse [--devices N] [--hbm-size SIZE] [--mode MODE] [--name NAME]\n"
		"                   [--limit-* N|SIZE]...\n"
		"  --devices N     devices to create (1..%d, default 1)\n"
		"  --hbm-size SIZE device memory per device, bytes with K/M/G suffix,\n"
		"                  a multiple of 1M (default 16G)\n"
		"  --mode MODE     octal permissions for the CUSE nodes (e.g. 0666)\n"
		"  --name NAME     CUSE nodes /dev/NAME0.. instead of /dev/npu0.., so that a\n"
		"                  second npud can serve beside the first (letters, digits,\n"
		"                  '_' and '-', at most %d, not ending in a digit)\n"
		"  --log-level L   error, warning, info (default) or debug: what npud\n"
		"                  prints on stderr besides errors\n"
		"  --require-shared  (--fuse) refuse to serve a mount that does not\n"
		"                  propagate to other mount namespaces (the host, other\n"
		"                  containers); without it npud only warns\n"
		"  --no-sandbox    keep all of root's capabilities, no no_new_privs and no\n"
		"                  system call filter (for debugging; see docs/security.md)\n"
		"  --mount-only    mount DIR, hand its connection to the service manager's\n"
		"                  file descriptor store ($NOTIFY_SOCKET) and exit; an npud\n"
		"                  started with it in $LISTEN_FDS then serves DIR without\n"
		"                  mounting (packaging/systemd/npud.service)\n"
		"  --unmount       drop that connection from the store, abort it and\n"
		"                  unmount DIR (an absolute path), without looking DIR up\n"
		"per process and device (a call past a limit fails):\n"
		"  --limit-rings N          rings = streams (default 1984)\n"
		"  --limit-allocations N    allocations and IPC imports (default 1048576)\n"
		"  --limit-phys-handles N   physical handles (default 1048576)\n"
		"  --limit-ipc-keys N       IPC keys (default 65536)\n"
		"  --limit-share-handles N  shareable handles (default 65536)\n"
		"  --limit-pin SIZE         host memory held for it: registered (pinned),\n"
		"                           physical host memory, whitelists (default 4G)\n"
		"  --limit-hbm SIZE         device memory (default: the whole device)\n"
		"  --limit-ring-mem SIZE    ring memory, pinned and mapped by npud (default 1G)\n"
		"per user (real UID) and device, all its processes together (default: none):\n"
		"  --limit-user-rings N, --limit-user-allocations N,\n"
		"  --limit-user-phys-handles N, --limit-user-ipc-keys N,\n"
		"  --limit-user-share-handles N, --limit-user-pin SIZE,\n"
		"  --limit-user-hbm SIZE, --limit-user-ring-mem SIZE\n"
		"per user, over all devices:\n"
		"  --limit-user-clients N   client processes (default: a quarter of what\n"
		"                           npud's descriptor limit allows)\n",
		NPUD_MAX_DEVICES, NPUD_MAX_NAME);
}

/* "name=value" module parameters from the --limit-* options. */
static char npud_limit_params[1024];

/* Append "param=value" for a --limit-* option; -EINVAL if it does not fit. */
static int npud_add_param(const char *param, unsigned long long value)
{
	size_t len = strlen(npud_limit_params);
	int n;

	n = snprintf(npud_limit_params + len, sizeof(npud_limit_params) - len, " %s=%llu",
		     param, value);
	return n < 0 || (size_t)n >= sizeof(npud_limit_params) - len ? -EINVAL : 0;
}

/* A count limit: 1..UINT32_MAX. */
static int npud_parse_count(const char *text, unsigned long long *v)
{
	char *end;

	if (*text < '0' || *text > '9')
		return -EINVAL;
	errno = 0;
	*v = strtoull(text, &end, 10);
	if (errno || *end || !*v || *v > 0xffffffffULL)
		return -EINVAL;
	return 0;
}

/* The --limit-* options: long option value -> module parameter. */
struct npud_limit_opt {
	const char *name;	/* the option, without "--" */
	const char *param;	/* the module parameter */
	bool size;		/* SIZE (bytes, a multiple of 1M) rather than a count */
};

static const struct npud_limit_opt npud_limit_opts[] = {
	{ "limit-rings", "limit_rings", false },
	{ "limit-allocations", "limit_allocations", false },
	{ "limit-phys-handles", "limit_phys_handles", false },
	{ "limit-ipc-keys", "limit_ipc_keys", false },
	{ "limit-share-handles", "limit_share_handles", false },
	{ "limit-pin", "limit_pin_mb", true },
	{ "limit-hbm", "limit_hbm_mb", true },
	{ "limit-ring-mem", "limit_ring_mb", true },
	{ "limit-user-rings", "limit_user_rings", false },
	{ "limit-user-allocations", "limit_user_allocations", false },
	{ "limit-user-phys-handles", "limit_user_phys_handles", false },
	{ "limit-user-ipc-keys", "limit_user_ipc_keys", false },
	{ "limit-user-share-handles", "limit_user_share_handles", false },
	{ "limit-user-pin", "limit_user_pin_mb", true },
	{ "limit-user-hbm", "limit_user_hbm_mb", true },
	{ "limit-user-ring-mem", "limit_user_ring_mb", true },
};

#define NPUD_LIMIT_OPT_BASE	0x100	/* getopt value of npud_limit_opts[0] */
#define NPUD_NR_LIMIT_OPTS	(sizeof(npud_limit_opts) / sizeof(npud_limit_opts[0]))

/* SIZE in bytes with an optional K/M/G suffix, a multiple of 1 MiB, in MiB. */
static int npud_parse_size_mb(const char *text, unsigned long long *mb)
{
	uint64_t v;

	if (npu_parse_size_mb(text, &v))
		return -EINVAL;
	*mb = v;
	return 0;
}

static int npud_parse_log_level(const char *name)
{
	static const char *const names[] = { "error", "warning", "info", "debug" };
	unsigned int i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(name, names[i])) {
			npud_log_level = (enum npud_log_level)i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * A --name: a device name of its own (the kernel refuses a second CUSE
 * device of the same name), which no index can turn into another's:
 * "npu1" + "0" would be npu10.
 */
static int npud_check_name(const char *name)
{
	size_t i, len = strlen(name);

	if (!len || len > NPUD_MAX_NAME || !isalpha((unsigned char)name[0]) ||
	    isdigit((unsigned char)name[len - 1]))
		return -EINVAL;
	for (i = 0; i < len; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
			return -EINVAL;
	return 0;
}

static int npud_parse(int argc, char **argv, struct npud_options *opts)
{
	static const struct option longopts[] = {
		{ "fuse", required_argument, NULL, 'f' },
		{ "cuse", no_argument, NULL, 'c' },
		{ "devices", required_argument, NULL, 'n' },
		{ "hbm-size", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },
		{ "name", required_argument, NULL, 'N' },
		{ "log-level", required_argument, NULL, 'v' },
		{ "no-sandbox", no_argument, NULL, 'S' },
		{ "require-shared", no_argument, NULL, 'R' },
		{ "mount-only", no_argument, NULL, 'M' },
		{ "unmount", no_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ "limit-user-clients", required_argument, NULL, 'u' },
		{ "limit-rings", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 0 },
		{ "limit-allocations", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 1 },
		{ "limit-phys-handles", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 2 },
		{ "limit-ipc-keys", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 3 },
		{ "limit-share-handles", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 4 },
		{ "limit-pin", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 5 },
		{ "limit-hbm", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 6 },
		{ "limit-ring-mem", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 7 },
		{ "limit-user-rings", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 8 },
		{ "limit-user-allocations", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 9 },
		{ "limit-user-phys-handles", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 10 },
		{ "limit-user-ipc-keys", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 11 },
		{ "limit-user-share-handles", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 12 },
		{ "limit-user-pin", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 13 },
		{ "limit-user-hbm", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 14 },
		{ "limit-user-ring-mem", required_argument, NULL, NPUD_LIMIT_OPT_BASE + 15 },
		{ NULL, 0, NULL, 0 },
	};
	const struct npud_limit_opt *lo;
	unsigned long long lv;
	unsigned long v;
	char *end;
	int c;

	opts->devices = 1;
	opts->hbm_mb = NPUD_DEFAULT_HBM_MB;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'f':
			opts->fuse_dir = optarg;
			break;
		case 'c':
			opts->cuse = true;
			break;
		case 'n':
			v = strtoul(optarg, &end, 10);
			if (*optarg < '0' || *optarg > '9' || *end || !v ||
			    v > NPUD_MAX_DEVICES) {
				fprintf(stderr, "npud: bad --devices %s\n", optarg);
				return -EINVAL;
			}
			opts->devices = (unsigned int)v;
			break;
		case 's':
			if (npud_parse_size_mb(optarg, &opts->hbm_mb)) {
				fprintf(stderr, "npud: bad --hbm-size %s\n", optarg);
				return -EINVAL;
			}
			break;
		case 'm':
			v = strtoul(optarg, &end, 8);
			if (*optarg < '0' || *optarg > '7' || *end || v > 07777) {
				fprintf(stderr, "npud: bad --mode %s\n", optarg);
				return -EINVAL;
			}
			opts->mode = (mode_t)v;
			opts->set_mode = true;
			break;
		case 'N':
			if (npud_check_name(optarg)) {
				fprintf(stderr, "npud: bad --name %s\n", optarg);
				return -EINVAL;
			}
			opts->name = optarg;
			break;
		case 'v':
			if (npud_parse_log_level(optarg)) {
				fprintf(stderr, "npud: bad --log-level %s\n", optarg);
				return -EINVAL;
			}
			break;
		case 'S':
			opts->no_sandbox = true;
			break;
		case 'R':
			opts->require_shared = true;
			break;
		case 'M':
			opts->mount_only = true;
			break;
		case 'U':
			opts->unmount = true;
			break;
		case 'u':
			if (npud_parse_count(optarg, &lv)) {
				fprintf(stderr, "npud: bad --limit-user-clients %s\n", optarg);
				return -EINVAL;
			}
			opts->user_clients = (unsigned int)lv;
			break;
		case 'h':
			npud_usage(stdout);
			exit(0);
		default:
			if (c < NPUD_LIMIT_OPT_BASE ||
			    c >= NPUD_LIMIT_OPT_BASE + (int)NPUD_NR_LIMIT_OPTS)
				return -EINVAL;
			lo = &npud_limit_opts[c - NPUD_LIMIT_OPT_BASE];
			if ((lo->size ? npud_parse_size_mb(optarg, &lv) :
					npud_parse_count(optarg, &lv)) ||
			    lv > 0xffffffffULL || npud_add_param(lo->param, lv)) {
				fprintf(stderr, "npud: bad --%s %s\n", lo->name, optarg);
				return -EINVAL;
			}
			break;
		}
	}
	if (optind != argc || !opts->fuse_dir == !opts->cuse ||
	    ((opts->set_mode || opts->name) && !opts->cuse) ||
	    (opts->require_shared && !opts->fuse_dir) ||
	    (opts->mount_only && opts->unmount) ||
	    ((opts->mount_only || opts->unmount) && !opts->fuse_dir) ||
	    (opts->unmount && opts->fuse_dir[0] != '/'))
		return -EINVAL;
	return 0;
}

static void *npud_unload_thread(void *arg)
{
	(void)arg;
	mockdev_module_unload();
	return NULL;
}

/*
 * Every client process costs npud three descriptors (a pidfd and the two
 * files that bind its address space, mockdev/kernel/mm_remote.c), so the
 * usual soft limit of 1024 would turn clients away long before any budget
 * does: take the hard limit, as daemons serving many clients do. Before
 * the sandbox, which allows no setrlimit.
 */
static void npud_raise_nofile(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		npud_log(NPUD_LOG_WARNING, "npud: cannot raise the descriptor limit: %s\n",
			 strerror(errno));
}

/*
 * Those descriptors come from one table for all users: cap each user's
 * client processes (--limit-user-clients, by default a share of the
 * table), so that one user's processes cannot make npud refuse everyone.
 */
static void npud_set_user_clients(const struct npud_options *opts)
{
	unsigned long long room = 0;
	unsigned int max = opts->user_clients;
	struct rlimit rl;

	if (!max) {
		if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY &&
		    rl.rlim_cur > NPUD_FDS_RESERVED)
			room = (rl.rlim_cur - NPUD_FDS_RESERVED) / NPUD_FDS_PER_CLIENT;
		max = room / NPUD_USER_CLIENTS_SHARE > 0xffffffffULL ?
			      0xffffffffU : (unsigned int)(room / NPUD_USER_CLIENTS_SHARE);
		if (!max)
			max = 1;
	}
	npud_clients_set_user_limit(max);
	npud_log(NPUD_LOG_DEBUG, "npud: at most %u client processes per user\n", max);
}

int main(int argc, char **argv)
{
	struct npud_options opts = { .fuse_fd = -1 };
	char params[64 + sizeof(npud_limit_params)];
	int ret;

	if (npud_parse(argc, argv, &opts)) {
		npud_usage(stderr);
		return 2;
	}
	/* The unit's steps around the sandboxed npud need no driver. */
	if (opts.mount_only)
		return npud_fdstore_mount(&opts);
	if (opts.unmount)
		return npud_fdstore_unmount(&opts);
	if (opts.fuse_dir) {
		ret = npud_fdstore_listen_fd();
		if (ret < 0 && ret != -ENOENT) {
			fprintf(stderr, "npud: the descriptor passed in $LISTEN_FDS is not a "
					"/dev/fuse connection: %s\n", strerror(-ret));
			return 1;
		}
		opts.fuse_fd = ret;
	}

	/* Before any thread exists, so that every thread inherits the mask. */
	npud_signals_init();
	npud_raise_nofile();
	npud_set_user_clients(&opts);
	/* Capabilities are per thread: drop them before the driver starts its own. */
	ret = npud_sandbox_caps(&opts);
	if (ret) {
		fprintf(stderr, "npud: cannot drop capabilities: %s\n", strerror(-ret));
		return 1;
	}

	snprintf(params, sizeof(params), "devices=%u hbm_mb=%llu%s", opts.devices,
		 opts.hbm_mb, npud_limit_params);
	ret = mockdev_module_load(params);
	if (ret) {
		fprintf(stderr, "npud: loading the driver failed: %s\n", strerror(-ret));
		return 1;
	}
	ret = opts.cuse ? npud_cuse_run(&opts) : npud_fuse_run(&opts);
	npud_stop_begin();
	if (!npud_run_bounded(npud_unload_thread, NULL))
		npud_abandon(ret);
	npud_log(NPUD_LOG_INFO, "npud: exit %d\n", ret);
	return ret;
}
