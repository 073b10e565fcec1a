// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The driver's io_uring doorbell (NPU_URING_CMD_ENTER) seen from a raw
 * io_uring, without the runtime: built and run by scripts/vm/run.sh in the
 * guest, on every backend, against NPU_DEVICE.
 *
 * On a device that reports NPU_FEATURE_URING_CMD (the kernel module): both
 * command forms ring the doorbell and wait, and every bad input gets the
 * ioctl's error. On one that does not (CUSE): the command is refused with
 * -EOPNOTSUPP, which is what the runtime's fallback to the ioctl relies on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <liburing.h>

#include <npu/npu_uapi.h>

#define GIB (1ULL << 30)
#define SQ_ENTRIES 8
#define CQ_ENTRIES 16
#define BAD_CMD_OP _IOW(NPU_IOCTL_MAGIC, 0x81, struct npu_ring_enter)

struct fixture {
	int fd;
	uint64_t features;
	struct io_uring ring128;	/* IORING_SETUP_SQE128 */
	struct io_uring ring64;		/* 64-byte SQEs */
	void *aperture;
	size_t aperture_len;
	struct npu_ring_hdr *hdr;
	size_t ring_len;
	uint32_t ring_id;
};

static const char *device_path(void)
{
	const char *p = getenv("NPU_DEVICE");

	return p && *p ? p : "/dev/npu0";
}

/* One URING_CMD: returns the CQE's res. */
static int uring_cmd(struct io_uring *ring, int fd, uint32_t cmd_op, const void *args,
		     size_t len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret, res;

	assert_non_null(sqe);
	memset(sqe, 0, (ring->flags & IORING_SETUP_SQE128) ? 128 : 64);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = 0x5eed;
	memcpy(sqe->cmd, args, len);
	do {
		ret = io_uring_submit_and_wait(ring, 1);
	} while (ret == -EINTR);
	assert_int_equal(ret, 1);
	do {
		ret = io_uring_wait_cqe(ring, &cqe);
	} while (ret == -EINTR);
	assert_int_equal(ret, 0);
	assert_int_equal(cqe->user_data, 0x5eed);
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return res;
}

static int enter(struct fixture *f, uint32_t ring_id, uint32_t to_submit, uint32_t min_complete,
		 uint32_t flags)
{
	struct npu_ring_enter re = {
		.ring_id = ring_id,
		.to_submit = to_submit,
		.min_complete = min_complete,
		.flags = flags,
		.timeout_ns = 10ULL * 1000 * 1000 * 1000,
	};

	return uring_cmd(&f->ring128, f->fd, NPU_URING_CMD_ENTER, &re, sizeof(re));
}

static int enter16(struct fixture *f, uint32_t ring_id, uint32_t to_submit,
		   uint32_t min_complete, uint32_t flags)
{
	struct npu_uring_enter ue = {
		.ring_id = ring_id,
		.to_submit = to_submit,
		.min_complete = min_complete,
		.flags = flags,
	};

	return uring_cmd(&f->ring64, f->fd, NPU_URING_CMD_ENTER16, &ue, sizeof(ue));
}

static int setup(void **state)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 };
	struct npu_version ver = { 0 };
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->fd = open(device_path(), O_RDWR | O_CLOEXEC);
	assert_true(f->fd >= 0);
	assert_int_equal(ioctl(f->fd, NPU_IOCTL_GET_VERSION, &ver), 0);
	f->features = ver.features;
	assert_int_equal(io_uring_queue_init_params(4, &f->ring128, &p), 0);
	assert_int_equal(io_uring_queue_init(4, &f->ring64, 0), 0);
	*state = f;
	return 0;
}

/* CTX_SETUP with a 1 GiB aperture, then a ring of NOPs. */
static void setup_ctx_and_ring(struct fixture *f)
{
	struct npu_ctx_setup cs = { 0 };
	struct npu_ring_create rc = { 0 };
	uintptr_t base;

	f->aperture_len = 2 * GIB;
	f->aperture = mmap(NULL, f->aperture_len, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(f->aperture != MAP_FAILED);
	base = ((uintptr_t)f->aperture + GIB - 1) & ~(uintptr_t)(GIB - 1);
	cs.va_base = base;
	cs.va_size = GIB;
	assert_int_equal(ioctl(f->fd, NPU_IOCTL_CTX_SETUP, &cs), 0);

	f->ring_len = (npu_ring_bytes(SQ_ENTRIES, CQ_ENTRIES) + 4095) & ~4095ULL;
	f->hdr = mmap(NULL, f->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		      0);
	assert_true(f->hdr != MAP_FAILED);
	rc.addr = (uintptr_t)f->hdr;
	rc.size = f->ring_len;
	rc.sq_entries = SQ_ENTRIES;
	rc.cq_entries = CQ_ENTRIES;
	assert_int_equal(ioctl(f->fd, NPU_IOCTL_RING_CREATE, &rc), 0);
	f->ring_id = rc.ring_id;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	io_uring_queue_exit(&f->ring64);
	io_uring_queue_exit(&f->ring128);
	close(f->fd);	/* drops the ring and the context */
	if (f->hdr)
		munmap(f->hdr, f->ring_len);
	if (f->aperture)
		munmap(f->aperture, f->aperture_len);
	free(f);
	return 0;
}

/* Publish n NOPs with user_data first, first + 1, ... */
static void push_nops(struct fixture *f, unsigned int n, uint64_t first)
{
	struct npu_sqe *sqes = (struct npu_sqe *)((char *)f->hdr + NPU_RING_SQES_OFF);
	uint32_t tail = f->hdr->sq_tail;
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct npu_sqe *sqe = &sqes[(tail + i) & (SQ_ENTRIES - 1)];

		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = NPU_OP_NOP;
		sqe->user_data = first + i;
	}
	__atomic_store_n(&f->hdr->sq_tail, tail + n, __ATOMIC_RELEASE);
}

