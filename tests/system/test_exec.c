// SPDX-License-Identifier: MIT
/*
 * A file belongs to the address space that opened it, not to the pid.
 *
 * The attack: a client queues, behind a VALUE_WAIT, copies between device
 * memory and a plain (pageable) host address X, then execs. Its new image
 * maps X and puts a secret there. A helper (this test) then releases the
 * wait. Had the daemon bound the client to its pid, the D2H copies would
 * write the new image and the H2D copy would carry its secret to device
 * memory the helper reads: with a setuid-root image, a root read/write
 * primitive. What must hold instead, with or without O_CLOEXEC, setuid or
 * not:
 *
 *  - the new image's memory is never written, and its secret never
 *    reaches the device;
 *  - the inherited file is dead for the new image (-EBADF);
 *  - with O_CLOEXEC, while a child of the old image still holds the file,
 *    its queued work does not run on either;
 *  - what the old image held is reclaimed while the new image runs.
 *
 * Runs on every backend: FUSE on the host, the module and CUSE in the VM.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "npu_sys.h"

#define IDLE_TIMEOUT_MS	10000
#define REAP_TIMEOUT_MS	5000
#define APERTURE_SIZE	(1ULL << 40)
#define PAGE		4096UL
#define RING_ENTRIES	16
#define D2H_COPIES	8
#define NOBODY		65534
/* The host address both images use; below the 47-bit user limit, far from anything mapped. */
#define HOST_X		((uintptr_t)0x6f1234560000ULL)
#define SECRET		0x53	/* what the new image keeps at X */
#define DEVICE_BYTE	0xd0	/* what the D2H copies would write there */
#define ATTACKER_BYTE	0x41	/* what the old image had at X */

struct exec_state {
	int fd;			/* observer */
	uint32_t base_contexts;
};

static struct exec_state es;

struct ring {
	int dev;
	uint32_t id;
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqes;
	struct npu_cqe *cqes;
};

static int ring_open(int dev, struct ring *r)
{
	struct npu_ring_create rc;
	void *mem = NULL;
	int ret;

	ret = sys_ring_create(dev, RING_ENTRIES, "exec-ring", &mem, &rc);
	if (ret)
		return ret;
	r->dev = dev;
	r->id = rc.ring_id;
	r->hdr = mem;
	r->sqes = (struct npu_sqe *)((char *)mem + rc.sqes_off);
	r->cqes = (struct npu_cqe *)((char *)mem + rc.cqes_off);
	return 0;
}

static void ring_push(struct ring *r, const struct npu_sqe *sqe)
{
	uint32_t tail = r->hdr->sq_tail;

	r->sqes[tail & (RING_ENTRIES - 1)] = *sqe;
	__atomic_store_n(&r->hdr->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

/* Submit what was pushed; with @wait, wait for one CQE and return its res. */
static int ring_enter(struct ring *r, uint32_t n, bool wait)
{
	struct npu_ring_enter re = { .ring_id = r->id, .to_submit = n,
				     .min_complete = wait ? 1 : 0,
				     .flags = wait ? NPU_ENTER_GETEVENTS : 0,
				     .timeout_ns = 5000000000ULL };
	uint32_t head;
	int ret;

	ret = sys_ioctl(r->dev, NPU_IOCTL_RING_ENTER, &re);
	if (ret || !wait)
		return ret;
	head = r->hdr->cq_head;
	if (head == __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE))
		return -ENODATA;
	ret = r->cqes[head & (RING_ENTRIES - 1)].res;
	__atomic_store_n(&r->hdr->cq_head, head + 1, __ATOMIC_RELEASE);
	return ret;
}

/* One synchronous copy through the ring. */
static int ring_copy(struct ring *r, uint8_t dir, uint64_t dst, uint64_t src, uint64_t len)
{
	struct npu_sqe sqe = { .opcode = NPU_OP_COPY, .dir = dir, .dst = dst, .src = src,
			       .len = len, .user_data = 7 };

	ring_push(r, &sqe);
	return ring_enter(r, 1, true);
}

static bool all_bytes(const uint8_t *p, size_t n, uint8_t b)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != b)
			return false;
	return true;
}

/* What the attacker tells the helper before it execs. */
struct attacker_report {
	int status;		/* 0, or where it failed */
	char key[NPU_IPC_KEY_LEN];
	uint64_t dva;
};

