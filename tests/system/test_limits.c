// SPDX-License-Identifier: MIT
/*
 * Per-process limits: one process cannot take all of a device's (or npud's)
 * rings, handles, keys, pinned pages or HBM; past its limit a call fails
 * with upstream's code and a message while other processes keep full
 * service; opening the device many times does not multiply the limits;
 * and closing a file with thousands of objects takes bounded time.
 *
 * Two devices are used:
 *  - NPU_DEVICE's device 1 (npu_sys.h), with the driver's default limits,
 *    which the test reads from the driver (NPU_IOCTL_SMI_PROCS);
 *  - NPU_LIMITS_DEVICE, a private npud started by the ctest fixture
 *    npud_limits with small --limit-* options, for the limits too large
 *    to reach quickly by default. Without it, on the kernel module (the
 *    VM), the test lowers the module's limits through sysfs for those
 *    cases and restores them at the end; elsewhere (CUSE in the VM) they
 *    are skipped with a message.
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "acl/acl.h"
#include "npu_sys.h"

#define GIB		(1ULL << 30)
#define MIB		(1ULL << 20)
#define APERTURE_SIZE	(64 * GIB)

/* How many allocations the release-time case creates at most. */
#define RELEASE_ALLOCS	100000
/*
 * ... and for how long at most (slow emulated machines create fewer;
 * NPU_TEST_QUICK, set in the VM, shortens it).
 */
static double release_create_budget_ms(void)
{
	return getenv("NPU_TEST_QUICK") ? 10000 : 30000;
}

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

/* ---- raw driver access ------------------------------------------------ */

/* A new file of @path with its context set up; *tgid as the driver sees us. */
static int open_ctx(const char *path, uint32_t *tgid)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(sys_ctx_setup(fd, APERTURE_SIZE, tgid), 0);
	return fd;
}

/* This process's npu-smi record on @fd's device; 0, or -ENOENT/-errno. */
static int my_record(int fd, uint32_t tgid, struct npu_smi_proc *out)
{
	struct npu_smi_proc recs[256];
	struct npu_smi_query q = { 0 };
	uint32_t i;
	int ret;

	q.buf = (uint64_t)(uintptr_t)recs;
	q.count = 256;
	ret = sys_ioctl(fd, NPU_IOCTL_SMI_PROCS, &q);
	if (ret)
		return ret;
	for (i = 0; i < q.written; i++) {
		if (recs[i].tgid == tgid) {
			*out = recs[i];
			return 0;
		}
	}
	return -ENOENT;
}

/* Two pages of shared memory every ring of this process may use. */
static void *ring_region(void)
{
	static void *mem;
	size_t bytes = (size_t)npu_ring_bytes(1, 1);

	if (mem)
		return mem;
	bytes = (bytes + 4095) & ~(size_t)4095;
	/* The memfd stays open: npud maps the file the process holds. */
	mem = sys_shared_memory("limits-ring", bytes, NULL);
	assert_true(mem != MAP_FAILED);
	return mem;
}

static int ring_create(int fd)
{
	struct npu_ring_create rc = { 0 };
	size_t bytes = (size_t)npu_ring_bytes(1, 1);

	rc.addr = (uint64_t)(uintptr_t)ring_region();
	rc.size = (bytes + 4095) & ~(size_t)4095;
	rc.sq_entries = 1;
	rc.cq_entries = 1;
	return sys_ioctl(fd, NPU_IOCTL_RING_CREATE, &rc);
}

static int mem_alloc(int fd, uint64_t size, uint64_t *va)
{
	struct npu_mem_alloc ma = { .size = size, .policy = NPU_POLICY_NORMAL_ONLY };
	int ret = sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma);

	if (va)
		*va = ma.va;
	return ret;
}

/* Another process opens the device, creates a ring and allocates: 0 if all work. */
static int other_process_is_served(const char *path)
{
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_RDWR | O_CLOEXEC);
		uint64_t va;

		if (fd < 0)
			_exit(10);
		if (sys_ctx_setup(fd, APERTURE_SIZE, NULL))
			_exit(11);
		if (ring_create(fd) < 0)
			_exit(12);
		if (mem_alloc(fd, 2 * MIB, &va))
			_exit(13);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

