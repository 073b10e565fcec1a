// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * NPU_IOCTL_RING_ENTER as an io_uring command, so that a process can ring
 * its doorbells and wait for completions through IORING_OP_URING_CMD, as
 * with NVMe and ublk character devices.
 *
 * The command API differs between kernels; Kbuild probes the headers:
 *  - NPU_IOU_CMD_H: it lives in <linux/io_uring/cmd.h> (later kernels),
 *    else in <linux/io_uring.h>;
 *  - NPU_IOU_SQE_CMD: the command area is io_uring_sqe_cmd(ioucmd->sqe),
 *    else ioucmd->cmd;
 *  - NPU_IOU_DONE_RES2_FLAGS: io_uring_cmd_done(cmd, ret, res2, issue_flags)
 *    (6.1.y stable and later), NPU_IOU_DONE_FLAGS: io_uring_cmd_done(cmd,
 *    ret, issue_flags), neither: io_uring_cmd_done(cmd, ret, res2).
 *
 * A command that would wait is not run from the submitting task's
 * non-blocking issue: it returns -EAGAIN there, and io_uring issues it
 * again from an io-wq worker of the same process (same mm and tgid), which
 * may sleep. Everything else completes at once, with io_uring_cmd_done().
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#ifdef NPU_IOU_CMD_H
#include <linux/io_uring/cmd.h>
#else
#include <linux/io_uring.h>
#endif
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_submit.h"
#include "npu_uring.h"

static const void *npu_uring_cmd_area(struct io_uring_cmd *ioucmd)
{
#ifdef NPU_IOU_SQE_CMD
	return io_uring_sqe_cmd(ioucmd->sqe);
#else
	return ioucmd->cmd;
#endif
}

static void npu_uring_done(struct io_uring_cmd *ioucmd, int ret,
			   unsigned int issue_flags)
{
#if defined(NPU_IOU_DONE_RES2_FLAGS)
	io_uring_cmd_done(ioucmd, ret, 0, issue_flags);
#elif defined(NPU_IOU_DONE_FLAGS)
	io_uring_cmd_done(ioucmd, ret, issue_flags);
#else
	io_uring_cmd_done(ioucmd, ret, 0);
#endif
}

/*
 * The arguments, copied once out of the SQE: before the command goes to a
 * worker the SQE is in memory the application may already be reusing.
 */
static int npu_uring_get_args(struct io_uring_cmd *ioucmd, unsigned int issue_flags,
			      struct npu_ring_enter *args)
{
	const void *area = npu_uring_cmd_area(ioucmd);
	struct npu_uring_enter compact;

	switch (ioucmd->cmd_op) {
	case NPU_URING_CMD_ENTER:
		/* 16 bytes of command area unless the SQEs are 128 bytes. */
		if (!(issue_flags & IO_URING_F_SQE128))
			return -EINVAL;
		memcpy(args, area, sizeof(*args));
		if (args->submitted || args->pad)
			return -EINVAL;
		break;
	case NPU_URING_CMD_ENTER16:
		memcpy(&compact, area, sizeof(compact));
		memset(args, 0, sizeof(*args));
		args->ring_id = compact.ring_id;
		args->to_submit = compact.to_submit;
		args->min_complete = compact.min_complete;
		args->flags = compact.flags;
		break;
	default:
		return -ENOTTY;
	}
	if (args->flags & ~NPU_ENTER_FLAGS_ALL)
		return -EINVAL;
	return 0;
}

/**
 * npu_uring_cmd() - file_operations.uring_cmd of an npu device
 * @ioucmd: the command; its file's private_data is the context
 * @issue_flags: IO_URING_F_*
 *
 * Return: -EIOCBQUEUED once completed through io_uring_cmd_done() with
 * the number of SQEs consumed or -errno; -EBADF from any process but the
 * opener or once the context is torn down; -EAGAIN to be issued again from
 * a worker; -ENOTTY for an unknown command; -EINVAL for bad arguments or
 * a context without CTX_SETUP (what the ioctl returns).
 */
int npu_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	struct npu_ctx *ctx = ioucmd->file->private_data;
	struct npu_ring_enter args;
	int ret;

	/* The opener's, and live: before anything else, as for the ioctl. */
	ret = npu_ctx_enter(ctx);
	if (ret)
		return ret;
	ret = npu_uring_get_args(ioucmd, issue_flags, &args);
	if (ret)
		goto out_exit;
	ret = -EINVAL;
	if (!npu_ctx_is_setup(ctx))
		goto out_exit;
	ret = -EAGAIN;
	if ((issue_flags & IO_URING_F_NONBLOCK) && (args.flags & NPU_ENTER_GETEVENTS))
		goto out_exit;

	atomic64_inc(&ctx->ndev->nr_enter_uring_cmds);
	ret = npu_submit_enter(ctx, &args);
	npu_uring_done(ioucmd, ret ? ret : (int)args.submitted, issue_flags);
	ret = -EIOCBQUEUED;
out_exit:
	npu_ctx_exit(ctx);
	return ret;
}
