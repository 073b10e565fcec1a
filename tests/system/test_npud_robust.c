// SPDX-License-Identifier: MIT
/*
 * npud survives whatever a client does: unknown and malformed commands,
 * random bytes in valid commands, a ring whose memory goes away, a client
 * that exits without closing. After each abuse the device is idle again
 * (all HBM free, nothing allocated) and a new client is served.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "npu_sys.h"

#define IDLE_TIMEOUT_MS	5000
#define APERTURE_SIZE	(1ULL << 40)
#define GIB		(1ULL << 30)
#define RING_ENTRIES	8

struct robust_state {
	int fd;			/* observer */
	uint32_t base_contexts;
};

static struct robust_state rs;

/* Reserve a 1 GiB aligned, inaccessible 1 TiB window, as the runtime does. */
static uint64_t reserve_aperture(void)
{
	uint8_t *p = mmap(NULL, APERTURE_SIZE + GIB, PROT_NONE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	uint64_t base;

	assert_true(p != MAP_FAILED);
	base = ((uint64_t)(uintptr_t)p + GIB - 1) & ~(GIB - 1);
	return base;
}

/* A new file with its context set up. */
static int open_ctx(void)
{
	struct npu_ctx_setup cs = { 0 };
	int fd = sys_open();

	assert_true(fd >= 0);
	cs.va_base = reserve_aperture();
	cs.va_size = APERTURE_SIZE;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_CTX_SETUP, &cs), 0);
	return fd;
}

static void assert_nop(int fd)
{
	struct npu_nop nop = { .cookie = 0x1234abcd5678ULL };

	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_NOP, &nop), 0);
	assert_int_equal(nop.out, nop.cookie);
}

/* Idle again, and a new client can allocate and free. */
static void assert_serving_and_idle(void)
{
	struct npu_device_info info;
	struct npu_mem_alloc ma = { .size = 3u << 20, .policy = NPU_POLICY_HUGE_FIRST };
	struct npu_mem_free mf = { 0 };
	int fd;

	if (sys_wait_idle(rs.fd, rs.base_contexts, IDLE_TIMEOUT_MS, &info))
		fail_msg("not idle: free %llu of %llu, %llu allocations, %u contexts (want %u)",
			 (unsigned long long)info.hbm_free, (unsigned long long)info.hbm_total,
			 (unsigned long long)info.allocations, info.contexts,
			 rs.base_contexts);
	fd = open_ctx();
	assert_nop(fd);
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma), 0);
	assert_true(ma.mapped_size >= ma.size);
	mf.va = ma.va;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_MEM_FREE, &mf), 0);
	close(fd);
	assert_int_equal(sys_wait_idle(rs.fd, rs.base_contexts, IDLE_TIMEOUT_MS, &info), 0);
}

static void test_unknown_commands_get_enotty(void **state)
{
	unsigned char buf[64] = { 0 };
	int fd = sys_open();

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(sys_ioctl(fd, _IOWR(NPU_IOCTL_MAGIC, 0x3e, struct npu_nop), buf), -ENOTTY);
	assert_int_equal(sys_ioctl(fd, _IOWR(NPU_IOCTL_MAGIC, 0x80, struct npu_nop), buf), -ENOTTY);
	assert_int_equal(sys_ioctl(fd, _IOWR(NPU_IOCTL_MAGIC, 0xff, struct npu_nop), buf), -ENOTTY);
	assert_int_equal(sys_ioctl(fd, _IOWR('X', 0x0a, struct npu_nop), buf), -ENOTTY);
	assert_int_equal(sys_ioctl(fd, _IOR('X', 0x00, struct npu_version), buf), -ENOTTY);
	assert_nop(fd);
	close(fd);
	assert_serving_and_idle();
}