/* The file a test watches the device through; *base: its settled context count. */
static int open_settled_watch(uint32_t *base)
{
	int fd;

	assert_int_equal(sys_open_watched(&fd, base, false), 0);
	return fd;
}

/* Wait until the device has no allocation and @base contexts; ms waited or -1. */
static double wait_idle_ms(int fd, uint32_t base_contexts, long timeout_ms)
{
	struct npu_device_info info;
	double t0 = now_ms();

	if (sys_wait_idle(fd, base_contexts, timeout_ms, &info)) {
		print_error("not idle: contexts %u allocations %llu free %llu of %llu\n",
			    info.contexts, (unsigned long long)info.allocations,
			    (unsigned long long)info.hbm_free, (unsigned long long)info.hbm_total);
		return -1;
	}
	return now_ms() - t0;
}

static void assert_all_unused(const struct npu_smi_proc *r)
{
	for (int i = 0; i < NPU_LIMIT_COUNT; i++) {
		if (r->used[i])
			print_error("limit %d still has %llu in use\n", i,
				    (unsigned long long)r->used[i]);
		assert_int_equal(r->used[i], 0);
	}
}

/* ---- cases on the default limits --------------------------------------- */

static void test_driver_reports_limits(void **state)
{
	struct npu_device_info info;
	struct npu_smi_proc r;
	uint32_t tgid;
	int fd;

	(void)state;
	fd = open_ctx(sys_device_path(), &tgid);
	assert_int_equal(sys_info(fd, &info), 0);
	assert_int_equal(my_record(fd, tgid, &r), 0);
	assert_all_unused(&r);
	for (int i = 0; i < NPU_LIMIT_COUNT; i++)
		assert_true(r.limit[i] > 0);
	for (int i = NPU_LIMIT_COUNT; i < NPU_LIMIT_SLOTS; i++)
		assert_int_equal(r.limit[i], 0);
	/* HBM defaults to the whole device. */
	assert_true(r.limit[NPU_LIMIT_HBM_BYTES] <= info.hbm_total);
	print_message("limits: rings %llu allocations %llu phys %llu keys %llu shares %llu "
		      "pin %llu MiB hbm %llu MiB (device %llu MiB)\n",
		      (unsigned long long)r.limit[NPU_LIMIT_RINGS],
		      (unsigned long long)r.limit[NPU_LIMIT_ALLOCATIONS],
		      (unsigned long long)r.limit[NPU_LIMIT_PHYS_HANDLES],
		      (unsigned long long)r.limit[NPU_LIMIT_IPC_KEYS],
		      (unsigned long long)r.limit[NPU_LIMIT_SHARE_HANDLES],
		      (unsigned long long)(r.limit[NPU_LIMIT_PIN_BYTES] >> 20),
		      (unsigned long long)(r.limit[NPU_LIMIT_HBM_BYTES] >> 20),
		      (unsigned long long)(info.hbm_total >> 20));
	close(fd);
}

/*
 * Rings until the limit, spread over several files of this process: the
 * limit is the process's, not each file's. Another process still gets
 * rings and memory meanwhile; closing gives everything back quickly.
 */
