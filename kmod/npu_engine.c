// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The copy engine: what an engine (a worker of npu_pool.c, scheduled by
 * npu_sched.c) does with a ring it owns.
 *
 * npu_engine_run() consumes a bounded batch of a ring's descriptors. Each
 * is read once into private memory (npu_ring_read_sqe()), validated, its
 * operands resolved and its bytes moved; then it gets its CQE, in order.
 * A bad descriptor completes with -errno; it never touches memory outside
 * its own context's mappings (and the peers that context enabled) and the
 * submitter's address space.
 *
 * Operands: a device VA is resolved in the ring's context (for D2D copies
 * also in a peer context) and held for the copy (npu_mem_range_get()). A
 * host address inside a host registration of the context is copied
 * directly through the driver's kernel mapping of it (npu_host_get());
 * any other host address is pageable memory of the ring's creator, which
 * the engine reaches with copy_{from,to}_user() after kthread_use_mm().
 *
 * A VALUE_WAIT whose condition is false is kept as the ring's held
 * descriptor and the ring parks (NPU_ENGINE_PARKED): the engine moves on to
 * other rings and the scheduler runs this one again when device memory may
 * have changed. Large copies are cut into chunks that idle engines run in
 * parallel (npu_job_run(), with npu_engine_chunk() as the callback).
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_engine.h"
#include "npu_host.h"
#include "npu_job.h"
#include "npu_mem.h"
#include "npu_peer.h"
#include "npu_pool.h"
#include "npu_reduce.h"
#include "npu_ring.h"

enum npu_opnd_kind {
	NPU_OPND_DEV,		/* device memory, through a held range */
	NPU_OPND_USER,		/* pageable memory of the ring's mm */
	NPU_OPND_KERN,		/* registered host memory, mapped by the driver */
};

/* One side of a transfer. */
struct npu_opnd {
	enum npu_opnd_kind kind;
	u64 addr;			/* USER: the user address */
	void *kaddr;			/* KERN: kernel address of addr */
	struct npu_host_reg *reg;	/* KERN: the registration, referenced */
	struct npu_ctx *peer;		/* DEV of a peer context, referenced; else NULL */
	struct npu_mem_range r;		/* DEV */
};

struct npu_xfer {
	struct npu_opnd dst;
	struct npu_opnd src;
};

/* Host range [addr, addr + len) must not wrap; copy_*_user checks the rest. */
static bool npu_engine_host_ok(u64 addr, u64 len)
{
	u64 end;

	return !check_add_overflow(addr, len, &end);
}

static int npu_opnd_get_dev(struct npu_ring *ring, struct npu_opnd *o, u64 va, u64 len,
			    bool write, bool peer_ok)
{
	int ret;

	o->kind = NPU_OPND_DEV;
	o->addr = va;
	o->peer = NULL;
	ret = npu_mem_range_get_cached(ring->ctx, &ring->xlate, va, len, write, &o->r);
	if (ret != -EFAULT || !peer_ok)
		return ret;
	o->peer = npu_peer_get_ctx(ring->ctx, va, len);
	if (!o->peer)
		return -EFAULT;
	ret = npu_mem_range_get(o->peer, va, len, write, &o->r);
	if (ret) {
		npu_peer_put_ctx(o->peer);
		o->peer = NULL;
	}
	return ret;
}

static int npu_opnd_get_host(struct npu_ring *ring, struct npu_opnd *o, u64 addr, u64 len)
{
	if (!npu_engine_host_ok(addr, len))
		return -EFAULT;
	o->peer = NULL;
	o->reg = NULL;
	o->kaddr = npu_host_get(ring->ctx, addr, len, &o->reg);
	if (o->kaddr) {
		o->kind = NPU_OPND_KERN;
		return 0;
	}
	/* The submitter's process is gone: nothing to copy from or to. */
	if (!ring->mm_ok)
		return -EFAULT;
	o->kind = NPU_OPND_USER;
	o->addr = addr;
	return 0;
}

static void npu_opnd_put(struct npu_opnd *o)
{
	switch (o->kind) {
	case NPU_OPND_DEV:
		npu_mem_range_put(&o->r);
		if (o->peer)
			npu_peer_put_ctx(o->peer);
		break;
	case NPU_OPND_KERN:
		npu_host_put(o->reg);
		break;
	case NPU_OPND_USER:
		break;
	}
}

