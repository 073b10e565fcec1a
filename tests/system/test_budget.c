// SPDX-License-Identifier: MIT
/*
 * Every byte npud holds for a client is charged to that client: eight
 * processes of one unprivileged user flood every kind of object (rings
 * over one sparse sealed memfd, allocations, device memory, IPC keys with
 * whitelists that repeat their own pid, physical memory and shareable
 * handles, host registrations) until each call fails with its limit's
 * errno, while a process of another user keeps being served; npud's
 * resident memory stays under its baseline plus the sum of the user's
 * memory limits (docs/security.md, "What npud holds for a client"), and
 * once the flooders exit nothing is charged any more.
 *
 * The device is NPU_BUDGET_DEVICE, an npud with small per-process and
 * per-user limits (the options in npud_budget.args): the ctest fixture
 * npud_budget on FUSE, or the second npud --cuse that the VM guest starts
 * (scripts/vm/init.sh); its pid file (NPUD_BUDGET_PIDFILE) names npud. A
 * NPU_BUDGET_DEVICE that does not exist fails the test: whoever set it
 * meant it to run. Without it, on the kernel module (the VM), the test
 * lowers the module's limits through sysfs and restores them afterwards,
 * and skips the check of npud's memory (there is no npud). Elsewhere it is
 * skipped with a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "npu_sys.h"

#define GIB		(1ULL << 30)
#define MIB		(1ULL << 20)
#define APERTURE_SIZE	(64 * GIB)

#define FLOODERS	8
#define FLOOD_UID	65534	/* nobody */
#define RING_ENTRIES	4096	/* the runtime's ring: 324 KiB */
#define MAX_STEPS	256	/* per kind and process: far past any limit below */

/*
 * The limits, as npud_budget.args passes them to npud and as the test sets
 * them on the module: {parameter, value}. The memory
 * limits per user are what npud may hold for the flooders together.
 */
static const char *const budget_limits[][2] = {
	{ "limit_ring_mb", "4" },	   { "limit_user_ring_mb", "16" },
	{ "limit_pin_mb", "2" },	   { "limit_user_pin_mb", "8" },
	{ "limit_hbm_mb", "16" },	   { "limit_user_hbm_mb", "64" },
	{ "limit_allocations", "64" },	   { "limit_user_allocations", "256" },
	{ "limit_ipc_keys", "16" },	   { "limit_user_ipc_keys", "64" },
	{ "limit_phys_handles", "16" },	   { "limit_user_phys_handles", "64" },
	{ "limit_share_handles", "4" },	   { "limit_user_share_handles", "16" },
	{ "limit_user_rings", "64" },
};
#define NR_BUDGET_LIMITS	(sizeof(budget_limits) / sizeof(budget_limits[0]))
#define USER_MEMORY		((16 + 8 + 64) * MIB)
/* What else npud may allocate while serving: records, threads, buffers. */
#define RSS_SLACK		(48 * MIB)

/* Child-side checks: report and exit non-zero. */
#define CK(cond)								\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,	\
				__LINE__, #cond);				\
			_exit(1);						\
		}								\
	} while (0)

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- the device and its limits -------------------------------------------- */


static char saved_limits[NR_BUDGET_LIMITS][32];
static bool sysfs_lowered;
static const char *device;

static int setup(void **state)
{
	const char *p = getenv("NPU_BUDGET_DEVICE");
	size_t i;

	(void)state;
	if (p && *p) {
		if (access(p, F_OK)) {
			print_error("NPU_BUDGET_DEVICE=%s: %s\n", p, strerror(errno));
			return -1;
		}
		device = p;
		return 0;
	}
	p = getenv("NPU_DEVICE");
	if (!p || access(SYS_MODULE_PARAMS "limit_user_ring_mb", W_OK))
		return 0;
	for (i = 0; i < NR_BUDGET_LIMITS; i++)
		if (sys_module_param(budget_limits[i][0], saved_limits[i], sizeof(saved_limits[i]),
				false))
			return -1;
	sysfs_lowered = true;
	for (i = 0; i < NR_BUDGET_LIMITS; i++)
		if (sys_module_param(budget_limits[i][0], (char *)budget_limits[i][1], 0, true))
			return -1;
	device = p;
	return 0;
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	if (!sysfs_lowered)
		return 0;
	for (i = 0; i < NR_BUDGET_LIMITS; i++)
		sys_module_param(budget_limits[i][0], saved_limits[i], 0, true);
	sysfs_lowered = false;
	return 0;
}

