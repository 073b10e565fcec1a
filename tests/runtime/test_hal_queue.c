// SPDX-License-Identifier: MIT
/*
 * The HAL queue API (hal.h "Queues"): sequence numbers, in-order
 * completion, batches larger than the ring, per-descriptor errors,
 * waits with timeouts and the ring statistics. Runs on every backend.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"
#include "npu/hal.h"

struct fixture {
	npuHalDevice *dev;
	npuHalQueue *q;
	struct npu_mem_alloc buf;
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || npuHalDeviceOpen(0, &f->dev) != 0)
		return -1;
	if (npuHalQueueCreate(f->dev, 16, &f->q) != 0)
		return -1;
	if (npuHalMemAlloc(f->dev, 1 << 20, NPU_POLICY_NORMAL_ONLY, 0, &f->buf) != 0)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	npuHalQueueDestroy(f->q);
	npuHalMemFree(f->dev, f->buf.va);
	npuHalDeviceClose(f->dev);
	free(f);
	return 0;
}

static struct npu_sqe copy_sqe(uint32_t dir, uint64_t dst, uint64_t src, uint64_t len)
{
	struct npu_sqe s;

	memset(&s, 0, sizeof(s));
	s.opcode = NPU_OP_COPY;
	s.dir = (uint8_t)dir;
	s.dst = dst;
	s.src = src;
	s.len = len;
	return s;
}

static void test_create_bad_entries(void **state)
{
	struct fixture *f = *state;
	npuHalQueue *q = NULL;

	assert_int_equal(npuHalQueueCreate(f->dev, 3, &q), -EINVAL);
	assert_int_equal(npuHalQueueCreate(f->dev, NPU_RING_MAX_ENTRIES * 2, &q), -EINVAL);
	assert_null(q);
	assert_int_equal(npuHalQueueCreate(f->dev, 0, &q), 0);
	assert_int_equal(npuHalQueueSubmitted(q), 0);
	assert_int_equal(npuHalQueueCompleted(q), 0);
	npuHalQueueDestroy(q);
}

/* H2D, D2D, D2H through one queue: each step depends on the previous. */
static void test_ordered_round_trip(void **state)
{
	struct fixture *f = *state;
	enum { N = 4096 };
	uint8_t *src = malloc(N), *dst = calloc(1, N);
	struct npu_sqe s[3];
	uint64_t last = 0;

	assert_non_null(src);
	assert_non_null(dst);
	rt_fill_pattern(src, N, 7);
	s[0] = copy_sqe(NPU_DIR_H2D, f->buf.va, (uint64_t)(uintptr_t)src, N);
	s[1] = copy_sqe(NPU_DIR_D2D, f->buf.va + 65536, f->buf.va, N);
	s[2] = copy_sqe(NPU_DIR_D2H, (uint64_t)(uintptr_t)dst, f->buf.va + 65536, N);
	uint64_t before = npuHalQueueSubmitted(f->q);
	assert_int_equal(npuHalQueueSubmit(f->q, s, 3, &last), 0);
	assert_int_equal(last, before + 3);
	assert_int_equal(npuHalQueueWait(f->q, last, 0), 0);
	assert_true(npuHalQueueCompleted(f->q) >= last);
	assert_memory_equal(src, dst, N);
	assert_int_equal(npuHalQueueTakeError(f->q, NULL), 0);
	free(src);
	free(dst);
}

/* 100 descriptors into a 16-entry ring: Submit waits for room. */
static void test_batch_larger_than_ring(void **state)
{
	struct fixture *f = *state;
	enum { N = 100 };
	uint64_t *vals = calloc(N, sizeof(*vals)), *out = calloc(N, sizeof(*out));
	struct npu_sqe s[N];
	uint64_t last;

	assert_non_null(vals);
	assert_non_null(out);
	for (int i = 0; i < N; i++) {
		vals[i] = 0x1000u + (uint64_t)i;
		s[i] = copy_sqe(NPU_DIR_H2D, f->buf.va + 8 * (uint64_t)i,
				(uint64_t)(uintptr_t)&vals[i], 8);
	}
	assert_int_equal(npuHalQueueSubmit(f->q, s, N, &last), 0);
	s[0] = copy_sqe(NPU_DIR_D2H, (uint64_t)(uintptr_t)out, f->buf.va, 8 * N);
	assert_int_equal(npuHalQueueSubmit(f->q, s, 1, &last), 0);
	assert_int_equal(npuHalQueueWait(f->q, last, 0), 0);
	assert_memory_equal(vals, out, 8 * N);
	free(vals);
	free(out);
}