/*
 * Resolve both operands of a transfer in direction @dir: dst spans @dlen
 * bytes, src @slen. Device operands are checked in the order the copy
 * touches them (the source first).
 */
static int npu_xfer_get(struct npu_ring *ring, struct npu_xfer *x, u32 dir,
			u64 dst, u64 dlen, u64 src, u64 slen)
{
	bool d2d = dir == NPU_DIR_D2D;
	int ret;

	if (dir == NPU_DIR_H2D || dir == NPU_DIR_H2H)
		ret = npu_opnd_get_host(ring, &x->src, src, slen);
	else
		ret = npu_opnd_get_dev(ring, &x->src, src, slen, false, d2d);
	if (ret)
		return ret;
	if (dir == NPU_DIR_D2H || dir == NPU_DIR_H2H)
		ret = npu_opnd_get_host(ring, &x->dst, dst, dlen);
	else
		ret = npu_opnd_get_dev(ring, &x->dst, dst, dlen, true, d2d);
	if (ret)
		npu_opnd_put(&x->src);
	return ret;
}

static void npu_xfer_put(struct npu_xfer *x)
{
	npu_opnd_put(&x->dst);
	npu_opnd_put(&x->src);
}

/*
 * Bytes of operand @o contiguous from offset @pos, at most @want: *k is
 * their kernel address, NULL for user memory. 0 if the backing is missing.
 */
static u64 npu_opnd_seg(const struct npu_opnd *o, u64 pos, u64 want, void **k)
{
	u64 seg;

	switch (o->kind) {
	case NPU_OPND_DEV:
		*k = npu_mem_range_seg(&o->r, pos, &seg);
		return *k ? min(seg, want) : 0;
	case NPU_OPND_KERN:
		*k = o->kaddr + pos;
		return want;
	case NPU_OPND_USER:
		break;
	}
	*k = NULL;
	return want;
}

/*
 * Whether the @n bytes at @k, a piece of operand @o just copied, were lost
 * to a failed page of registered host memory (the copy then fails with
 * -EFAULT). A flag test per page; nothing for other operands.
 */
static bool npu_opnd_lost(const struct npu_opnd *o, const void *k, u64 n)
{
	return o->kind == NPU_OPND_KERN && npu_host_lost(o->reg, k, n);
}

/* Whether [d, d + n) and [s, s + n) do not overlap. */
static bool npu_engine_apart(const void *d, const void *s, u64 n)
{
	uintptr_t a = (uintptr_t)d, b = (uintptr_t)s;

	return a >= b ? a - b >= n : b - a >= n;
}

/*
 * Copy @len bytes from offset @soff of x->src to offset @doff of x->dst.
 * Overlapping device ranges are copied forward, piece by piece (undefined,
 * as for memcpy).
 */
static int npu_engine_move(const struct npu_xfer *x, u64 doff, u64 soff, u64 len,
			   void *bounce)
{
	u64 pos, n;

	for (pos = 0; pos < len; pos += n) {
		void __user *ud = u64_to_user_ptr(x->dst.addr + doff + pos);
		void __user *us = u64_to_user_ptr(x->src.addr + soff + pos);
		void *d, *s;

		n = npu_opnd_seg(&x->dst, doff + pos, len - pos, &d);
		n = n ? npu_opnd_seg(&x->src, soff + pos, n, &s) : 0;
		if (!n)
			return -EIO;
		if (d && s) {
			/*
			 * memcpy where the pieces are apart (always for host
			 * memory): the big copies then take the architecture's
			 * fastest path, streaming stores in the mock.
			 */
			if (npu_engine_apart(d, s, n))
				memcpy(d, s, n);
			else
				memmove(d, s, n);
		} else if (d) {
			if (copy_from_user(d, us, n))
				return -EFAULT;
		} else if (s) {
			if (copy_to_user(ud, s, n))
				return -EFAULT;
		} else {
			n = min_t(u64, n, NPU_ENGINE_BOUNCE_SIZE);
			if (copy_from_user(bounce, us, n) || copy_to_user(ud, bounce, n))
				return -EFAULT;
		}
		if (unlikely((d && npu_opnd_lost(&x->dst, d, n)) ||
			     (s && npu_opnd_lost(&x->src, s, n))))
			return -EFAULT;
		cond_resched();
	}
	return 0;
}