/* npud's pid from the fixture's pid file, or 0 (the kernel module). */
static pid_t npud_pid(void)
{
	const char *path = getenv("NPUD_BUDGET_PIDFILE");
	FILE *f;
	int pid = 0;

	if (!path || !*path || !(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	return pid;
}

/* VmRSS of @pid in bytes (it includes RssShmem, the client memory npud maps). */
static uint64_t rss_of(pid_t pid, uint64_t *shmem)
{
	char path[64], line[256];
	unsigned long long kb, rss = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	assert_non_null(f);
	*shmem = 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "VmRSS: %llu kB", &kb) == 1)
			rss = kb << 10;
		else if (sscanf(line, "RssShmem: %llu kB", &kb) == 1)
			*shmem = kb << 10;
	}
	fclose(f);
	return rss;
}

/* ---- one client ---------------------------------------------------------------- */

static int open_ctx(void)
{
	return sys_open_ctx(device, O_CLOEXEC, APERTURE_SIZE);
}

/*
 * Call @step until it fails, at most MAX_STEPS times: the error must be
 * @want or @also (a limit, not a fault); @n counts the calls that worked.
 * A kind that needs another (a key needs an allocation) may meet that
 * one's limit first when the other flooders of the user took it.
 */
#define FLOOD(n, want, also, step)						\
	do {									\
		int ret_ = 0;							\
		for ((n) = 0; (n) < MAX_STEPS; (n)++) {				\
			ret_ = (step);						\
			if (ret_)						\
				break;						\
		}								\
		if (ret_ != -(want) && ret_ != -(also)) {			\
			fprintf(stderr, "%s: %d after %u, want -%s\n", #step,	\
				ret_, (n), #want);				\
			_exit(1);						\
		}								\
	} while (0)

static void *ring_mem;
static size_t ring_stride;

/* Ring @i over the one sparse memfd: nothing of it was ever touched. */
static int ring_at(int fd, unsigned int i)
{
	struct npu_ring_create rc = { 0 };

	rc.addr = (uint64_t)(uintptr_t)ring_mem + (uint64_t)i * ring_stride;
	rc.size = ring_stride;
	rc.sq_entries = RING_ENTRIES;
	rc.cq_entries = RING_ENTRIES;
	return sys_ioctl(fd, NPU_IOCTL_RING_CREATE, &rc);
}

static int alloc(int fd, uint64_t size, uint32_t policy, __u64 *va)
{
	struct npu_mem_alloc ma = { .size = size, .policy = policy };
	int ret = sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma);

	if (va)
		*va = ma.va;
	return ret;
}

static int32_t *own_pids;

/* A key of a new allocation, whitelisting our own pid 65535 times, twice. */
static int ipc_key(int fd)
{
	struct npu_ipc_export ex = { .size = 4096 };
	struct npu_share_set_pid sp = { 0 };
	int ret;

	ret = alloc(fd, 4096, NPU_POLICY_NORMAL_ONLY, &ex.va);
	if (ret)
		return ret;
	ret = sys_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &ex);
	if (ret)
		return ret;
	memcpy(sp.key, ex.key, NPU_IPC_KEY_LEN);
	sp.pids = (uint64_t)(uintptr_t)own_pids;
	sp.count = NPU_SHARE_MAX_PIDS;
	CK(sys_ioctl(fd, NPU_IOCTL_IPC_SET_PID, &sp) == 0);
	CK(sys_ioctl(fd, NPU_IOCTL_IPC_SET_PID, &sp) == 0);
	return 0;
}

/* Physical memory: 2 MiB of HBM behind a new handle. */
static int phys(int fd, uint32_t *handle)
{
	struct npu_phys_alloc pa = { .size = 2 * MIB, .page_class = NPU_CLASS_HUGE };
	int ret = sys_ioctl(fd, NPU_IOCTL_PHYS_ALLOC, &pa);

	if (handle)
		*handle = pa.handle;
	return ret;
}

/* Physical memory (2 MiB) and its shareable handle, whitelisting us repeatedly. */
static int share_handle(int fd)
{
	struct npu_share_export se = { 0 };
	struct npu_share_set_pid sp = { 0 };
	int ret;

	ret = phys(fd, &se.handle);
	if (ret)
		return ret;
	ret = sys_ioctl(fd, NPU_IOCTL_SHARE_EXPORT, &se);
	if (ret)
		return ret;
	sp.handle = se.share;
	sp.pids = (uint64_t)(uintptr_t)own_pids;
	sp.count = NPU_SHARE_MAX_PIDS;
	CK(sys_ioctl(fd, NPU_IOCTL_SHARE_SET_PID, &sp) == 0);
	return 0;
}

