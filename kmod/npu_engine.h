/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The copy engine: executes ring descriptors.
 */
#ifndef _NPU_ENGINE_H
#define _NPU_ENGINE_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

struct npu_ctx;
struct npu_ring;

/* Bytes of the host-to-host staging buffer each ring's engine owns. */
#define NPU_ENGINE_BOUNCE_SIZE	SZ_64K

s32 npu_engine_exec(struct npu_ctx *ctx, void *bounce, const struct npu_sqe *sqe);
u32 npu_engine_submit(struct npu_ring *ring, u32 to_submit);

#endif /* _NPU_ENGINE_H */
