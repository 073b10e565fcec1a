// SPDX-License-Identifier: GPL-2.0
/*
 * Peer access (placeholder).
 */
#include "npu_internal.h"
#include "npu_ctx.h"
#include "npu_peer.h"

int npu_peer_enable(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx)
{
	return -EOPNOTSUPP;
}

int npu_peer_disable(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx)
{
	return -ENOENT;
}

void npu_peer_release_all(struct npu_ctx *ctx)
{
}

struct npu_ctx *npu_peer_get_ctx(struct npu_ctx *ctx, u64 va, u64 len)
{
	return NULL;
}

void npu_peer_put_ctx(struct npu_ctx *peer)
{
}
