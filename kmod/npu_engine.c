// SPDX-License-Identifier: GPL-2.0
/*
 * The copy engine.
 *
 * npu_engine_exec() executes one descriptor, given the private copy that
 * npu_ring_read_sqe() made: it validates every field, resolves device
 * operands in the ring's context and moves the bytes. Host operands are
 * addresses of the current task's mm. A bad descriptor completes with
 * -errno; it never touches memory outside its own context's mappings and
 * the submitter's address space.
 *
 * npu_engine_submit() is the loop that feeds descriptors to the executor.
 * Today it runs inline in RING_ENTER (current is the submitter, which is
 * what copy_{from,to}_user need, and a synchronous copy costs no wake-up);
 * moving it into per-device engine kthreads that kthread_use_mm() the
 * submitter's mm changes only where npu_engine_submit() is called from.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_engine.h"
#include "npu_mem.h"
#include "npu_ring.h"

/* Host range [addr, addr + len) must not wrap; copy_*_user checks the rest. */
static bool npu_engine_host_ok(u64 addr, u64 len)
{
	u64 end;

	return !check_add_overflow(addr, len, &end);
}

/*
 * Move len bytes between host address host and device address dev, segment
 * by segment of the device range: into the device when to_dev (H2D), out of
 * it otherwise (D2H).
 */
static int npu_engine_host_xfer(struct npu_ctx *ctx, u64 dev, u64 host,
				u64 len, bool to_dev)
{
	struct npu_mem_range r;
	u64 pos, seg;
	int ret;

	if (!npu_engine_host_ok(host, len))
		return -EFAULT;
	ret = npu_mem_range_get(ctx, dev, len, to_dev, &r);
	if (ret)
		return ret;
	for (pos = 0; pos < len; pos += seg) {
		void *d = npu_mem_range_seg(&r, pos, &seg);
		void __user *h = u64_to_user_ptr(host + pos);
		unsigned long left;

		if (!d) {
			ret = -EIO;
			break;
		}
		left = to_dev ? copy_from_user(d, h, seg) : copy_to_user(h, d, seg);
		if (left) {
			ret = -EFAULT;
			break;
		}
		cond_resched();
	}
	npu_mem_range_put(&r);
	return ret;
}

/* Overlapping ranges are copied forward, segment by segment (undefined, as for memcpy). */
static int npu_engine_d2d(struct npu_ctx *ctx, u64 dst, u64 src, u64 len)
{
	struct npu_mem_range rd, rs;
	u64 pos, n;
	int ret;

	ret = npu_mem_range_get(ctx, src, len, false, &rs);
	if (ret)
		return ret;
	ret = npu_mem_range_get(ctx, dst, len, true, &rd);
	if (ret)
		goto out_put_src;
	for (pos = 0; pos < len; pos += n) {
		u64 ls, ld;
		void *s = npu_mem_range_seg(&rs, pos, &ls);
		void *d = npu_mem_range_seg(&rd, pos, &ld);

		if (!s || !d) {
			ret = -EIO;
			break;
		}
		n = min(ls, ld);
		memmove(d, s, n);
		cond_resched();
	}
	npu_mem_range_put(&rd);
out_put_src:
	npu_mem_range_put(&rs);
	return ret;
}

/* Host to host, through the engine's staging buffer. */
static int npu_engine_h2h(void *bounce, u64 dst, u64 src, u64 len)
{
	u64 pos, n;

	if (!npu_engine_host_ok(src, len) || !npu_engine_host_ok(dst, len))
		return -EFAULT;
	for (pos = 0; pos < len; pos += n) {
		n = min_t(u64, len - pos, NPU_ENGINE_BOUNCE_SIZE);
		if (copy_from_user(bounce, u64_to_user_ptr(src + pos), n) ||
		    copy_to_user(u64_to_user_ptr(dst + pos), bounce, n))
			return -EFAULT;
		cond_resched();
	}
	return 0;
}

static int npu_engine_memset_dev(struct npu_ctx *ctx, u64 dst, u8 value, u64 len)
{
	struct npu_mem_range r;
	u64 pos, seg;
	int ret;

	ret = npu_mem_range_get(ctx, dst, len, true, &r);
	if (ret)
		return ret;
	for (pos = 0; pos < len; pos += seg) {
		void *d = npu_mem_range_seg(&r, pos, &seg);

		if (!d) {
			ret = -EIO;
			break;
		}
		memset(d, value, seg);
		cond_resched();
	}
	npu_mem_range_put(&r);
	return ret;
}