static void test_wrong_sizes_and_directions_are_refused(void **state)
{
	static unsigned char big[_IOC_SIZEMASK + 1];
	unsigned char buf[64] = { 0 };
	int fd = sys_open();
	int ret;

	(void)state;
	assert_true(fd >= 0);
	/* NOP's number with the wrong size, direction or no argument at all:
	 * the driver's table owns each command, so these are unknown commands. */
	ret = sys_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NPU_IOCTL_MAGIC, 0x0a, 8), buf);
	assert_int_equal(ret, -ENOTTY);
	ret = sys_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NPU_IOCTL_MAGIC, 0x0a, 24), buf);
	assert_int_equal(ret, -ENOTTY);
	ret = sys_ioctl(fd, _IOW(NPU_IOCTL_MAGIC, 0x0a, struct npu_nop), buf);
	assert_int_equal(ret, -ENOTTY);
	ret = sys_ioctl(fd, _IO(NPU_IOCTL_MAGIC, 0x0a), NULL);
	assert_int_equal(ret, -ENOTTY);
	/* The largest argument restricted mode can carry. */
	ret = sys_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NPU_IOCTL_MAGIC, 0x03, _IOC_SIZEMASK), big);
	assert_int_equal(ret, -ENOTTY);
	ret = sys_ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, NPU_IOCTL_MAGIC, 0x01, 0), NULL);
	assert_int_equal(ret, -ENOTTY);
	/* A bad argument address: the kernel's copy fails before npud. */
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_NOP, (void *)16), -EFAULT);
	assert_nop(fd);
	close(fd);
	assert_serving_and_idle();
}

static const unsigned long valid_cmds[] = {
	NPU_IOCTL_GET_VERSION, NPU_IOCTL_DEVICE_INFO, NPU_IOCTL_CTX_SETUP,
	NPU_IOCTL_MEM_ALLOC, NPU_IOCTL_MEM_FREE, NPU_IOCTL_MEM_QUERY,
	NPU_IOCTL_MEM_INFO, NPU_IOCTL_RING_CREATE, NPU_IOCTL_RING_DESTROY,
	NPU_IOCTL_RING_ENTER, NPU_IOCTL_NOP,
};

static void fuzz_file(int fd, unsigned int rounds)
{
	/* Larger than every command's struct: the driver writes results back. */
	union {
		uint64_t words[32];
		struct npu_ring_enter enter;
	} arg;
	uint64_t *words = arg.words;
	unsigned int r, i, w;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < sizeof(valid_cmds) / sizeof(valid_cmds[0]); i++) {
			assert_true(_IOC_SIZE(valid_cmds[i]) <= sizeof(arg));
			for (w = 0; w < 32; w++)
				words[w] = ((uint64_t)random() << 33) ^ ((uint64_t)random() << 11) ^
					   (uint64_t)random();
			/* Sometimes small numbers, to get past the first checks. */
			if (r & 1)
				for (w = 0; w < 32; w++)
					words[w] &= 0xff;
			/* Never block forever in a wait. */
			if (valid_cmds[i] == NPU_IOCTL_RING_ENTER)
				arg.enter.timeout_ns = 1000000;
			sys_ioctl(fd, valid_cmds[i], &arg);
		}
	}
}

static void test_random_bytes_in_valid_commands(void **state)
{
	int fd;

	(void)state;
	srandom(20241202);
	fd = sys_open();
	assert_true(fd >= 0);
	fuzz_file(fd, 200);		/* no context yet */
	assert_nop(fd);
	close(fd);

	fd = open_ctx();
	fuzz_file(fd, 200);		/* with a context */
	assert_nop(fd);
	close(fd);
	assert_serving_and_idle();
}

