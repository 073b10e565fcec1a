// SPDX-License-Identifier: MIT
/*
 * Client-shared memory is hostile, and the daemon is root: it must reach a
 * client's ring or pinned memory only as a file that client still holds,
 * sealed against shrinking, and never write anything the client could
 * not. Each case ends with npud alive and serving, the device idle.
 *
 * Backends differ where the kernel module pins pages itself: there a
 * closed or unsealed memfd is acceptable (the pages cannot go away), and
 * those cases only check that nothing breaks. The backend is the kernel
 * module when NPU_VM_BACKEND says "kmod..." or /sys/module/npu exists; else
 * npud (FUSE on the host, CUSE in the VM).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/falloc.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "npu_sys.h"

#define IDLE_TIMEOUT_MS	5000
#define APERTURE_SIZE	(1ULL << 40)
#define PAGE		4096UL
#define RING_ENTRIES	8
#define NOBODY		65534
#define RACE_ROUNDS	3000
#define RACE_MAX_MS	4000

struct hostile_state {
	int fd;			/* observer */
	uint32_t base_contexts;
	bool kmod;		/* the kernel module: it pins pages itself */
};

static struct hostile_state hs;

static size_t ring_bytes(void)
{
	return ((size_t)npu_ring_bytes(RING_ENTRIES, RING_ENTRIES) + PAGE - 1) & ~(PAGE - 1);
}

/* A new file with its context set up, or -1 (usable in forked children). */
static int try_open_ctx(void)
{
	int fd = sys_open_ctx(sys_device_path(), O_CLOEXEC, APERTURE_SIZE);

	return fd < 0 ? -1 : fd;
}

static int open_ctx(void)
{
	int fd = try_open_ctx();

	assert_true(fd >= 0);
	return fd;
}

static void assert_serving_and_idle(void)
{
	struct npu_device_info info;
	struct npu_nop nop = { .cookie = 0x5a5a1234ULL };
	struct npu_mem_alloc ma = { .size = 2u << 20, .policy = NPU_POLICY_HUGE_FIRST };
	struct npu_mem_free mf = { 0 };
	int fd;

	if (sys_wait_idle(hs.fd, hs.base_contexts, IDLE_TIMEOUT_MS, &info))
		fail_msg("not idle: free %llu of %llu, %llu allocations, %u contexts (want %u)",
			 (unsigned long long)info.hbm_free, (unsigned long long)info.hbm_total,
			 (unsigned long long)info.allocations, info.contexts, hs.base_contexts);
	fd = open_ctx();
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_NOP, &nop), 0);
	assert_int_equal(nop.out, nop.cookie);
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma), 0);
	mf.va = ma.va;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_MEM_FREE, &mf), 0);
	close(fd);
	assert_int_equal(sys_wait_idle(hs.fd, hs.base_contexts, IDLE_TIMEOUT_MS, &info), 0);
}

/* A memfd of @bytes, sealed against shrinking if @seal. */
static int make_memfd(size_t bytes, bool seal)
{
	int fd = memfd_create("hostile", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)bytes), 0);
	if (seal)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	return fd;
}