static void test_ring_limit_is_per_process(void **state)
{
	enum { FILES = 4 };
	struct npu_smi_proc r;
	uint32_t tgid, base;
	uint64_t limit, n = 0;
	int fds[FILES], watch, i, ret = 0;
	double t0, idle, create_ms, close_ms;

	(void)state;
	watch = open_settled_watch(&base);
	for (i = 0; i < FILES; i++)
		fds[i] = open_ctx(sys_device_path(), &tgid);
	assert_int_equal(my_record(fds[0], tgid, &r), 0);
	limit = r.limit[NPU_LIMIT_RINGS];
	if (limit > 8192) {
		for (i = 0; i < FILES; i++)
			close(fds[i]);
		close(watch);
		skip();
	}
	t0 = now_ms();
	for (;;) {
		ret = ring_create(fds[n % FILES]);
		if (ret < 0)
			break;
		n++;
		assert_true(n <= limit);
	}
	print_message("%llu rings over %d files, then %d (%s)\n", (unsigned long long)n, FILES,
		      ret, strerror(-ret));
	create_ms = now_ms() - t0;
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(n, limit);
	/* Every file of the process sees the same, exhausted budget. */
	for (i = 0; i < FILES; i++) {
		assert_int_equal(ring_create(fds[i]), -ENOSPC);
		assert_int_equal(my_record(fds[i], tgid, &r), 0);
		assert_int_equal(r.used[NPU_LIMIT_RINGS], limit);
	}
	assert_int_equal(other_process_is_served(sys_device_path()), 0);

	t0 = now_ms();
	for (i = 0; i < FILES; i++)
		close(fds[i]);
	idle = wait_idle_ms(watch, base, 20000);
	assert_true(idle >= 0);
	close_ms = now_ms() - t0;
	print_message("%llu rings: created in %.0f ms, closed in %.1f ms\n", (unsigned long long)n,
		      create_ms, close_ms);
	/* Generous: on the host this is well under a second. */
	assert_true(close_ms < 2000 + create_ms / 2);

	/* A new file starts from zero. */
	fds[0] = open_ctx(sys_device_path(), &tgid);
	assert_int_equal(my_record(fds[0], tgid, &r), 0);
	assert_all_unused(&r);
	close(fds[0]);
	close(watch);
}

/*
 * Every ring the process may have and up to 100 000 allocations (fewer if
 * the machine is slow to create them), spread over several files (placing
 * an allocation costs more as a file's address space fills): closing them
 * must take bounded time, far less than creating them did, and leave the
 * device idle and the process's counters at zero.
 */
static void test_close_with_thousands_of_objects_is_fast(void **state)
{
	enum { FILES = 100 };
	struct npu_smi_proc r;
	uint64_t rings = 0, allocs = 0;
	uint32_t tgid, base;
	double t0, create_ms, close_ms;
	int fds[FILES], watch, i;

	(void)state;
	watch = open_settled_watch(&base);
	for (i = 0; i < FILES; i++)
		fds[i] = open_ctx(sys_device_path(), &tgid);
	assert_int_equal(my_record(fds[0], tgid, &r), 0);

	t0 = now_ms();
	while (rings < r.limit[NPU_LIMIT_RINGS] && rings < 4096) {
		assert_int_equal(ring_create(fds[0]), 0);
		rings++;
	}
	while (allocs < RELEASE_ALLOCS && allocs < r.limit[NPU_LIMIT_ALLOCATIONS] &&
	       now_ms() - t0 < release_create_budget_ms()) {
		assert_int_equal(mem_alloc(fds[allocs % FILES], 4096, NULL), 0);
		allocs++;
	}
	create_ms = now_ms() - t0;
	assert_int_equal(my_record(fds[0], tgid, &r), 0);
	assert_int_equal(r.used[NPU_LIMIT_RINGS], rings);
	assert_int_equal(r.used[NPU_LIMIT_ALLOCATIONS], allocs);
	assert_int_equal(r.used[NPU_LIMIT_HBM_BYTES], allocs * 4096);

	t0 = now_ms();
	for (i = 0; i < FILES; i++)
		close(fds[i]);
	assert_true(wait_idle_ms(watch, base, 60000) >= 0);
	close_ms = now_ms() - t0;
	print_message("%llu rings + %llu allocations: created in %.0f ms, released in %.1f ms\n",
		      (unsigned long long)rings, (unsigned long long)allocs, create_ms, close_ms);
	/* Generous: on the host this is well under a second. */
	assert_true(close_ms < 2000 + create_ms / 4);

	fds[0] = open_ctx(sys_device_path(), &tgid);
	assert_int_equal(my_record(fds[0], tgid, &r), 0);
	assert_all_unused(&r);
	close(fds[0]);
	close(watch);
}

/*
 * A process that exits holding its limit of rings and thousands of
 * allocations: everything is released in bounded time after its death.
 */