static void *host_mem;
static int host_fd;

static int host_register(int fd, unsigned int i)
{
	struct npu_host_register hr = { 0 };

	hr.addr = (uint64_t)(uintptr_t)host_mem + (uint64_t)i * MIB;
	hr.size = MIB;
	hr.fd = host_fd;
	hr.fd_off = (uint64_t)i * MIB;
	return sys_ioctl(fd, NPU_IOCTL_HOST_REGISTER, &hr);
}

/* What one flooder got of each kind before its limit (or its user's). */
struct flood_result {
	unsigned int rings, allocs, hbm, keys, shares, regs;
};

/*
 * A flooder: drop to FLOOD_UID, take all it can, report, then hold it all
 * until the parent closes @hold.
 */
static void flooder(int report, int hold)
{
	struct flood_result r = { 0 };
	unsigned int i;
	char c;
	int fd;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	CK(setresgid(FLOOD_UID, FLOOD_UID, FLOOD_UID) == 0);
	CK(setresuid(FLOOD_UID, FLOOD_UID, FLOOD_UID) == 0);
	fd = open_ctx();
	CK(fd >= 0);

	own_pids = malloc(NPU_SHARE_MAX_PIDS * sizeof(*own_pids));
	CK(own_pids);
	for (i = 0; i < NPU_SHARE_MAX_PIDS; i++)
		own_pids[i] = getpid();
	ring_stride = (size_t)((npu_ring_bytes(RING_ENTRIES, RING_ENTRIES) + 4095) & ~4095ULL);
	/* Sparse: npud, not this process, would fault it in. */
	ring_mem = sys_shared_memory("budget-rings", ring_stride * MAX_STEPS, NULL);
	CK(ring_mem != MAP_FAILED);
	host_mem = sys_shared_memory("budget-host", MAX_STEPS * MIB, &host_fd);
	CK(host_mem != MAP_FAILED);

	/*
	 * Ordered so that each kind meets its own limit (the process's or the
	 * user's), not another's: ring memory before the ring count, keys and
	 * handles before the allocations and HBM they need.
	 */
	FLOOD(r.rings, ENOMEM, ENOMEM, ring_at(fd, r.rings));
	FLOOD(r.keys, ENOSPC, ENOMEM, ipc_key(fd));
	FLOOD(r.allocs, ENOSPC, ENOMEM, alloc(fd, 4096, NPU_POLICY_NORMAL_ONLY, NULL));
	FLOOD(r.shares, ENOSPC, ENOMEM, share_handle(fd));
	FLOOD(r.hbm, ENOMEM, ENOSPC, phys(fd, NULL));
	FLOOD(r.regs, ENOMEM, ENOMEM, host_register(fd, r.regs));
	CK(write(report, &r, sizeof(r)) == (ssize_t)sizeof(r));
	/* Hold everything until the parent has looked. */
	while (read(hold, &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* Another user's process: a device query and an allocation round trip, in ms. */
static double served_ms(int fd)
{
	struct npu_device_info info;
	struct npu_mem_free mf = { 0 };
	double t0 = now_ms();

	assert_int_equal(sys_info(fd, &info), 0);
	assert_int_equal(alloc(fd, 4096, NPU_POLICY_NORMAL_ONLY, &mf.va), 0);
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_MEM_FREE, &mf), 0);
	return now_ms() - t0;
}

/* The users' records of the device: what FLOOD_UID holds, its processes. */
static void user_use(int fd, struct npu_smi_user *out)
{
	struct npu_smi_user recs[64];
	struct npu_smi_query q = { .buf = (uint64_t)(uintptr_t)recs, .count = 64 };
	uint32_t i;

	memset(out, 0, sizeof(*out));
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_SMI_USERS, &q), 0);
	for (i = 0; i < q.written; i++)
		if (recs[i].uid == FLOOD_UID)
			*out = recs[i];
}