static int npu_engine_fill(const struct npu_opnd *o, u8 value, u64 len, void *bounce)
{
	bool bounce_set = false;
	u64 pos, n;

	for (pos = 0; pos < len; pos += n) {
		void __user *u = u64_to_user_ptr(o->addr + pos);
		void *k;

		n = npu_opnd_seg(o, pos, len - pos, &k);
		if (!n)
			return -EIO;
		if (k) {
			memset(k, value, n);
			if (unlikely(npu_opnd_lost(o, k, n)))
				return -EFAULT;
		} else if (!value) {
			if (clear_user(u, n))
				return -EFAULT;
		} else {
			n = min_t(u64, n, NPU_ENGINE_BOUNCE_SIZE);
			if (!bounce_set) {
				memset(bounce, value, min_t(u64, len, NPU_ENGINE_BOUNCE_SIZE));
				bounce_set = true;
			}
			if (copy_to_user(u, bounce, n))
				return -EFAULT;
		}
		cond_resched();
	}
	return 0;
}

/* Device memory of a context (and of a peer's device) was written. */
static void npu_engine_wrote(struct npu_ring *ring, const struct npu_opnd *dst, bool *wrote)
{
	if (dst->kind != NPU_OPND_DEV)
		return;
	*wrote = true;
	/* Parked rings of the peer's device look at their conditions again. */
	if (dst->peer)
		npu_pool_signal(dst->peer->ndev->pool);
}

/*
 * A small copy within device memory of the ring's context whose operands
 * the batch's translations hold, each contiguous in the kernel: no range
 * to take, walk and put, which were two thirds of the instructions an
 * engine spent on a 64-byte copy. False when the cache cannot answer;
 * nothing is copied then.
 */
static bool npu_engine_copy_cached(struct npu_ring *ring, u64 dst, u64 src, u64 len)
{
	void *s, *d;

	s = npu_mem_xlate_kaddr(ring->ctx, &ring->xlate, src, len, false);
	if (!s)
		return false;
	d = npu_mem_xlate_kaddr(ring->ctx, &ring->xlate, dst, len, true);
	if (!d)
		return false;
	memmove(d, s, len);
	return true;
}

/* Bytes [off, off + len) of a split copy (npu_job_run()'s callback); @arg is the xfer. */
static int npu_engine_chunk(void *arg, u64 off, u64 len, void *bounce)
{
	return npu_engine_move(arg, off, off, len, bounce);
}

/* Whether an engine running part of @x must adopt the ring's mm. */
static bool npu_engine_xfer_user(const struct npu_xfer *x)
{
	return x->dst.kind == NPU_OPND_USER || x->src.kind == NPU_OPND_USER;
}

/* A 1-D copy of len (> 0) bytes in direction dir (< NPU_DIR_COUNT). */
static int npu_engine_copy_range(struct npu_ring *ring, void *bounce, u32 dir, u64 dst, u64 src,
				 u64 len, bool *wrote)
{
	struct npu_xfer x;
	int ret;

	if (dir == NPU_DIR_D2D && len <= NPU_ENGINE_QUICK_BYTES &&
	    npu_engine_copy_cached(ring, dst, src, len)) {
		*wrote = true;
		return 0;
	}
	ret = npu_xfer_get(ring, &x, dir, dst, len, src, len);
	if (ret)
		return ret;
	ret = -EAGAIN;
	if (len >= NPU_ENGINE_SPLIT_MIN)
		ret = npu_job_run(ring->ctx->ndev->jobs, len, npu_engine_chunk, &x,
				  npu_engine_xfer_user(&x) ? ring->mm : NULL, bounce);
	if (ret == -EAGAIN)
		ret = npu_engine_move(&x, 0, 0, len, bounce);
	npu_engine_wrote(ring, &x.dst, wrote);
	npu_xfer_put(&x);
	return ret;
}

