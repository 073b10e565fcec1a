// SPDX-License-Identifier: GPL-2.0
/*
 * Host memory registration (placeholder until the engines copy registered
 * ranges directly).
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_host.h"

int npu_host_register(struct npu_ctx *ctx, struct npu_host_register *args)
{
	return -EOPNOTSUPP;
}

int npu_host_unregister(struct npu_ctx *ctx, u64 addr)
{
	return -ENOENT;
}

void npu_host_release_all(struct npu_ctx *ctx)
{
}

void *npu_host_get(struct npu_ctx *ctx, u64 uaddr, u64 len, struct npu_host_reg **reg)
{
	*reg = NULL;
	return NULL;
}

void npu_host_put(struct npu_host_reg *reg)
{
}
