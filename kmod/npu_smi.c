// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Queries for npu-smi.
 *
 * The per-process records are statistics: the counters of each context are
 * read without its lock (they are written with WRITE_ONCE under it), while
 * the device lock keeps the contexts themselves from going away. Each
 * record also carries its process's use of its per-process limits, the
 * same for every file the process has open. The per-user records are the
 * users' budgets on the device (npu_limits.c).
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_limits.h"
#include "npu_smi.h"

/* Records npu-smi may ask for in one call. */
#define NPU_SMI_MAX_PROCS	65536

/**
 * npu_smi_reply() - finish an SMI query: copy out the records and free them
 * @args: the query; total and written are filled
 * @recs: the records gathered (kvmalloc'ed, or NULL when count is 0); freed
 * @n: how many exist; the first min(@n, count) are in @recs
 * @rec_size: bytes of one record
 *
 * Return: 0 or -EFAULT.
 */
int npu_smi_reply(struct npu_smi_query *args, void *recs, u32 n, size_t rec_size)
{
	int ret = 0;

	args->total = n;
	args->written = min(n, args->count);
	if (args->written &&
	    copy_to_user(u64_to_user_ptr(args->buf), recs, (size_t)args->written * rec_size))
		ret = -EFAULT;
	kvfree(recs);
	return ret;
}

/**
 * npu_smi_procs() - NPU_IOCTL_SMI_PROCS: one record per open file of @ndev
 * @ndev: the device
 * @args: the query; total and written are filled on success
 *
 * Return: 0; -EINVAL for a count above the limit; -EFAULT; -ENOMEM.
 */
int npu_smi_procs(struct npu_device *ndev, struct npu_smi_query *args)
{
	struct npu_smi_proc *recs = NULL;
	struct npu_ctx *ctx;
	u32 n = 0;
	int id;

	if (args->count > NPU_SMI_MAX_PROCS)
		return -EINVAL;
	if (args->count) {
		recs = kvcalloc(args->count, sizeof(*recs), GFP_KERNEL);
		if (!recs)
			return -ENOMEM;
	}
	mutex_lock(&ndev->lock);
	idr_for_each_entry(&ndev->ctx_idr, ctx, id) {
		if (n < args->count) {
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
	return npu_smi_reply(args, recs, n, sizeof(*recs));
}

/**
 * npu_smi_users() - NPU_IOCTL_SMI_USERS: one record per user of @ndev
 * @ndev: the device
 * @args: the query, pad checked; total and written are filled on success
 *
 * Return: 0; -EINVAL for a count above the limit; -EFAULT; -ENOMEM.
 */
int npu_smi_users(struct npu_device *ndev, struct npu_smi_query *args)
{
	return npu_limits_smi_users(&ndev->limits, args);
}