static int npu_engine_copy(struct npu_ring *ring, void *bounce, const struct npu_sqe *sqe,
			   bool *wrote)
{
	if (sqe->value || !sqe->len || sqe->dir >= NPU_DIR_COUNT)
		return -EINVAL;
	return npu_engine_copy_range(ring, bounce, sqe->dir, sqe->dst, sqe->src, sqe->len, wrote);
}

/*
 * REDUCE: a D2D copy that combines each element with the one it lands on
 * (npu_reduce.c), in pieces of at most NPU_REDUCE_PIECE_MAX bytes, each
 * inside its own FPU bracket, so preemption is never off for long. Element
 * alignment keeps every element within one page of both operands. A
 * failure part-way leaves the pieces before it reduced.
 */
static int npu_engine_reduce(struct npu_ring *ring, const struct npu_sqe *sqe, bool *wrote)
{
	u32 op = sqe->value & 0xff, type = (sqe->value >> 8) & 0xff;
	unsigned int size = npu_reduce_elem_size(type);
	struct npu_xfer x;
	u64 pos, n;
	void *d, *s;
	int ret = 0;

	if (sqe->dir != NPU_DIR_D2D || !sqe->len || sqe->value >> 16 ||
	    op >= NPU_REDUCE_OP_COUNT || !size)
		return -EINVAL;
	if (!IS_ALIGNED(sqe->dst | sqe->src | sqe->len, size))
		return -EINVAL;
	ret = npu_xfer_get(ring, &x, NPU_DIR_D2D, sqe->dst, sqe->len, sqe->src, sqe->len);
	if (ret)
		return ret;
	for (pos = 0; pos < sqe->len; pos += n) {
		n = npu_opnd_seg(&x.dst, pos, min_t(u64, sqe->len - pos, NPU_REDUCE_PIECE_MAX), &d);
		n = n ? npu_opnd_seg(&x.src, pos, n, &s) : 0;
		if (!n || !d || !s) {
			ret = -EIO;
			break;
		}
		npu_reduce_fpu_begin();
		npu_reduce_piece(d, s, n, op, type);
		npu_reduce_fpu_end();
		cond_resched();
	}
	npu_engine_wrote(ring, &x.dst, wrote);
	npu_xfer_put(&x);
	return ret;
}

static noinline u64 npu_engine_word_load(const u64 *word);

/*
 * COPY_INDIRECT: the record at sqe->src is device memory the application
 * may rewrite at any time, so each field is loaded once into private
 * memory, and only the private copy is checked and used: the copy then
 * resolves its operands like any D2D COPY.
 */
static int npu_engine_copy_indirect(struct npu_ring *ring, void *bounce,
				    const struct npu_sqe *sqe, bool *wrote)
{
	struct npu_copy_ind rec;
	struct npu_opnd o;
	const u64 *k;
	void *p;
	int ret;

	if (sqe->dir != NPU_DIR_D2D || sqe->dst || sqe->len || sqe->value)
		return -EINVAL;
	/* Aligned to its size, the record never straddles a page. */
	if (!IS_ALIGNED(sqe->src, sizeof(rec)))
		return -EINVAL;
	ret = npu_opnd_get_dev(ring, &o, sqe->src, sizeof(rec), false, false);
	if (ret)
		return ret;
	if (npu_opnd_seg(&o, 0, sizeof(rec), &p) < sizeof(rec)) {
		npu_opnd_put(&o);
		return -EIO;
	}
	k = p;
	rec.src = npu_engine_word_load(&k[0]);
	rec.dst = npu_engine_word_load(&k[1]);
	rec.len = npu_engine_word_load(&k[2]);
	rec.rsvd = npu_engine_word_load(&k[3]);
	npu_opnd_put(&o);
	/* What the writer wrote before the record is visible after it. */
	smp_rmb();
	if (!rec.len || rec.rsvd)
		return -EINVAL;
	return npu_engine_copy_range(ring, bounce, NPU_DIR_D2D, rec.dst, rec.src, rec.len, wrote);
}

/*
 * Load the __u64 slot at device VA @va, 8-byte aligned memory of the ring's
 * own context (not a peer's), into *@out: one aligned 8-byte load.
 */