static void *map_shared(int fd, size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

static int ring_create_at(int dev, void *addr, size_t bytes, uint32_t *id)
{
	struct npu_ring_create rc = { 0 };
	int ret;

	rc.addr = (uint64_t)(uintptr_t)addr;
	rc.size = bytes;
	rc.sq_entries = RING_ENTRIES;
	rc.cq_entries = RING_ENTRIES;
	ret = sys_ioctl(dev, NPU_IOCTL_RING_CREATE, &rc);
	if (!ret && id)
		*id = rc.ring_id;
	return ret;
}

static int ring_destroy(int dev, uint32_t id)
{
	struct npu_ring_destroy rd = { .ring_id = id };

	return sys_ioctl(dev, NPU_IOCTL_RING_DESTROY, &rd);
}

/* Push a NOP into the ring at mem and run it: the CQE's res, or -errno of RING_ENTER. */
static int ring_run_nop(int dev, uint32_t id, void *mem, uint64_t ud)
{
	struct npu_ring_hdr *hdr = mem;
	struct npu_sqe *sqes = (struct npu_sqe *)((char *)mem + NPU_RING_SQES_OFF);
	struct npu_cqe *cqes = (struct npu_cqe *)(sqes + RING_ENTRIES);
	struct npu_ring_enter re = { .ring_id = id, .to_submit = 1, .min_complete = 1,
				     .flags = NPU_ENTER_GETEVENTS, .timeout_ns = 2000000000ULL };
	uint32_t tail = hdr->sq_tail, head;
	int ret;

	memset(&sqes[tail & (RING_ENTRIES - 1)], 0, sizeof(struct npu_sqe));
	sqes[tail & (RING_ENTRIES - 1)].opcode = NPU_OP_NOP;
	sqes[tail & (RING_ENTRIES - 1)].user_data = ud;
	__atomic_store_n(&hdr->sq_tail, tail + 1, __ATOMIC_RELEASE);
	ret = sys_ioctl(dev, NPU_IOCTL_RING_ENTER, &re);
	if (ret)
		return ret;
	head = hdr->cq_head;
	if (head == __atomic_load_n(&hdr->cq_tail, __ATOMIC_ACQUIRE))
		return -ENODATA;
	ret = cqes[head & (RING_ENTRIES - 1)].res;
	assert_int_equal(cqes[head & (RING_ENTRIES - 1)].user_data, ud);
	__atomic_store_n(&hdr->cq_head, head + 1, __ATOMIC_RELEASE);
	return ret;
}

/* A ring over a memfd the client has closed: npud has no file of the client's to use. */
static void test_ring_over_a_closed_memfd_is_refused(void **state)
{
	size_t bytes = ring_bytes();
	int dev = open_ctx();
	int mfd = make_memfd(bytes, true);
	void *mem = map_shared(mfd, bytes);
	uint32_t id = 0;
	int ret;

	(void)state;
	close(mfd);
	ret = ring_create_at(dev, mem, bytes, &id);
	if (hs.kmod) {
		/* The module pins the pages themselves. */
		print_message("kmod: a closed memfd is fine there (pages pinned)\n");
		assert_int_equal(ret, 0);
		assert_int_equal(ring_run_nop(dev, id, mem, 1), 0);
		assert_int_equal(ring_destroy(dev, id), 0);
	} else {
		assert_true(ret == -EFAULT || ret == -EINVAL);
	}
	munmap(mem, bytes);
	close(dev);
	assert_serving_and_idle();
}

/* An unsealed memfd could be truncated under npud: refused there. */
static void test_unsealed_memfd_is_refused(void **state)
{
	size_t bytes = ring_bytes();
	int dev = open_ctx();
	int mfd = make_memfd(bytes, false);
	void *mem = map_shared(mfd, bytes);
	struct npu_host_register hr = { .addr = (uintptr_t)mem, .size = bytes, .fd = mfd };
	uint32_t id = 0;
	int ret;

	(void)state;
	ret = ring_create_at(dev, mem, bytes, &id);
	if (hs.kmod) {
		print_message("kmod: an unsealed memfd is fine there (pages pinned)\n");
		assert_int_equal(ret, 0);
		assert_int_equal(ring_destroy(dev, id), 0);
	} else {
		assert_int_equal(ret, -EINVAL);
		/* Same for pinned host memory. */
		assert_int_equal(sys_ioctl(dev, NPU_IOCTL_HOST_REGISTER, &hr), -EINVAL);
	}
	/* Sealed now: accepted everywhere. */
	assert_int_equal(fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(ring_create_at(dev, mem, bytes, &id), 0);
	assert_int_equal(ring_run_nop(dev, id, mem, 2), 0);
	assert_int_equal(ring_destroy(dev, id), 0);
	munmap(mem, bytes);
	close(mfd);
	close(dev);
	assert_serving_and_idle();
}

/* A sealed memfd shorter than the mapping: the ring would lie past its end. */
static void test_ring_past_the_end_of_its_file_is_refused(void **state)
{
	size_t bytes = ring_bytes();
	int dev = open_ctx();
	int mfd = make_memfd(PAGE, true);
	void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);

	(void)state;
	assert_true(mem != MAP_FAILED);
	assert_int_equal(ring_create_at(dev, mem, bytes, NULL), -EFAULT);
	munmap(mem, bytes);
	close(mfd);
	close(dev);
	assert_serving_and_idle();
}

/* A root-owned file nobody may write, with known contents. */
static char victim_path[64];
static unsigned char victim_bytes[2 * 8192];

static bool victim_create(void)
{
	int fd;

	if (geteuid() != 0)
		return false;
	snprintf(victim_path, sizeof(victim_path), "/tmp/npu-hostile-%d", (int)getpid());
	for (size_t i = 0; i < sizeof(victim_bytes); i++)
		victim_bytes[i] = (unsigned char)(i * 7 + 3);
	fd = open(victim_path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	if (write(fd, victim_bytes, sizeof(victim_bytes)) != (ssize_t)sizeof(victim_bytes) ||
	    fchown(fd, 0, 0) || fchmod(fd, 0644)) {
		close(fd);
		return false;
	}
	close(fd);
	return true;
}

static void victim_assert_unchanged(void)
{
	unsigned char buf[sizeof(victim_bytes)];
	int fd = open(victim_path, O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), sizeof(buf));
	close(fd);
	assert_memory_equal(buf, victim_bytes, sizeof(buf));
}

/*
 * Child, as nobody: map the root-owned file read-only, shared, and ask for
 * a ring there. Exit 0 when refused.
 */
static int readonly_child(int dev, size_t bytes)
{
	void *mem;
	int fd, ret;

	if (setgid(NOBODY) || setuid(NOBODY))
		return 10;
	fd = open(victim_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 11;
	mem = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return 12;
	ret = ring_create_at(dev, mem, bytes, NULL);
	close(fd);
	ret = ret == -EFAULT || ret == -EINVAL ? ring_create_at(dev, mem, bytes, NULL) : 0;
	return ret == -EFAULT || ret == -EINVAL ? 0 : 13;
}

/* Run fn in a child that opens its own device file as root, then becomes nobody. */
static void run_child(int (*fn)(int, size_t))
{
	size_t bytes = ring_bytes();
	int status;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int dev = try_open_ctx();

		_exit(dev < 0 ? 20 : fn(dev, bytes));
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_ring_over_a_readonly_root_file_is_refused(void **state)
{
	(void)state;
	if (ring_bytes() > sizeof(victim_bytes) || !victim_create())
		skip();
	run_child(readonly_child);
	victim_assert_unchanged();
	unlink(victim_path);
	assert_serving_and_idle();
}

struct flipper {
	void *at;		/* the ring address */
	void *memfd_map;	/* a sealed memfd mapping to copy from */
	void *victim_map;	/* a read-only mapping of the root file */
	size_t bytes;
	volatile bool stop;
};

/* Flip what is mapped at the ring address: the memfd, then the root file. */
static void *flip(void *arg)
{
	struct flipper *fl = arg;

	while (!fl->stop) {
		/* mremap of a shared mapping with old size 0 maps the same file again. */
		if (mremap(fl->memfd_map, 0, fl->bytes, MREMAP_MAYMOVE | MREMAP_FIXED, fl->at) ==
		    MAP_FAILED)
			return (void *)1;
		if (mremap(fl->victim_map, 0, fl->bytes, MREMAP_MAYMOVE | MREMAP_FIXED, fl->at) ==
		    MAP_FAILED)
			return (void *)2;
	}
	return NULL;
}

/*
 * Child, as nobody: race RING_CREATE against a thread that swaps the
 * mapping at the ring address between a memfd (held by nobody any more)
 * and a read-only mapping of the root-owned file. Exit 0 unless a ring
 * was ever created over the root file.
 */
static int race_child(int dev, size_t bytes)
{
	struct flipper fl = { .bytes = bytes };
	struct timespec t0, t;
	pthread_t th;
	void *ret_th;
	int fd, mfd, i, created = 0;

	if (setgid(NOBODY) || setuid(NOBODY))
		return 10;
	fd = open(victim_path, O_RDONLY | O_CLOEXEC);
	mfd = memfd_create("race", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0 || mfd < 0 || ftruncate(mfd, (off_t)bytes) ||
	    fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK))
		return 11;
	fl.victim_map = mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
	fl.memfd_map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	fl.at = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (fl.victim_map == MAP_FAILED || fl.memfd_map == MAP_FAILED || fl.at == MAP_FAILED)
		return 12;
	/* Nobody holds either file now: only the mappings name them. */
	close(fd);
	close(mfd);
	if (pthread_create(&th, NULL, flip, &fl))
		return 13;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < RACE_ROUNDS; i++) {
		uint32_t id;

		if (!ring_create_at(dev, fl.at, bytes, &id)) {
			created++;
			ring_destroy(dev, id);
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > RACE_MAX_MS)
			break;
	}
	fl.stop = true;
	pthread_join(th, &ret_th);
	if (ret_th)
		return 14;
	fprintf(stderr, "race: %d RING_CREATE calls, %d rings created\n", i, created);
	return 0;
}

static void test_racing_mapping_flip_never_writes_a_root_file(void **state)
{
	(void)state;
	if (ring_bytes() > sizeof(victim_bytes) || !victim_create())
		skip();
	run_child(race_child);
	victim_assert_unchanged();
	unlink(victim_path);
	assert_serving_and_idle();
}

/*
 * After RING_CREATE and HOST_REGISTER the client tries to shrink its
 * (sealed) memfds, punches a hole in the registered one, then unmaps and
 * closes them: the seal holds, the ring still runs on the driver's own
 * hold of the pages, npud stays up and other clients are served. (With
 * F_SEAL_SHRINK a shmem memfd cannot make npud fault any more: a punched
 * hole is refilled with zeros. A mapping past the end of the file is
 * refused at RING_CREATE, see above; a hugetlb memfd whose huge page goes
 * elsewhere could still fault, which needs huge pages this machine does
 * not have: the unit test test_ring_bounds stands in for it.)
 */
static void test_truncate_and_unmap_after_creation(void **state)
{
	size_t bytes = ring_bytes();
	int dev = open_ctx();
	int mfd = make_memfd(bytes, true);
	int hfd = make_memfd(16 * PAGE, true);
	void *mem = map_shared(mfd, bytes);
	void *host = map_shared(hfd, 16 * PAGE);
	struct npu_host_register hr = { .addr = (uintptr_t)host, .size = 16 * PAGE, .fd = hfd };
	struct npu_ring_hdr *hdr = mem;
	struct npu_sqe *sqe;
	struct npu_ring_enter re = { .to_submit = 1, .min_complete = 1,
				     .flags = NPU_ENTER_GETEVENTS, .timeout_ns = 2000000000ULL };
	uint32_t id = 0;

	(void)state;
	assert_int_equal(ring_create_at(dev, mem, bytes, &id), 0);
	assert_int_equal(sys_ioctl(dev, NPU_IOCTL_HOST_REGISTER, &hr), 0);
	assert_int_equal(ring_run_nop(dev, id, mem, 3), 0);
	/* The seal holds. */
	assert_int_equal(ftruncate(mfd, 0), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(hfd, PAGE), -1);
	assert_int_equal(errno, EPERM);
	/* Punching a hole is allowed; the pages read as zeros again, no fault. */
	assert_int_equal(fallocate(hfd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, 4 * PAGE),
			 0);
	/* Queue a NOP, then take the memory away from our side. */
	sqe = (struct npu_sqe *)((char *)mem + NPU_RING_SQES_OFF) + (hdr->sq_tail & (RING_ENTRIES - 1));
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = NPU_OP_NOP;
	sqe->user_data = 4;
	__atomic_store_n(&hdr->sq_tail, hdr->sq_tail + 1, __ATOMIC_RELEASE);
	assert_int_equal(munmap(mem, bytes), 0);
	assert_int_equal(munmap(host, 16 * PAGE), 0);
	close(mfd);
	close(hfd);
	re.ring_id = id;
	assert_int_equal(sys_ioctl(dev, NPU_IOCTL_RING_ENTER, &re), 0);
	assert_int_equal(ring_destroy(dev, id), 0);
	close(dev);
	assert_serving_and_idle();
}

/*
 * sq_tail one past a full SQ, then 0xffffffff: the ring fails with
 * -EPROTO on every backend, nothing runs, abort and close are quick, and
 * npud is alive.
 */
static void test_impossible_sq_tail_fails_the_ring(void **state)
{
	static const uint32_t tails[] = { RING_ENTRIES + 1, 0xffffffffu };
	size_t bytes = ring_bytes();

	(void)state;
	for (unsigned int k = 0; k < 2; k++) {
		int dev = open_ctx();
		int mfd = make_memfd(bytes, true);
		void *mem = map_shared(mfd, bytes);
		struct npu_ring_hdr *hdr = mem;
		struct npu_cqe *cqes = (struct npu_cqe *)((char *)mem + NPU_RING_SQES_OFF +
							  RING_ENTRIES * sizeof(struct npu_sqe));
		struct npu_ring_enter re = { .to_submit = 1, .min_complete = 1,
					     .flags = NPU_ENTER_GETEVENTS,
					     .timeout_ns = 2000000000ULL };
		struct npu_ring_abort ra = { 0 };
		struct timespec t0, t1;
		uint32_t id = 0;

		assert_int_equal(ring_create_at(dev, mem, bytes, &id), 0);
		assert_int_equal(ring_run_nop(dev, id, mem, 5), 0);
		__atomic_store_n(&hdr->sq_tail, k ? tails[k] : hdr->sq_tail + tails[k],
				 __ATOMIC_RELEASE);
		re.ring_id = id;
		assert_int_equal(sys_ioctl(dev, NPU_IOCTL_RING_ENTER, &re), -EPROTO);
		assert_int_equal(__atomic_load_n(&hdr->cq_tail, __ATOMIC_ACQUIRE), 2);
		assert_int_equal(cqes[1].res, -EPROTO);
		assert_int_equal(cqes[1].flags, NPU_CQE_RING_FAILED);
		assert_true(__atomic_load_n(&hdr->flags, __ATOMIC_ACQUIRE) & NPU_RING_FAILED);
		assert_int_equal(sys_ioctl(dev, NPU_IOCTL_RING_ENTER, &re), -EPROTO);
		ra.ring_id = id;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(sys_ioctl(dev, NPU_IOCTL_RING_ABORT, &ra), 0);
		close(dev);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		assert_true((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000 <
			    1000);
		munmap(mem, bytes);
		close(mfd);
		assert_serving_and_idle();
	}
}

static bool backend_is_kmod(void)
{
	const char *b = getenv("NPU_VM_BACKEND");
	struct stat st;

	/* "kmod", or a variant of it such as "kmod-ioctl"; "cuse" is npud. */
	if (b && *b)
		return !strncmp(b, "kmod", 4);
	return !stat("/sys/module/npu", &st);
}

static int setup(void **state)
{
	(void)state;
	if (sys_open_watched(&hs.fd, &hs.base_contexts, false))
		return -1;
	hs.kmod = backend_is_kmod();
	fprintf(stderr, "backend: %s\n", hs.kmod ? "kernel module" : "npud");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	close(hs.fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ring_over_a_closed_memfd_is_refused),
		cmocka_unit_test(test_unsealed_memfd_is_refused),
		cmocka_unit_test(test_ring_past_the_end_of_its_file_is_refused),
		cmocka_unit_test(test_ring_over_a_readonly_root_file_is_refused),
		cmocka_unit_test(test_racing_mapping_flip_never_writes_a_root_file),
		cmocka_unit_test(test_truncate_and_unmap_after_creation),
		cmocka_unit_test(test_impossible_sq_tail_fails_the_ring),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