/* Reap n CQEs, checking their user_data and res 0. */
static void reap(struct fixture *f, unsigned int n, uint64_t first)
{
	struct npu_cqe *cqes =
		(struct npu_cqe *)((char *)f->hdr + NPU_RING_SQES_OFF +
				   SQ_ENTRIES * sizeof(struct npu_sqe));
	uint32_t head = f->hdr->cq_head;
	unsigned int i;

	assert_true(__atomic_load_n(&f->hdr->cq_tail, __ATOMIC_ACQUIRE) - head >= n);
	for (i = 0; i < n; i++) {
		struct npu_cqe *cqe = &cqes[(head + i) & (CQ_ENTRIES - 1)];

		assert_int_equal(cqe->user_data, first + i);
		assert_int_equal(cqe->res, 0);
	}
	__atomic_store_n(&f->hdr->cq_head, head + n, __ATOMIC_RELEASE);
}

static void test_without_feature(void **state)
{
	struct fixture *f = *state;

	if (f->features & NPU_FEATURE_URING_CMD)
		skip();
	/* No file_operations.uring_cmd (CUSE): io_uring refuses the command. */
	assert_int_equal(enter(f, 1, 0, 0, 0), -EOPNOTSUPP);
}

static void test_bad_input(void **state)
{
	struct fixture *f = *state;
	struct npu_ring_enter re = { 0 };

	if (!(f->features & NPU_FEATURE_URING_CMD))
		skip();
	/* Before CTX_SETUP, like the ioctl. */
	assert_int_equal(enter(f, 1, 0, 0, 0), -EINVAL);
	setup_ctx_and_ring(f);

	assert_int_equal(uring_cmd(&f->ring128, f->fd, BAD_CMD_OP, &re, sizeof(re)), -ENOTTY);
	/* The ioctl number itself is not a command. */
	assert_int_equal(uring_cmd(&f->ring128, f->fd, NPU_IOCTL_RING_ENTER, &re, sizeof(re)),
			 -ENOTTY);
	assert_int_equal(enter(f, f->ring_id, 0, 0, 1U << 7), -EINVAL);
	re.ring_id = f->ring_id;
	re.pad = 1;
	assert_int_equal(uring_cmd(&f->ring128, f->fd, NPU_URING_CMD_ENTER, &re, sizeof(re)),
			 -EINVAL);
	re.pad = 0;
	re.submitted = 1;
	assert_int_equal(uring_cmd(&f->ring128, f->fd, NPU_URING_CMD_ENTER, &re, sizeof(re)),
			 -EINVAL);
	assert_int_equal(enter(f, f->ring_id + 1000, 0, 0, 0), -ENOENT);
	/* More than the CQ holds. */
	assert_int_equal(enter(f, f->ring_id, 0, CQ_ENTRIES + 1, NPU_ENTER_GETEVENTS), -EINVAL);
	/* The full form needs 128-byte SQEs; the compact one checks the same. */
	re.submitted = 0;
	assert_int_equal(uring_cmd(&f->ring64, f->fd, NPU_URING_CMD_ENTER, &re, 16), -EINVAL);
	assert_int_equal(enter16(f, f->ring_id + 1000, 0, 0, 0), -ENOENT);
	assert_int_equal(enter16(f, f->ring_id, 0, 0, 1U << 7), -EINVAL);
}

static void test_doorbell_and_wait(void **state)
{
	struct fixture *f = *state;
	struct npu_ring_stats st = { 0 };
	int i;

	if (!(f->features & NPU_FEATURE_URING_CMD))
		skip();
	setup_ctx_and_ring(f);

	/* Doorbell and wait in one command (through an io-wq worker). */
	push_nops(f, 3, 100);
	assert_int_equal(enter(f, f->ring_id, 3, 3, NPU_ENTER_GETEVENTS), 3);
	reap(f, 3, 100);

	/* Doorbell only, completed inline; then wait with the compact form. */
	for (i = 0; i < 10; i++) {
		int ret;

		push_nops(f, 2, 200 + 2 * i);
		ret = enter16(f, f->ring_id, 2, 0, 0);
		assert_true(ret >= 0 && ret <= 2);
		assert_int_equal(enter16(f, f->ring_id, 0, 2, NPU_ENTER_GETEVENTS), 0);
		reap(f, 2, 200 + 2 * i);
	}

	st.ring_id = f->ring_id;
	assert_int_equal(ioctl(f->fd, NPU_IOCTL_RING_STATS, &st), 0);
	assert_true(st.sqes == 23);
	assert_true(st.doorbells >= 1);
	assert_int_equal(f->hdr->sq_dropped, 0);
	assert_int_equal(f->hdr->cq_overflow, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_without_feature, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doorbell_and_wait, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