/* A bad descriptor fails alone; the first error is kept with its seq. */
static void test_errors(void **state)
{
	struct fixture *f = *state;
	uint64_t v = 42, back = 0, seq = 0, first;
	struct npu_sqe s[4];

	s[0] = copy_sqe(NPU_DIR_H2D, f->buf.va, (uint64_t)(uintptr_t)&v, 8);
	s[1] = copy_sqe(NPU_DIR_D2D, f->buf.va, f->buf.va + (1 << 20), 8); /* past the end */
	s[2] = copy_sqe(NPU_DIR_D2H, (uint64_t)(uintptr_t)&back, f->buf.va, 8);
	s[3] = s[2];
	s[3].opcode = NPU_OP_COUNT; /* unknown opcode */
	first = npuHalQueueSubmitted(f->q) + 2;
	assert_int_equal(npuHalQueueSubmit(f->q, s, 4, NULL), 0);
	assert_int_equal(npuHalQueueWait(f->q, npuHalQueueSubmitted(f->q), 0), 0);
	assert_int_equal(back, 42);
	assert_int_equal(npuHalQueueTakeError(f->q, &seq), -EFAULT);
	assert_int_equal(seq, first);
	assert_int_equal(npuHalQueueTakeError(f->q, &seq), 0);
}

/* Every failed descriptor is kept, in order, until it is taken. */
static void test_errors_all_kept(void **state)
{
	struct fixture *f = *state;
	uint64_t v = 42, first;
	struct npu_sqe s[3];
	struct npuHalQueueError e[4];

	s[0] = copy_sqe(NPU_DIR_D2D, f->buf.va, f->buf.va + (1 << 20), 8); /* past the end */
	s[1] = copy_sqe(NPU_DIR_H2D, f->buf.va, (uint64_t)(uintptr_t)&v, 8);
	s[2] = s[0];
	first = npuHalQueueSubmitted(f->q) + 1;
	assert_int_equal(npuHalQueueSubmit(f->q, s, 3, NULL), 0);
	assert_int_equal(npuHalQueueWait(f->q, npuHalQueueSubmitted(f->q), 0), 0);
	assert_int_equal(npuHalQueueTakeErrors(f->q, e, 4), 2);
	assert_int_equal(e[0].seq, first);
	assert_int_equal(e[0].res, -EFAULT);
	assert_int_equal(e[1].seq, first + 2);
	assert_int_equal(e[1].res, -EFAULT);
	assert_int_equal(npuHalQueueTakeErrors(f->q, e, 4), 0);
	/* The count goes on past what the caller has room for. */
	assert_int_equal(npuHalQueueSubmit(f->q, s, 3, NULL), 0);
	assert_int_equal(npuHalQueueWait(f->q, npuHalQueueSubmitted(f->q), 0), 0);
	assert_int_equal(npuHalQueueTakeErrors(f->q, e, 1), 2);
	assert_int_equal(e[0].seq, first + 3);
	assert_int_equal(npuHalQueueTakeError(f->q, NULL), 0);
}

static void test_wait_bad_seq(void **state)
{
	struct fixture *f = *state;

	assert_int_equal(npuHalQueueWait(f->q, npuHalQueueSubmitted(f->q) + 1, 0), -EINVAL);
	assert_int_equal(npuHalQueueWait(f->q, 0, 0), 0);
}

/* A value wait that nobody releases times out; a write then releases it. */
static void test_value_wait_timeout(void **state)
{
	struct fixture *f = *state;
	struct npu_sqe s;
	uint64_t seq;

	memset(&s, 0, sizeof(s));
	s.opcode = NPU_OP_MEMSET;
	s.dir = NPU_DIR_H2D;
	s.dst = f->buf.va + 4096;
	s.len = 8;
	assert_int_equal(npuHalQueueSubmit(f->q, &s, 1, NULL), 0);
	memset(&s, 0, sizeof(s));
	s.opcode = NPU_OP_VALUE_WAIT;
	s.dst = f->buf.va + 4096;
	s.value = 5;
	s.cond = NPU_WAIT_GEQ;
	assert_int_equal(npuHalQueueSubmit(f->q, &s, 1, &seq), 0);
	assert_int_equal(npuHalQueueWait(f->q, seq, 30ULL * 1000 * 1000), -ETIME);

	npuHalQueue *q2;
	assert_int_equal(npuHalQueueCreate(f->dev, 8, &q2), 0);
	memset(&s, 0, sizeof(s));
	s.opcode = NPU_OP_VALUE_WRITE;
	s.dst = f->buf.va + 4096;
	s.value = 6;
	assert_int_equal(npuHalQueueSubmit(q2, &s, 1, NULL), 0);
	assert_int_equal(npuHalQueueWait(f->q, seq, 0), 0);
	assert_int_equal(npuHalQueueTakeError(f->q, NULL), 0);
	npuHalQueueDestroy(q2);
}