static void test_one_user_cannot_exhaust_npud(void **state)
{
	int report[2], hold[2], fd, status, i;
	struct flood_result r, sum = { 0 };
	struct npu_smi_user u;
	uint64_t base, rss, shmem, bound;
	double worst = 0, t;
	pid_t pids[FLOODERS];
	pid_t npud;
	unsigned int got = 0;

	(void)state;
	if (!device) {
		print_message("no device with small limits (NPU_BUDGET_DEVICE or the module's "
			      "sysfs parameters): skipped\n");
		skip();
	}
	if (geteuid() != 0) {
		print_message("needs root to run flooders as uid %d: skipped\n", FLOOD_UID);
		skip();
	}
	npud = npud_pid();
	fd = open_ctx();
	assert_true(fd >= 0);
	if (npud)
		base = rss_of(npud, &shmem);
	else
		base = 0;

	assert_int_equal(pipe(report), 0);
	assert_int_equal(pipe(hold), 0);
	for (i = 0; i < FLOODERS; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			close(report[0]);
			close(hold[1]);
			flooder(report[1], hold[0]);
		}
	}
	close(report[1]);
	close(hold[0]);
	/* While they flood, this (root's) process keeps being served. */
	fcntl(report[0], F_SETFL, O_NONBLOCK);
	while (got < FLOODERS) {
		ssize_t n = read(report[0], &r, sizeof(r));

		if (n == (ssize_t)sizeof(r)) {
			sum.rings += r.rings;
			sum.allocs += r.allocs;
			sum.hbm += r.hbm;
			sum.keys += r.keys;
			sum.shares += r.shares;
			sum.regs += r.regs;
			got++;
			continue;
		}
		if (n == 0 || waitpid(-1, &status, WNOHANG) > 0)
			break;	/* a flooder failed: its message says why */
		t = served_ms(fd);
		if (t > worst)
			worst = t;
		sys_sleep_ms(5);
	}
	print_message("%u flooders got rings %u, 2M physical %u, keys %u, shareable "
		      "handles %u, 4K allocations %u, 1M registrations %u; the other user's "
		      "worst round trip %.1f ms\n", got, sum.rings, sum.hbm, sum.keys, sum.shares,
		      sum.allocs, sum.regs, worst);
	assert_int_equal(got, FLOODERS);
	assert_true(worst < 2000);
	assert_true(served_ms(fd) < 2000);

	/* The user's budgets hold: what all its processes have is within them. */
	user_use(fd, &u);
	assert_int_equal(u.procs, FLOODERS);
	assert_true(u.used[NPU_LIMIT_RING_BYTES] <= 16 * MIB);
	assert_true(u.used[NPU_LIMIT_PIN_BYTES] <= 8 * MIB);
	assert_true(u.used[NPU_LIMIT_HBM_BYTES] <= 64 * MIB);
	assert_true(u.used[NPU_LIMIT_IPC_KEYS] <= 64);
	assert_true(u.used[NPU_LIMIT_SHARE_HANDLES] <= 16);
	assert_true(u.used[NPU_LIMIT_ALLOCATIONS] <= 256);
	/* Rings stop at the user's 16 MiB: 8 processes x 4 MiB would be 32. */
	assert_true(sum.rings * ((npu_ring_bytes(RING_ENTRIES, RING_ENTRIES) + 4095) & ~4095ULL) <=
		    16 * MIB);
	/* Each whitelist is one entry (16 bytes), however often the pid was listed. */
	assert_true(u.used[NPU_LIMIT_PIN_BYTES] - (uint64_t)sum.regs * MIB <=
		    (uint64_t)(sum.keys + sum.shares) * 64);

	if (npud) {
		rss = rss_of(npud, &shmem);
		bound = base + USER_MEMORY + RSS_SLACK;
		print_message("npud VmRSS %.1f MiB (RssShmem %.1f MiB), baseline %.1f MiB, "
			      "bound %.1f MiB\n", rss / (double)MIB, shmem / (double)MIB,
			      base / (double)MIB, bound / (double)MIB);
		assert_true(rss <= bound);
	} else {
		print_message("no npud (the kernel module): its memory is not checked\n");
	}

	/* They exit: nothing of theirs stays charged. */
	close(hold[1]);
	for (i = 0; i < FLOODERS; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	}
	for (t = now_ms(); now_ms() - t < 10000;) {
		user_use(fd, &u);
		if (!u.procs)
			break;
		sys_sleep_ms(20);
	}
	for (i = 0; i < NPU_LIMIT_COUNT; i++)
		assert_int_equal(u.used[i], 0);
	assert_int_equal(u.procs, 0);
	close(report[0]);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_user_cannot_exhaust_npud),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
