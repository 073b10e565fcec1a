/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The ring commands of a context.
 */
#ifndef _NPU_SUBMIT_H
#define _NPU_SUBMIT_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

struct npu_ctx;

int npu_submit_create(struct npu_ctx *ctx, struct npu_ring_create *args);
int npu_submit_destroy(struct npu_ctx *ctx, u32 ring_id);
int npu_submit_enter(struct npu_ctx *ctx, struct npu_ring_enter *args);
int npu_submit_stats(struct npu_ctx *ctx, struct npu_ring_stats *args);
int npu_submit_abort(struct npu_ctx *ctx, struct npu_ring_abort *args);
void npu_submit_release_all(struct npu_ctx *ctx);

#endif /* _NPU_SUBMIT_H */