static void test_stats(void **state)
{
	struct fixture *f = *state;
	struct npu_ring_stats st;
	struct npu_sqe s;
	uint64_t seq;

	memset(&s, 0, sizeof(s));
	s.opcode = NPU_OP_NOP;
	assert_int_equal(npuHalQueueStats(f->q, &st), 0);
	uint64_t before = st.sqes;
	for (int i = 0; i < 10; i++)
		assert_int_equal(npuHalQueueSubmit(f->q, &s, 1, &seq), 0);
	assert_int_equal(npuHalQueueWait(f->q, seq, 0), 0);
	assert_int_equal(npuHalQueueStats(f->q, &st), 0);
	assert_int_equal(st.sqes, before + 10);
	/* A new ring sleeps: the first submission rang, by RING_ENTER or the futex word. */
	assert_true(st.doorbells + st.futex_checks >= 1);
}

/*
 * Whether NPU_DEVICE is a device file that offers the futex doorbell
 * (npud), and the HAL uses it (NPU_FUTEX is not 0).
 */
static bool futex_doorbell_expected(void)
{
	const char *dev = getenv("NPU_DEVICE"), *off = getenv("NPU_FUTEX");
	struct npu_version v;
	int fd;
	bool on;

	if (dev == NULL || strcmp(dev, "inproc") == 0 || (off != NULL && strcmp(off, "0") == 0))
		return false;
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	memset(&v, 0, sizeof(v));
	on = ioctl(fd, NPU_IOCTL_GET_VERSION, &v) == 0 &&
	     (v.features & NPU_FEATURE_FUTEX_DOORBELL);
	close(fd);
	return on;
}

/*
 * Through npud with the futex doorbell, submitting and waiting needs no
 * call into the driver: copies complete (data read back), rounds that
 * start after the engines let the ring sleep included, with no RING_ENTER:
 * neither a doorbell nor a wait (the HAL's futex phase, after which a wait
 * goes on in the driver, is made long enough for a loaded machine).
 */
static void test_futex_ring_needs_no_driver_call(void **state)
{
	struct fixture *f = *state;
	enum { ROUNDS = 200 };
	static unsigned char src[4096], back[4096];
	struct npu_ring_stats st0, st1;
	struct npu_sqe s;
	uint64_t seq;

	if (!futex_doorbell_expected())
		skip();
	assert_int_equal(npuHalQueueStats(f->q, &st0), 0);
	for (int i = 0; i < ROUNDS; i++) {
		memset(src, i, sizeof(src));
		if (i % 5 == 0)
			usleep(2000);	/* past the engines' poll window */
		s = copy_sqe(NPU_DIR_H2D, f->buf.va, (uint64_t)(uintptr_t)src, sizeof(src));
		assert_int_equal(npuHalQueueSubmit(f->q, &s, 1, &seq), 0);
		s = copy_sqe(NPU_DIR_D2H, (uint64_t)(uintptr_t)back, f->buf.va, sizeof(back));
		assert_int_equal(npuHalQueueSubmit(f->q, &s, 1, &seq), 0);
		assert_int_equal(npuHalQueueWait(f->q, seq, 0), 0);
		assert_memory_equal(back, src, sizeof(src));
	}
	assert_int_equal(npuHalQueueStats(f->q, &st1), 0);
	assert_int_equal(st1.sqes - st0.sqes, 2 * ROUNDS);
	/* main() made the futex phase 60 s: no wait went on in the driver. */
	assert_int_equal(st1.doorbells - st0.doorbells, 0);
	assert_int_equal(st1.waits - st0.waits, 0);
	assert_true(st1.futex_checks - st0.futex_checks >= 1);
}

/*
 * A ring the driver failed for good (an impossible sq_tail in its shared
 * memory: -EPROTO) is a task-scheduler error upstream, not an internal one.
 */
/* One descriptor on the device's synchronous queue (npuHalDeviceRun). */
static int sync_op(npuHalDevice *dev, uint8_t opcode, uint32_t dir, void *dst, const void *src,
		   uint64_t len, uint8_t value)
{
	struct npu_sqe sqe = { 0 };

	sqe.opcode = opcode;
	sqe.dir = (uint8_t)dir;
	sqe.dst = (uint64_t)(uintptr_t)dst;
	sqe.src = (uint64_t)(uintptr_t)src;
	sqe.len = len;
	sqe.value = value;
	return npuHalDeviceRun(dev, &sqe, 1);
}

