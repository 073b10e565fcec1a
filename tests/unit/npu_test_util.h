/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Helpers of the driver unit tests: a device file driven through the mock
 * kernel's host interface (as npud and the in-process device do), and a
 * ring in memory the test owns.
 */
#ifndef NPU_TEST_UTIL_H
#define NPU_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <cmocka.h>

#include <mockdev/host.h>
#include <mockdev/mock.h>
#include <npu/npu_uapi.h>

#define T_GIB		(1ULL << 30)
#define T_MIB		(1ULL << 20)
#define T_VA_SIZE	(64 * T_GIB)
#define T_VA_BASE	t_va_base()

/*
 * Two apertures (T_VA_BASE and T_VA_BASE + T_VA_SIZE), reserved PROT_NONE
 * in this process as the runtime does, so that a device address used as a
 * host address faults instead of hitting whatever is mapped there.
 */
static inline uint64_t t_va_base(void)
{
	static uint64_t base;

	if (!base) {
		void *p = mmap(NULL, 2 * T_VA_SIZE + T_GIB, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		assert_true(p != MAP_FAILED);
		base = ((uint64_t)(uintptr_t)p + T_GIB - 1) & ~(T_GIB - 1);
	}
	return base;
}

static inline struct miscdevice *t_misc(void)
{
	struct miscdevice *misc = mockdev_misc_find("npu0");

	assert_non_null(misc);
	return misc;
}

static inline int t_open(struct file **f)
{
	return mockdev_file_open(t_misc(), mockdev_task_self(), f);
}

static inline void t_close(struct file *f)
{
	assert_int_equal(mockdev_file_release(f, mockdev_task_self()), 0);
}

static inline long t_ioctl(struct file *f, unsigned int cmd, void *arg)
{
	return mockdev_file_ioctl(f, mockdev_task_self(), cmd, (unsigned long)arg);
}

static inline long t_setup_at(struct file *f, uint64_t base)
{
	struct npu_ctx_setup s = { .va_base = base, .va_size = T_VA_SIZE };

	return t_ioctl(f, NPU_IOCTL_CTX_SETUP, &s);
}

static inline long t_alloc(struct file *f, uint64_t size, uint32_t policy, uint32_t flags,
			   struct npu_mem_alloc *out)
{
	memset(out, 0, sizeof(*out));
	out->size = size;
	out->policy = policy;
	out->flags = flags;
	return t_ioctl(f, NPU_IOCTL_MEM_ALLOC, out);
}

static inline long t_free(struct file *f, uint64_t va)
{
	struct npu_mem_free a = { .va = va };

	return t_ioctl(f, NPU_IOCTL_MEM_FREE, &a);
}

static inline void t_device_info(struct file *f, struct npu_device_info *info)
{
	memset(info, 0xa5, sizeof(*info));
	assert_int_equal(t_ioctl(f, NPU_IOCTL_DEVICE_INFO, info), 0);
}

struct t_ring {
	void *mem;
	size_t bytes;
	uint32_t id;
	uint32_t sq_entries, cq_entries;
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqes;
	struct npu_cqe *cqes;
};

static inline void *t_map(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	memset(p, 0x5a, bytes);	/* the driver must initialise the header */
	return p;
}

/* Create a ring; returns the ioctl's result, the mapping stays in r->mem. */
static inline long t_ring_create(struct file *f, struct t_ring *r, uint32_t sq, uint32_t cq)
{
	struct npu_ring_create c = { 0 };
	long ret;

	memset(r, 0, sizeof(*r));
	r->bytes = (size_t)npu_ring_bytes(sq, cq);
	r->bytes = (r->bytes + 4095) & ~(size_t)4095;
	r->mem = t_map(r->bytes);
	c.addr = (uintptr_t)r->mem;
	c.size = r->bytes;
	c.sq_entries = sq;
	c.cq_entries = cq;
	ret = t_ioctl(f, NPU_IOCTL_RING_CREATE, &c);
	if (ret)
		return ret;
	r->id = c.ring_id;
	r->sq_entries = sq;
	r->cq_entries = cq;
	r->hdr = r->mem;
	r->sqes = (struct npu_sqe *)((char *)r->mem + c.sqes_off);
	r->cqes = (struct npu_cqe *)((char *)r->mem + c.cqes_off);
	return 0;
}

static inline void t_ring_unmap(struct t_ring *r)
{
	munmap(r->mem, r->bytes);
	r->mem = NULL;
}

static inline void t_ring_push(struct t_ring *r, const struct npu_sqe *sqe)
{
	uint32_t tail = r->hdr->sq_tail;

	r->sqes[tail & (r->sq_entries - 1)] = *sqe;
	__atomic_store_n(&r->hdr->sq_tail, tail + 1, __ATOMIC_RELEASE);
}

static inline long t_ring_enter(struct file *f, struct t_ring *r, uint32_t to_submit,
				uint32_t min_complete, uint32_t flags, uint32_t *submitted)
{
	struct npu_ring_enter e = {
		.ring_id = r->id, .to_submit = to_submit,
		.min_complete = min_complete, .flags = flags,
	};
	long ret = t_ioctl(f, NPU_IOCTL_RING_ENTER, &e);

	if (submitted)
		*submitted = e.submitted;
	return ret;
}

/*
 * Wait (up to ten seconds) until @n descriptors have completed, counting
 * those lost to a full CQ; false on timeout. For when the CQ cannot tell.
 */
static inline bool t_ring_wait_completed(struct t_ring *r, uint32_t n)
{
	int i;

	for (i = 0; i < 100000; i++) {
		uint32_t lost = __atomic_load_n(&r->hdr->cq_overflow, __ATOMIC_ACQUIRE);
		uint32_t posted = __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE);

		if ((uint32_t)(posted + lost) == n)
			return true;
		usleep(100);
	}
	return false;
}