/* What the new image tells the helper. */
struct victim_report {
	int nop_errno;		/* of an ioctl on the inherited file; 0 if it has none */
	int euid;
	int intact;		/* X still holds the secret */
};

static int write_all(int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n ? 0 : -1;
}

static int read_all(int fd, void *p, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(fd, (char *)p + got, n - got);

		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/*
 * The new image: map X, keep a secret there, report, wait for the helper
 * to release the old image's copies, then say whether X was touched.
 */
static int victim_main(int argc, char **argv)
{
	struct victim_report rep = { 0 };
	int dev, out, in;
	uint8_t *x;
	char go;

	if (argc != 5)
		return 2;
	dev = atoi(argv[2]);
	out = atoi(argv[3]);
	in = atoi(argv[4]);
	x = mmap((void *)HOST_X, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (x != (uint8_t *)HOST_X)
		return 3;
	memset(x, SECRET, PAGE);
	if (dev >= 0) {
		struct npu_nop nop = { .cookie = 1 };
		int ret = sys_ioctl(dev, NPU_IOCTL_NOP, &nop);

		rep.nop_errno = ret < 0 ? -ret : 0;
	}
	rep.euid = (int)geteuid();
	rep.intact = 1;
	if (write_all(out, &rep, sizeof(rep)) || read_all(in, &go, 1))
		return 4;
	/* The released copies, if anything still runs them, land meanwhile. */
	sys_sleep_ms(300);
	rep.intact = all_bytes(x, PAGE, SECRET);
	if (write_all(out, &rep, sizeof(rep)))
		return 5;
	/* Live on until the helper has looked at the device. */
	while (read(in, &go, 1) > 0)
		;
	return 0;
}

/*
 * The old image: open (as root, then nobody, as a client that got a file
 * passed would be), queue the held copies and exec @image. Does not return.
 */
static void attacker_main(int report, int ack, int victim_out, int victim_in, bool cloexec,
			  const char *image)
{
	struct attacker_report rep = { 0 };
	struct npu_mem_alloc ma = { .size = 2u << 20, .policy = NPU_POLICY_HUGE_FIRST };
	struct npu_ipc_export ex = { 0 };
	struct npu_sqe sqe;
	char a_dev[16], a_out[16], a_in[16], go;
	struct ring r;
	uint8_t *x;
	int dev, i;

	dev = sys_open_ctx(sys_device_path(), cloexec ? O_CLOEXEC : 0, APERTURE_SIZE);
	rep.status = dev < 0 ? 1 : 0;
	if (!rep.status && (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY)))
		rep.status = 2;
	if (!rep.status && sys_ioctl(dev, NPU_IOCTL_MEM_ALLOC, &ma))
		rep.status = 3;
	if (!rep.status && ring_open(dev, &r))
		rep.status = 4;
	x = mmap((void *)HOST_X, PAGE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (!rep.status && x != (uint8_t *)HOST_X)
		rep.status = 5;
	if (!rep.status) {
		memset(x, ATTACKER_BYTE, PAGE);
		/* The wait word and the H2D target start as zeros. */
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = NPU_OP_MEMSET;
		sqe.dir = NPU_DIR_H2D;
		sqe.dst = ma.va;
		sqe.len = 4 * PAGE;
		ring_push(&r, &sqe);
		if (ring_enter(&r, 1, true))
			rep.status = 6;
	}
	ex.va = ma.va;
	ex.size = ma.mapped_size;
	ex.flags = NPU_SHARE_NO_WHITELIST;
	if (!rep.status && sys_ioctl(dev, NPU_IOCTL_IPC_EXPORT, &ex))
		rep.status = 7;
	if (!rep.status) {
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = NPU_OP_VALUE_WAIT;
		sqe.dst = ma.va;
		sqe.value = 1;
		sqe.cond = NPU_WAIT_EQ;
		ring_push(&r, &sqe);
		for (i = 0; i < D2H_COPIES; i++) {
			memset(&sqe, 0, sizeof(sqe));
			sqe.opcode = NPU_OP_COPY;
			sqe.dir = NPU_DIR_D2H;
			sqe.dst = HOST_X;
			sqe.src = ma.va + PAGE;
			sqe.len = PAGE;
			ring_push(&r, &sqe);
		}
		memset(&sqe, 0, sizeof(sqe));
		sqe.opcode = NPU_OP_COPY;
		sqe.dir = NPU_DIR_H2D;
		sqe.dst = ma.va + 2 * PAGE;
		sqe.src = HOST_X;
		sqe.len = PAGE;
		ring_push(&r, &sqe);
		if (ring_enter(&r, D2H_COPIES + 2, false) < 0)
			rep.status = 8;
	}
	memcpy(rep.key, ex.key, sizeof(rep.key));
	rep.dva = ma.va;
	/* The helper imports before we exec (with O_CLOEXEC the exec closes the export). */
	if (write_all(report, &rep, sizeof(rep)) || rep.status || read_all(ack, &go, 1))
		_exit(10 + rep.status);
	/*
	 * With O_CLOEXEC the exec drops our descriptor, but the file lives on
	 * in a child that holds it until the helper closes @ack: the context
	 * must still end with the address space, not with the last close.
	 */
	if (cloexec) {
		pid_t holder = fork();

		if (holder < 0)
			_exit(20);
		if (holder == 0) {
			while (read(ack, &go, 1) > 0)
				;
			_exit(0);
		}
	}
	snprintf(a_dev, sizeof(a_dev), "%d", cloexec ? -1 : dev);
	snprintf(a_out, sizeof(a_out), "%d", victim_out);
	snprintf(a_in, sizeof(a_in), "%d", victim_in);
	execl(image, "test_exec", "--victim", a_dev, a_out, a_in, (char *)NULL);
	_exit(30);
}

/* The attacker's contexts on the device, from SMI_PROCS. */
static int contexts_of(pid_t pid)
{
	struct npu_smi_proc recs[256];
	struct npu_smi_query q = { .buf = (uint64_t)(uintptr_t)recs, .count = 256 };
	int n = 0;

	if (sys_ioctl(es.fd, NPU_IOCTL_SMI_PROCS, &q))
		return -1;
	for (uint32_t i = 0; i < q.written && i < 256; i++)
		n += recs[i].tgid == (uint32_t)pid;
	return n;
}

/*
 * A setuid-root copy of this program in the new directory @dir (a
 * mkdtemp() template), or NULL where the file system ignores the bit.
 */
static char *setuid_copy(char *dir)
{
	static char path[4096];
	char buf[65536];
	struct statvfs sv;
	int in, out;
	ssize_t n;

	if (!mkdtemp(dir))
		return NULL;
	if (chmod(dir, 0755) || statvfs(dir, &sv) || (sv.f_flag & ST_NOSUID))
		return NULL;
	snprintf(path, sizeof(path), "%s/test_exec", dir);
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
	if (in < 0 || out < 0)
		goto fail;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			goto fail;
	if (n < 0 || fchown(out, 0, 0) || fchmod(out, 04755))
		goto fail;
	close(in);
	close(out);
	return path;
fail:
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	unlink(path);
	return NULL;
}

/* Wait until the device lists no context of @pid: 0, or how many are left. */
static int wait_reclaimed(pid_t pid)
{
	int left = -1;

	for (long waited = 0; waited < REAP_TIMEOUT_MS; waited += 10) {
		left = contexts_of(pid);
		if (left == 0)
			break;
		sys_sleep_ms(10);
	}
	return left;
}

static void run_attack(bool cloexec, bool setuid_image, bool release_first)
{
	char dir[] = "/tmp/npu-exec-XXXXXX";
	const char *image = "/proc/self/exe";
	struct attacker_report arep;
	struct victim_report vrep;
	struct npu_ipc_import im = { 0 };
	struct npu_ipc_unimport un = { 0 };
	struct npu_device_info info;
	int rpipe[2], apipe[2], vout[2], vin[2], status, dev;
	uint8_t *buf;
	struct ring r;
	uint64_t one = 1;
	pid_t pid;
	char go = 'g';

	if (setuid_image) {
		image = setuid_copy(dir);
		if (!image) {
			rmdir(dir);
			skip();
		}
	}
	assert_int_equal(pipe2(rpipe, O_CLOEXEC), 0);
	assert_int_equal(pipe2(apipe, O_CLOEXEC), 0);
	/* The new image's ends are inherited across its exec. */
	assert_int_equal(pipe(vout), 0);
	assert_int_equal(pipe(vin), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(rpipe[0]);
		close(apipe[1]);
		close(vout[0]);
		close(vin[1]);
		attacker_main(rpipe[1], apipe[0], vout[1], vin[0], cloexec, image);
	}
	close(rpipe[1]);
	close(apipe[0]);
	close(vout[1]);
	close(vin[0]);
	assert_int_equal(read_all(rpipe[0], &arep, sizeof(arep)), 0);
	close(rpipe[0]);
	assert_int_equal(arep.status, 0);

	/* The helper: import the attacker's memory and put device bytes where the D2H copies read. */
	dev = sys_open_ctx(sys_device_path(), O_CLOEXEC, APERTURE_SIZE);
	assert_true(dev >= 0);
	assert_int_equal(ring_open(dev, &r), 0);
	memcpy(im.key, arep.key, sizeof(im.key));
	assert_int_equal(sys_ioctl(dev, NPU_IOCTL_IPC_IMPORT, &im), 0);
	buf = malloc(PAGE);
	assert_non_null(buf);
	memset(buf, DEVICE_BYTE, PAGE);
	assert_int_equal(ring_copy(&r, NPU_DIR_H2D, im.va + PAGE, (uintptr_t)buf, PAGE), 0);
	assert_int_equal(write_all(apipe[1], &go, 1), 0);

	/* The new image is up, holding the secret (and, without O_CLOEXEC, the file). */
	assert_int_equal(read_all(vout[0], &vrep, sizeof(vrep)), 0);
	if (setuid_image)
		assert_int_equal(vrep.euid, 0);
	/*
	 * Release the wait, then let the new image look at X: at once, so
	 * that the copies meet the ended address space itself, or once the
	 * old image's context has gone.
	 */
	if (!release_first)
		assert_int_equal(wait_reclaimed(pid), 0);
	assert_int_equal(ring_copy(&r, NPU_DIR_H2D, im.va, (uintptr_t)&one, sizeof(one)), 0);
	assert_int_equal(write_all(vin[1], &go, 1), 0);
	assert_int_equal(read_all(vout[0], &vrep, sizeof(vrep)), 0);
	assert_int_equal(vrep.intact, 1);
	if (!cloexec)
		assert_int_equal(vrep.nop_errno, EBADF);
	/* What the old image held goes while the new one runs. */
	assert_int_equal(wait_reclaimed(pid), 0);
	close(vin[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

	/* Nothing of the new image reached the device. */
	memset(buf, 0xee, PAGE);
	assert_int_equal(ring_copy(&r, NPU_DIR_D2H, (uintptr_t)buf, im.va + 2 * PAGE, PAGE), 0);
	assert_false(memchr(buf, SECRET, PAGE) != NULL);

	/* The O_CLOEXEC case's holder of the file goes. */
	close(apipe[1]);
	un.va = im.va;
	assert_int_equal(sys_ioctl(dev, NPU_IOCTL_IPC_UNIMPORT, &un), 0);
	free(buf);
	close(dev);
	close(vout[0]);
	if (setuid_image) {
		unlink(image);
		rmdir(dir);
	}
	if (sys_wait_idle(es.fd, es.base_contexts, IDLE_TIMEOUT_MS, &info))
		fail_msg("not idle: free %llu of %llu, %llu allocations, %u contexts (want %u)",
			 (unsigned long long)info.hbm_free, (unsigned long long)info.hbm_total,
			 (unsigned long long)info.allocations, info.contexts, es.base_contexts);
}

static void test_exec_keeping_the_file(void **state)
{
	(void)state;
	run_attack(false, false, true);
}

static void test_exec_with_o_cloexec(void **state)
{
	(void)state;
	run_attack(true, false, false);
}

static void test_exec_of_a_setuid_root_image(void **state)
{
	(void)state;
	run_attack(false, true, true);
}

static void test_exec_of_a_setuid_root_image_with_o_cloexec(void **state)
{
	(void)state;
	run_attack(true, true, false);
}

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		fprintf(stderr, "test_exec needs root (it becomes nobody and execs a setuid image)\n");
		return -1;
	}
	return sys_open_watched(&es.fd, &es.base_contexts, true);
}

static int teardown(void **state)
{
	(void)state;
	close(es.fd);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_keeping_the_file),
		cmocka_unit_test(test_exec_with_o_cloexec),
		cmocka_unit_test(test_exec_of_a_setuid_root_image),
		cmocka_unit_test(test_exec_of_a_setuid_root_image_with_o_cloexec),
	};

	if (argc > 1 && !strcmp(argv[1], "--victim"))
		return victim_main(argc, argv);
	return cmocka_run_group_tests(tests, setup, teardown);
}