static int npu_engine_slot_load(struct npu_ring *ring, u64 va, u64 *out)
{
	struct npu_opnd o;
	void *p;
	int ret;

	/* Aligned to its size, the slot never straddles a page. */
	if (!IS_ALIGNED(va, sizeof(u64)))
		return -EINVAL;
	ret = npu_opnd_get_dev(ring, &o, va, sizeof(u64), false, false);
	if (ret)
		return ret;
	if (npu_opnd_seg(&o, 0, sizeof(u64), &p) < sizeof(u64)) {
		npu_opnd_put(&o);
		return -EIO;
	}
	*out = npu_engine_word_load(p);
	npu_opnd_put(&o);
	return 0;
}

/*
 * COPY_DEREF: sqe->dst and sqe->src are slots holding base addresses that
 * the application may rewrite at any time. Each slot is loaded once into
 * private memory; the private bases plus the descriptor's offsets are
 * checked for wrap-around, then the copy resolves its operands like any
 * D2D COPY (a base naming memory outside the context and its enabled
 * peers fails there with -EFAULT).
 */
static int npu_engine_copy_deref(struct npu_ring *ring, void *bounce,
				 const struct npu_sqe *sqe, bool *wrote)
{
	u64 dbase, sbase, dst, src;
	int ret;

	if (sqe->dir != NPU_DIR_D2D || !sqe->len)
		return -EINVAL;
	if (!IS_ALIGNED(sqe->dst, sizeof(u64)) || !IS_ALIGNED(sqe->src, sizeof(u64)))
		return -EINVAL;
	ret = npu_engine_slot_load(ring, sqe->src, &sbase);
	if (ret)
		return ret;
	ret = npu_engine_slot_load(ring, sqe->dst, &dbase);
	if (ret)
		return ret;
	/* What the writer wrote before the slots is visible after them. */
	smp_rmb();
	if (check_add_overflow(sbase, sqe->src_off, &src) ||
	    check_add_overflow(dbase, sqe->dst_off, &dst))
		return -EINVAL;
	return npu_engine_copy_range(ring, bounce, NPU_DIR_D2D, dst, src, sqe->len, wrote);
}

/* Bytes a 2-D operand spans: (rows - 1) * pitch + width, or 0 on overflow. */
static u64 npu_engine_span2d(u64 width, u64 rows, u64 pitch)
{
	u64 span;

	if (check_mul_overflow(rows - 1, pitch, &span) ||
	    check_add_overflow(span, width, &span))
		return 0;
	return span;
}

static int npu_engine_copy2d(struct npu_ring *ring, void *bounce, const struct npu_sqe *sqe,
			     bool *wrote)
{
	u64 width = sqe->len, rows = sqe->value, dspan, sspan, row;
	struct npu_xfer x;
	int ret = 0;

	if (!width || !rows || sqe->dir >= NPU_DIR_COUNT || sqe->dpitch < width ||
	    sqe->spitch < width)
		return -EINVAL;
	dspan = npu_engine_span2d(width, rows, sqe->dpitch);
	sspan = npu_engine_span2d(width, rows, sqe->spitch);
	if (!dspan || !sspan)
		return -EINVAL;
	ret = npu_xfer_get(ring, &x, sqe->dir, sqe->dst, dspan, sqe->src, sspan);
	if (ret)
		return ret;
	for (row = 0; row < rows && !ret; row++)
		ret = npu_engine_move(&x, row * sqe->dpitch, row * sqe->spitch, width, bounce);
	npu_engine_wrote(ring, &x.dst, wrote);
	npu_xfer_put(&x);
	return ret;
}

static int npu_engine_memset(struct npu_ring *ring, void *bounce, const struct npu_sqe *sqe,
			     bool *wrote)
{
	struct npu_opnd o;
	int ret;

	if (sqe->src || !sqe->len || sqe->value > 0xff)
		return -EINVAL;
	switch (sqe->dir) {
	case NPU_DIR_H2D:
		ret = npu_opnd_get_dev(ring, &o, sqe->dst, sqe->len, true, false);
		break;
	case NPU_DIR_H2H:
		ret = npu_opnd_get_host(ring, &o, sqe->dst, sqe->len);
		break;
	default:
		return -EINVAL;
	}
	if (ret)
		return ret;
	ret = npu_engine_fill(&o, sqe->value, sqe->len, bounce);
	npu_engine_wrote(ring, &o, wrote);
	npu_opnd_put(&o);
	return ret;
}