static int npu_engine_memset_host(void *bounce, u64 dst, u8 value, u64 len)
{
	u64 pos, n;

	if (!npu_engine_host_ok(dst, len))
		return -EFAULT;
	if (!value)
		return clear_user(u64_to_user_ptr(dst), len) ? -EFAULT : 0;
	memset(bounce, value, min_t(u64, len, NPU_ENGINE_BOUNCE_SIZE));
	for (pos = 0; pos < len; pos += n) {
		n = min_t(u64, len - pos, NPU_ENGINE_BOUNCE_SIZE);
		if (copy_to_user(u64_to_user_ptr(dst + pos), bounce, n))
			return -EFAULT;
		cond_resched();
	}
	return 0;
}

static int npu_engine_copy(struct npu_ctx *ctx, void *bounce, const struct npu_sqe *sqe)
{
	if (sqe->value || !sqe->len)
		return -EINVAL;
	switch (sqe->dir) {
	case NPU_DIR_H2D:
		return npu_engine_host_xfer(ctx, sqe->dst, sqe->src, sqe->len, true);
	case NPU_DIR_D2H:
		return npu_engine_host_xfer(ctx, sqe->src, sqe->dst, sqe->len, false);
	case NPU_DIR_D2D:
		return npu_engine_d2d(ctx, sqe->dst, sqe->src, sqe->len);
	case NPU_DIR_H2H:
		return npu_engine_h2h(bounce, sqe->dst, sqe->src, sqe->len);
	}
	return -EINVAL;
}

static int npu_engine_memset(struct npu_ctx *ctx, void *bounce, const struct npu_sqe *sqe)
{
	if (sqe->src || !sqe->len || sqe->value > 0xff)
		return -EINVAL;
	switch (sqe->dir) {
	case NPU_DIR_H2D:
		return npu_engine_memset_dev(ctx, sqe->dst, sqe->value, sqe->len);
	case NPU_DIR_H2H:
		return npu_engine_memset_host(bounce, sqe->dst, sqe->value, sqe->len);
	}
	return -EINVAL;
}

/**
 * npu_engine_exec() - validate and execute one descriptor
 * @ctx: the context of the ring the descriptor came from
 * @bounce: a staging buffer of NPU_ENGINE_BOUNCE_SIZE bytes
 * @sqe: a private copy of the descriptor
 *
 * Return: the CQE result: 0; -EINVAL for a malformed descriptor (opcode,
 * flags, dir, a non-zero reserved or unused field, len 0, a fill value
 * above 0xff); -EFAULT for a device range not inside one allocation of
 * @ctx, a wrapping range or an unreachable host address; -EPERM for a
 * write into a READONLY allocation.
 */
s32 npu_engine_exec(struct npu_ctx *ctx, void *bounce, const struct npu_sqe *sqe)
{
	if (sqe->flags & ~NPU_SQE_FLAGS_ALL)
		return -EINVAL;
	if (sqe->rsvd0 || sqe->rsvd1 || sqe->rsvd2)
		return -EINVAL;
	if (sqe->opcode != NPU_OP_COPY2D && (sqe->dpitch || sqe->spitch))
		return -EINVAL;
	if (sqe->opcode != NPU_OP_VALUE_WAIT && sqe->cond)
		return -EINVAL;
	switch (sqe->opcode) {
	case NPU_OP_NOP:
		if (sqe->dir || sqe->dst || sqe->src || sqe->len || sqe->value)
			return -EINVAL;
		return 0;
	case NPU_OP_COPY:
		return npu_engine_copy(ctx, bounce, sqe);
	case NPU_OP_MEMSET:
		return npu_engine_memset(ctx, bounce, sqe);
	}
	return -EINVAL;
}

/**
 * npu_engine_submit() - execute up to @to_submit new SQEs of a ring
 * @ring: the ring; caller holds its submit_lock
 * @to_submit: the most SQEs to consume
 *
 * Each SQE gets a CQE, in order. Stops early on a fatal signal.
 *
 * Return: the number of SQEs consumed.
 */
u32 npu_engine_submit(struct npu_ring *ring, u32 to_submit)
{
	u32 n = min(to_submit, npu_ring_sq_ready(ring));
	struct npu_sqe sqe;
	u32 i;

	for (i = 0; i < n; i++) {
		if (fatal_signal_pending(current))
			break;
		npu_ring_read_sqe(ring, &sqe);
		atomic64_inc(&ring->st_sqes);
		npu_ring_post_cqe(ring, sqe.user_data,
				  npu_engine_exec(ring->ctx, ring->bounce, &sqe));
	}
	return i;
}