static void test_exit_with_thousands_of_objects_is_fast(void **state)
{
	enum { FILES = 20, ALLOCS = 20000 };
	int watch, ready[2], status;
	double created_ms = 0, t0, release_ms;
	uint32_t base;
	pid_t pid;

	(void)state;
	watch = open_settled_watch(&base);
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct npu_smi_proc r;
		uint32_t tgid;
		int fds[FILES], i, n;
		double c0 = now_ms();

		for (i = 0; i < FILES; i++)
			fds[i] = open_ctx(sys_device_path(), &tgid);
		CK(my_record(fds[0], tgid, &r) == 0);
		CK(r.limit[NPU_LIMIT_RINGS] > 0);
		for (n = 0; n < (int)r.limit[NPU_LIMIT_RINGS] && n < 4096; n++)
			CK(ring_create(fds[n % FILES]) >= 0);
		for (n = 0; n < ALLOCS && now_ms() - c0 < release_create_budget_ms(); n++)
			CK(mem_alloc(fds[n % FILES], 4096, NULL) == 0);
		c0 = now_ms() - c0;
		CK(write(ready[1], &c0, sizeof(c0)) == sizeof(c0));
		_exit(0);	/* the files close with the process */
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &created_ms, sizeof(created_ms)), sizeof(created_ms));
	close(ready[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	t0 = now_ms();
	assert_true(wait_idle_ms(watch, base, 60000) >= 0);
	release_ms = now_ms() - t0;
	print_message("exit: created in %.0f ms, released in %.1f ms\n", created_ms, release_ms);
	assert_true(release_ms < 2000 + created_ms / 4);
	close(watch);
}

/* npu-smi prints each process's use against its limits. */
static void test_npu_smi_prints_use_and_limits(void **state)
{
	const char *smi = getenv("NPU_SMI");
	char cmd[4096], line[1024], want_rings[64], want_allocs[64];
	struct npu_smi_proc r;
	uint32_t tgid;
	bool in_dev = false, in_limits = false, found = false;
	FILE *out;
	int fd;

	(void)state;
	if (!smi || access(smi, X_OK)) {
		print_message("npu-smi not available (NPU_SMI unset): skipped\n");
		skip();
	}
	fd = open_ctx(sys_device_path(), &tgid);
	for (int i = 0; i < 3; i++)
		assert_true(ring_create(fd) >= 0);
	assert_int_equal(mem_alloc(fd, 4096, NULL), 0);
	assert_int_equal(mem_alloc(fd, 8192, NULL), 0);
	assert_int_equal(my_record(fd, tgid, &r), 0);
	snprintf(want_rings, sizeof(want_rings), "3/%llu",
		 (unsigned long long)r.limit[NPU_LIMIT_RINGS]);
	snprintf(want_allocs, sizeof(want_allocs), "2/%llu",
		 (unsigned long long)r.limit[NPU_LIMIT_ALLOCATIONS]);

	snprintf(cmd, sizeof(cmd), "'%s'", smi);
	out = popen(cmd, "r");
	assert_non_null(out);
	while (fgets(line, sizeof(line), out)) {
		char t[16], rings[64], allocs[64];
		unsigned int pid;

		if (!strncmp(line, "Device ", 7))
			in_dev = atoi(line + 7) == SYS_DEVICE;
		if (strstr(line, "Limits per process"))
			in_limits = true;
		else if (line[0] != ' ' || !strncmp(line, "  Processes", 11))
			in_limits = false;
		if (!in_dev || !in_limits)
			continue;
		if (sscanf(line, " %15s %63s %63s", t, rings, allocs) == 3 &&
		    sscanf(t, "%u", &pid) == 1 && pid == tgid) {
			print_message("npu-smi: %s", line);
			assert_string_equal(rings, want_rings);
			assert_string_equal(allocs, want_allocs);
			found = true;
		}
	}
	assert_int_equal(pclose(out), 0);
	assert_true(found);
	close(fd);
}

/* ---- cases on the private npud with small limits ----------------------- */


/* The small limits, as the npud_limits fixture sets them. */
static const char *const small_limits[][2] = {
	{ "limit_rings", "8" },		{ "limit_allocations", "64" },
	{ "limit_phys_handles", "8" },	{ "limit_ipc_keys", "4" },
	{ "limit_share_handles", "4" },	{ "limit_pin_mb", "1" },
	{ "limit_hbm_mb", "64" },
};
#define NR_SMALL_LIMITS	(sizeof(small_limits) / sizeof(small_limits[0]))
static char saved_limits[NR_SMALL_LIMITS][32];
static bool sysfs_lowered;
static char sysfs_device[4096];

/*
 * The kernel module (as root): lower its limits at run time, once; the
 * group teardown puts them back.
 */
static const char *lower_module_limits(void)
{
	const char *dev0 = getenv("NPU_DEVICE");
	size_t i;

	if (sysfs_lowered)
		return sysfs_device;
	if (!dev0 || access(SYS_MODULE_PARAMS "limit_rings", W_OK))
		return NULL;
	for (i = 0; i < NR_SMALL_LIMITS; i++) {
		if (sys_module_param(small_limits[i][0], saved_limits[i], sizeof(saved_limits[i]),
				false))
			return NULL;
	}
	sysfs_lowered = true;
	for (i = 0; i < NR_SMALL_LIMITS; i++) {
		assert_int_equal(sys_module_param(small_limits[i][0], (char *)small_limits[i][1], 0,
					     true), 0);
	}
	snprintf(sysfs_device, sizeof(sysfs_device), "%s", dev0);
	print_message("lowered the module's limits through " SYS_MODULE_PARAMS "\n");
	return sysfs_device;
}

static int restore_module_limits(void **state)
{
	size_t i;

	(void)state;
	if (!sysfs_lowered)
		return 0;
	for (i = 0; i < NR_SMALL_LIMITS; i++)
		sys_module_param(small_limits[i][0], saved_limits[i], 0, true);
	sysfs_lowered = false;
	return 0;
}

static const char *limits_device(void)
{
	const char *p = getenv("NPU_LIMITS_DEVICE");

	if (p && *p)
		return access(p, F_OK) ? NULL : p;
	return lower_module_limits();
}

#define NEED_LIMITS_DEVICE()							\
	do {									\
		if (!limits_device()) {						\
			print_message("no device with small limits (NPU_LIMITS_DEVICE " \
				      "or the module's sysfs parameters): skipped\n"); \
			skip();							\
		}								\
	} while (0)

/* What one case does in the process that exhausts its limit. */
struct limit_case {
	const char *name;
	/* One more object; ACL_SUCCESS or the error. */
	aclError (*step)(void);
	aclError code;		/* expected past the limit */
	const char *msg;	/* expected in aclGetRecentErrMsg() */
	unsigned int max;	/* steps before the test gives up */
};

static aclrtStream streams[64];
static unsigned int nr_streams;

static aclError step_stream(void)
{
	aclError e = aclrtCreateStream(&streams[nr_streams]);

	if (e == ACL_SUCCESS)
		nr_streams++;
	return e;
}

static aclError step_alloc(void)
{
	void *p;

	return aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY);
}

