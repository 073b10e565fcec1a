// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The ioctl command table.
 *
 * The table, indexed by _IOC_NR, owns each command's full cmd value (type,
 * number, size and direction) and its handler (the DRM/amdkfd pattern): a
 * cmd that is not exactly the table's gets -ENOTTY. The dispatcher copies
 * the argument in (for _IOC_WRITE) into a union of every argument struct,
 * zero-filled otherwise, runs the handler and copies the result out (for
 * _IOC_READ) only on success. Handlers check every reserved field and flag
 * before anything else.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_dev.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_ioctl.h"
#include "npu_ioctl_args.h"
#include "npu_ipc.h"
#include "npu_limits.h"
#include "npu_mem.h"
#include "npu_peer.h"
#include "npu_ring.h"
#include "npu_sched.h"
#include "npu_share.h"
#include "npu_submit.h"
#include "npu_uring.h"
#include "npu_vmm.h"

#define NPU_UAPI_ASSERT_SIZE(type, size) static_assert(sizeof(type) == (size));
NPU_UAPI_SIZES(NPU_UAPI_ASSERT_SIZE)

/* The command needs a context set up by NPU_IOCTL_CTX_SETUP. */
#define NPU_IOCTL_F_CTX		BIT(0)

struct npu_ioctl_desc {
	unsigned int cmd;
	unsigned int flags;	/* NPU_IOCTL_F_* */
	int (*func)(struct npu_ctx *ctx, void *data);
	const char *name;
};

static void npu_ioctl_fill_stats(struct npu_device *ndev, u64 *total, u64 *free)
{
	struct npu_pfa_stats st;
	unsigned int c;

	npu_pfa_stats(&ndev->pfa, &st);
	for (c = 0; c < NPU_CLASS_COUNT; c++) {
		total[c] = st.total[c];
		free[c] = st.free[c];
	}
}

static u64 npu_ioctl_page_order_mask(struct npu_device *ndev)
{
	u64 mask = BIT_ULL(NPU_ORDER_NORMAL);
	u64 frames = ndev->hbm_size >> NPU_PAGE_SHIFT;

	if (frames >> NPU_ORDER_HUGE)
		mask |= BIT_ULL(NPU_ORDER_HUGE);
	if (frames >> NPU_ORDER_HUGE1G)
		mask |= BIT_ULL(NPU_ORDER_HUGE1G);
	return mask;
}

static int npu_ioctl_get_version(struct npu_ctx *ctx, void *data)
{
	struct npu_version *args = data;
	u64 mask = npu_ioctl_page_order_mask(ctx->ndev);

	args->abi_major = NPU_ABI_VERSION_MAJOR;
	args->abi_minor = NPU_ABI_VERSION_MINOR;
	args->features = NPU_FEATURE_RING | NPU_URING_FEATURES | NPU_RING_FUTEX_FEATURES;
	if (mask & BIT_ULL(NPU_ORDER_HUGE))
		args->features |= NPU_FEATURE_HUGE;
	if (mask & BIT_ULL(NPU_ORDER_HUGE1G))
		args->features |= NPU_FEATURE_HUGE1G;
	args->device_count = npu_dev_count();
	args->device_index = ctx->ndev->index;
	args->hbm_size = ctx->ndev->hbm_size;
	args->page_order_mask = mask;
	return 0;
}

static int npu_ioctl_device_info(struct npu_ctx *ctx, void *data)
{
	struct npu_device_info *args = data;
	struct npu_device *ndev = ctx->ndev;

	npu_ioctl_fill_stats(ndev, args->total, args->free);
	args->hbm_total = args->total[NPU_CLASS_NORMAL];
	args->hbm_free = args->free[NPU_CLASS_NORMAL];
	args->page_order_mask = npu_ioctl_page_order_mask(ndev);
	args->engines = npu_sched_engines(ndev);
	args->contexts = atomic_read(&ndev->nr_contexts);
	args->allocations = atomic64_read(&ndev->nr_allocations);
	npu_sched_busy(ndev, &args->busy_ns, &args->up_ns);
	return 0;
}

static int npu_ioctl_ctx_setup(struct npu_ctx *ctx, void *data)
{
	struct npu_ctx_setup *args = data;
	int ret;

	if (args->flags || args->pad)
		return -EINVAL;
	ret = npu_ctx_setup(ctx, args->va_base, args->va_size);
	if (ret)
		return ret;
	args->ctx_id = ctx->id;
	args->tgid = ctx->tgid;
	return 0;
}

