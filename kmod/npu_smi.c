// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Replies to npu-smi queries.
 *
 * Each query (the processes of a device: npu_ctx.c; its users:
 * npu_limits.c; the exports of the driver: npu_share.c) gathers records
 * of a fixed size into room sized by the caller's count, then tells the
 * caller how many exist and copies out those that fit. The room and the
 * copy are here, once: a query fills records under its own lock, between
 * npu_smi_alloc() and npu_smi_reply().
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_smi.h"

/* Records npu-smi may ask for in one call. */
#define NPU_SMI_MAX_RECORDS	65536

/**
 * npu_smi_alloc() - room for the records a query asks for
 * @args: the query
 * @rec_size: bytes of one record
 *
 * Return: zeroed room for count records, to be handed to npu_smi_reply();
 * NULL when the query asks for none; ERR_PTR of -EINVAL for a count above
 * NPU_SMI_MAX_RECORDS, or of -ENOMEM.
 */
void *npu_smi_alloc(const struct npu_smi_query *args, size_t rec_size)
{
	void *recs;

	if (args->count > NPU_SMI_MAX_RECORDS)
		return ERR_PTR(-EINVAL);
	if (!args->count)
		return NULL;
	recs = kvcalloc(args->count, rec_size, GFP_KERNEL);
	return recs ?: ERR_PTR(-ENOMEM);
}

/**
 * npu_smi_reply() - finish a query: copy out the records and free them
 * @args: the query; total and written are filled
 * @recs: what npu_smi_alloc() returned, the first min(@n, count) records
 *	filled; freed
 * @n: how many records exist
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