static aclError step_hbm(void)
{
	void *p;

	return aclrtMalloc(&p, 8 * MIB, ACL_MEM_MALLOC_HUGE_ONLY);
}

static aclError step_ipc_key(void)
{
	char key[65];
	void *p;
	aclError e = aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY);

	if (e != ACL_SUCCESS) {
		fprintf(stderr, "aclrtMalloc failed before the key limit: %d\n", e);
		_exit(2);
	}
	return aclrtIpcMemGetExportKey(p, 4096, key, sizeof(key), 0);
}

static void phys_prop(aclrtPhysicalMemProp *prop)
{
	memset(prop, 0, sizeof(*prop));
	prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop->memAttr = ACL_HBM_MEM_HUGE;
	prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = 0;
}

static aclError step_phys(void)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h;

	phys_prop(&prop);
	return aclrtMallocPhysical(&h, 2 * MIB, &prop, 0);
}

static aclError step_share(void)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h;
	uint64_t share;
	aclError e;

	phys_prop(&prop);
	e = aclrtMallocPhysical(&h, 2 * MIB, &prop, 0);
	if (e != ACL_SUCCESS) {
		fprintf(stderr, "aclrtMallocPhysical failed before the handle limit: %d\n", e);
		_exit(2);
	}
	return aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &share);
}

