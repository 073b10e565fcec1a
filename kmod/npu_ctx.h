/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-open-file context: the caller's identity, its device address space
 * and the objects it owns.
 */
#ifndef _NPU_CTX_H
#define _NPU_CTX_H

#include "npu_internal.h"
#include "npu_vas.h"

struct npu_device;

struct npu_ctx {
	struct npu_device *ndev;
	pid_t tgid;		/* of the opener, fixed at open */
	u32 id;

	struct mutex lock; /* Protects: setup (writes), vas, mems, rings, phys, the counters */
	bool setup;		/* CTX_SETUP done; read locklessly with smp_load_acquire */
	struct npu_vas vas;
	struct idr mems;	/* handle -> struct npu_mem (allocations, IPC imports) */
	struct idr rings;	/* ring id -> struct npu_ring */
	struct idr phys;	/* physical handle -> struct npu_phys_handle */
	/* Counters, written under lock with WRITE_ONCE, read by npu-smi without it. */
	u64 mapped_bytes;
	u64 nr_mems;
	u64 nr_imports;
	u64 nr_phys;
	u64 phys_bytes;
	u32 nr_exports;		/* keys and shareable handles; protected by the share table's lock */
};

int npu_ctx_create(struct npu_device *ndev, struct npu_ctx **out);
void npu_ctx_destroy(struct npu_ctx *ctx);
int npu_ctx_setup(struct npu_ctx *ctx, u64 va_base, u64 va_size);

/**
 * npu_ctx_is_setup() - whether NPU_IOCTL_CTX_SETUP has completed
 * @ctx: the context
 *
 * Return: true once the address space exists; it stays until release.
 */
static inline bool npu_ctx_is_setup(struct npu_ctx *ctx)
{
	return smp_load_acquire(&ctx->setup);
}

#endif /* _NPU_CTX_H */
