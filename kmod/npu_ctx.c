// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Per-open-file context.
 *
 * A context is created at open(), remembers the opener's TGID (what the
 * driver reports as the caller's identity), gets its address space from
 * NPU_IOCTL_CTX_SETUP and owns every allocation and ring created through
 * its file. The file belongs to its opener: a call from any other process
 * (a forked child, a process the fd was passed to) gets -EBADF. The
 * context dies with its opener (amdkfd's way: an mmu notifier on the
 * opener's mm, whose ->release runs when the process exits), and at the
 * latest at release(): a file another process still holds is then an
 * empty shell whose calls get -EBADF until its last close.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_mem.h"
#include "npu_peer.h"
#include "npu_share.h"
#include "npu_smi.h"
#include "npu_submit.h"
#include "npu_vmm.h"

/* Owner ids of contexts: never reused, so frames are never mistaken for a new context's. */
static atomic64_t npu_ctx_owner_seq = ATOMIC64_INIT(0);

/* The opener's address space is going away: so does the context. */
static void npu_ctx_mn_release(struct mmu_notifier *mn, struct mm_struct *mm)
{
	npu_ctx_destroy(container_of(mn, struct npu_ctx, mn));
}

static const struct mmu_notifier_ops npu_ctx_mn_ops = {
	.release = npu_ctx_mn_release,
};

/**
 * npu_ctx_create() - a context for a file being opened
 * @ndev: the device
 * @out: the new context
 *
 * Return: 0, -EINVAL without a user address space, -ENOMEM, or
 * -ERESTARTSYS when a signal interrupted the notifier's registration.
 */
int npu_ctx_create(struct npu_device *ndev, struct npu_ctx **out)
{
	struct npu_ctx *ctx;
	int id, ret;

	if (!current->mm)
		return -EINVAL;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	kref_init(&ctx->ref);
	ctx->ndev = ndev;
	ctx->tgid = task_tgid_nr(current);
	ctx->start_time = current->group_leader->start_boottime;
	ctx->owner = atomic64_inc_return(&npu_ctx_owner_seq);
	ret = npu_limits_proc_enter(&ndev->limits, ctx->tgid, npu_limits_current_uid(),
				    &ctx->proc);
	if (ret) {
		kfree(ctx);
		return ret;
	}
	ctx->opener = get_task_pid(current, PIDTYPE_TGID);
	init_rwsem(&ctx->live);
	mutex_init(&ctx->lock);
	npu_host_init(ctx);
	INIT_LIST_HEAD(&ctx->peers);
	INIT_LIST_HEAD(&ctx->exports);
	INIT_LIST_HEAD(&ctx->peer_of);
	idr_init(&ctx->mems);
	idr_init(&ctx->rings);
	idr_init(&ctx->phys);

	mutex_lock(&ndev->lock);
	id = idr_alloc_cyclic(&ndev->ctx_idr, ctx, 1, 0, GFP_KERNEL);
	mutex_unlock(&ndev->lock);
	if (id < 0) {
		ret = id;
		goto err_free_ctx;
	}
	ctx->id = id;
	atomic_inc(&ndev->nr_contexts);

	/* Last: from here on the opener's exit may tear the context down. */
	ctx->mn.ops = &npu_ctx_mn_ops;
	ret = mmu_notifier_register(&ctx->mn, current->mm);
	/*
	 * -EINTR: a signal or task work (io_uring's) is pending. Nothing is
	 * left behind, so let the open restart once it has been handled.
	 */
	if (ret == -EINTR)
		ret = -ERESTARTSYS;
	if (ret)
		goto err_remove_ctx;
	*out = ctx;
	return 0;

err_remove_ctx:
	mutex_lock(&ndev->lock);
	idr_remove(&ndev->ctx_idr, ctx->id);
	mutex_unlock(&ndev->lock);
	atomic_dec(&ndev->nr_contexts);
err_free_ctx:
	idr_destroy(&ctx->phys);
	idr_destroy(&ctx->rings);
	idr_destroy(&ctx->mems);
	mutex_destroy(&ctx->lock);
	npu_limits_proc_leave(ctx->proc);
	npu_limits_proc_put(ctx->proc);
	put_pid(ctx->opener);
	kfree(ctx);
	return ret;
}

/* The last reference is gone: nothing can reach the context any more. */
static void npu_ctx_free(struct kref *ref)
{
	struct npu_ctx *ctx = container_of(ref, struct npu_ctx, ref);

	if (ctx->setup)
		npu_vas_fini(&ctx->vas);
	idr_destroy(&ctx->phys);
	idr_destroy(&ctx->rings);
	idr_destroy(&ctx->mems);
	mutex_destroy(&ctx->lock);
	npu_limits_proc_put(ctx->proc);
	put_pid(ctx->opener);
	kfree(ctx);
}

/**
 * npu_ctx_put() - drop a reference on a context
 * @ctx: the context
 *
 * The last one frees the struct; npu_ctx_destroy() must have run.
 */
void npu_ctx_put(struct npu_ctx *ctx)
{
	kref_put(&ctx->ref, npu_ctx_free);
}

/**
 * npu_ctx_enter() - start a call on a context
 * @ctx: the file's context
 *
 * Every ioctl and io_uring command starts here, before it looks at
 * anything else: only a thread of the opener may use the file, and only
 * while the context lives. Pair with npu_ctx_exit().
 *
 * Return: 0, or -EBADF for another process or a torn-down context.
 */
int npu_ctx_enter(struct npu_ctx *ctx)
{
	if (task_tgid(current) != ctx->opener)
		return -EBADF;
	down_read(&ctx->live);
	if (READ_ONCE(ctx->dead)) {
		up_read(&ctx->live);
		return -EBADF;
	}
	return 0;
}

/**
 * npu_ctx_exit() - end a call that npu_ctx_enter() let in
 * @ctx: the context
 */
void npu_ctx_exit(struct npu_ctx *ctx)
{
	up_read(&ctx->live);
}

/**
 * npu_ctx_destroy() - release everything a context owns
 * @ctx: the context
 *
 * Runs at the opener's exit (the mmu notifier's ->release) and at
 * release(), possibly both at once: the first does the work, the other
 * waits for it and returns. New calls get -EBADF from the moment it
 * starts. The rings go first and without waiting, which ends the waits of
 * calls in flight (their rings go idle); then it waits for those calls to
 * leave and releases the rest: the rings a call in flight may just have
 * created, the peer links from and to it and the host registrations, the
 * exports this file made (no new imports), the allocations and imports,
 * and last the VMM reservations and physical handles. An engine of
 * another context may still hold a reference (npu_peer_get_ctx()): it
 * then finds an empty address space, and the struct lives until its
 * npu_peer_put_ctx().
 */
void npu_ctx_destroy(struct npu_ctx *ctx)
{
	struct npu_device *ndev = ctx->ndev;

	WRITE_ONCE(ctx->dead, true);
	npu_submit_release_all(ctx);

	down_write(&ctx->live);
	if (ctx->torn_down)
		goto out;
	npu_submit_release_all(ctx);
	npu_peer_release_all(ctx);
	npu_host_release_all(ctx);
	npu_share_release_ctx(ctx);
	npu_mem_release_all(ctx);
	npu_vmm_release_all(ctx);
	npu_limits_proc_leave(ctx->proc);

	mutex_lock(&ndev->lock);
	idr_remove(&ndev->ctx_idr, ctx->id);
	mutex_unlock(&ndev->lock);
	/* A torn-down context is an empty shell: it no longer counts. */
	atomic_dec(&ndev->nr_contexts);
	ctx->torn_down = true;
out:
	up_write(&ctx->live);
}

/**
 * npu_ctx_release() - the file's last close
 * @ctx: the context; freed once no peer link or engine holds it
 *
 * Tears the context down if its opener's exit has not, waits for a
 * teardown the opener's exit may be running, and drops the file's
 * reference.
 */
void npu_ctx_release(struct npu_ctx *ctx)
{
	npu_ctx_destroy(ctx);
	/* Waits for a ->release in progress; drops the reference on the mm. */
	mmu_notifier_unregister(&ctx->mn, ctx->mn.mm);
	npu_ctx_put(ctx);
}

/**
 * npu_ctx_setup() - give the context its device-VA aperture
 * @ctx: the context
 * @va_base: first address, a non-zero multiple of 1 GiB
 * @va_size: bytes, a non-zero multiple of 1 GiB; the range must not wrap
 *
 * Return: 0, -EINVAL for a bad aperture, -EEXIST if already set up.
 */
int npu_ctx_setup(struct npu_ctx *ctx, u64 va_base, u64 va_size)
{
	u64 end;
	int ret = 0;

	if (!va_base || !va_size || !IS_ALIGNED(va_base, (u64)SZ_1G) ||
	    !IS_ALIGNED(va_size, (u64)SZ_1G) ||
	    check_add_overflow(va_base, va_size, &end))
		return -EINVAL;

	mutex_lock(&ctx->lock);
	if (ctx->setup) {
		ret = -EEXIST;
	} else {
		npu_vas_init(&ctx->vas, va_base, va_size);
		/* Publish the address space to lockless npu_ctx_is_setup() readers. */
		smp_store_release(&ctx->setup, true);
	}
	mutex_unlock(&ctx->lock);
	return ret;
}

/* One record per open file of @ndev; the first @count go to @recs. */
static u32 npu_ctx_smi_fill(struct npu_device *ndev, struct npu_smi_proc *recs, u32 count)
{
	struct npu_ctx *ctx;
	u32 n = 0;
	int id;

	mutex_lock(&ndev->lock);
	idr_for_each_entry(&ndev->ctx_idr, ctx, id) {
		if (n < count) {
			struct npu_smi_proc *r = &recs[n];

			r->tgid = ctx->tgid;
			r->ctx_id = ctx->id;
			r->mapped_bytes = READ_ONCE(ctx->mapped_bytes);
			r->allocations = READ_ONCE(ctx->nr_mems);
			r->imports = READ_ONCE(ctx->nr_imports);
			r->phys_handles = READ_ONCE(ctx->nr_phys);
			r->phys_bytes = READ_ONCE(ctx->phys_bytes);
			npu_limits_smi_fill(ctx->proc, r);
		}
		n++;
	}
	mutex_unlock(&ndev->lock);
	return n;
}

/**
 * npu_ctx_smi_procs() - NPU_IOCTL_SMI_PROCS: one record per open file of @ndev
 * @ndev: the device
 * @args: the query; total and written are filled on success
 *
 * The records are statistics: the counters of each context are read
 * without its lock (they are written with WRITE_ONCE under it), while the
 * device lock keeps the contexts themselves from going away. Each record
 * also carries its process's use of its per-process limits, the same for
 * every file the process has open.
 *
 * Return: 0; -EINVAL for a count above the limit; -EFAULT; -ENOMEM.
 */
int npu_ctx_smi_procs(struct npu_device *ndev, struct npu_smi_query *args)
{
	struct npu_smi_proc *recs = npu_smi_alloc(args, sizeof(*recs));

	if (IS_ERR(recs))
		return PTR_ERR(recs);
	return npu_smi_reply(args, recs, npu_ctx_smi_fill(ndev, recs, args->count),
			     sizeof(*recs));
}
