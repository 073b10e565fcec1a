// SPDX-License-Identifier: MIT
/*
 * SIGKILL anywhere: processes are killed at random points of every kind of
 * device work, and afterwards nothing is left behind and nobody else was
 * hurt.
 *
 * The stress test runs, for a while, a few victim processes at a time,
 * each in one loop (IPC export, IPC import of a survivor's key, VMM map
 * and unmap, shareable handles, copies with events, pinned and registered
 * host memory, streams, forking), and SIGKILLs each one 0-20 ms (sometimes
 * 0) after it was forked or after it entered its loop. Meanwhile:
 *
 *  - a survivor keeps verifying its own device buffers, a VMM mapping and
 *    two buffers imported from a donor (an IPC key and a shareable handle),
 *    and exports a key and a handle that the victims import and read;
 *  - the donor is killed at a random time: the survivor's imports stay.
 *
 * At the end the device holds exactly what the survivor holds, then (after
 * the survivor exits one way or another) nothing: all HBM free, no
 * allocation, the context count back to the observer's, and a fresh client
 * still works.
 *
 * Randomness comes from a seeded PRNG: the seed is printed, and
 * NPU_KILL_STRESS_SEED=N reproduces the same choices (timing still
 * differs). NPU_KILL_STRESS_MS sets how long the victims run (default
 * 25000, 3000 with NPU_TEST_QUICK=1), NPU_KILL_STRESS_PARALLEL how many run
 * at once (default 4).
 *
 * Fork semantics: a child forked after aclInit may initialise the runtime
 * again and use the device with a context of its own; ioctls on the files
 * it inherited fail with EBADF; and a dead parent's files do not keep its
 * context alive when a child still holds them. Drivers that let a child use
 * its parent's file ("legacy") are detected by a probe, and then what needs
 * the new behaviour is left out: the two fork tests are skipped with a
 * message, and the fork victims' children only exit, get killed, linger
 * with the inherited files or open a file of their own (they neither call
 * the runtime nor touch an inherited file). NPU_KILL_STRESS_FORK=strict (or
 * legacy) overrides the probe.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "acl/acl.h"

#include "npu_sys.h"

#define MiB		(1u << 20)
#define IDLE_TIMEOUT_MS	10000
#define MAX_PARALLEL	8
#define DEATH_TIMEOUT_MS 10000	/* a SIGKILLed process must be gone by then */

/* ---- seeded PRNG (splitmix64) ---------------------------------------- */

static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint64_t rng_below(uint64_t *s, uint64_t n)
{
	return n ? rng_next(s) % n : 0;
}

/* ---- data patterns: every byte depends on the seed and its offset ----- */

static inline uint8_t pat_byte(uint64_t seed, size_t off)
{
	uint64_t w = (seed * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)(off >> 3) * 0xD6E8FEB86659FD93ULL);

	w ^= w >> 29;
	return (uint8_t)(w >> ((off & 7) * 8));
}

static void pat_fill(void *p, size_t n, uint64_t seed, size_t off0)
{
	uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		b[i] = pat_byte(seed, off0 + i);
}

/* Offset of the first wrong byte, or SIZE_MAX. */
static size_t pat_find_bad(const void *p, size_t n, uint64_t seed, size_t off0)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != pat_byte(seed, off0 + i))
			return i;
	return SIZE_MAX;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);
	char *end;
	long x;

	if (!v || !*v)
		return def;
	x = strtol(v, &end, 0);
	return *end ? def : x;
}

/*
 * Iterations each kind of victim completed before it was killed, in memory
 * shared with the test process: what the run covered.
 */
enum { ST_BLOCKED_WAITS = 16, ST_FOREIGN_IMPORTS, ST_COUNTERS = 32 };
static uint64_t *shared_stats;

static void stat_add(unsigned i)
{
	if (shared_stats)
		__atomic_fetch_add(&shared_stats[i], 1, __ATOMIC_RELAXED);
}

/*
 * Keys the IPC-export victims publish for the IPC-import victims, so that
 * imports race with their exporter's death. A seqlock: seq is odd while
 * the exporter writes the slot.
 */
struct key_slot {
	uint32_t seq;
	char key[65];
	uint64_t seed;		/* of the exported buffer's pattern */
	uint64_t size;
};
#define KEY_SLOTS	8
static struct key_slot *key_slots;

static void key_slot_publish(const char *key, uint64_t seed, uint64_t size)
{
	struct key_slot *ks = &key_slots[getpid() % KEY_SLOTS];

	__atomic_fetch_add(&ks->seq, 1, __ATOMIC_ACQ_REL);
	memcpy(ks->key, key, sizeof(ks->key));
	ks->seed = seed;
	ks->size = size;
	__atomic_fetch_add(&ks->seq, 1, __ATOMIC_ACQ_REL);
}

/* A consistent copy of slot i; false if it is empty or being written. */
static bool key_slot_read(unsigned i, struct key_slot *out)
{
	struct key_slot *ks = &key_slots[i % KEY_SLOTS];
	uint32_t seq = __atomic_load_n(&ks->seq, __ATOMIC_ACQUIRE);

	if (!seq || (seq & 1))
		return false;
	memcpy(out, (const void *)ks, sizeof(*out));
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	return __atomic_load_n(&ks->seq, __ATOMIC_RELAXED) == seq &&
	       out->key[64] == 0 && strlen(out->key) == 64;
}

/* ---- checks inside child processes ----------------------------------- */

static const char *child_role = "test";

/* A child's check: on failure say where and exit with a code from the line. */
#define CK(cond)								\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "[%s %d] %s:%d: %s failed (%s)\n",	\
				child_role, (int)getpid(), __FILE__, __LINE__,	\
				#cond, aclGetRecentErrMsg() ?: "");		\
			_exit(__LINE__ % 250 + 1);				\
		}								\
	} while (0)
#define CK_OK(call) CK((call) == ACL_SUCCESS)

/* Copy n bytes of device memory at dev back and compare with the pattern. */
static void ck_dev_pattern(const char *what, const void *dev, size_t n, uint64_t seed,
			   size_t off0, void *bounce)
{
	void *h = bounce ? bounce : malloc(n);
	size_t bad;

	CK(h != NULL);
	memset(h, 0, n);
	CK_OK(aclrtMemcpy(h, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
	bad = pat_find_bad(h, n, seed, off0);
	if (bad != SIZE_MAX) {
		fprintf(stderr, "[%s %d] %s: byte %zu of %zu is 0x%02x, want 0x%02x\n",
			child_role, (int)getpid(), what, bad + off0, n,
			((uint8_t *)h)[bad], pat_byte(seed, off0 + bad));
		_exit(200);
	}
	if (!bounce)
		free(h);
}

static void dev_put_pattern(void *dev, size_t n, uint64_t seed, void *bounce)
{
	void *h = bounce ? bounce : malloc(n);

	CK(h != NULL);
	pat_fill(h, n, seed, 0);
	CK_OK(aclrtMemcpy(dev, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
	if (!bounce)
		free(h);
}

static void actor_init(void)
{
	aclError r = aclInit(NULL);

	CK(r == ACL_SUCCESS || r == ACL_ERROR_REPEAT_INITIALIZE);
	CK_OK(aclrtSetDevice(SYS_DEVICE));
}

static void phys_prop(aclrtPhysicalMemProp *prop, aclrtMemAttr attr)
{
	memset(prop, 0, sizeof(*prop));
	prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop->memAttr = attr;
	prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = SYS_DEVICE;
}

static void rw_desc(aclrtMemAccessDesc *desc)
{
	memset(desc, 0, sizeof(*desc));
	desc->flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	desc->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	desc->location.id = SYS_DEVICE;
}

/* Reserve, map and open a physical handle of size bytes; returns the VA. */
static void *map_handle(aclrtDrvMemHandle h, size_t size)
{
	aclrtMemAccessDesc desc;
	void *va;

	rw_desc(&desc);
	CK_OK(aclrtReserveMemAddress(&va, size, 0, NULL, 0));
	CK_OK(aclrtMapMem(va, size, 0, h, 0));
	CK_OK(aclrtMemSetAccess(va, size, &desc, 1));
	return va;
}

static void unmap_handle(void *va)
{
	CK_OK(aclrtUnmapMem(va));
	CK_OK(aclrtReleaseMemAddress(va));
}

static void read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)buf + got, n - got);

		if (r < 0 && errno == EINTR)
			continue;
		CK(r > 0);
		got += (size_t)r;
	}
}

static void write_full(int fd, const void *buf, size_t n)
{
	CK(write(fd, buf, n) == (ssize_t)n);
}