static int npu_ioctl_mem_alloc(struct npu_ctx *ctx, void *data)
{
	struct npu_mem_alloc *args = data;

	if (args->flags & ~NPU_MEM_FLAGS_ALL || args->pad)
		return -EINVAL;
	return npu_mem_create(ctx, args);
}

static int npu_ioctl_mem_free(struct npu_ctx *ctx, void *data)
{
	struct npu_mem_free *args = data;

	if (args->rsvd)
		return -EINVAL;
	return npu_mem_free(ctx, args->va);
}

static int npu_ioctl_mem_query(struct npu_ctx *ctx, void *data)
{
	struct npu_mem_query *args = data;

	if (args->pad)
		return -EINVAL;
	npu_mem_query(ctx, args);
	return 0;
}

static int npu_ioctl_mem_info(struct npu_ctx *ctx, void *data)
{
	struct npu_mem_info *args = data;

	npu_ioctl_fill_stats(ctx->ndev, args->total, args->free);
	mutex_lock(&ctx->lock);
	args->ctx_bytes = ctx->mapped_bytes;
	args->ctx_allocations = ctx->nr_mems;
	mutex_unlock(&ctx->lock);
	return 0;
}

static int npu_ioctl_ring_create(struct npu_ctx *ctx, void *data)
{
	struct npu_ring_create *args = data;

	if (args->flags & ~NPU_RING_CREATE_FLAGS_ALL)
		return -EINVAL;
	/* The futex doorbell, only where the device reports it. */
	if ((args->flags & NPU_RING_CREATE_FUTEX) && !NPU_RING_FUTEX_FEATURES)
		return -EINVAL;
	return npu_submit_create(ctx, args);
}

static int npu_ioctl_ring_destroy(struct npu_ctx *ctx, void *data)
{
	struct npu_ring_destroy *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_submit_destroy(ctx, args->ring_id);
}

static int npu_ioctl_ring_enter(struct npu_ctx *ctx, void *data)
{
	struct npu_ring_enter *args = data;

	if (args->flags & ~NPU_ENTER_FLAGS_ALL || args->pad)
		return -EINVAL;
	atomic64_inc(&ctx->ndev->nr_enter_ioctls);
	return npu_submit_enter(ctx, args);
}

static int npu_ioctl_ring_abort(struct npu_ctx *ctx, void *data)
{
	struct npu_ring_abort *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_submit_abort(ctx, args);
}

static int npu_ioctl_ring_stats(struct npu_ctx *ctx, void *data)
{
	struct npu_ring_stats *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_submit_stats(ctx, args);
}

static int npu_ioctl_host_register(struct npu_ctx *ctx, void *data)
{
	struct npu_host_register *args = data;

	if (args->flags)
		return -EINVAL;
	return npu_host_register(ctx, args);
}

static int npu_ioctl_host_unregister(struct npu_ctx *ctx, void *data)
{
	struct npu_host_unregister *args = data;

	if (args->rsvd)
		return -EINVAL;
	return npu_host_unregister(ctx, args->addr);
}

static int npu_ioctl_peer_enable(struct npu_ctx *ctx, void *data)
{
	struct npu_peer *args = data;

	if (args->flags || args->pad)
		return -EINVAL;
	return npu_peer_enable(ctx, args->peer_device, args->peer_ctx);
}

static int npu_ioctl_peer_disable(struct npu_ctx *ctx, void *data)
{
	struct npu_peer *args = data;

	if (args->flags || args->pad)
		return -EINVAL;
	return npu_peer_disable(ctx, args->peer_device, args->peer_ctx);
}

static int npu_ioctl_nop(struct npu_ctx *ctx, void *data)
{
	struct npu_nop *args = data;

	args->out = args->cookie;
	return 0;
}

static int npu_ioctl_ipc_export(struct npu_ctx *ctx, void *data)
{
	struct npu_ipc_export *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_ipc_export(ctx, args);
}

static int npu_ioctl_ipc_set_pid(struct npu_ctx *ctx, void *data)
{
	struct npu_share_set_pid *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_share_set_pid(ctx, args, true);
}

static int npu_ioctl_ipc_import(struct npu_ctx *ctx, void *data)
{
	struct npu_ipc_import *args = data;

	if (args->flags)
		return -EINVAL;
	return npu_ipc_import(ctx, args);
}

static int npu_ioctl_ipc_unimport(struct npu_ctx *ctx, void *data)
{
	struct npu_ipc_unimport *args = data;

	if (args->rsvd)
		return -EINVAL;
	return npu_mem_unimport(ctx, args->va);
}

