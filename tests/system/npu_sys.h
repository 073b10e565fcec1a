/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the system tests: they talk to the FUSE device file
 * directly (raw ioctls) to observe the driver's accounting from outside
 * the process under test.
 */
#ifndef NPU_SYS_H
#define NPU_SYS_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <npu/npu_uapi.h>

/*
 * The device these tests use: device 1 of their own npud (fixture
 * npud_fuse_sys, tests/system/CMakeLists.txt), so that no runtime test, run
 * beside them by ctest -j, is counted in what the device holds.
 */
#define SYS_DEVICE	1

/* Path of device SYS_DEVICE, from NPU_DEVICE (".../npu0"). */
static inline const char *sys_device_path(void)
{
	static char path[4096];
	const char *dev0 = getenv("NPU_DEVICE");
	size_t n;

	if (!dev0 || !*dev0)
		return NULL;
	n = strlen(dev0);
	if (n + 2 > sizeof(path) || dev0[n - 1] != '0')
		return NULL;
	memcpy(path, dev0, n - 1);
	snprintf(path + n - 1, sizeof(path) - (n - 1), "%d", SYS_DEVICE);
	return path;
}

static inline int sys_open(void)
{
	const char *path = sys_device_path();

	return path ? open(path, O_RDWR | O_CLOEXEC) : -1;
}

/* ioctl returning 0/positive or -errno. */
static inline int sys_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, cmd, arg);
	} while (ret < 0 && errno == EINTR);
	return ret < 0 ? -errno : ret;
}

/*
 * A shared mapping of @bytes of a new memfd, sealed against shrinking, as
 * npud requires of ring and registered memory (docs/security.md). The
 * descriptor stays open for as long as the memory is in use (npud takes
 * the client's own file); it is returned in *fdp if fdp is not NULL.
 * Returns MAP_FAILED with errno set on failure.
 */
static inline void *sys_shared_memory(const char *name, size_t bytes, int *fdp)
{
	int fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	void *mem;

	if (fd < 0)
		return MAP_FAILED;
	if (ftruncate(fd, (off_t)bytes) || fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK)) {
		close(fd);
		return MAP_FAILED;
	}
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED) {
		close(fd);
		return MAP_FAILED;
	}
	if (fdp)
		*fdp = fd;
	return mem;
}

/*
 * Set up @fd's context as the runtime does: device addresses in a 1 GiB
 * aligned, inaccessible window of @va_size bytes that this process
 * reserves. 0 or -errno; *tgid, if not NULL, gets the caller's TGID as
 * the driver sees it.
 */
static inline int sys_ctx_setup(int fd, uint64_t va_size, uint32_t *tgid)
{
	const uint64_t align = 1ULL << 30;
	struct npu_ctx_setup cs = { 0 };
	uint8_t *p = mmap(NULL, va_size + align, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	int ret;

	if (p == MAP_FAILED)
		return -errno;
	cs.va_base = ((uint64_t)(uintptr_t)p + align - 1) & ~(align - 1);
	cs.va_size = va_size;
	ret = sys_ioctl(fd, NPU_IOCTL_CTX_SETUP, &cs);
	if (!ret && tgid)
		*tgid = cs.tgid;
	return ret;
}

/* @path opened with @flags (besides O_RDWR) and its context set up: a file, or -errno. */
static inline int sys_open_ctx(const char *path, int flags, uint64_t va_size)
{
	int fd, ret;

	if (!path)
		return -ENOENT;
	fd = open(path, O_RDWR | flags);
	if (fd < 0)
		return -errno;
	ret = sys_ctx_setup(fd, va_size, NULL);
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * A ring of @entries SQEs and CQEs over new sealed shared memory, created
 * on @fd: 0 with *mem and *rc filled in (rc->sqes_off, rc->cqes_off), or
 * -errno.
 */
static inline int sys_ring_create(int fd, uint32_t entries, const char *name, void **mem,
				  struct npu_ring_create *rc)
{
	size_t bytes = ((size_t)npu_ring_bytes(entries, entries) + 4095) & ~(size_t)4095;
	void *p = sys_shared_memory(name, bytes, NULL);

	if (p == MAP_FAILED)
		return -errno;
	memset(rc, 0, sizeof(*rc));
	rc->addr = (uint64_t)(uintptr_t)p;
	rc->size = bytes;
	rc->sq_entries = entries;
	rc->cq_entries = entries;
	*mem = p;
	return sys_ioctl(fd, NPU_IOCTL_RING_CREATE, rc);
}

/* The kernel module's parameters, where the module is loaded. */
#define SYS_MODULE_PARAMS	"/sys/module/npu/parameters/"

/*
 * Read (into @val, @len bytes, newline dropped) or write (@val) the module
 * parameter @name. 0, or -1 where there is no such parameter or no access.
 */
static inline int sys_module_param(const char *name, char *val, size_t len, bool write)
{
	char path[256];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), SYS_MODULE_PARAMS "%s", name);
	f = fopen(path, write ? "w" : "r");
	if (!f)
		return -1;
	ok = write ? fputs(val, f) >= 0 : fgets(val, (int)len, f) != NULL;
	if (fclose(f))
		ok = 0;
	if (!write && ok)
		val[strcspn(val, "\n")] = '\0';
	return ok ? 0 : -1;
}