/* Set in the process that exhausts a limit (served() must not). */
static bool exhausting;

/*
 * Events live in device memory (a 4 KiB slab of slots at a time): the
 * exhausting process records one event, fills its allocation limit, and
 * then gets no event once the slab is full.
 */
static aclError step_event(void)
{
	static bool filled;
	aclrtEvent ev;
	aclError e;

	e = aclrtCreateEvent(&ev);
	if (e == ACL_SUCCESS)
		e = aclrtRecordEvent(ev, NULL);
	if (e == ACL_SUCCESS && exhausting && !filled) {
		void *p;

		while (aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) == ACL_SUCCESS)
			;
		filled = true;
	}
	return e;
}

static const struct limit_case limit_cases[] = {
	{ "streams", step_stream, ACL_ERROR_RT_NO_STREAM_RESOURCE, "limit of streams", 64 },
	{ "allocations", step_alloc, ACL_ERROR_RT_MEMORY_ALLOCATION, "limit of allocations", 4096 },
	{ "hbm", step_hbm, ACL_ERROR_RT_MEMORY_ALLOCATION, "device memory limit", 512 },
	{ "ipc keys", step_ipc_key, ACL_ERROR_RT_MEMORY_ALLOCATION, "limit of IPC keys", 1024 },
	{ "physical handles", step_phys, ACL_ERROR_RT_MEMORY_ALLOCATION,
	  "limit of physical handles", 1024 },
	{ "shareable handles", step_share, ACL_ERROR_RT_MEMORY_ALLOCATION,
	  "limit of shareable handles", 1024 },
	{ "events", step_event, ACL_ERROR_RT_NO_EVENT_RESOURCE, "no memory for more events", 4096 },
};

static void acl_start(void)
{
	CK(setenv("NPU_DEVICE", limits_device(), 1) == 0);
	CK(aclInit(NULL) == ACL_SUCCESS);
	CK(aclrtSetDevice(0) == ACL_SUCCESS);
}

/*
 * The exhausting process: steps until the limit, checks the code and the
 * message, reports the count on @report, and holds everything until
 * @go is closed.
 */
static void exhaust(const struct limit_case *c, int report, int go)
{
	unsigned int n = 0;
	const char *msg;
	aclError e;
	char b;

	exhausting = true;
	acl_start();
	while ((e = c->step()) == ACL_SUCCESS && n < c->max)
		n++;
	msg = aclGetRecentErrMsg();
	fprintf(stderr, "%s: %u, then %d: %s\n", c->name, n, e, msg ? msg : "(no message)");
	CK(e == c->code);
	CK(msg && strstr(msg, c->msg));
	CK(n > 0);
	CK(write(report, &n, sizeof(n)) == sizeof(n));
	CK(read(go, &b, 1) == 0);
	_exit(0);
}