static int npu_ioctl_ipc_destroy(struct npu_ctx *ctx, void *data)
{
	struct npu_ipc_destroy *args = data;

	return npu_share_ipc_destroy(ctx, args->key);
}

static int npu_ioctl_phys_alloc(struct npu_ctx *ctx, void *data)
{
	struct npu_phys_alloc *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_vmm_phys_alloc(ctx, args);
}

static int npu_ioctl_phys_free(struct npu_ctx *ctx, void *data)
{
	struct npu_phys_free *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_vmm_phys_free(ctx, args->handle);
}

static int npu_ioctl_phys_retain(struct npu_ctx *ctx, void *data)
{
	struct npu_phys_retain *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_vmm_phys_retain(ctx, args->va, &args->handle);
}

static int npu_ioctl_phys_info(struct npu_ctx *ctx, void *data)
{
	return npu_vmm_phys_info(ctx, data);
}

static int npu_ioctl_phys_peer(struct npu_ctx *ctx, void *data)
{
	return npu_vmm_phys_peer(ctx, data);
}

static int npu_ioctl_vmm_reserve(struct npu_ctx *ctx, void *data)
{
	struct npu_vmm_reserve *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_vmm_reserve(ctx, args);
}

static int npu_ioctl_vmm_release(struct npu_ctx *ctx, void *data)
{
	struct npu_vmm_release *args = data;

	if (args->rsvd)
		return -EINVAL;
	return npu_vmm_release(ctx, args->va);
}

static int npu_ioctl_vmm_map(struct npu_ctx *ctx, void *data)
{
	return npu_vmm_map(ctx, data);
}

static int npu_ioctl_vmm_unmap(struct npu_ctx *ctx, void *data)
{
	struct npu_vmm_unmap *args = data;

	if (args->rsvd)
		return -EINVAL;
	return npu_vmm_unmap(ctx, args->va);
}

static int npu_ioctl_vmm_set_access(struct npu_ctx *ctx, void *data)
{
	struct npu_vmm_access *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_vmm_set_access(ctx, args);
}

static int npu_ioctl_vmm_get_access(struct npu_ctx *ctx, void *data)
{
	struct npu_vmm_access *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_vmm_get_access(ctx, args);
}

static int npu_ioctl_share_export(struct npu_ctx *ctx, void *data)
{
	return npu_share_handle_export(ctx, data);
}

static int npu_ioctl_share_set_pid(struct npu_ctx *ctx, void *data)
{
	struct npu_share_set_pid *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_share_set_pid(ctx, args, false);
}

static int npu_ioctl_share_import(struct npu_ctx *ctx, void *data)
{
	struct npu_share_import *args = data;

	if (args->flags || args->pad)
		return -EINVAL;
	return npu_ipc_handle_import(ctx, args);
}

static int npu_ioctl_smi_procs(struct npu_ctx *ctx, void *data)
{
	struct npu_smi_query *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_ctx_smi_procs(ctx->ndev, args);
}

static int npu_ioctl_smi_shares(struct npu_ctx *ctx, void *data)
{
	struct npu_smi_query *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_share_smi(args);
}

static int npu_ioctl_smi_users(struct npu_ctx *ctx, void *data)
{
	struct npu_smi_query *args = data;

	if (args->pad)
		return -EINVAL;
	return npu_limits_smi_users(&ctx->ndev->limits, args);
}