/*
 * The 8-byte word of a VALUE_WRITE or VALUE_WAIT: checks the fields and
 * holds the range; *word is its kernel address.
 */
static int npu_engine_value_get(struct npu_ring *ring, const struct npu_sqe *sqe, bool write,
				struct npu_opnd *o, u64 **word)
{
	void *k;
	int ret;

	if (sqe->dir || sqe->src || (sqe->len && sqe->len != sizeof(u64)))
		return -EINVAL;
	if (!IS_ALIGNED(sqe->dst, sizeof(u64)))
		return -EINVAL;
	ret = npu_opnd_get_dev(ring, o, sqe->dst, sizeof(u64), write, false);
	if (ret)
		return ret;
	if (npu_opnd_seg(o, 0, sizeof(u64), &k) < sizeof(u64)) {
		npu_opnd_put(o);
		return -EIO;
	}
	*word = k;
	return 0;
}

/*
 * The one access of a value operation to its word. Device memory is shared
 * by every engine and by the application's copies, which may move bytes
 * over the word at any time (as DMA would, without ordering between
 * rings): these are single 8-byte accesses of aligned words, never torn.
 * Kept out of line so that ThreadSanitizer runs of the mock can tell these
 * accesses to device memory from the driver's own data.
 */
static noinline u64 npu_engine_word_load(const u64 *word)
{
	return READ_ONCE(*word);
}

static noinline void npu_engine_word_store(u64 *word, u64 value)
{
	WRITE_ONCE(*word, value);
}

/* VALUE_WRITE stores sqe->value; TIMESTAMP, the engine's clock as it runs. */
static int npu_engine_value_write(struct npu_ring *ring, const struct npu_sqe *sqe, bool *wrote)
{
	struct npu_opnd o;
	u64 *word;
	int ret;

	if (sqe->opcode == NPU_OP_TIMESTAMP && sqe->value)
		return -EINVAL;
	ret = npu_engine_value_get(ring, sqe, true, &o, &word);
	if (ret)
		return ret;
	/* What this ring wrote before is visible before the value. */
	smp_wmb();
	npu_engine_word_store(word, sqe->opcode == NPU_OP_TIMESTAMP ? ktime_get_ns() : sqe->value);
	npu_engine_wrote(ring, &o, wrote);
	npu_opnd_put(&o);
	return 0;
}

/* The VALUE_WAIT conditions, as aclrtValueWait and the uapi give them. */
static bool npu_engine_wait_cond(u32 cond, u64 m, u64 value)
{
	switch (cond) {
	case NPU_WAIT_GEQ:
		return (s64)(m - value) >= 0;
	case NPU_WAIT_EQ:
		return m == value;
	case NPU_WAIT_AND:
		return (m & value) != 0;
	case NPU_WAIT_NOR:
		return ~(m | value) != 0;
	}
	return false;
}

static int npu_engine_check(const struct npu_sqe *sqe)
{
	if (sqe->flags & ~NPU_SQE_FLAGS_ALL)
		return -EINVAL;
	if (sqe->rsvd0 || sqe->rsvd1 || sqe->rsvd2)
		return -EINVAL;
	/* COPY_DEREF's src_off shares the pitches' bytes. */
	if (sqe->opcode != NPU_OP_COPY2D && sqe->opcode != NPU_OP_COPY_DEREF &&
	    (sqe->dpitch || sqe->spitch))
		return -EINVAL;
	if (sqe->opcode != NPU_OP_VALUE_WAIT && sqe->cond)
		return -EINVAL;
	return 0;
}

/*
 * Evaluate a VALUE_WAIT. Return: 1 when its condition holds, 0 while it
 * does not, -errno for a malformed descriptor or a word no longer mapped.
 */
static int npu_engine_value_wait(struct npu_ring *ring, const struct npu_sqe *sqe)
{
	struct npu_opnd o;
	u64 *word, m;
	int ret;

	ret = npu_engine_check(sqe);
	if (ret)
		return ret;
	if (sqe->cond >= NPU_WAIT_COUNT)
		return -EINVAL;
	ret = npu_engine_value_get(ring, sqe, false, &o, &word);
	if (ret)
		return ret;
	m = npu_engine_word_load(word);
	/* What the writer wrote before the value is visible after it. */
	smp_rmb();
	npu_opnd_put(&o);
	return npu_engine_wait_cond(sqe->cond, m, sqe->value);
}