/* Another process, meanwhile: one object of the same kind and an allocation. */
static void served(const struct limit_case *c)
{
	void *p;

	acl_start();
	if (c->step() != ACL_SUCCESS) {
		fprintf(stderr, "another process was refused %s: %s\n", c->name,
			aclGetRecentErrMsg());
		_exit(3);
	}
	CK(aclrtMalloc(&p, 2 * MIB, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
	_exit(0);
}

static int wait_child(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

static void run_limit_case(const struct limit_case *c)
{
	int report[2], go[2];
	unsigned int n = 0;
	pid_t a, b;

	assert_int_equal(pipe2(report, O_CLOEXEC), 0);
	assert_int_equal(pipe2(go, O_CLOEXEC), 0);
	a = fork();
	assert_true(a >= 0);
	if (a == 0) {
		close(report[0]);
		close(go[1]);
		exhaust(c, report[1], go[0]);
	}
	close(report[1]);
	close(go[0]);
	if (read(report[0], &n, sizeof(n)) != sizeof(n)) {
		close(go[1]);
		assert_int_equal(wait_child(a), 0);
		fail_msg("the exhausting process reported nothing");
	}
	print_message("%s: the limit came after %u\n", c->name, n);
	b = fork();
	assert_true(b >= 0);
	if (b == 0)
		served(c);
	assert_int_equal(wait_child(b), 0);
	close(go[1]);
	assert_int_equal(wait_child(a), 0);
	close(report[0]);
}

static void test_stream_limit(void **state)
{
	(void)state;
	NEED_LIMITS_DEVICE();
	run_limit_case(&limit_cases[0]);
}

static void test_allocation_limit(void **state)
{
	(void)state;
	NEED_LIMITS_DEVICE();
	run_limit_case(&limit_cases[1]);
}

static void test_hbm_limit(void **state)
{
	(void)state;
	NEED_LIMITS_DEVICE();
	run_limit_case(&limit_cases[2]);
}

static void test_ipc_key_limit(void **state)
{
	(void)state;
	NEED_LIMITS_DEVICE();
	run_limit_case(&limit_cases[3]);
}

static void test_phys_handle_limit(void **state)
{
	(void)state;
	NEED_LIMITS_DEVICE();
	run_limit_case(&limit_cases[4]);
}

static void test_shareable_handle_limit(void **state)
{
	(void)state;
	NEED_LIMITS_DEVICE();
	run_limit_case(&limit_cases[5]);
}

static void test_event_limit(void **state)
{
	(void)state;
	NEED_LIMITS_DEVICE();
	run_limit_case(&limit_cases[6]);
}

/* The in-process device takes its limits from the environment. */
static void test_inproc_limits_from_environment(void **state)
{
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		unsigned int n = 0;
		const char *msg;
		aclError e;

		CK(setenv("NPU_DEVICE", "inproc", 1) == 0);
		CK(setenv("NPU_LIMIT_RINGS", "4", 1) == 0);
		CK(setenv("NPU_LIMIT_ALLOCATIONS", "16", 1) == 0);
		/* A small device: the VM guest has little memory. */
		CK(setenv("NPU_HBM_SIZE", "1G", 1) == 0);
		/* NPU_URING=1 (the VM's module pass) would refuse the in-process device. */
		CK(unsetenv("NPU_URING") == 0);
		CK(aclInit(NULL) == ACL_SUCCESS);
		e = aclrtSetDevice(0);
		if (e != ACL_SUCCESS)
			fprintf(stderr, "inproc aclrtSetDevice: %d: %s\n", e, aclGetRecentErrMsg());
		CK(e == ACL_SUCCESS);
		while ((e = step_stream()) == ACL_SUCCESS && n < 64)
			n++;
		msg = aclGetRecentErrMsg();
		fprintf(stderr, "inproc streams: %u, then %d: %s\n", n, e, msg ? msg : "");
		CK(e == ACL_ERROR_RT_NO_STREAM_RESOURCE && n > 0 && n < 4);
		CK(msg && strstr(msg, "limit of streams"));
		n = 0;
		while ((e = step_alloc()) == ACL_SUCCESS && n < 64)
			n++;
		CK(e == ACL_ERROR_RT_MEMORY_ALLOCATION && n > 0 && n <= 16);
		_exit(0);
	}
	assert_int_equal(wait_child(pid), 0);
}

/* Pinned (registered) host memory: -ENOMEM past the process's budget. */
static void test_pinned_host_limit(void **state)
{
	struct npu_host_register hr = { 0 };
	struct npu_smi_proc r;
	uint64_t limit, size;
	uint32_t tgid;
	int fd, memfd = -1;
	char *mem;
	pid_t pid;

	(void)state;
	NEED_LIMITS_DEVICE();
	fd = open_ctx(limits_device(), &tgid);
	assert_int_equal(my_record(fd, tgid, &r), 0);
	limit = r.limit[NPU_LIMIT_PIN_BYTES];
	assert_true(limit <= 64 * MIB);
	size = limit + 4096;
	mem = sys_shared_memory("limits-pin", size, &memfd);
	assert_true(mem != MAP_FAILED);
	memset(mem, 1, size);

	hr.addr = (uint64_t)(uintptr_t)mem;
	hr.size = size;
	hr.fd = -1;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_HOST_REGISTER, &hr), -ENOMEM);
	hr.size = limit;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_HOST_REGISTER, &hr), 0);
	hr.addr += limit;
	hr.size = 4096;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_HOST_REGISTER, &hr), -ENOMEM);
	assert_int_equal(my_record(fd, tgid, &r), 0);
	assert_int_equal(r.used[NPU_LIMIT_PIN_BYTES], limit);

	/* Another process pins its own memory meanwhile. */
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct npu_host_register h2 = { 0 };
		int cfd = open_ctx(limits_device(), NULL);
		char *m = sys_shared_memory("limits-pin2", limit, NULL);

		CK(m != MAP_FAILED);
		memset(m, 2, limit);
		h2.addr = (uint64_t)(uintptr_t)m;
		h2.size = limit;
		h2.fd = -1;
		CK(sys_ioctl(cfd, NPU_IOCTL_HOST_REGISTER, &h2) == 0);
		_exit(0);
	}
	assert_int_equal(wait_child(pid), 0);

	{
		struct npu_host_unregister hu = { .addr = (uint64_t)(uintptr_t)mem };

		assert_int_equal(sys_ioctl(fd, NPU_IOCTL_HOST_UNREGISTER, &hu), 0);
	}
	assert_int_equal(my_record(fd, tgid, &r), 0);
	assert_all_unused(&r);
	close(fd);
	munmap(mem, size);
	close(memfd);
}