/* Create a ring in a memfd; return its id and the mapping. */
static uint32_t ring_create(int fd, int *memfd, void **mem, size_t *bytes)
{
	struct npu_ring_create rc = { 0 };

	*bytes = (size_t)npu_ring_bytes(RING_ENTRIES, RING_ENTRIES);
	*bytes = (*bytes + 4095) & ~(size_t)4095;
	*memfd = memfd_create("robust-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(*memfd >= 0);
	assert_int_equal(ftruncate(*memfd, (off_t)*bytes), 0);
	/* npud maps only memory sealed against shrinking. */
	assert_int_equal(fcntl(*memfd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	*mem = mmap(NULL, *bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *memfd, 0);
	assert_true(*mem != MAP_FAILED);
	rc.addr = (uint64_t)(uintptr_t)*mem;
	rc.size = *bytes;
	rc.sq_entries = RING_ENTRIES;
	rc.cq_entries = RING_ENTRIES;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_RING_CREATE, &rc), 0);
	return rc.ring_id;
}

static void test_ring_whose_memory_is_unmapped(void **state)
{
	struct npu_mem_alloc ma = { .size = 1u << 20, .policy = NPU_POLICY_NORMAL_ONLY };
	struct npu_ring_enter re = { 0 };
	struct npu_ring_destroy rd = { 0 };
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqe;
	int fd, memfd, ret;
	size_t bytes;
	void *mem;

	(void)state;
	fd = open_ctx();
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma), 0);
	re.ring_id = ring_create(fd, &memfd, &mem, &bytes);

	/* Queue a memset, then pull the ring's memory out from under it. */
	hdr = mem;
	sqe = (struct npu_sqe *)((char *)mem + NPU_RING_SQES_OFF);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = NPU_OP_MEMSET;
	sqe->dir = NPU_DIR_H2D;
	sqe->dst = ma.va;
	sqe->len = ma.mapped_size;
	sqe->value = 0x77;
	sqe->user_data = 1;
	__atomic_store_n(&hdr->sq_tail, 1, __ATOMIC_RELEASE);
	assert_int_equal(munmap(mem, bytes), 0);
	close(memfd);

	re.to_submit = 1;
	re.min_complete = 1;
	re.flags = NPU_ENTER_GETEVENTS;
	re.timeout_ns = 2000000000ULL;
	ret = sys_ioctl(fd, NPU_IOCTL_RING_ENTER, &re);
	/* The driver keeps its own hold on ring memory: the memset may run. */
	assert_true(ret == 0 || ret == -EFAULT || ret == -ETIME);
	rd.ring_id = re.ring_id;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_RING_DESTROY, &rd), 0);
	assert_nop(fd);
	close(fd);
	assert_serving_and_idle();
}

static void test_ring_on_private_anonymous_memory(void **state)
{
	struct npu_ring_create rc = { 0 };
	struct npu_ring_destroy rd = { 0 };
	size_t bytes = ((size_t)npu_ring_bytes(RING_ENTRIES, RING_ENTRIES) + 4095) & ~(size_t)4095;
	void *mem;
	int fd, ret;

	(void)state;
	fd = open_ctx();
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	rc.addr = (uint64_t)(uintptr_t)mem;
	rc.size = bytes;
	rc.sq_entries = RING_ENTRIES;
	rc.cq_entries = RING_ENTRIES;
	ret = sys_ioctl(fd, NPU_IOCTL_RING_CREATE, &rc);
	/* npud may not be able to share such memory; it must just say so. */
	if (ret == 0) {
		assert_int_equal(munmap(mem, bytes), 0);
		rd.ring_id = rc.ring_id;
		assert_int_equal(sys_ioctl(fd, NPU_IOCTL_RING_DESTROY, &rd), 0);
	} else {
		assert_true(ret < 0);
		munmap(mem, bytes);
	}
	assert_nop(fd);
	close(fd);
	assert_serving_and_idle();
}

/* Child: take device memory and a ring, then exit without closing. */
static int leaver(void)
{
	static const uint64_t sizes[] = { 4096, 2u << 20, 5u << 20 };
	struct npu_mem_alloc ma;
	int fd, memfd;
	size_t i, bytes;
	void *mem;

	fd = open_ctx();
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(&ma, 0, sizeof(ma));
		ma.size = sizes[i];
		if (sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma))
			return 1;
	}
	ring_create(fd, &memfd, &mem, &bytes);
	return 0;
}