/**
 * npu_engine_exec() - validate and execute one descriptor (not VALUE_WAIT)
 * @ring: the ring it came from; the caller runs it (holds submit_lock)
 * @bounce: a staging buffer of NPU_ENGINE_BOUNCE_SIZE bytes
 * @sqe: a private copy of the descriptor
 * @wrote: set when device memory was written
 *
 * Return: the CQE result: 0; -EINVAL for a malformed descriptor (opcode,
 * flags, dir, a non-zero reserved or unused field, len 0, a fill value
 * above 0xff, an unaligned value address, 2-D pitches below the width or
 * spans that overflow, an indirect record that is unaligned, has len 0
 * or a non-zero rsvd, a COPY_DEREF slot that is unaligned or a slot's
 * base plus its offset that wraps, a REDUCE of an unknown operation or
 * type, or with addresses or length not multiples of its element); -EFAULT for a device range not inside one
 * allocation of the context (or of an enabled peer, for D2D), a wrapping
 * range or an unreachable host address; -EPERM for a write into a
 * READONLY allocation.
 */
s32 npu_engine_exec(struct npu_ring *ring, void *bounce, const struct npu_sqe *sqe, bool *wrote)
{
	int ret = npu_engine_check(sqe);

	if (ret)
		return ret;
	switch (sqe->opcode) {
	case NPU_OP_NOP:
		if (sqe->dir || sqe->dst || sqe->src || sqe->len || sqe->value)
			return -EINVAL;
		return 0;
	case NPU_OP_COPY:
		return npu_engine_copy(ring, bounce, sqe, wrote);
	case NPU_OP_MEMSET:
		return npu_engine_memset(ring, bounce, sqe, wrote);
	case NPU_OP_COPY2D:
		return npu_engine_copy2d(ring, bounce, sqe, wrote);
	case NPU_OP_VALUE_WRITE:
	case NPU_OP_TIMESTAMP:
		return npu_engine_value_write(ring, sqe, wrote);
	case NPU_OP_COPY_INDIRECT:
		return npu_engine_copy_indirect(ring, bounce, sqe, wrote);
	case NPU_OP_COPY_DEREF:
		return npu_engine_copy_deref(ring, bounce, sqe, wrote);
	case NPU_OP_REDUCE:
		return npu_engine_reduce(ring, sqe, wrote);
	}
	return -EINVAL;
}

/*
 * One SQE consumed. Only the ring's runner writes st_sqes (the callers
 * have just read the SQE under submit_lock), so a plain add does: no
 * locked read-modify-write per descriptor.
 */
static void npu_engine_count_sqe(struct npu_ring *ring)
{
	atomic64_set(&ring->st_sqes, atomic64_read(&ring->st_sqes) + 1);
}

/*
 * Complete every descriptor published before abort_tail with -ECANCELED:
 * at most sq_entries of them, whatever the application wrote to sq_tail.
 */
static void npu_engine_cancel(struct npu_ring *ring, u32 abort_tail)
{
	struct npu_sqe sqe;
	u32 n, ready = 0;

	if (ring->has_held) {
		ring->has_held = false;
		npu_ring_post_cqe(ring, ring->held.user_data, -ECANCELED);
	}
	/* The ring may have run past abort_tail since the abort was asked for. */
	n = abort_tail - ring->sq_head;
	if ((s32)n <= 0)
		return;
	/* More than the SQ holds: npu_ring_sq_ready() fails the ring. */
	n = min(n, ring->sq_entries + 1);
	while (n--) {
		if (!ready) {
			ready = npu_ring_sq_ready(ring);
			if (!ready)
				return;
		}
		if (!npu_ring_read_sqe(ring, &sqe))
			return;
		ready--;
		npu_engine_count_sqe(ring);
		npu_ring_post_cqe(ring, sqe.user_data, -ECANCELED);
	}
}