/* Small limits, several files: still one budget (rings and allocations). */
static void test_small_limits_are_per_process(void **state)
{
	enum { FILES = 3 };
	struct npu_smi_proc r;
	uint64_t n = 0, limit;
	uint32_t tgid;
	int fds[FILES], i, ret;

	(void)state;
	NEED_LIMITS_DEVICE();
	for (i = 0; i < FILES; i++)
		fds[i] = open_ctx(limits_device(), &tgid);
	assert_int_equal(my_record(fds[0], tgid, &r), 0);
	limit = r.limit[NPU_LIMIT_ALLOCATIONS];
	assert_true(limit <= 4096);
	while ((ret = mem_alloc(fds[n % FILES], 4096, NULL)) == 0)
		n++;
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(n, limit);
	limit = r.limit[NPU_LIMIT_RINGS];
	for (n = 0; (ret = ring_create(fds[n % FILES])) >= 0; n++)
		;
	assert_int_equal(ret, -ENOSPC);
	assert_int_equal(n, limit);
	for (i = 1; i < FILES; i++)
		close(fds[i]);
	/* The first file's share is left; the others' come back (release is asynchronous). */
	for (i = 0; i < 500; i++) {
		assert_int_equal(my_record(fds[0], tgid, &r), 0);
		if (r.used[NPU_LIMIT_RINGS] < limit)
			break;
		sys_sleep_ms(10);
	}
	assert_true(r.used[NPU_LIMIT_RINGS] < limit);
	assert_true(r.used[NPU_LIMIT_RINGS] > 0);
	assert_int_equal(ring_create(fds[0]) >= 0, 1);
	close(fds[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_driver_reports_limits),
		cmocka_unit_test(test_ring_limit_is_per_process),
		cmocka_unit_test(test_close_with_thousands_of_objects_is_fast),
		cmocka_unit_test(test_exit_with_thousands_of_objects_is_fast),
		cmocka_unit_test(test_npu_smi_prints_use_and_limits),
		cmocka_unit_test(test_stream_limit),
		cmocka_unit_test(test_allocation_limit),
		cmocka_unit_test(test_hbm_limit),
		cmocka_unit_test(test_ipc_key_limit),
		cmocka_unit_test(test_phys_handle_limit),
		cmocka_unit_test(test_shareable_handle_limit),
		cmocka_unit_test(test_event_limit),
		cmocka_unit_test(test_inproc_limits_from_environment),
		cmocka_unit_test(test_pinned_host_limit),
		cmocka_unit_test(test_small_limits_are_per_process),
	};

	if (!sys_device_path()) {
		fprintf(stderr, "NPU_DEVICE must name .../npu0\n");
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, restore_module_limits);
}