#define NPU_IOCTL_DEF(ioctl, _func, _flags)				\
	[_IOC_NR(ioctl)] = { .cmd = ioctl, .flags = _flags, .func = _func, .name = #ioctl }

static const struct npu_ioctl_desc npu_ioctls[] = {
	NPU_IOCTL_DEF(NPU_IOCTL_GET_VERSION, npu_ioctl_get_version, 0),
	NPU_IOCTL_DEF(NPU_IOCTL_DEVICE_INFO, npu_ioctl_device_info, 0),
	NPU_IOCTL_DEF(NPU_IOCTL_CTX_SETUP, npu_ioctl_ctx_setup, 0),
	NPU_IOCTL_DEF(NPU_IOCTL_MEM_ALLOC, npu_ioctl_mem_alloc, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_MEM_FREE, npu_ioctl_mem_free, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_MEM_QUERY, npu_ioctl_mem_query, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_MEM_INFO, npu_ioctl_mem_info, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_RING_CREATE, npu_ioctl_ring_create, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_RING_DESTROY, npu_ioctl_ring_destroy, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_RING_ENTER, npu_ioctl_ring_enter, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_NOP, npu_ioctl_nop, 0),
	NPU_IOCTL_DEF(NPU_IOCTL_HOST_REGISTER, npu_ioctl_host_register, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_HOST_UNREGISTER, npu_ioctl_host_unregister, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_RING_STATS, npu_ioctl_ring_stats, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_PEER_ENABLE, npu_ioctl_peer_enable, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_PEER_DISABLE, npu_ioctl_peer_disable, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_RING_ABORT, npu_ioctl_ring_abort, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_IPC_EXPORT, npu_ioctl_ipc_export, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_IPC_SET_PID, npu_ioctl_ipc_set_pid, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_IPC_IMPORT, npu_ioctl_ipc_import, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_IPC_UNIMPORT, npu_ioctl_ipc_unimport, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_IPC_DESTROY, npu_ioctl_ipc_destroy, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_PHYS_ALLOC, npu_ioctl_phys_alloc, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_PHYS_FREE, npu_ioctl_phys_free, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_PHYS_RETAIN, npu_ioctl_phys_retain, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_PHYS_INFO, npu_ioctl_phys_info, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_PHYS_PEER, npu_ioctl_phys_peer, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_VMM_RESERVE, npu_ioctl_vmm_reserve, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_VMM_RELEASE, npu_ioctl_vmm_release, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_VMM_MAP, npu_ioctl_vmm_map, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_VMM_UNMAP, npu_ioctl_vmm_unmap, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_VMM_SET_ACCESS, npu_ioctl_vmm_set_access, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_VMM_GET_ACCESS, npu_ioctl_vmm_get_access, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_SHARE_EXPORT, npu_ioctl_share_export, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_SHARE_SET_PID, npu_ioctl_share_set_pid, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_SHARE_IMPORT, npu_ioctl_share_import, NPU_IOCTL_F_CTX),
	NPU_IOCTL_DEF(NPU_IOCTL_SMI_PROCS, npu_ioctl_smi_procs, 0),
	NPU_IOCTL_DEF(NPU_IOCTL_SMI_SHARES, npu_ioctl_smi_shares, 0),
	NPU_IOCTL_DEF(NPU_IOCTL_SMI_USERS, npu_ioctl_smi_users, 0),
};

static int npu_ioctl_dispatch(struct npu_ctx *ctx, unsigned int cmd, unsigned long arg)
{
	void __user *uarg = (void __user *)arg;
	const struct npu_ioctl_desc *desc;
	union npu_ioctl_args args;
	unsigned int nr = _IOC_NR(cmd);
	unsigned int size = _IOC_SIZE(cmd);
	int ret;

	if (nr >= ARRAY_SIZE(npu_ioctls))
		return -ENOTTY;
	desc = &npu_ioctls[nr];
	if (!desc->func || desc->cmd != cmd)
		return -ENOTTY;
	/* The table's cmd fixes the size; make sure the union holds it. */
	if (WARN_ON_ONCE(size > sizeof(args.bytes)))
		return -ENOTTY;

	if (_IOC_DIR(cmd) & _IOC_WRITE) {
		if (copy_from_user(&args, uarg, size))
			return -EFAULT;
	} else {
		memset(&args, 0, size);
	}

	if ((desc->flags & NPU_IOCTL_F_CTX) && !npu_ctx_is_setup(ctx))
		return -EINVAL;
	ret = desc->func(ctx, &args);
	if (ret)
		return ret;

	if ((_IOC_DIR(cmd) & _IOC_READ) && copy_to_user(uarg, &args, size))
		return -EFAULT;
	return 0;
}

/**
 * npu_ioctl() - file_operations.unlocked_ioctl of an npu device
 * @filp: the open file; private_data is its context
 * @cmd: the command
 * @arg: user address of the command's struct
 *
 * Return: 0; -EBADF from any process but the opener, or once the context
 * is torn down (its opener exited); -ENOTTY for a command not in the
 * table; -EFAULT if the struct cannot be copied; -EINVAL for a context
 * command before CTX_SETUP; else what the handler returns.
 */
long npu_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct npu_ctx *ctx = filp->private_data;
	int ret;

	/* The opener's, and live: before anything else. */
	ret = npu_ctx_enter(ctx);
	if (ret)
		return ret;
	ret = npu_ioctl_dispatch(ctx, cmd, arg);
	npu_ctx_exit(ctx);
	return ret;
}