static void test_client_exits_without_closing(void **state)
{
	struct npu_device_info info;
	unsigned int i;
	int status;
	pid_t pid;

	(void)state;
	for (i = 0; i < 4; i++) {
		pid = fork();
		if (pid == 0)
			_exit(leaver());
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(sys_wait_idle(rs.fd, rs.base_contexts, IDLE_TIMEOUT_MS, &info), 0);
	assert_serving_and_idle();
}

/* A file shared by fork belongs to the parent: the child's calls get EBADF. */
static void test_inherited_file_refuses_the_child(void **state)
{
	struct npu_ctx_setup cs = { 0 };
	struct npu_mem_alloc ma = { .size = 8192, .policy = NPU_POLICY_NORMAL_ONLY };
	int fd, status;
	pid_t pid;

	(void)state;
	fd = sys_open();
	assert_true(fd >= 0);
	cs.va_base = reserve_aperture();
	cs.va_size = APERTURE_SIZE;
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_CTX_SETUP, &cs), 0);
	assert_int_equal((pid_t)cs.tgid, getpid());
	pid = fork();
	if (pid == 0) {
		struct npu_nop nop = { .cookie = 99 };

		_exit(sys_ioctl(fd, NPU_IOCTL_NOP, &nop) == -EBADF && nop.out == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(sys_ioctl(fd, NPU_IOCTL_MEM_ALLOC, &ma), 0);
	close(fd);
	assert_serving_and_idle();
}

/*
 * Only the exact names of the devices open: npu0..npuN-1 in decimal, with
 * no leading zero, sign, space or suffix, and no number that wraps to a
 * device's (4294967296 is 0 in 32 bits). Anything else is ENOENT.
 */
static void test_only_exact_device_names_open(void **state)
{
	static const char *const bad[] = {
		"npu4294967296", "npu4294967297", "npu18446744073709551616",
		"npu99999999999999999999999", "npu00", "npu01", "npu+0", "npu-0",
		"npu 0", "npu0 ", "npu0x", "npu1x", "npu0x1", "npu", "NPU0", "npu2",
		"npu64", "npu10",
	};
	const char *dev0 = getenv("NPU_DEVICE");
	char dir[4096], path[4200];
	size_t n;
	int fd;

	(void)state;
	assert_non_null(dev0);
	n = strlen(dev0);
	assert_true(n > 4 && n < sizeof(dir) && !strcmp(dev0 + n - 4, "npu0"));
	memcpy(dir, dev0, n - 4);
	dir[n - 4] = '\0';
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", dir, bad[i]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd >= 0)
			fail_msg("%s opened a device", path);
		if (errno != ENOENT)
			fail_msg("%s: errno %d, want ENOENT", path, errno);
	}
	/* The devices themselves do open (device 1 is this suite's). */
	snprintf(path, sizeof(path), "%snpu%d", dir, SYS_DEVICE);
	fd = open(path, O_RDWR | O_CLOEXEC);
	assert_true(fd >= 0);
	close(fd);
}

static int setup(void **state)
{
	(void)state;
	return sys_open_watched(&rs.fd, &rs.base_contexts, true);
}

static int teardown(void **state)
{
	(void)state;
	close(rs.fd);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_commands_get_enotty),
		cmocka_unit_test(test_wrong_sizes_and_directions_are_refused),
		cmocka_unit_test(test_random_bytes_in_valid_commands),
		cmocka_unit_test(test_ring_whose_memory_is_unmapped),
		cmocka_unit_test(test_ring_on_private_anonymous_memory),
		cmocka_unit_test(test_client_exits_without_closing),
		cmocka_unit_test(test_inherited_file_refuses_the_child),
		cmocka_unit_test(test_only_exact_device_names_open),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