/* Pop one CQE; false if the CQ is empty. */
static inline bool t_ring_pop(struct t_ring *r, struct npu_cqe *cqe)
{
	uint32_t head = r->hdr->cq_head;
	uint32_t tail = __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE);

	if (head == tail)
		return false;
	*cqe = r->cqes[head & (r->cq_entries - 1)];
	__atomic_store_n(&r->hdr->cq_head, head + 1, __ATOMIC_RELEASE);
	return true;
}

/*
 * Run one descriptor synchronously without cmocka asserts (usable from
 * other threads): 0 with *res set, or -1 if the ring misbehaved.
 */
static inline int t_ring_try_run(struct file *f, struct t_ring *r, const struct npu_sqe *sqe,
				 int32_t *res)
{
	struct npu_cqe cqe = { 0 };
	uint32_t submitted = 0;

	t_ring_push(r, sqe);
	if (t_ring_enter(f, r, 1, 1, NPU_ENTER_GETEVENTS, &submitted) || submitted != 1 ||
	    !t_ring_pop(r, &cqe) || cqe.user_data != sqe->user_data)
		return -1;
	*res = cqe.res;
	return 0;
}

/* Run one descriptor synchronously; returns its CQE result. */
static inline int32_t t_ring_run(struct file *f, struct t_ring *r, const struct npu_sqe *sqe)
{
	struct npu_cqe cqe = { 0 };
	uint32_t submitted = 0;

	t_ring_push(r, sqe);
	assert_int_equal(t_ring_enter(f, r, 1, 1, NPU_ENTER_GETEVENTS, &submitted), 0);
	assert_int_equal(submitted, 1);
	assert_true(t_ring_pop(r, &cqe));
	assert_int_equal(cqe.user_data, sqe->user_data);
	return cqe.res;
}

static inline struct npu_sqe t_copy(uint8_t dir, uint64_t dst, uint64_t src, uint64_t len)
{
	struct npu_sqe s = { .opcode = NPU_OP_COPY, .dir = dir, .dst = dst, .src = src,
			     .len = len, .user_data = 0x1234 };
	return s;
}

static inline struct npu_sqe t_memset(uint8_t dir, uint64_t dst, uint8_t value, uint64_t len)
{
	struct npu_sqe s = { .opcode = NPU_OP_MEMSET, .dir = dir, .dst = dst, .value = value,
			     .len = len, .user_data = 0x5678 };
	return s;
}

/*
 * A child process that waits for a byte on its pipe, then exits: a client
 * of another process, as npud sees one (mockdev_task_get()).
 */
struct t_child {
	pid_t pid;
	int wfd;
	struct task_struct *task;
};

static inline void t_child_start(struct t_child *c)
{
	int fds[2];
	char b;

	assert_int_equal(pipe(fds), 0);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		close(fds[1]);
		if (read(fds[0], &b, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(fds[0]);
	c->wfd = fds[1];
	assert_int_equal(mockdev_task_get(c->pid, &c->task), 0);
}

/* Let the child exit and reap it, dropping its task. */
static inline void t_child_stop(struct t_child *c)
{
	int status;

	mockdev_task_put(c->task);
	assert_int_equal(write(c->wfd, "x", 1), 1);
	close(c->wfd);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
}

/* A relayed ioctl of the child (as npud does): arg is served from buf. */
static inline long t_child_ioctl(struct t_child *c, struct file *f, unsigned int cmd, void *buf)
{
	return mockdev_file_ioctl_relayed(f, c->task, cmd, 0x1000, buf);
}

#endif /* NPU_TEST_UTIL_H */