static int sync_copy(npuHalDevice *dev, void *dst, const void *src, uint64_t count, uint32_t dir)
{
	return sync_op(dev, NPU_OP_COPY, dir, dst, src, count, 0);
}

static int sync_fill(npuHalDevice *dev, void *dst, uint8_t value, uint64_t count, uint32_t dir)
{
	return sync_op(dev, NPU_OP_MEMSET, dir, dst, NULL, count, value);
}

/*
 * The synchronous calls run on the device's own queue: each returns its
 * own result, a failure does not stick to the next call, and they are not
 * counted among the process's queues.
 */
static void test_sync_calls_return_their_own_result(void **state)
{
	struct fixture *f = *state;
	uint64_t v = 0x1122334455667788ULL, back = 0;
	struct npu_ring_stats before, after;

	assert_int_equal(npuHalQueueStatsTotal(&before), 0);
	assert_int_equal(sync_copy(f->dev, (void *)(uintptr_t)f->buf.va, &v, 8, NPU_DIR_H2D), 0);
	/* Past the end of the allocation: this call fails, the next does not. */
	assert_int_equal(sync_copy(f->dev, &back, (void *)(uintptr_t)(f->buf.va + (1 << 20)), 8,
				   NPU_DIR_D2H),
			 -EFAULT);
	assert_int_equal(sync_copy(f->dev, &back, (void *)(uintptr_t)f->buf.va, 8, NPU_DIR_D2H), 0);
	assert_true(back == v);
	assert_int_equal(sync_fill(f->dev, (void *)(uintptr_t)f->buf.va, 0xab, 8, NPU_DIR_H2D), 0);
	assert_int_equal(sync_copy(f->dev, &back, (void *)(uintptr_t)f->buf.va, 8, NPU_DIR_D2H), 0);
	assert_true(back == 0xababababababababULL);
	assert_int_equal(npuHalQueueStatsTotal(&after), 0);
	assert_int_equal(after.sqes - before.sqes, 0);
}

/*
 * npuHalDeviceRun: n descriptors on the device's synchronous queue, more than
 * it holds at once. All of them run, even after one failed; the call
 * returns the first failure, which does not stick to the next call.
 */
static void test_device_run_runs_all_and_returns_the_first_error(void **state)
{
	struct fixture *f = *state;
	enum { N = 200, BAD = 100 };
	static struct npu_sqe sqes[N];
	static uint64_t src[N], back[N];
	const uint64_t end = f->buf.va + (1 << 20);

	for (int i = 0; i < N; i++) {
		src[i] = 0x5000 + (uint64_t)i;
		sqes[i] = copy_sqe(NPU_DIR_H2D, f->buf.va + 8 * (uint64_t)i, (uintptr_t)&src[i], 8);
	}
	sqes[BAD].dst = end; /* past the end of the allocation */
	assert_int_equal(npuHalDeviceRun(f->dev, sqes, 0), 0);
	assert_int_equal(npuHalDeviceRun(f->dev, sqes, N), -EFAULT);
	assert_int_equal(sync_copy(f->dev, back, (void *)(uintptr_t)f->buf.va, sizeof(back),
				   NPU_DIR_D2H),
			 0);
	for (int i = 0; i < N; i++) {
		if (i != BAD)
			assert_true(back[i] == src[i]);
	}
	sqes[BAD].dst = f->buf.va + 8 * BAD;
	assert_int_equal(npuHalDeviceRun(f->dev, sqes, N), 0);
}

/*
 * In a forked child (with the HAL's fork handlers installed) the parent's
 * queue and device answer -EBADF (their ring memory is not mapped there),
 * and destroying them is harmless.
 */
