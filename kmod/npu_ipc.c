// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Exporting allocations and importing shared memory into a context.
 *
 * The share table (npu_share.c) keeps the exports, their whitelists and
 * their importers; the address space keeps mappings (npu_mem.c) and
 * physical handles (npu_vmm.c). The commands that join the two live here:
 * an IPC export looks up the allocation it names and enters its memory in
 * the table; an import takes memory out of the table and maps it (an IPC
 * key) or makes a physical handle of it (a shareable handle). Each import
 * owns its importer record (struct npu_share_link) from then on, and gives
 * it back to the table when it goes.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_ipc.h"
#include "npu_mem.h"
#include "npu_phys.h"
#include "npu_share.h"
#include "npu_vmm.h"

/**
 * npu_ipc_export() - NPU_IOCTL_IPC_EXPORT
 * @ctx: a set-up context
 * @args: the arguments, pad checked; key is filled on success
 *
 * Return: 0; -EINVAL for flags, a size of 0 or past the allocation, or an
 * address that is not an allocation's base; -ENOSPC past the process's
 * limit of IPC keys; -ENOMEM.
 */
int npu_ipc_export(struct npu_ctx *ctx, struct npu_ipc_export *args)
{
	struct npu_phys *phys;
	struct npu_mem *mem;
	int ret;

	if (args->flags & ~NPU_SHARE_FLAGS_ALL || !args->size)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	mem = npu_mem_lookup(ctx, args->va);
	if (!mem || mem->kind != NPU_MAPPING_ALLOC || mem->node.start != args->va ||
	    args->size > mem->node.size) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	phys = npu_phys_get(mem->phys);
	mutex_unlock(&ctx->lock);

	ret = npu_share_export_key(ctx, phys, round_up(args->size, (u64)npu_phys_page_size(phys)),
				   args->flags, args->key);
	npu_phys_put(phys);
	return ret;
}

/**
 * npu_ipc_import() - NPU_IOCTL_IPC_IMPORT
 * @ctx: a set-up context
 * @args: the arguments, flags checked; the out fields are filled on success
 *
 * Return: 0; -ENOENT for a malformed or unknown key; -EPERM when the
 * caller is not on the whitelist; -ENOMEM.
 */
int npu_ipc_import(struct npu_ctx *ctx, struct npu_ipc_import *args)
{
	struct npu_share_link *link;
	struct npu_phys *phys;
	int ret;

	link = npu_share_import_key(ctx, args, &phys);
	if (IS_ERR(link))
		return PTR_ERR(link);
	ret = npu_mem_import(ctx, phys, link->size, link, &args->va, &args->size);
	if (ret) {
		npu_share_link_drop(link);
		npu_phys_put(phys);
		return ret;
	}
	args->page_size = npu_phys_page_size(phys);
	return 0;
}

/**
 * npu_ipc_handle_import() - NPU_IOCTL_SHARE_IMPORT
 * @ctx: a set-up context
 * @args: the arguments, flags checked; the out fields are filled on success
 *
 * Return: 0; -ENOENT for an unknown shareable handle; -EPERM when the
 * caller is not whitelisted; -EINVAL when it is the exporting process;
 * -ENOMEM.
 */
int npu_ipc_handle_import(struct npu_ctx *ctx, struct npu_share_import *args)
{
	struct npu_share_link *link;
	struct npu_phys *phys;
	int ret;

	link = npu_share_import_handle(ctx, args, &phys);
	if (IS_ERR(link))
		return PTR_ERR(link);
	ret = npu_vmm_handle_add(ctx, phys, link, &args->handle);
	if (ret) {
		npu_share_link_drop(link);
		npu_phys_put(phys);
	}
	return ret;
}
