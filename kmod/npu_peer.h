/* SPDX-License-Identifier: GPL-2.0 */
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

#endif /* _NPU_PEER_H */