static inline int sys_info(int fd, struct npu_device_info *info)
{
	memset(info, 0, sizeof(*info));
	return sys_ioctl(fd, NPU_IOCTL_DEVICE_INFO, info);
}

static inline void sys_sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * Wait (up to timeout_ms) until the device is back to its idle state: all
 * HBM free, no allocation, and contexts back to base_contexts. RELEASE of
 * a dead client's file reaches npud asynchronously, hence the polling.
 * Returns 0 when idle, else -1 with *info holding the last reading.
 */
static inline int sys_wait_idle(int fd, uint32_t base_contexts, long timeout_ms,
				struct npu_device_info *info)
{
	long waited;

	for (waited = 0;; waited += 10) {
		if (sys_info(fd, info) == 0 && info->hbm_free == info->hbm_total &&
		    info->allocations == 0 && info->contexts == base_contexts)
			return 0;
		if (waited >= timeout_ms)
			return -1;
		sys_sleep_ms(10);
	}
}

/*
 * Wait (up to timeout_ms) until the contexts the device counts are settled:
 * each listed context belongs to a live process, this process has only
 * @fd's, and the count agrees with the list. On FUSE a close() returns
 * before npud has released the file, and a dead process's files go a
 * little after its death: a context count read before they leave would
 * never be reached again. Past the timeout the last reading stands (a
 * zombie's files, say). 0 with *info read, or -1 if a call fails.
 */
static inline int sys_settle(int fd, long timeout_ms, struct npu_device_info *info)
{
	struct npu_smi_proc recs[256];
	long waited;

	for (waited = 0;; waited += 10) {
		struct npu_smi_query q = { 0 };
		uint32_t mine = 0, dead = 0, i;

		q.buf = (uint64_t)(uintptr_t)recs;
		q.count = 256;
		if (sys_ioctl(fd, NPU_IOCTL_SMI_PROCS, &q) || sys_info(fd, info))
			return -1;
		for (i = 0; i < q.written; i++) {
			mine += recs[i].tgid == (uint32_t)getpid();
			dead += kill((pid_t)recs[i].tgid, 0) && errno == ESRCH;
		}
		if ((mine == 1 && !dead && info->contexts == q.written) || waited >= timeout_ms)
			return 0;
		sys_sleep_ms(10);
	}
}

/*
 * The group setup of a system test: open the watched device and remember
 * its contexts now (*base_contexts, for sys_wait_idle). With @need_idle,
 * someone else's leftovers (HBM in use, allocations) fail it: they would
 * make every check meaningless. 0, or -1 with the reason on stderr.
 */
static inline int sys_open_watched(int *fd, uint32_t *base_contexts, bool need_idle)
{
	struct npu_device_info info;

	*fd = sys_open();
	if (*fd < 0) {
		fprintf(stderr, "cannot open the device (NPU_DEVICE=%s)\n",
			getenv("NPU_DEVICE") ? getenv("NPU_DEVICE") : "unset");
		return -1;
	}
	if (sys_settle(*fd, 10000, &info))
		return -1;
	*base_contexts = info.contexts;
	if (need_idle && (info.hbm_free != info.hbm_total || info.allocations != 0)) {
		fprintf(stderr, "device %d is not idle at start\n", SYS_DEVICE);
		return -1;
	}
	return 0;
}

#endif /* NPU_SYS_H */