/*
 * A descriptor that completes in about the time of a small copy: its
 * CQE's waiters may be woken together with those of the descriptors after
 * it. Anything that may take long (a big copy, pageable host memory that
 * may fault) has the waiters of what came before woken first.
 */
static bool npu_engine_quick(const struct npu_sqe *sqe)
{
	switch (sqe->opcode) {
	case NPU_OP_NOP:
	case NPU_OP_VALUE_WRITE:
	case NPU_OP_TIMESTAMP:
		return true;
	case NPU_OP_COPY:
	case NPU_OP_MEMSET:
		return sqe->dir == NPU_DIR_D2D && sqe->len <= NPU_ENGINE_QUICK_BYTES;
	}
	return false;
}

/* One batch, as npu_engine_run() describes it; the caller empties ring->xlate after. */
static enum npu_engine_stop npu_engine_run_batch(struct npu_ring *ring, void *bounce, u32 budget,
						 bool abort, u32 abort_tail, bool *wrote)
{
	struct npu_sqe sqe;
	u32 i, ready;
	int r;

	if (npu_ring_failed(ring))
		return NPU_ENGINE_IDLE;
	if (abort)
		npu_engine_cancel(ring, abort_tail);
	if (ring->has_held) {
		r = npu_engine_value_wait(ring, &ring->held);
		if (!r)
			return NPU_ENGINE_PARKED;
		ring->has_held = false;
		npu_ring_post_cqe(ring, ring->held.user_data, r < 0 ? r : 0);
	}
	for (i = 0, ready = 0; i < budget; i++, ready--) {
		/*
		 * sq_tail is read again only once the SQEs seen last time are
		 * consumed: its cache line then stays with a busy producer.
		 */
		if (!ready) {
			ready = npu_ring_sq_ready(ring);
			if (!ready)
				return NPU_ENGINE_IDLE;
		}
		if (!npu_ring_read_sqe(ring, &sqe))
			return NPU_ENGINE_IDLE;
		npu_engine_count_sqe(ring);
		if (sqe.opcode == NPU_OP_VALUE_WAIT) {
			r = npu_engine_value_wait(ring, &sqe);
			if (!r) {
				ring->held = sqe;
				ring->has_held = true;
				return NPU_ENGINE_PARKED;
			}
			npu_ring_post_cqe(ring, sqe.user_data, r < 0 ? r : 0);
			continue;
		}
		if (!npu_engine_quick(&sqe)) {
			/* Who waits for the quick ones before it is not held up. */
			npu_ring_commit_cqes(ring);
			npu_ring_post_cqe(ring, sqe.user_data,
					  npu_engine_exec(ring, bounce, &sqe, wrote));
			continue;
		}
		/* Published by npu_engine_run() at the latest, as the batch ends. */
		npu_ring_fill_cqe(ring, sqe.user_data, npu_engine_exec(ring, bounce, &sqe, wrote));
	}
	return npu_ring_sq_ready(ring) ? NPU_ENGINE_MORE : NPU_ENGINE_IDLE;
}

/**
 * npu_engine_run() - run a batch of a ring
 * @ring: the ring; the caller owns it (state RUNNING) and holds submit_lock
 * @bounce: the engine's staging buffer, NPU_ENGINE_BOUNCE_SIZE bytes
 * @budget: the most descriptors to execute
 * @abort: first cancel what was published before @abort_tail
 * @abort_tail: see @abort
 * @wrote: set when the batch wrote device memory
 *
 * The translations the batch cached (ring->xlate) are dropped at its end.
 *
 * Return: NPU_ENGINE_IDLE when the SQ is empty, NPU_ENGINE_MORE when the
 * budget ran out with SQEs left, NPU_ENGINE_PARKED when the ring holds a
 * VALUE_WAIT that is not true yet.
 */
enum npu_engine_stop npu_engine_run(struct npu_ring *ring, void *bounce, u32 budget,
				    bool abort, u32 abort_tail, bool *wrote)
{
	enum npu_engine_stop stop;

	lockdep_assert_held(&ring->submit_lock);
	stop = npu_engine_run_batch(ring, bounce, budget, abort, abort_tail, wrote);
	npu_mem_xlate_drop(&ring->xlate);
	npu_ring_commit_cqes(ring);
	return stop;
}