/* ---- what the survivor and the donor share with the victims ----------- */

#define EXP_SIZE	(MiB + 77)		/* survivor's IPC export */
#define EXP_SEED	0xe4e4e4ULL
#define SH_SIZE		(2 * MiB)		/* survivor's shareable handle */
#define SH_SEED		0x5a5a5aULL
#define DONOR_IPC_SIZE	(2 * MiB + 3)
#define DONOR_IPC_SEED	0xd0d0ULL
#define DONOR_SH_SIZE	(2 * MiB)
#define DONOR_SH_SEED	0xd1d1ULL

struct exports {
	int32_t pid;
	char key[65];
	uint64_t share;
};

struct victim_arg {
	int kind;
	uint64_t seed;
	struct exports surv;	/* the survivor's key and handle */
	bool strict_fork;
	int ready_fd;
};

static void victim_ready(struct victim_arg *a)
{
	char c = 'r';

	if (a->ready_fd >= 0) {
		CK(write(a->ready_fd, &c, 1) == 1);
		close(a->ready_fd);
		a->ready_fd = -1;
	}
}

/* ---- victims: each runs one loop until SIGKILLed ---------------------- */

/*
 * aclrtIpcMemGetExportKey + aclrtIpcMemSetImportPid + aclrtIpcMemClose.
 * One key without a whitelist is published at a time, for the importers.
 */
static void victim_ipc_export(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	size_t size = 4096 * (1 + rng_below(&rng, 700)) + rng_below(&rng, 4096);
	char published[65] = "";
	void *p;

	actor_init();
	CK_OK(aclrtMalloc(&p, size, (rng & 1) ? ACL_MEM_MALLOC_HUGE_FIRST :
			  ACL_MEM_MALLOC_NORMAL_ONLY));
	dev_put_pattern(p, size, a->seed, NULL);
	victim_ready(a);
	for (unsigned i = 0;; i++) {
		/* Live processes only: a pid with no process is refused (107000). */
		int32_t pids[3] = { a->surv.pid, getpid(), getppid() };
		bool publish = rng_below(&rng, 2) == 0;
		char key[65];

		stat_add(a->kind);
		CK_OK(aclrtIpcMemGetExportKey(p, size, key, sizeof(key), publish ?
					      ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION :
					      0));
		CK(strlen(key) == 64);
		if (publish) {
			key_slot_publish(key, a->seed, size);
			if (published[0])
				CK_OK(aclrtIpcMemClose(published));
			memcpy(published, key, sizeof(key));
		} else {
			CK_OK(aclrtIpcMemSetImportPid(key, pids, 1 + rng_below(&rng, 3)));
			if (rng_below(&rng, 8) != 0)
				CK_OK(aclrtIpcMemClose(key));
		}
		if (i % 16 == 15) {
			ck_dev_pattern("exported buffer", p, size, a->seed, 0, NULL);
			/* Keys left open keep the old memory until closed or released. */
			CK_OK(aclrtFree(p));
			CK_OK(aclrtMalloc(&p, size, ACL_MEM_MALLOC_HUGE_FIRST));
			dev_put_pattern(p, size, a->seed, NULL);
		}
	}
}

/* aclrtIpcMemImportByKey of the survivor's key + read + aclrtIpcMemClose. */
static void victim_ipc_import(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	unsigned open_imports = 0;
	uint8_t *h = malloc(EXP_SIZE);

	CK(h != NULL);
	actor_init();
	victim_ready(a);
	for (;;) {
		uint64_t flags = (rng & 2) ? ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS : 0;
		size_t off = rng_below(&rng, EXP_SIZE);
		size_t len = 1 + rng_below(&rng, EXP_SIZE - off);
		struct key_slot ks;
		aclError ret;
		void *q;

		stat_add(a->kind);
		ret = ACL_ERROR_RT_PARAM_INVALID;
		for (unsigned i = 0, i0 = (unsigned)rng_below(&rng, KEY_SLOTS),
			      n = rng_below(&rng, 2) ? KEY_SLOTS : 0;
		     i < n && ret != ACL_SUCCESS; i++) {
			if (!key_slot_read(i0 + i, &ks))
				continue;
			/* Another victim's key: its exporter may be dying right now. */
			ret = aclrtIpcMemImportByKey(&q, ks.key, flags);
			CK(ret == ACL_SUCCESS || ret == ACL_ERROR_RT_PARAM_INVALID);
		}
		if (ret == ACL_SUCCESS) {
			stat_add(ST_FOREIGN_IMPORTS);
			off = rng_below(&rng, ks.size);
			len = 1 + rng_below(&rng, ks.size - off);
			if (len > EXP_SIZE)
				len = EXP_SIZE;
			CK_OK(aclrtMemcpy(h, len, (char *)q + off, len,
					  ACL_MEMCPY_DEVICE_TO_HOST));
			CK(pat_find_bad(h, len, ks.seed, off) == SIZE_MAX);
			if (rng_below(&rng, 4) != 0)
				CK_OK(aclrtIpcMemClose(ks.key));
			continue;
		}
		CK_OK(aclrtIpcMemImportByKey(&q, a->surv.key, flags));
		open_imports++;
		CK_OK(aclrtMemcpy(h, len, (char *)q + off, len, ACL_MEMCPY_DEVICE_TO_HOST));
		CK(pat_find_bad(h, len, EXP_SEED, off) == SIZE_MAX);
		/* Mostly close again; sometimes leave a few for the release. */
		while (open_imports > (rng_below(&rng, 4) == 0 ? 3u : 0u)) {
			CK_OK(aclrtIpcMemClose(a->surv.key));
			open_imports--;
		}
	}
}

/* aclrtMallocPhysical + reserve + map + set access + unmap + free. */
static void victim_vmm(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	unsigned leaked = 0;
	void *bounce = malloc(4 * MiB);

	CK(bounce != NULL);
	actor_init();
	victim_ready(a);
	for (;;) {
		aclrtPhysicalMemProp prop;
		aclrtDrvMemHandle h;
		size_t size = 2 * MiB * (1 + rng_below(&rng, 2));
		uint64_t seed = rng_next(&rng);
		bool free_first = rng_below(&rng, 4) == 0;
		void *va;

		stat_add(a->kind);
		phys_prop(&prop, (rng & 1) ? ACL_MEM_HUGE : ACL_MEM_NORMAL);
		CK_OK(aclrtMallocPhysical(&h, size, &prop, 0));
		va = map_handle(h, size);
		if (free_first)
			CK_OK(aclrtFreePhysical(h));	/* the mapping keeps the frames */
		dev_put_pattern(va, size, seed, bounce);
		ck_dev_pattern("vmm mapping", va, size, seed, 0, bounce);
		if (leaked < 3 && rng_below(&rng, 8) == 0) {
			leaked++;	/* the release frees it */
			continue;
		}
		unmap_handle(va);
		if (!free_first)
			CK_OK(aclrtFreePhysical(h));
	}
}

/* Shareable handles: import the survivor's; export our own. */
static void victim_share(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	uint8_t *h = malloc(SH_SIZE);

	CK(h != NULL);
	actor_init();
	victim_ready(a);
	for (;;) {
		aclrtPhysicalMemProp prop;
		aclrtDrvMemHandle mh;

		stat_add(a->kind);
		if (rng_below(&rng, 2)) {
			size_t off = rng_below(&rng, SH_SIZE);
			size_t len = 1 + rng_below(&rng, SH_SIZE - off);
			void *va;

			CK_OK(aclrtMemImportFromShareableHandle(a->surv.share, SYS_DEVICE, &mh));
			va = map_handle(mh, SH_SIZE);
			CK_OK(aclrtMemcpy(h, len, (char *)va + off, len,
					  ACL_MEMCPY_DEVICE_TO_HOST));
			CK(pat_find_bad(h, len, SH_SEED, off) == SIZE_MAX);
			if (rng_below(&rng, 2))
				unmap_handle(va);	/* else the free leaves it mapped */
			CK_OK(aclrtFreePhysical(mh));
			if (rng_below(&rng, 16) == 0)
				continue;	/* a mapping for the release */
		} else {
			uint64_t flags = rng_below(&rng, 2) ?
					 ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION : 0;
			uint64_t share;
			int32_t pid = a->surv.pid;

			phys_prop(&prop, (rng & 4) ? ACL_MEM_HUGE : ACL_MEM_NORMAL);
			CK_OK(aclrtMallocPhysical(&mh, 2 * MiB, &prop, 0));
			CK_OK(aclrtMemExportToShareableHandle(mh, ACL_MEM_HANDLE_TYPE_NONE, flags,
							      &share));
			if (!flags)
				CK_OK(aclrtMemSetPidToShareableHandle(share, &pid, 1));
			CK_OK(aclrtFreePhysical(mh));
		}
	}
}

