/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Peer access between contexts of one process on two devices.
 */
#ifndef _NPU_PEER_H
#define _NPU_PEER_H

#include "npu_internal.h"

struct npu_ctx;

int npu_peer_enable(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx);
int npu_peer_disable(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx);
void npu_peer_release_all(struct npu_ctx *ctx);
struct npu_ctx *npu_peer_ctx_of_process(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx);

/*
 * A context of the same process on another device, peer-enabled by ctx,
 * whose aperture contains [va, va + len), with a reference held; NULL if
 * there is none.
 */
struct npu_ctx *npu_peer_get_ctx(struct npu_ctx *ctx, u64 va, u64 len);
void npu_peer_put_ctx(struct npu_ctx *peer);

#endif /* _NPU_PEER_H */
