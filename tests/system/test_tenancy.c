// SPDX-License-Identifier: MIT
/*
 * Tenancy: no data crosses processes through device memory, freed HBM
 * gives its host memory back, and whitelists survive pid reuse.
 *
 * - A process fills allocations, physical memory mapped with the VMM API
 *   and IPC-shared memory with a pattern, then frees and exits (or is
 *   killed); the next process allocates all of the device's free HBM in
 *   the same page classes and reads every byte back as zero.
 * - The host memory backing a touched 1 GiB allocation goes back to the
 *   host when it is freed (npud's VmRSS; the module's debugfs backing).
 * - A whitelisted pid whose process exited and which a new process got
 *   (forced with /proc/sys/kernel/ns_last_pid, as root) does not let the
 *   new process import, for IPC keys and shareable handles alike.
 *
 * Actors are forked before any of them touches the runtime; the parent
 * watches the driver through a raw open of the device.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "acl/acl.h"

#include "npu_sys_acl.h"

#define IDLE_TIMEOUT_MS	10000
#define MiB		(1ull << 20)
#define GiB		(1ull << 30)

struct tenancy_state {
	int fd;			/* raw observer file */
	uint32_t base_contexts;
};

static void dev_fill(void *dev, size_t n, unsigned char seed)
{
	unsigned char *h = malloc(n);

	CK(h != NULL);
	for (size_t i = 0; i < n; i++)
		h[i] = (unsigned char)(i * 31 + seed) | 1;	/* never zero */
	CK_CODE(aclrtMemcpy(dev, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	free(h);
}

static int all_zero(const unsigned char *p, size_t n)
{
	static const unsigned char zero[4096];

	for (size_t off = 0; off < n; off += sizeof(zero)) {
		size_t len = n - off < sizeof(zero) ? n - off : sizeof(zero);

		if (memcmp(p + off, zero, len))
			return 0;
	}
	return 1;
}

/* Read device memory back in pieces of up to 64 MiB: every byte zero? */
static void dev_check_zero(void *dev, size_t n, unsigned char *buf, size_t buf_len)
{
	for (size_t off = 0; off < n; off += buf_len) {
		size_t len = n - off < buf_len ? n - off : buf_len;

		CK_CODE(aclrtMemcpy(buf, len, (char *)dev + off, len, ACL_MEMCPY_DEVICE_TO_HOST),
			ACL_SUCCESS);
		if (!all_zero(buf, len)) {
			fprintf(stderr, "device memory %p + %zu (%zu bytes) holds another process's data\n",
				dev, off, len);
			_exit(99);
		}
	}
}

static void wait_child(pid_t pid, int want_signal)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (want_signal) {
		assert_true(WIFSIGNALED(st));
		assert_int_equal(WTERMSIG(st), want_signal);
	} else {
		if (!WIFEXITED(st) || WEXITSTATUS(st))
			fail_msg("child %d: status 0x%x", (int)pid, st);
	}
}

/* ---- Freed frames are zero for the next process --------------------- */

#define SMALL_SIZE	(64 * 1024 + 5)	/* 4 KiB pages */
#define HUGE_SIZE	(8 * MiB + 123)	/* 2 MiB pages */
#define VMM_SIZE	(4 * MiB)
#define IPC_SIZE	(4 * MiB)

/*
 * Fill every kind of device memory with a pattern: an allocation of each
 * page class, physical memory mapped through a reservation, and memory
 * shared over IPC, whose key goes to the parent on @ready so that another
 * process imports and writes it too (until a byte on @go). Then report on
 * @ready and either free everything and exit, or wait to be killed.
 */
static void dirty_actor(int ready, int go, int free_first)
{
	aclrtPhysicalMemProp prop = { 0 };
	aclrtMemAccessDesc desc = { 0 };
	aclrtDrvMemHandle h;
	void *small, *huge, *ipc, *va;
	char key[65], c;

	sys_actor_init();
	CK_CODE(aclrtMalloc(&small, SMALL_SIZE, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	CK_CODE(aclrtMalloc(&huge, HUGE_SIZE, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
	dev_fill(small, SMALL_SIZE, 3);
	dev_fill(huge, HUGE_SIZE, 5);

	prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop.memAttr = ACL_MEM_NORMAL;
	prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = SYS_DEVICE;
	CK_CODE(aclrtMallocPhysical(&h, VMM_SIZE, &prop, 0), ACL_SUCCESS);
	CK_CODE(aclrtReserveMemAddress(&va, VMM_SIZE, 0, NULL, 0), ACL_SUCCESS);
	CK_CODE(aclrtMapMem(va, VMM_SIZE, 0, h, 0), ACL_SUCCESS);
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	desc.location.id = SYS_DEVICE;
	CK_CODE(aclrtMemSetAccess(va, VMM_SIZE, &desc, 1), ACL_SUCCESS);
	dev_fill(va, VMM_SIZE, 7);

	CK_CODE(aclrtMalloc(&ipc, IPC_SIZE, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	dev_fill(ipc, IPC_SIZE, 9);
	CK_CODE(aclrtIpcMemGetExportKey(ipc, IPC_SIZE, key, sizeof(key),
					ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION),
		ACL_SUCCESS);
	/* The parent has an importer write its own pattern into the shared memory. */
	CK(write(ready, key, sizeof(key)) == sizeof(key));
	CK(read(go, &c, 1) == 1);

	if (!free_first) {
		CK(write(ready, "k", 1) == 1);
		for (;;)
			pause();
	}
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);
	CK_CODE(aclrtFree(ipc), ACL_SUCCESS);
	CK_CODE(aclrtUnmapMem(va), ACL_SUCCESS);
	CK_CODE(aclrtReleaseMemAddress(va), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(h), ACL_SUCCESS);
	CK_CODE(aclrtFree(huge), ACL_SUCCESS);
	CK_CODE(aclrtFree(small), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
	CK(write(ready, "f", 1) == 1);
	_exit(0);
}

/* Most HBM the reader may take: all of it, unless the backing is real memory. */
static uint64_t reader_budget(void)
{
	const char *dev = getenv("NPU_DEVICE");
	unsigned long long kb = 0;
	char line[256];
	FILE *f;

	/* npud's chunks and the in-process device's cost nothing until written. */
	if (dev && strncmp(dev, "/dev/", 5) != 0)
		return UINT64_MAX;
	/* The module (or a CUSE npud in a small guest): a quarter of what is free. */
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return 256 * MiB;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb ? kb * 1024 / 4 : 256 * MiB;
}

/*
 * Allocate all of the device's free HBM (up to the budget) in 2 MiB pages,
 * then in 4 KiB pages once no 2 MiB block is left; then read every byte
 * back as zero, freeing each piece once read (reading host memory that
 * backs HBM makes it resident: this keeps npud's footprint small, and
 * nothing else can take the freed frames while this process holds the
 * rest). Then check that reuse inside this one process still works.
 */
static void zero_reader(void)
{
	static const struct {
		size_t size;
		aclrtMemMallocPolicy policy;
	} steps[] = {
		{ 64 * 1024, ACL_MEM_MALLOC_NORMAL_ONLY },	/* the small class first */
		{ 256 * MiB, ACL_MEM_MALLOC_HUGE_ONLY },
		{ 2 * MiB, ACL_MEM_MALLOC_HUGE_ONLY },
		{ 64 * 1024, ACL_MEM_MALLOC_NORMAL_ONLY },
		{ 4096, ACL_MEM_MALLOC_NORMAL_ONLY },
	};
	struct piece {
		void *p;
		size_t size;
	} *pieces;
	size_t buf_len = 64 * MiB, nr = 0, cap = 4096;
	uint64_t budget = reader_budget(), taken = 0;
	unsigned char *buf = malloc(buf_len);
	void *p;

	pieces = calloc(cap, sizeof(*pieces));
	CK(pieces && buf);
	sys_actor_init();
	for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		for (int n = 0; taken + steps[s].size <= budget && (s || n < 16); n++) {
			aclError e = aclrtMalloc(&p, steps[s].size, steps[s].policy);

			if (e == ACL_ERROR_RT_MEMORY_ALLOCATION)
				break;
			CK_CODE(e, ACL_SUCCESS);
			taken += steps[s].size;
			if (nr == cap) {
				cap *= 2;
				pieces = realloc(pieces, cap * sizeof(*pieces));
				CK(pieces != NULL);
			}
			pieces[nr].p = p;
			pieces[nr++].size = steps[s].size;
		}
	}
	CK(taken >= 64 * MiB);
	for (size_t i = 0; i < nr; i++) {
		dev_check_zero(pieces[i].p, pieces[i].size, buf, buf_len);
		CK_CODE(aclrtFree(pieces[i].p), ACL_SUCCESS);
	}
	/* Same process: freeing and allocating again keeps working. */
	CK_CODE(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	dev_fill(p, 4096, 13);
	CK_CODE(aclrtFree(p), ACL_SUCCESS);
	CK_CODE(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	dev_fill(p, 4096, 15);
	CK_CODE(aclrtMemcpy(buf, 4096, p, 4096, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	CK(buf[1] == (unsigned char)((31 + 15) | 1));
	CK_CODE(aclrtFree(p), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
	free(pieces);
	free(buf);
	_exit(0);
}

/* Import the key and write a pattern of this process into the memory. */
static void ipc_writer(const char *key)
{
	void *q;

	sys_actor_init();
	CK_CODE(aclrtIpcMemImportByKey(&q, key, 0), ACL_SUCCESS);
	dev_fill(q, IPC_SIZE, 11);
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
	_exit(0);
}

static void run_dirty_then_read(struct tenancy_state *st, int kill_it)
{
	struct npu_device_info info;
	int ready[2], go[2];
	char c, key[65];
	pid_t a, b, w;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(go), 0);
	a = fork();
	assert_true(a >= 0);
	if (a == 0) {
		close(ready[0]);
		close(go[1]);
		dirty_actor(ready[1], go[0], !kill_it);
	}
	close(ready[1]);
	close(go[0]);
	assert_int_equal(read(ready[0], key, sizeof(key)), sizeof(key));
	w = fork();
	assert_true(w >= 0);
	if (w == 0)
		ipc_writer(key);
	wait_child(w, 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	close(go[1]);
	if (kill_it) {
		assert_int_equal(c, 'k');
		assert_int_equal(kill(a, SIGKILL), 0);
		wait_child(a, SIGKILL);
	} else {
		assert_int_equal(c, 'f');
		wait_child(a, 0);
	}
	/* Everything of the dirty process is back in the allocator. */
	assert_int_equal(sys_wait_idle(st->fd, st->base_contexts, IDLE_TIMEOUT_MS, &info), 0);
	b = fork();
	assert_true(b >= 0);
	if (b == 0)
		zero_reader();
	wait_child(b, 0);
}

static void test_freed_memory_reads_zero_in_the_next_process(void **state)
{
	run_dirty_then_read(*state, 0);
}

static void test_memory_of_a_killed_process_reads_zero_in_the_next(void **state)
{
	run_dirty_then_read(*state, SIGKILL);
}

/* ---- The pinned pool is per process -------------------------------- */

#define SECRET_LEN	4096

/*
 * A process and its forked child each allocate pinned memory after the
 * fork: the child's block is its own (zero), not the parent's block with
 * the parent's bytes, and writes do not cross.
 */
static void pool_parent(void)
{
	int to_child[2], to_parent[2], st;
	unsigned char *p;
	pid_t child;
	char c;

	sys_actor_init();
	/* Some pool traffic before the fork: blocks freed back to the pool. */
	CK_CODE(aclrtMallocHost((void **)&p, SECRET_LEN), ACL_SUCCESS);
	memset(p, 0x11, SECRET_LEN);
	CK_CODE(aclrtFreeHost(p), ACL_SUCCESS);
	CK(pipe(to_child) == 0 && pipe(to_parent) == 0);
	child = fork();
	CK(child >= 0);
	if (child == 0) {
		unsigned char *q;

		close(to_child[1]);
		close(to_parent[0]);
		CK(read(to_child[0], &c, 1) == 1);
		/* A forked child starts with a fresh runtime of its own. */
		sys_actor_init();
		CK_CODE(aclrtMallocHost((void **)&q, SECRET_LEN), ACL_SUCCESS);
		CK(all_zero(q, SECRET_LEN));
		memset(q, 0x33, SECRET_LEN);
		CK(write(to_parent[1], "c", 1) == 1);
		CK(read(to_child[0], &c, 1) == 1);
		CK_CODE(aclrtFreeHost(q), ACL_SUCCESS);
		_exit(0);
	}
	close(to_child[0]);
	close(to_parent[1]);
	/* After the fork, the parent's block holds a secret. */
	CK_CODE(aclrtMallocHost((void **)&p, SECRET_LEN), ACL_SUCCESS);
	memset(p, 0x5e, SECRET_LEN);
	CK(write(to_child[1], "p", 1) == 1);
	CK(read(to_parent[0], &c, 1) == 1);
	for (size_t i = 0; i < SECRET_LEN; i++)
		CK(p[i] == 0x5e);
	CK(write(to_child[1], "x", 1) == 1);
	CK(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0);
	CK_CODE(aclrtFreeHost(p), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
	_exit(0);
}

static void test_pinned_pool_of_a_forked_child_is_its_own(void **state)
{
	pid_t a;

	(void)state;
	a = fork();
	assert_true(a >= 0);
	if (a == 0)
		pool_parent();
	wait_child(a, 0);
}

/* ---- Host memory goes back when HBM is freed ------------------------ */

/* kB of VmRSS of @pid, or -1. */
static long vm_rss_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * The npud serving NPU_DEVICE: for a FUSE file, the npud whose command
 * line names the file's directory; for /dev/npuN, the only npud (CUSE).
 * 0 if there is none (the kernel module).
 */
static pid_t find_npud(void)
{
	const char *dev = getenv("NPU_DEVICE");
	char dir[PATH_MAX], real[PATH_MAX] = "", *copy;
	int is_fuse = dev && strncmp(dev, "/dev/", 5) != 0;
	pid_t found = 0;
	struct dirent *e;
	DIR *d;

	if (!dev)
		return 0;
	copy = strdup(dev);
	snprintf(dir, sizeof(dir), "%s", dirname(copy));
	free(copy);
	if (is_fuse && !realpath(dir, real))
		return 0;
	d = opendir("/proc");
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300], cmd[4096], arg_real[PATH_MAX];
		ssize_t n;
		int fd, match = 0;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/cmdline", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		n = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
		if (n <= 0)
			continue;
		cmd[n] = '\0';
		if (strcmp(basename(cmd), "npud") != 0)
			continue;
		if (!is_fuse)
			match = 1;
		for (char *a = cmd; !match && a < cmd + n; a += strlen(a) + 1)
			if (realpath(a, arg_real) && !strcmp(arg_real, real))
				match = 1;
		if (match)
			found = (pid_t)atoi(e->d_name);
	}
	closedir(d);
	return found;
}

/* The module's backing bytes of SYS_DEVICE from debugfs, or -1. */
static long long kmod_backing_bytes(void)
{
	char path[128], line[128];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/npu/npu%d/hbm", SYS_DEVICE);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "backing_bytes %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

static void test_freed_hbm_returns_host_memory(void **state)
{
	struct tenancy_state *st = *state;
	struct npu_device_info info;
	pid_t npud = find_npud();
	uint64_t size = reader_budget() < GiB ? reader_budget() & ~(2 * MiB - 1) : GiB;
	long long before, touched, after;
	int go[2], done[2];
	pid_t a;
	char c;

	if (!npud && kmod_backing_bytes() < 0) {
		print_message("no npud serves %s and no module debugfs: skipped\n",
			      getenv("NPU_DEVICE") ?: "(unset)");
		skip();
	}
	if (size < 128 * MiB) {
		print_message("only %llu MiB to spare: skipped\n", (unsigned long long)(size >> 20));
		skip();
	}
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(done), 0);
	a = fork();
	assert_true(a >= 0);
	if (a == 0) {
		void *p;

		close(go[1]);
		close(done[0]);
		sys_actor_init();
		CK_CODE(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
		CK_CODE(aclrtMemset(p, size, 0x5a, size), ACL_SUCCESS);
		CK(write(done[1], "t", 1) == 1);
		CK(read(go[0], &c, 1) == 1);
		CK_CODE(aclrtFree(p), ACL_SUCCESS);
		CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
		CK(write(done[1], "f", 1) == 1);
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
#define MEASURE() (npud ? vm_rss_kb(npud) * 1024LL : kmod_backing_bytes())
	before = MEASURE();
	assert_int_equal(read(done[0], &c, 1), 1);
	touched = MEASURE();
	assert_int_equal(write(go[1], "g", 1), 1);
	assert_int_equal(read(done[0], &c, 1), 1);
	wait_child(a, 0);
	assert_int_equal(sys_wait_idle(st->fd, st->base_contexts, IDLE_TIMEOUT_MS, &info), 0);
	after = MEASURE();
#undef MEASURE
	close(go[1]);
	close(done[0]);
	print_message("%s: %lld MiB before, %lld touched, %lld after freeing %llu MiB\n",
		      npud ? "npud VmRSS" : "module backing", before >> 20, touched >> 20,
		      after >> 20, (unsigned long long)(size >> 20));
	assert_true(touched - before >= (long long)size / 2);
	/*
	 * What the free gave back, measured from the peak: all of it but the
	 * idle chunks kept for reuse (16 MiB) and some slack. Not measured
	 * against "before": npud's own heap (FUSE buffers, per-thread malloc
	 * arenas) may grow while it serves the copy, and that is not HBM.
	 */
	assert_true(touched - after >= (long long)size - 64 * (long long)MiB);
}

/* ---- Whitelists survive pid reuse ----------------------------------- */

/*
 * Fork a child that gets pid @want, by setting ns_last_pid (root only).
 * The child runs @fn. Returns its pid, or -1 if it could not be arranged.
 */
static pid_t fork_with_pid(pid_t want, void (*fn)(void *), void *arg)
{
	for (int tries = 0; tries < 50; tries++) {
		int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
		char num[32];
		pid_t pid;
		int len;

		if (fd < 0)
			return -1;
		len = snprintf(num, sizeof(num), "%d", (int)want - 1);
		if (write(fd, num, (size_t)len) != len) {
			close(fd);
			return -1;
		}
		close(fd);
		pid = fork();
		if (pid < 0)
			return -1;
		if (pid == 0) {
			if (getpid() != want)
				_exit(0);
			fn(arg);
			_exit(0);
		}
		if (pid == want)
			return pid;
		waitpid(pid, NULL, 0);	/* somebody else took it first: again */
	}
	return -1;
}

struct exporter_msg {
	char key[65];
	uint64_t share;
};

/* Exports an IPC key and a shareable handle, whitelists what the parent sends. */
static void whitelist_exporter(int from_parent, int to_parent)
{
	aclrtPhysicalMemProp prop = { 0 };
	struct exporter_msg m = { 0 };
	aclrtDrvMemHandle h;
	int32_t pid;
	void *p;

	sys_actor_init();
	CK_CODE(aclrtMalloc(&p, 2 * MiB, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	CK_CODE(aclrtIpcMemGetExportKey(p, 2 * MiB, m.key, sizeof(m.key), 0), ACL_SUCCESS);
	prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop.memAttr = ACL_MEM_NORMAL;
	prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = SYS_DEVICE;
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_SUCCESS);
	CK_CODE(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &m.share),
		ACL_SUCCESS);
	CK(write(to_parent, &m, sizeof(m)) == sizeof(m));
	/* Requests: a pid to whitelist (expect the code that follows), 0 to stop. */
	for (;;) {
		int32_t want;

		CK(read(from_parent, &pid, sizeof(pid)) == sizeof(pid));
		if (!pid)
			break;
		CK(read(from_parent, &want, sizeof(want)) == sizeof(want));
		CK_CODE(aclrtIpcMemSetImportPid(m.key, &pid, 1), (aclError)want);
		CK_CODE(aclrtMemSetPidToShareableHandle(m.share, &pid, 1), (aclError)want);
		if (want != ACL_SUCCESS)
			CK(aclGetRecentErrMsg() != NULL);
		CK(write(to_parent, "w", 1) == 1);
	}
	CK_CODE(aclrtFreePhysical(h), ACL_SUCCESS);
	CK_CODE(aclrtIpcMemClose(m.key), ACL_SUCCESS);
	CK_CODE(aclrtFree(p), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
	_exit(0);
}

struct importer_arg {
	struct exporter_msg m;
	aclError want;
	int go;		/* >= 0: wait for a byte on it before importing */
};

/* Try both imports; expect args->want for each. */
static void importer(void *arg)
{
	struct importer_arg *a = arg;
	aclrtDrvMemHandle h;
	aclError e;
	void *q;

	sys_actor_init();
	if (a->go >= 0) {
		char c;

		CK(read(a->go, &c, 1) == 1);
	}
	e = aclrtIpcMemImportByKey(&q, a->m.key, 0);
	if (e != a->want)
		fprintf(stderr, "aclrtIpcMemImportByKey: %d, expected %d\n", (int)e, (int)a->want);
	CK(e == a->want);
	e = aclrtMemImportFromShareableHandle(a->m.share, SYS_DEVICE, &h);
	if (e != a->want)
		fprintf(stderr, "aclrtMemImportFromShareableHandle: %d, expected %d\n", (int)e,
			(int)a->want);
	CK(e == a->want);
	if (a->want == ACL_SUCCESS) {
		CK_CODE(aclrtIpcMemClose(a->m.key), ACL_SUCCESS);
		CK_CODE(aclrtFreePhysical(h), ACL_SUCCESS);
	}
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

/* A process that only exists: its pid goes on the whitelist. */
static void placeholder(void *arg)
{
	int fd = *(int *)arg;
	char c;

	/* Runs until the parent closes the pipe. */
	(void)!read(fd, &c, 1);
}

static void request(int to_exp, int from_exp, int32_t pid, aclError want)
{
	int32_t w = (int32_t)want;
	char c;

	assert_int_equal(write(to_exp, &pid, sizeof(pid)), sizeof(pid));
	assert_int_equal(write(to_exp, &w, sizeof(w)), sizeof(w));
	assert_int_equal(read(from_exp, &c, 1), 1);
}

static void test_whitelist_refuses_a_process_that_reuses_a_listed_pid(void **state)
{
	struct tenancy_state *st = *state;
	int to_exp[2], from_exp[2], hold[2];
	struct importer_arg ia = { 0 };
	struct npu_device_info info;
	int32_t stop = 0;
	pid_t exp, old, reuse;

	if (access("/proc/sys/kernel/ns_last_pid", W_OK) != 0) {
		print_message("cannot write /proc/sys/kernel/ns_last_pid (needs root): skipped\n");
		skip();
	}
	assert_int_equal(pipe(to_exp), 0);
	assert_int_equal(pipe(from_exp), 0);
	exp = fork();
	assert_true(exp >= 0);
	if (exp == 0) {
		close(to_exp[1]);
		close(from_exp[0]);
		whitelist_exporter(to_exp[0], from_exp[1]);
	}
	close(to_exp[0]);
	close(from_exp[1]);
	assert_int_equal(read(from_exp[0], &ia.m, sizeof(ia.m)), sizeof(ia.m));
	ia.go = -1;

	/* A process is listed, then exits. */
	assert_int_equal(pipe(hold), 0);
	old = fork();
	assert_true(old >= 0);
	if (old == 0) {
		close(hold[1]);
		placeholder(&hold[0]);
		_exit(0);
	}
	close(hold[0]);
	request(to_exp[1], from_exp[0], old, ACL_SUCCESS);
	close(hold[1]);
	wait_child(old, 0);
	/* Its pid has no process now: listing it again is refused. */
	request(to_exp[1], from_exp[0], old, ACL_ERROR_RT_PARAM_INVALID);
	/* Let a clock tick pass: /proc reports start times in ticks. */
	sys_sleep_ms(50);

	/* A new process gets the same pid: not whitelisted. */
	ia.want = ACL_ERROR_RT_NO_PERMISSION;
	reuse = fork_with_pid(old, importer, &ia);
	if (reuse < 0) {
		assert_int_equal(write(to_exp[1], &stop, sizeof(stop)), sizeof(stop));
		wait_child(exp, 0);
		print_message("could not get pid %d again: skipped\n", (int)old);
		skip();
	}
	wait_child(reuse, 0);

	/* A process listed while it runs imports (the same steps, allowed). */
	assert_int_equal(pipe(hold), 0);
	ia.want = ACL_SUCCESS;
	ia.go = hold[0];
	reuse = fork();
	assert_true(reuse >= 0);
	if (reuse == 0) {
		close(hold[1]);
		importer(&ia);
		_exit(0);
	}
	close(hold[0]);
	request(to_exp[1], from_exp[0], reuse, ACL_SUCCESS);
	assert_int_equal(write(hold[1], "g", 1), 1);
	close(hold[1]);
	wait_child(reuse, 0);

	assert_int_equal(write(to_exp[1], &stop, sizeof(stop)), sizeof(stop));
	wait_child(exp, 0);
	close(to_exp[1]);
	close(from_exp[0]);
	assert_int_equal(sys_wait_idle(st->fd, st->base_contexts, IDLE_TIMEOUT_MS, &info), 0);
}

static int setup(void **state)
{
	static struct tenancy_state st;
	struct npu_device_info info;

	st.fd = sys_open();
	if (st.fd < 0)
		return -1;
	if (sys_info(st.fd, &info))
		return -1;
	st.base_contexts = info.contexts;
	*state = &st;
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_freed_memory_reads_zero_in_the_next_process),
		cmocka_unit_test(test_memory_of_a_killed_process_reads_zero_in_the_next),
		cmocka_unit_test(test_pinned_pool_of_a_forked_child_is_its_own),
		cmocka_unit_test(test_freed_hbm_returns_host_memory),
		cmocka_unit_test(test_whitelist_refuses_a_process_that_reuses_a_listed_pid),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