/*
 * A second thread of a copy victim: allocations, keys and copies of its
 * own on the same device file, so that the kill finds several calls of one
 * process in the driver at once.
 */
static void *copy_helper_thread(void *arg)
{
	uint64_t rng = *(uint64_t *)arg;
	uint8_t *h = malloc(256 * 1024);

	CK(h != NULL);
	CK_OK(aclrtSetDevice(SYS_DEVICE));
	for (;;) {
		size_t n = 1 + rng_below(&rng, 256 * 1024);
		uint64_t seed = rng_next(&rng);
		char key[65];
		void *d;

		CK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_NORMAL_ONLY));
		pat_fill(h, n, seed, 0);
		CK_OK(aclrtMemcpy(d, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE));
		CK_OK(aclrtIpcMemGetExportKey(d, n, key, sizeof(key), 0));
		memset(h, 0, n);
		CK_OK(aclrtMemcpy(h, n, d, n, ACL_MEMCPY_DEVICE_TO_HOST));
		CK(pat_find_bad(h, n, seed, 0) == SIZE_MAX);
		CK_OK(aclrtIpcMemClose(key));
		CK_OK(aclrtFree(d));
	}
	return NULL;
}

/* Copies: sync and async, H2D/D2H/D2D, pinned and pageable, with events. */
static void victim_copy(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	size_t n = 4096 * (1 + rng_below(&rng, 512)) + rng_below(&rng, 4096);
	uint8_t *pageable = malloc(n), *out = malloc(n), *pinned;
	aclrtStream s1, s2;
	aclrtEvent e1, e2;
	void *d1, *d2;

	CK(pageable && out);
	actor_init();
	CK_OK(aclrtMalloc(&d1, n, ACL_MEM_MALLOC_HUGE_FIRST));
	CK_OK(aclrtMalloc(&d2, n, ACL_MEM_MALLOC_NORMAL_ONLY));
	CK_OK(aclrtMallocHost((void **)&pinned, n));
	CK_OK(aclrtCreateStream(&s1));
	CK_OK(aclrtCreateStream(&s2));
	CK_OK(aclrtCreateEvent(&e1));
	CK_OK(aclrtCreateEvent(&e2));
	if (rng_below(&rng, 2)) {
		static uint64_t helper_seed;
		pthread_t t;

		helper_seed = rng_next(&rng);
		CK(pthread_create(&t, NULL, copy_helper_thread, &helper_seed) == 0);
	}
	victim_ready(a);
	for (;;) {
		uint64_t seed = rng_next(&rng);
		uint8_t *src = (rng & 1) ? pinned : pageable;
		uint8_t *dst = src == pinned ? pageable : ((rng & 2) ? pinned : out);
		unsigned mode = (unsigned)rng_below(&rng, 3);

		stat_add(a->kind);
		pat_fill(src, n, seed, 0);
		memset(dst, 0, n);
		if (mode == 0) {
			CK_OK(aclrtMemcpy(d1, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
			CK_OK(aclrtMemcpy(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
			CK_OK(aclrtMemcpy(dst, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST));
		} else if (mode == 1) {
			/* s1 writes d1, s2 waits for it, copies on and back. */
			CK_OK(aclrtMemcpyAsync(d1, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE, s1));
			CK_OK(aclrtRecordEvent(e1, s1));
			CK_OK(aclrtStreamWaitEvent(s2, e1));
			CK_OK(aclrtMemcpyAsync(d2, n, d1, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s2));
			CK_OK(aclrtMemcpyAsync(dst, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST, s2));
			CK_OK(aclrtRecordEvent(e2, s2));
			if (rng & 4)
				CK_OK(aclrtSynchronizeEvent(e2));
			else
				CK_OK(aclrtSynchronizeStream(s2));
		} else {
			int v = (int)(seed & 0xff);

			CK_OK(aclrtMemcpyAsync(d1, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE, s1));
			CK_OK(aclrtMemsetAsync(d2, n, v, n, s1));
			CK_OK(aclrtMemcpyAsync(dst, n, d2, n, ACL_MEMCPY_DEVICE_TO_HOST, s1));
			CK_OK(aclrtRecordEvent(e1, s1));
			CK_OK(aclrtSynchronizeEvent(e1));
			for (size_t i = 0; i < n; i++)
				CK(dst[i] == (uint8_t)v);
			CK_OK(aclrtMemcpy(dst, n, d1, n, ACL_MEMCPY_DEVICE_TO_HOST));
		}
		CK(pat_find_bad(dst, n, seed, 0) == SIZE_MAX);
	}
}

/* aclrtMallocHost/aclrtFreeHost and aclrtHostRegister/aclrtHostUnregister. */
static void victim_host(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	unsigned leaked = 0;
	void *dev;

	actor_init();
	CK_OK(aclrtMalloc(&dev, 4 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
	victim_ready(a);
	for (;;) {
		size_t n = 1 + rng_below(&rng, 4 * MiB);
		uint64_t seed = rng_next(&rng);
		uint8_t *p;

		stat_add(a->kind);
		if (rng_below(&rng, 2)) {
			CK_OK(aclrtMallocHost((void **)&p, n));
			pat_fill(p, n, seed, 0);
			CK_OK(aclrtMemcpy(dev, n, p, n, ACL_MEMCPY_HOST_TO_DEVICE));
			memset(p, 0, n);
			CK_OK(aclrtMemcpy(p, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
			CK(pat_find_bad(p, n, seed, 0) == SIZE_MAX);
			if (leaked < 4 && rng_below(&rng, 8) == 0)
				leaked++;
			else
				CK_OK(aclrtFreeHost(p));
		} else {
			size_t len = (n + 4095) & ~(size_t)4095;
			void *dp;

			p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			CK(p != MAP_FAILED);
			if (rng_below(&rng, 2))
				CK_OK(aclrtHostRegister(p, n, ACL_HOST_REGISTER_MAPPED, &dp));
			else
				CK_OK(aclrtHostRegisterV2(p, n, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED));
			pat_fill(p, n, seed, 0);
			CK_OK(aclrtMemcpy(dev, n, p, n, ACL_MEMCPY_HOST_TO_DEVICE));
			memset(p, 0, n);
			CK_OK(aclrtMemcpy(p, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST));
			CK(pat_find_bad(p, n, seed, 0) == SIZE_MAX);
			CK_OK(aclrtHostUnregister(p));
			munmap(p, len);
		}
	}
}

/* Streams and events created and destroyed with work on them. */
static void victim_stream(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	aclrtStream left[8];
	unsigned nleft = 0;
	uint8_t *h = malloc(64 * 1024);
	void *dev, *word;

	CK(h != NULL);
	actor_init();
	CK_OK(aclrtMalloc(&dev, 9 * 64 * 1024, ACL_MEM_MALLOC_NORMAL_ONLY));
	word = (char *)dev + 8 * 64 * 1024;
	CK_OK(aclrtMemset(word, 8, 0, 8));
	victim_ready(a);
	for (;;) {
		unsigned k = 1 + (unsigned)rng_below(&rng, 4);
		aclrtStream s[4];
		aclrtEvent ev;

		stat_add(a->kind);
		for (unsigned i = 0; i < k; i++) {
			char *d = (char *)dev + i * 64 * 1024;

			CK_OK(aclrtCreateStream(&s[i]));
			CK_OK(aclrtMemsetAsync(d, 64 * 1024, (int)(i + 1), 64 * 1024, s[i]));
			CK_OK(aclrtMemcpyAsync(h, 64 * 1024, d, 64 * 1024, ACL_MEMCPY_DEVICE_TO_HOST,
					       s[i]));
		}
		if (rng_below(&rng, 8) == 0) {
			/* A wait nothing will satisfy: blocked in the driver until killed. */
			CK_OK(aclrtValueWait(word, 1, ACL_STREAM_WAIT_VALUE_EQ, s[0]));
			stat_add(ST_BLOCKED_WAITS);
			aclrtSynchronizeStream(s[0]);
			fprintf(stderr, "[stream %d] a wait for a value never written returned\n",
				(int)getpid());
			_exit(202);
		}
		CK_OK(aclrtCreateEvent(&ev));
		CK_OK(aclrtRecordEvent(ev, s[k - 1]));
		CK_OK(aclrtSynchronizeEvent(ev));
		for (size_t j = 0; j < 64 * 1024; j++)
			CK(h[j] == (uint8_t)k);
		CK_OK(aclrtDestroyEvent(ev));
		for (unsigned i = 0; i < k; i++) {
			switch (rng_below(&rng, 4)) {
			case 0:
				CK_OK(aclrtDestroyStreamForce(s[i]));
				break;
			case 1:
				if (nleft < 8) {
					left[nleft++] = s[i];	/* for the release */
					break;
				}
				/* fall through */
			default:
				CK_OK(aclrtSynchronizeStream(s[i]));
				CK_OK(aclrtDestroyStream(s[i]));
			}
		}
		if (nleft == 8 && rng_below(&rng, 4) == 0) {
			while (nleft)
				CK_OK(aclrtDestroyStream(left[--nleft]));
		}
	}
}

/* What a child of the fork victim does. */
enum fork_child_action {
	FORK_EXIT_AT_ONCE,
	FORK_SLEEP_EXIT,
	FORK_OWN_RAW_FILE,	/* opens the device itself, allocates, exits */
	FORK_LINGER,		/* holds the inherited files up to 100 ms */
	FORK_LEGACY_ACTIONS,
	FORK_INHERITED_EBADF = FORK_LEGACY_ACTIONS,	/* strict only */
	FORK_USE_RUNTIME,	/* strict only: aclInit, aclrtSetDevice, copies */
	FORK_ACTIONS,
};

static int raw_setup(int fd)
{
	struct npu_ctx_setup cs = { .va_base = 1ULL << 41, .va_size = 1ULL << 30 };

	return sys_ioctl(fd, NPU_IOCTL_CTX_SETUP, &cs);
}

static int raw_alloc(int fd, uint64_t size, uint64_t *va)
{
	struct npu_mem_alloc ma;
	int ret;

	memset(&ma, 0, sizeof(ma));
	ma.size = size;
	ma.policy = NPU_POLICY_NORMAL_ONLY;
	ret = sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma);
	if (!ret && va)
		*va = ma.va;
	return ret;
}

static int raw_free(int fd, uint64_t va)
{
	struct npu_mem_free mf;

	memset(&mf, 0, sizeof(mf));
	mf.va = va;
	return sys_ioctl(fd, NPU_IOCTL_MEM_FREE, &mf);
}

static void fork_child(int rawfd, enum fork_child_action act, uint64_t rng)
{
	child_role = "fork-child";
	switch (act) {
	case FORK_EXIT_AT_ONCE:
		_exit(0);
	case FORK_SLEEP_EXIT:
		sys_sleep_ms((long)rng_below(&rng, 5));
		_exit(0);
	case FORK_OWN_RAW_FILE: {
		int fd = sys_open();
		uint64_t va;

		CK(fd >= 0);
		CK(raw_setup(fd) == 0);
		CK(raw_alloc(fd, 4096 * (1 + rng_below(&rng, 64)), &va) == 0);
		if (rng_below(&rng, 2))
			CK(raw_free(fd, va) == 0);
		_exit(0);
	}
	case FORK_LINGER:
		sys_sleep_ms((long)rng_below(&rng, 100));
		_exit(0);
	case FORK_INHERITED_EBADF:
		CK(raw_alloc(rawfd, 4096, NULL) == -EBADF);
		_exit(0);
	case FORK_USE_RUNTIME: {
		size_t n = 4096 + rng_below(&rng, 256 * 1024);
		uint64_t seed = rng_next(&rng);
		void *d;

		actor_init();
		CK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
		dev_put_pattern(d, n, seed, NULL);
		ck_dev_pattern("forked child's buffer", d, n, seed, 0, NULL);
		if (rng_below(&rng, 2)) {
			CK_OK(aclrtFree(d));
			CK_OK(aclrtResetDevice(SYS_DEVICE));
		}
		_exit(0);
	}
	case FORK_ACTIONS:
		break;
	}
	_exit(99);
}

/* A parent that forks children which exit or get killed, until killed. */
static void victim_fork(struct victim_arg *a)
{
	uint64_t rng = a->seed;
	size_t n = 256 * 1024 + 11;
	unsigned actions = a->strict_fork ? FORK_ACTIONS : FORK_LEGACY_ACTIONS;
	uint64_t raw_va;
	void *d;
	int rawfd;

	actor_init();
	CK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
	dev_put_pattern(d, n, a->seed, NULL);
	rawfd = sys_open();
	CK(rawfd >= 0);
	CK(raw_setup(rawfd) == 0);
	CK(raw_alloc(rawfd, 2 * MiB, &raw_va) == 0);
	victim_ready(a);
	for (;;) {
		enum fork_child_action act = (enum fork_child_action)rng_below(&rng, actions);
		uint64_t child_rng = rng_next(&rng);
		int status;
		pid_t c;

		stat_add(a->kind);
		c = fork();
		CK(c >= 0);
		if (c == 0)
			fork_child(rawfd, act, child_rng);
		if (rng_below(&rng, 3) == 0) {
			sys_sleep_ms((long)rng_below(&rng, 4));
			kill(c, SIGKILL);
		}
		CK(waitpid(c, &status, 0) == c);
		if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
			fprintf(stderr, "[fork %d] child %d (action %d) exited with %d\n",
				(int)getpid(), (int)c, (int)act, WEXITSTATUS(status));
			_exit(201);
		}
		CK(WIFEXITED(status) || WTERMSIG(status) == SIGKILL);
		/* The child did not disturb our context. */
		ck_dev_pattern("fork parent's buffer", d, n, a->seed, 0, NULL);
		CK(raw_free(rawfd, raw_va) == 0);
		CK(raw_alloc(rawfd, 2 * MiB, &raw_va) == 0);
	}
}

enum victim_kind {
	V_IPC_EXPORT,
	V_IPC_IMPORT,
	V_VMM,
	V_SHARE,
	V_COPY,
	V_HOST,
	V_STREAM,
	V_FORK,
	V_KINDS,
};

static const struct {
	const char *name;
	void (*fn)(struct victim_arg *a);
} victim_kinds[V_KINDS] = {
	[V_IPC_EXPORT] = { "ipc-export", victim_ipc_export },
	[V_IPC_IMPORT] = { "ipc-import", victim_ipc_import },
	[V_VMM] = { "vmm", victim_vmm },
	[V_SHARE] = { "share", victim_share },
	[V_COPY] = { "copy", victim_copy },
	[V_HOST] = { "host", victim_host },
	[V_STREAM] = { "stream", victim_stream },
	[V_FORK] = { "fork", victim_fork },
};

/* ---- the survivor and the donor --------------------------------------- */

#define SURV_A_SIZE	(4096 + 123)
#define SURV_B_SIZE	(3 * MiB + 5)
#define SURV_C_SIZE	(2 * MiB)

struct surv_buf {
	const char *name;
	void *dev;
	size_t size;
	uint64_t seed;
	bool rewrite;	/* ours: rewritten with new patterns during the run */
};

/* Commands from the test to the survivor. */
#define SURV_CMD_FINISH	'F'	/* verify everything once more, reply, wait */
#define SURV_CMD_CLEAN	'X'	/* free everything, reset, exit 0 */
#define SURV_CMD_QUIT	'Q'	/* exit 0 without freeing anything */

static void survivor_main(int cmd_rd, int rep_wr, uint64_t seed)
{
	uint64_t rng = seed;
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle hc, hs, hd;
	struct exports me, donor;
	struct surv_buf bufs[6];
	unsigned nbufs = 0;
	uint64_t rounds = 0, gen = seed;
	uint8_t *bounce = malloc(SURV_B_SIZE), *pinned;
	aclrtStream stream;
	aclrtEvent ev;
	void *exp, *shva, *cva, *donor_ipc, *donor_va;
	char c;

	child_role = "survivor";
	CK(bounce != NULL);
	actor_init();
	CK_OK(aclrtCreateStream(&stream));
	CK_OK(aclrtCreateEvent(&ev));
	CK_OK(aclrtMallocHost((void **)&pinned, SURV_B_SIZE));

	bufs[nbufs] = (struct surv_buf){ "own normal", NULL, SURV_A_SIZE, rng_next(&rng), true };
	CK_OK(aclrtMalloc(&bufs[nbufs].dev, SURV_A_SIZE, ACL_MEM_MALLOC_NORMAL_ONLY));
	nbufs++;
	bufs[nbufs] = (struct surv_buf){ "own huge", NULL, SURV_B_SIZE, rng_next(&rng), true };
	CK_OK(aclrtMalloc(&bufs[nbufs].dev, SURV_B_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	nbufs++;
	phys_prop(&prop, ACL_MEM_HUGE);
	CK_OK(aclrtMallocPhysical(&hc, SURV_C_SIZE, &prop, 0));
	cva = map_handle(hc, SURV_C_SIZE);
	bufs[nbufs++] = (struct surv_buf){ "own vmm", cva, SURV_C_SIZE, rng_next(&rng), true };
	for (unsigned i = 0; i < nbufs; i++)
		dev_put_pattern(bufs[i].dev, bufs[i].size, bufs[i].seed, bounce);
	/* Everything the loop uses has been used once before the test's snapshot. */
	pat_fill(pinned, bufs[0].size, bufs[0].seed, 0);
	CK_OK(aclrtMemcpyAsync(bufs[0].dev, bufs[0].size, pinned, bufs[0].size,
			       ACL_MEMCPY_HOST_TO_DEVICE, stream));
	CK_OK(aclrtRecordEvent(ev, stream));
	CK_OK(aclrtSynchronizeEvent(ev));

	/* What the victims import: never written again. */
	CK_OK(aclrtMalloc(&exp, EXP_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	dev_put_pattern(exp, EXP_SIZE, EXP_SEED, bounce);
	bufs[nbufs++] = (struct surv_buf){ "exported", exp, EXP_SIZE, EXP_SEED, false };
	me.pid = getpid();
	CK_OK(aclrtIpcMemGetExportKey(exp, EXP_SIZE, me.key, sizeof(me.key),
				      ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
	phys_prop(&prop, ACL_MEM_NORMAL);
	CK_OK(aclrtMallocPhysical(&hs, SH_SIZE, &prop, 0));
	shva = map_handle(hs, SH_SIZE);
	dev_put_pattern(shva, SH_SIZE, SH_SEED, bounce);
	CK_OK(aclrtMemExportToShareableHandle(hs, ACL_MEM_HANDLE_TYPE_NONE,
					      ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
					      &me.share));
	write_full(rep_wr, &me, sizeof(me));

	/* The donor's exports, whitelisted for us. */
	read_full(cmd_rd, &donor, sizeof(donor));
	CK_OK(aclrtIpcMemImportByKey(&donor_ipc, donor.key, 0));
	CK_OK(aclrtMemImportFromShareableHandle(donor.share, SYS_DEVICE, &hd));
	donor_va = map_handle(hd, DONOR_SH_SIZE);
	bufs[nbufs++] = (struct surv_buf){ "donor's ipc", donor_ipc, DONOR_IPC_SIZE,
					   DONOR_IPC_SEED, false };
	bufs[nbufs++] = (struct surv_buf){ "donor's handle", donor_va, DONOR_SH_SIZE,
					   DONOR_SH_SEED, false };
	for (unsigned i = 0; i < nbufs; i++)
		ck_dev_pattern(bufs[i].name, bufs[i].dev, bufs[i].size, bufs[i].seed, 0, bounce);
	ck_dev_pattern("shared", shva, SH_SIZE, SH_SEED, 0, bounce);
	write_full(rep_wr, "r", 1);

	for (;;) {
		struct pollfd pfd = { .fd = cmd_rd, .events = POLLIN };
		struct surv_buf *b = &bufs[rounds % nbufs];

		if (poll(&pfd, 1, 0) == 1)
			break;
		rounds++;
		if (b->rewrite && rng_below(&rng, 3) == 0) {
			/* A new pattern, through the pinned buffer and the stream. */
			b->seed = ++gen;
			pat_fill(pinned, b->size, b->seed, 0);
			CK_OK(aclrtMemcpyAsync(b->dev, b->size, pinned, b->size,
					       ACL_MEMCPY_HOST_TO_DEVICE, stream));
			CK_OK(aclrtRecordEvent(ev, stream));
			CK_OK(aclrtSynchronizeEvent(ev));
		}
		ck_dev_pattern(b->name, b->dev, b->size, b->seed, 0,
			       (rounds & 1) ? (void *)pinned : (void *)bounce);
		if (rounds % 7 == 0)
			ck_dev_pattern("shared", shva, SH_SIZE, SH_SEED, 0, bounce);
	}

	read_full(cmd_rd, &c, 1);
	CK(c == SURV_CMD_FINISH);
	for (unsigned i = 0; i < nbufs; i++)
		ck_dev_pattern(bufs[i].name, bufs[i].dev, bufs[i].size, bufs[i].seed, 0, bounce);
	ck_dev_pattern("shared", shva, SH_SIZE, SH_SEED, 0, bounce);
	write_full(rep_wr, &rounds, sizeof(rounds));
	read_full(cmd_rd, &c, 1);
	if (c == SURV_CMD_QUIT)
		_exit(0);
	CK(c == SURV_CMD_CLEAN);
	unmap_handle(donor_va);
	CK_OK(aclrtFreePhysical(hd));
	CK_OK(aclrtIpcMemClose(donor.key));
	unmap_handle(shva);
	CK_OK(aclrtFreePhysical(hs));
	CK_OK(aclrtIpcMemClose(me.key));
	CK_OK(aclrtFree(exp));
	unmap_handle(cva);
	CK_OK(aclrtFreePhysical(hc));
	CK_OK(aclrtFree(bufs[0].dev));
	CK_OK(aclrtFree(bufs[1].dev));
	CK_OK(aclrtFreeHost(pinned));
	CK_OK(aclrtDestroyEvent(ev));
	CK_OK(aclrtDestroyStream(stream));
	CK_OK(aclrtResetDevice(SYS_DEVICE));
	CK_OK(aclFinalize());
	_exit(0);
}

/* Exports two buffers to the survivor only, then reads them until killed. */
static void donor_main(int cmd_rd, int rep_wr)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h;
	struct exports ex;
	int32_t surv_pid;
	void *p, *va;

	child_role = "donor";
	actor_init();
	read_full(cmd_rd, &surv_pid, sizeof(surv_pid));
	CK_OK(aclrtMalloc(&p, DONOR_IPC_SIZE, ACL_MEM_MALLOC_HUGE_FIRST));
	dev_put_pattern(p, DONOR_IPC_SIZE, DONOR_IPC_SEED, NULL);
	CK_OK(aclrtIpcMemGetExportKey(p, DONOR_IPC_SIZE, ex.key, sizeof(ex.key), 0));
	CK_OK(aclrtIpcMemSetImportPid(ex.key, &surv_pid, 1));
	phys_prop(&prop, ACL_MEM_HUGE);
	CK_OK(aclrtMallocPhysical(&h, DONOR_SH_SIZE, &prop, 0));
	va = map_handle(h, DONOR_SH_SIZE);
	dev_put_pattern(va, DONOR_SH_SIZE, DONOR_SH_SEED, NULL);
	CK_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &ex.share));
	CK_OK(aclrtMemSetPidToShareableHandle(ex.share, &surv_pid, 1));
	ex.pid = getpid();
	write_full(rep_wr, &ex, sizeof(ex));
	for (;;) {
		ck_dev_pattern("donor's ipc", p, DONOR_IPC_SIZE, DONOR_IPC_SEED, 0, NULL);
		ck_dev_pattern("donor's handle", va, DONOR_SH_SIZE, DONOR_SH_SEED, 0, NULL);
		sys_sleep_ms(1);
	}
}

/* ---- the test process ------------------------------------------------- */

enum fork_mode { FORK_MODE_AUTO, FORK_MODE_STRICT, FORK_MODE_LEGACY };

struct stress_state {
	int fd;			/* raw observer file */
	uint32_t base_contexts;	/* contexts with only the observer open */
	uint64_t seed;
	bool strict_fork;	/* the driver has the new fork semantics */
};

/*
 * fork() for the test process's own children: a child dies with the test,
 * so a test killed by ctest's timeout leaves no victim running on and
 * holding the device. Grandchildren do not inherit this (the test kills
 * parents under their children on purpose).
 */
static pid_t fork_dies_with_test(void)
{
	pid_t test = getpid();
	pid_t pid = fork();

	if (pid == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != test))
		_exit(1);
	return pid;
}

/*
 * Whether a forked child's ioctl on its parent's file fails with EBADF (the
 * file belongs to the process that opened it) or acts on the parent's
 * context (legacy).
 */
static bool probe_strict_fork(void)
{
	int fd = sys_open(), status;
	uint64_t va = 0;
	pid_t pid;

	assert_true(fd >= 0);
	assert_int_equal(raw_setup(fd), 0);
	pid = fork_dies_with_test();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ret = raw_alloc(fd, 4096, &va);

		_exit(ret == -EBADF ? 0 : ret == 0 ? 1 : 2);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close(fd);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 2)
		fail_msg("a forked child's ioctl on its parent's file failed, but not with EBADF");
	return WEXITSTATUS(status) == 0;
}

static void fail_info(const char *when, const struct npu_device_info *info, uint32_t contexts,
		      uint64_t allocations, uint64_t hbm_free)
{
	fail_msg("%s: contexts %u (want %u), allocations %llu (want %llu), "
		 "hbm free %llu (want %llu) of %llu", when, info->contexts, contexts,
		 (unsigned long long)info->allocations, (unsigned long long)allocations,
		 (unsigned long long)info->hbm_free, (unsigned long long)hbm_free,
		 (unsigned long long)info->hbm_total);
}

/* Wait until the device's counters are exactly these. */
static void wait_counters(struct stress_state *st, const char *when, uint32_t contexts,
			  uint64_t allocations, uint64_t hbm_free)
{
	struct npu_device_info info;

	for (long waited = 0;; waited += 10) {
		if (sys_info(st->fd, &info) == 0 && info.contexts == contexts &&
		    info.allocations == allocations && info.hbm_free == hbm_free)
			return;
		if (waited >= IDLE_TIMEOUT_MS)
			fail_info(when, &info, contexts, allocations, hbm_free);
		sys_sleep_ms(10);
	}
}

/*
 * On the kernel module, debugfs also counts rings and pinned host pages:
 * with only the observer's file open, both must be 0. Returns the first
 * non-zero "name value" line, or NULL (also without debugfs).
 */
static const char *debugfs_leftover(void)
{
	static char line[128];
	char path[64], name[64];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/npu/npu%d/counters", SYS_DEVICE);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if ((!strcmp(name, "rings") || !strcmp(name, "pinned_pages")) && v) {
			snprintf(line, sizeof(line), "%s %lld", name, v);
			fclose(f);
			return line;
		}
	}
	fclose(f);
	return NULL;
}

static void wait_idle(struct stress_state *st, const char *when)
{
	struct npu_device_info info;
	const char *left;

	assert_int_equal(sys_info(st->fd, &info), 0);
	wait_counters(st, when, st->base_contexts, 0, info.hbm_total);
	for (long waited = 0; (left = debugfs_leftover()) != NULL; waited += 10) {
		if (waited >= IDLE_TIMEOUT_MS)
			fail_msg("%s: debugfs counters: %s", when, left);
		sys_sleep_ms(10);
	}
}

/* A fresh client: allocate, copy there and back, compare, free. */
static int fresh_client(void)
{
	const size_t size = (1u << 20) + 17;
	uint8_t *src = malloc(size), *dst = malloc(size);
	void *dev;

	child_role = "fresh client";
	if (!src || !dst)
		return 10;
	actor_init();
	pat_fill(src, size, 77, 0);
	memset(dst, 0, size);
	CK_OK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
	CK_OK(aclrtMemcpy(dev, size, src, size, ACL_MEMCPY_HOST_TO_DEVICE));
	CK_OK(aclrtMemcpy(dst, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST));
	CK(memcmp(src, dst, size) == 0);
	CK_OK(aclrtFree(dev));
	CK_OK(aclrtResetDevice(SYS_DEVICE));
	return 0;
}

static void assert_fresh_client_works(struct stress_state *st)
{
	int status;
	pid_t pid = fork_dies_with_test();

	assert_true(pid >= 0);
	if (pid == 0)
		_exit(fresh_client());
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	wait_idle(st, "after the fresh client");
}

/* Our live children (with PR_SET_CHILD_SUBREAPER, orphans become ours). */
static unsigned list_children(pid_t *out, unsigned max)
{
	char path[320];
	unsigned n = 0;
	struct dirent *de;
	DIR *d = opendir("/proc/self/task");

	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL && n < max) {
		FILE *f;
		int c;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (n < max && fscanf(f, "%d", &c) == 1)
			out[n++] = c;
		fclose(f);
	}
	closedir(d);
	return n;
}

static pid_t spawn_pipes(int *to_child, int *from_child)
{
	int a[2], b[2];
	pid_t pid;

	assert_int_equal(pipe2(a, O_CLOEXEC), 0);
	assert_int_equal(pipe2(b, O_CLOEXEC), 0);
	pid = fork_dies_with_test();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(a[1]);
		close(b[0]);
		to_child[0] = a[0];
		from_child[1] = b[1];
		return 0;
	}
	close(a[0]);
	close(b[1]);
	to_child[1] = a[1];
	from_child[0] = b[0];
	return pid;
}

struct victim {
	pid_t pid;
	int kind;
	int ready_fd;		/* -1 once read or closed */
	uint64_t seed;
	bool from_ready;	/* the delay counts from "ready", else from fork */
	int64_t delay_ns;
	int64_t kill_ns;	/* 0: not yet scheduled */
	int64_t killed_ns;	/* 0: not yet killed */
	int64_t spawn_ns;
};

struct stress_run {
	struct stress_state *st;
	uint64_t rng;
	struct victim v[MAX_PARALLEL];
	unsigned parallel;
	unsigned failures;
	unsigned spawned[V_KINDS];
	unsigned killed_before_ready, killed_after_ready, zero_delay;
	unsigned orphans;
	pid_t surv, donor;
	int64_t death_ns_max, death_ns_sum, ready_ns_sum;
	unsigned deaths, readies;
	bool donor_killed;
	int64_t donor_killed_ns;
	bool stop;		/* end the run early */
};

static void run_fail(struct stress_run *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL (seed %llu): ", (unsigned long long)r->st->seed);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	r->failures++;
}

static void spawn_victim(struct stress_run *r, struct victim *v, const struct exports *surv)
{
	int p[2];
	pid_t pid;
	struct victim_arg a;

	memset(v, 0, sizeof(*v));
	v->kind = (int)rng_below(&r->rng, V_KINDS);
	v->seed = rng_next(&r->rng);
	v->from_ready = rng_below(&r->rng, 4) != 0;
	v->delay_ns = rng_below(&r->rng, 8) == 0 ? 0 :
		      (int64_t)rng_below(&r->rng, 20000001);	/* 0..20 ms */
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	pid = fork_dies_with_test();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		child_role = victim_kinds[v->kind].name;
		a.kind = v->kind;
		a.seed = v->seed;
		a.surv = *surv;
		a.strict_fork = r->st->strict_fork;
		a.ready_fd = p[1];
		victim_kinds[v->kind].fn(&a);
		_exit(98);
	}
	close(p[1]);
	fcntl(p[0], F_SETFL, O_NONBLOCK);
	v->pid = pid;
	v->ready_fd = p[0];
	v->spawn_ns = now_ns();
	r->spawned[v->kind]++;
	if (v->delay_ns == 0)
		r->zero_delay++;
	if (!v->from_ready) {
		v->kill_ns = now_ns() + v->delay_ns;
		r->killed_before_ready++;
	}
}

static struct victim *find_victim(struct stress_run *r, pid_t pid)
{
	for (unsigned i = 0; i < r->parallel; i++)
		if (r->v[i].pid == pid)
			return &r->v[i];
	return NULL;
}

static void describe_status(char *buf, size_t n, int status)
{
	if (WIFEXITED(status))
		snprintf(buf, n, "exited with %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, n, "status 0x%x", status);
}

/* Reap every child that has ended and check how it ended. */
static void reap(struct stress_run *r)
{
	char how[64];
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		struct victim *v = find_victim(r, pid);
		bool by_us = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;

		describe_status(how, sizeof(how), status);
		if (v) {
			if (v->killed_ns) {
				int64_t d = now_ns() - v->killed_ns;

				r->deaths++;
				r->death_ns_sum += d;
				if (d > r->death_ns_max)
					r->death_ns_max = d;
			}
			if (!by_us || !v->killed_ns)
				run_fail(r, "victim %s (pid %d, seed %llu) %s before it was killed",
					 victim_kinds[v->kind].name, (int)pid,
					 (unsigned long long)v->seed, how);
			if (v->ready_fd >= 0)
				close(v->ready_fd);
			memset(v, 0, sizeof(*v));
			v->ready_fd = -1;
		} else if (pid == r->surv) {
			run_fail(r, "the survivor %s during the run", how);
			r->surv = 0;
			r->stop = true;	/* the victims would only fail on its keys */
		} else if (pid == r->donor) {
			if (!by_us || !r->donor_killed)
				run_fail(r, "the donor %s before it was killed", how);
			r->donor = 0;
		} else {
			/* A fork victim's child, orphaned when we killed its parent. */
			r->orphans++;
			if (!by_us && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
				run_fail(r, "an orphaned child of a fork victim (pid %d) %s",
					 (int)pid, how);
		}
	}
}

static bool victims_left(struct stress_run *r)
{
	for (unsigned i = 0; i < r->parallel; i++)
		if (r->v[i].pid)
			return true;
	return false;
}

static void kill_victim(struct stress_run *r, struct victim *v, int64_t now)
{
	if (v->killed_ns)
		return;
	assert_int_equal(kill(v->pid, SIGKILL), 0);
	v->killed_ns = now;
	if (v->from_ready && v->ready_fd < 0)
		r->killed_after_ready++;
}

/* Runs victims until deadline_ns, then kills and reaps all of them. */
static void run_victims(struct stress_run *r, const struct exports *surv, int64_t deadline_ns,
			int64_t donor_kill_ns)
{
	for (;;) {
		int64_t now = now_ns(), next = now + 2000000;
		struct pollfd pfd[MAX_PARALLEL];
		struct victim *pv[MAX_PARALLEL];
		struct timespec ts;
		unsigned npfd = 0;
		bool ending = now >= deadline_ns || r->stop;

		if (ending && !victims_left(r))
			return;
		if (r->donor && !r->donor_killed && (ending || now >= donor_kill_ns)) {
			assert_int_equal(kill(r->donor, SIGKILL), 0);
			r->donor_killed = true;
			r->donor_killed_ns = now;
		}
		for (unsigned i = 0; i < r->parallel; i++) {
			struct victim *v = &r->v[i];

			if (!v->pid) {
				if (!ending)
					spawn_victim(r, v, surv);
				continue;
			}
			if (v->killed_ns) {
				if (now - v->killed_ns > DEATH_TIMEOUT_MS * 1000000LL) {
					run_fail(r, "victim %s (pid %d, seed %llu) still alive %d ms "
						 "after SIGKILL", victim_kinds[v->kind].name,
						 (int)v->pid, (unsigned long long)v->seed,
						 DEATH_TIMEOUT_MS);
					fail();
				}
				continue;
			}
			if (ending || (v->kill_ns && now >= v->kill_ns)) {
				kill_victim(r, v, now);
				continue;
			}
			if (v->kill_ns && v->kill_ns < next)
				next = v->kill_ns;
			if (v->ready_fd >= 0) {
				pfd[npfd].fd = v->ready_fd;
				pfd[npfd].events = POLLIN;
				pv[npfd++] = v;
			}
		}
		if (next < now)
			next = now;
		ts.tv_sec = (next - now) / 1000000000LL;
		ts.tv_nsec = (next - now) % 1000000000LL;
		if (ppoll(pfd, npfd, &ts, NULL) > 0) {
			for (unsigned i = 0; i < npfd; i++) {
				struct victim *v = pv[i];
				char c;

				if (!pfd[i].revents)
					continue;
				if (read(v->ready_fd, &c, 1) == 1) {
					r->readies++;
					r->ready_ns_sum += now_ns() - v->spawn_ns;
					if (v->from_ready && !v->kill_ns)
						v->kill_ns = now_ns() + v->delay_ns;
				}
				close(v->ready_fd);
				v->ready_fd = -1;
			}
		}
		reap(r);
	}
}

/* After the victims: wait for (and if need be kill) their orphans. */
static void reap_orphans(struct stress_run *r)
{
	int64_t start = now_ns();
	pid_t kids[256];

	for (;;) {
		unsigned n, others = 0;

		reap(r);
		n = list_children(kids, 256);
		for (unsigned i = 0; i < n; i++)
			if (kids[i] != r->surv && kids[i] != r->donor)
				others++;
		if (!others)
			return;
		if (now_ns() - start > DEATH_TIMEOUT_MS * 1000000LL) {
			for (unsigned i = 0; i < n; i++) {
				if (kids[i] == r->surv || kids[i] == r->donor)
					continue;
				run_fail(r, "an orphaned fork child (pid %d) still runs %d ms "
					 "after its parent's death", (int)kids[i], DEATH_TIMEOUT_MS);
				kill(kids[i], SIGKILL);
			}
			start = now_ns();
		}
		sys_sleep_ms(5);
	}
}

static void test_sigkill_anywhere(void **state)
{
	struct stress_state *st = *state;
	long run_ms = env_long("NPU_KILL_STRESS_MS",
			       getenv("NPU_TEST_QUICK") && atoi(getenv("NPU_TEST_QUICK")) ?
			       3000 : 25000);
	struct stress_run r = { .st = st, .rng = st->seed };
	int surv_cmd[2], surv_rep[2], donor_cmd[2], donor_rep[2];
	struct npu_device_info info, snap;
	struct exports surv, donor;
	int64_t t0, deadline, donor_kill;
	uint64_t rounds;
	unsigned total = 0, mode;
	int status;
	char c;

	r.parallel = (unsigned)env_long("NPU_KILL_STRESS_PARALLEL", 4);
	if (r.parallel < 1 || r.parallel > MAX_PARALLEL)
		fail_msg("NPU_KILL_STRESS_PARALLEL must be 1..%d", MAX_PARALLEL);
	for (unsigned i = 0; i < MAX_PARALLEL; i++)
		r.v[i].ready_fd = -1;

	/* The survivor and the donor. */
	r.surv = spawn_pipes(surv_cmd, surv_rep);
	if (r.surv == 0)
		survivor_main(surv_cmd[0], surv_rep[1], rng_next(&r.rng));
	r.donor = spawn_pipes(donor_cmd, donor_rep);
	if (r.donor == 0)
		donor_main(donor_cmd[0], donor_rep[1]);
	assert_int_equal(read(surv_rep[0], &surv, sizeof(surv)), (ssize_t)sizeof(surv));
	assert_int_equal(write(donor_cmd[1], &surv.pid, sizeof(surv.pid)),
			 (ssize_t)sizeof(surv.pid));
	assert_int_equal(read(donor_rep[0], &donor, sizeof(donor)), (ssize_t)sizeof(donor));
	assert_int_equal(write(surv_cmd[1], &donor, sizeof(donor)), (ssize_t)sizeof(donor));
	assert_int_equal(read(surv_rep[0], &c, 1), 1);
	assert_int_equal(c, 'r');

	/*
	 * What the survivor holds, and the donor's exports it imported: all
	 * that must be left once the victims and the donor are dead.
	 */
	assert_int_equal(sys_info(st->fd, &snap), 0);
	assert_int_equal(snap.contexts, st->base_contexts + 2);

	t0 = now_ns();
	deadline = t0 + (int64_t)run_ms * 1000000LL;
	donor_kill = t0 + (int64_t)rng_below(&r.rng, (uint64_t)run_ms / 2 + 1) * 1000000LL;
	run_victims(&r, &surv, deadline, donor_kill);
	reap_orphans(&r);
	if (r.donor) {
		assert_int_equal(waitpid(r.donor, &status, 0), r.donor);
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		r.donor = 0;
	}
	for (unsigned k = 0; k < V_KINDS; k++)
		total += r.spawned[k];
	printf("[ kill    ] %u victims in %ld ms (", total, (long)((now_ns() - t0) / 1000000));
	for (unsigned k = 0; k < V_KINDS; k++)
		printf("%s%s %u", k ? ", " : "", victim_kinds[k].name, r.spawned[k]);
	printf("); killed before ready %u, after ready %u, at once %u; %u orphans\n",
	       r.killed_before_ready, r.killed_after_ready, r.zero_delay, r.orphans);
	printf("[ kill    ] fork to loop %.1f ms on average; SIGKILL to reaped %.1f ms on "
	       "average, %.1f ms at most\n",
	       r.readies ? r.ready_ns_sum / 1e6 / r.readies : 0.0,
	       r.deaths ? r.death_ns_sum / 1e6 / r.deaths : 0.0, r.death_ns_max / 1e6);
	printf("[ kill    ] loop iterations done before the kills:");
	for (unsigned k = 0; k < V_KINDS; k++)
		printf(" %s %llu", victim_kinds[k].name, (unsigned long long)shared_stats[k]);
	printf("; victims killed blocked in a wait: %llu; imports of other victims' keys: %llu\n",
	       (unsigned long long)shared_stats[ST_BLOCKED_WAITS],
	       (unsigned long long)shared_stats[ST_FOREIGN_IMPORTS]);
	if (r.failures)
		fail_msg("%u failure(s) during the run, see above (seed %llu)", r.failures,
			 (unsigned long long)st->seed);
	assert_true(r.surv != 0);

	/* Only the survivor is left: exactly its memory, its context. */
	wait_counters(st, "victims and donor dead, survivor alive", st->base_contexts + 1,
		      snap.allocations, snap.hbm_free);
	assert_int_equal(write(surv_cmd[1], (char[]){ SURV_CMD_FINISH }, 1), 1);
	assert_int_equal(read(surv_rep[0], &rounds, sizeof(rounds)), (ssize_t)sizeof(rounds));
	printf("[ kill    ] the survivor verified its buffers %llu times\n",
	       (unsigned long long)rounds);
	assert_true(rounds > 0);

	/* It ends cleanly, without freeing anything, or killed. */
	mode = (unsigned)rng_below(&r.rng, 3);
	if (mode == 2) {
		assert_int_equal(kill(r.surv, SIGKILL), 0);
	} else {
		c = mode ? SURV_CMD_QUIT : SURV_CMD_CLEAN;
		assert_int_equal(write(surv_cmd[1], &c, 1), 1);
	}
	assert_int_equal(waitpid(r.surv, &status, 0), r.surv);
	if (mode == 2)
		assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	else
		assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(surv_cmd[1]);
	close(surv_rep[0]);
	close(donor_cmd[1]);
	close(donor_rep[0]);
	wait_idle(st, "everyone dead");
	assert_int_equal(sys_info(st->fd, &info), 0);
	assert_fresh_client_works(st);
}

/* ---- fork semantics --------------------------------------------------- */

static void skip_unless_strict(struct stress_state *st)
{
	if (!st->strict_fork) {
		printf("[ SKIPPED ] this driver lets a forked child use its parent's file "
		       "(legacy fork semantics; NPU_KILL_STRESS_FORK=strict forces the test)\n");
		skip();
	}
}

/*
 * A child forked after its parent set up the device gets EBADF on the
 * inherited files, initialises the runtime afresh and uses the device with
 * its own context, and the parent's memory is untouched.
 */
static void test_forked_child_uses_its_own_context(void **state)
{
	struct stress_state *st = *state;
	int status;
	pid_t pid;

	skip_unless_strict(st);
	pid = fork_dies_with_test();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t n = 3 * MiB + 1;
		int rawfd, cst;
		uint64_t va;
		void *d;
		pid_t c;

		child_role = "fork parent";
		actor_init();
		CK_OK(aclrtMalloc(&d, n, ACL_MEM_MALLOC_HUGE_FIRST));
		dev_put_pattern(d, n, 41, NULL);
		rawfd = sys_open();
		CK(rawfd >= 0);
		CK(raw_setup(rawfd) == 0);
		CK(raw_alloc(rawfd, 4096, &va) == 0);
		c = fork();
		CK(c >= 0);
		if (c == 0) {
			void *d2;

			child_role = "forked child";
			CK(raw_alloc(rawfd, 4096, NULL) == -EBADF);
			CK(raw_free(rawfd, va) == -EBADF);
			actor_init();
			CK_OK(aclrtMalloc(&d2, n, ACL_MEM_MALLOC_HUGE_FIRST));
			CK(d2 != NULL);
			dev_put_pattern(d2, n, 42, NULL);
			ck_dev_pattern("child's buffer", d2, n, 42, 0, NULL);
			/* The parent's allocation is not the child's to free. */
			if (d != d2)
				CK(aclrtFree(d) == ACL_ERROR_RT_PARAM_INVALID);
			CK_OK(aclrtFree(d2));
			CK_OK(aclrtResetDevice(SYS_DEVICE));
			_exit(0);
		}
		CK(waitpid(c, &cst, 0) == c);
		CK(WIFEXITED(cst) && WEXITSTATUS(cst) == 0);
		ck_dev_pattern("parent's buffer", d, n, 41, 0, NULL);
		CK(raw_free(rawfd, va) == 0);
		CK_OK(aclrtFree(d));
		CK_OK(aclrtResetDevice(SYS_DEVICE));
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	wait_idle(st, "after the fork");
}

/*
 * A parent SIGKILLed while its child still holds the parent's files (the
 * runtime's and a raw one): the parent's context, memory and all are
 * released at its death, not when the child closes them.
 */
static void test_dead_parent_files_do_not_keep_its_context(void **state)
{
	struct stress_state *st = *state;
	struct npu_device_info info;
	int to[2], from[2], status;
	pid_t parent, child;

	skip_unless_strict(st);
	parent = spawn_pipes(to, from);
	if (parent == 0) {
		uint64_t va;
		void *d;
		pid_t c;

		child_role = "parent";
		actor_init();
		CK_OK(aclrtMalloc(&d, 8 * MiB, ACL_MEM_MALLOC_HUGE_FIRST));
		dev_put_pattern(d, 8 * MiB, 5, NULL);
		/* A raw file without O_CLOEXEC, and a raw allocation in it. */
		{
			int fd = sys_open();

			CK(fd >= 0);
			CK(raw_setup(fd) == 0);
			CK(raw_alloc(fd, 4 * MiB, &va) == 0);
		}
		c = fork();
		CK(c >= 0);
		if (c == 0) {
			char x;

			/* Hold every inherited file until the test says so. */
			child_role = "child";
			read_full(to[0], &x, 1);
			_exit(0);
		}
		write_full(from[1], &c, sizeof(c));
		for (;;)
			pause();
	}
	assert_int_equal(read(from[0], &child, sizeof(child)), (ssize_t)sizeof(child));
	assert_int_equal(sys_info(st->fd, &info), 0);
	assert_true(info.contexts >= st->base_contexts + 2);
	assert_true(info.hbm_free + 12 * MiB <= info.hbm_total);

	assert_int_equal(kill(parent, SIGKILL), 0);
	assert_int_equal(waitpid(parent, &status, 0), parent);
	assert_true(WIFSIGNALED(status));
	/* The child (now ours, we are the subreaper) still holds the files. */
	assert_int_equal(kill(child, 0), 0);
	wait_idle(st, "the parent is dead, its child holds its files");
	assert_int_equal(kill(child, 0), 0);

	assert_int_equal(write(to[1], "x", 1), 1);
	assert_int_equal(waitpid(child, &status, 0), child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	close(to[1]);
	close(from[0]);
	wait_idle(st, "the child closed them too");
}

static int setup(void **state)
{
	static struct stress_state st;
	const char *fm = getenv("NPU_KILL_STRESS_FORK");
	enum fork_mode mode = FORK_MODE_AUTO;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sys_open_watched(&st.fd, &st.base_contexts, true))
		return -1;
	shared_stats = mmap(NULL, ST_COUNTERS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	key_slots = mmap(NULL, KEY_SLOTS * sizeof(*key_slots), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared_stats == MAP_FAILED || key_slots == MAP_FAILED)
		return -1;
	/* Orphans of the fork victims become our children, so we reap them. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1)) {
		perror("PR_SET_CHILD_SUBREAPER");
		return -1;
	}

	if (getenv("NPU_KILL_STRESS_SEED") && *getenv("NPU_KILL_STRESS_SEED"))
		st.seed = strtoull(getenv("NPU_KILL_STRESS_SEED"), NULL, 0);
	else
		st.seed = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);
	printf("[ kill    ] seed %llu (NPU_KILL_STRESS_SEED=%llu reproduces it)\n",
	       (unsigned long long)st.seed, (unsigned long long)st.seed);

	if (fm && strcmp(fm, "strict") == 0)
		mode = FORK_MODE_STRICT;
	else if (fm && strcmp(fm, "legacy") == 0)
		mode = FORK_MODE_LEGACY;
	else if (fm && *fm && strcmp(fm, "auto") != 0) {
		fprintf(stderr, "NPU_KILL_STRESS_FORK=%s: want strict, legacy or auto\n", fm);
		return -1;
	}
	st.strict_fork = mode == FORK_MODE_STRICT ||
			 (mode == FORK_MODE_AUTO && probe_strict_fork());
	printf("[ kill    ] fork semantics: %s%s\n", st.strict_fork ? "strict" : "legacy",
	       mode == FORK_MODE_AUTO ? " (probed)" : " (NPU_KILL_STRESS_FORK)");
	*state = &st;
	return 0;
}

static int teardown(void **state)
{
	struct stress_state *st = *state;

	close(st->fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sigkill_anywhere),
		cmocka_unit_test(test_forked_child_uses_its_own_context),
		cmocka_unit_test(test_dead_parent_files_do_not_keep_its_context),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