static void test_parent_queue_in_a_forked_child_is_ebadf(void **state)
{
	struct fixture *f = *state;
	uint64_t v = 1;
	int status = -1;
	pid_t pid;

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct npu_sqe s = copy_sqe(NPU_DIR_H2D, f->buf.va, (uint64_t)(uintptr_t)&v, 8);
		struct npu_ring_stats st;
		uint64_t seq = 99;

		if (npuHalQueueSubmit(f->q, &s, 1, NULL) != -EBADF)
			_exit(1);
		if (npuHalQueueWait(f->q, npuHalQueueSubmitted(f->q), 0) != -EBADF)
			_exit(2);
		if (npuHalQueueTakeError(f->q, &seq) != -EBADF || seq != 0)
			_exit(3);
		if (npuHalQueueAbort(f->q) != -EBADF || npuHalQueueStats(f->q, &st) != -EBADF)
			_exit(4);
		if (sync_copy(f->dev, (void *)(uintptr_t)f->buf.va, &v, 8, NPU_DIR_H2D) != -EBADF)
			_exit(5);
		(void)npuHalQueueCompleted(f->q);
		npuHalQueueDestroy(f->q);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The parent's queue still works. */
	struct npu_sqe s = copy_sqe(NPU_DIR_H2D, f->buf.va, (uint64_t)(uintptr_t)&v, 8);
	uint64_t last = 0;

	assert_int_equal(npuHalQueueSubmit(f->q, &s, 1, &last), 0);
	assert_int_equal(npuHalQueueWait(f->q, last, 0), 0);
	assert_int_equal(npuHalQueueTakeError(f->q, NULL), 0);
}

/*
 * Through npud with the futex doorbell, synchronous calls (aclrtMemcpy's
 * path: npuHalDeviceRun) make no call into the driver either: 4 KiB copies
 * there and back, data read back, rounds that start after the engines let
 * the ring sleep included, and no RING_ENTER on the HAL's own ring. In
 * process (or without the futex doorbell) they still work and return
 * their data.
 */
static void test_sync_calls_need_no_driver_call(void **state)
{
	struct fixture *f = *state;
	enum { ROUNDS = 200 };
	static unsigned char src[4096], back[4096];
	struct npu_ring_stats st0, st1;
	const bool futex = futex_doorbell_expected();

	assert_int_equal(npuHalDeviceRunStats(NULL, &st0), -EINVAL);
	assert_int_equal(npuHalDeviceRunStats(f->dev, &st0), 0);
	for (int i = 0; i < ROUNDS; i++) {
		memset(src, i + 1, sizeof(src));
		memset(back, 0, sizeof(back));
		if (i % 5 == 0)
			usleep(2000);	/* past the engines' poll window */
		assert_int_equal(sync_copy(f->dev, (void *)(uintptr_t)f->buf.va, src, sizeof(src),
					   NPU_DIR_H2D),
				 0);
		assert_int_equal(sync_copy(f->dev, back, (void *)(uintptr_t)f->buf.va, sizeof(back),
					   NPU_DIR_D2H),
				 0);
		assert_memory_equal(back, src, sizeof(src));
	}
	assert_int_equal(npuHalDeviceRunStats(f->dev, &st1), 0);
	assert_int_equal(st1.sqes - st0.sqes, 2 * ROUNDS);
	if (!futex)
		return;
	/* main() made the futex phase 60 s: no wait went on in the driver. */
	assert_int_equal(st1.doorbells - st0.doorbells, 0);
	assert_int_equal(st1.waits - st0.waits, 0);
	/* Rounds after a sleep rang the futex word. */
	assert_true(st1.futex_checks - st0.futex_checks >= 1);
}

static void test_failed_ring_maps_to_ts_error(void **state)
{
	(void)state;
	assert_int_equal(npuHalErrorToAcl(-EPROTO), ACL_ERROR_RT_TS_ERROR);
	assert_int_equal(npuHalErrorToAcl(-EFAULT), ACL_ERROR_RT_PARAM_INVALID);
}

int main(void)
{
	/*
	 * Futex waits stay futex waits however loaded the machine
	 * (test_futex_ring_needs_no_driver_call counts the calls into the driver).
	 */
	setenv("NPU_FUTEX_PHASE_MS", "60000", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_bad_entries),
		cmocka_unit_test(test_ordered_round_trip),
		cmocka_unit_test(test_batch_larger_than_ring),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_errors_all_kept),
		cmocka_unit_test(test_wait_bad_seq),
		cmocka_unit_test(test_value_wait_timeout),
		cmocka_unit_test(test_stats),
		cmocka_unit_test(test_futex_ring_needs_no_driver_call),
		cmocka_unit_test(test_sync_calls_need_no_driver_call),
		cmocka_unit_test(test_failed_ring_maps_to_ts_error),
		cmocka_unit_test(test_sync_calls_return_their_own_result),
		cmocka_unit_test(test_device_run_runs_all_and_returns_the_first_error),
		cmocka_unit_test(test_parent_queue_in_a_forked_child_is_ebadf),
	};

	/* What the runtime does for its users; a direct HAL user does it too. */
	if (pthread_atfork(npuHalForkPrepare, npuHalForkParent, npuHalForkChild) != 0)
		return 1;
	return cmocka_run_group_tests(tests, setup, teardown);
}
