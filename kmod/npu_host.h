/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Host memory registered with a context (NPU_IOCTL_HOST_REGISTER).
 */
#ifndef _NPU_HOST_H
#define _NPU_HOST_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

struct npu_ctx;
struct npu_device;
struct npu_host_reg;
struct npu_proc;

/* The host registrations of one context. */
struct npu_host_set {
	spinlock_t lock;	/* Protects: root (membership and shape of the tree) */
	struct rb_root root;	/* struct npu_host_reg by addr, never overlapping */
};

void npu_host_init(struct npu_ctx *ctx);

int npu_host_register(struct npu_ctx *ctx, struct npu_host_register *args);
int npu_host_unregister(struct npu_ctx *ctx, u64 addr);
void npu_host_release_all(struct npu_ctx *ctx);
int npu_host_pin_charge(struct npu_device *ndev, struct npu_proc *proc, unsigned long nr);
void npu_host_pin_uncharge(struct npu_device *ndev, struct npu_proc *proc, unsigned long nr);

/*
 * Kernel address of user range [uaddr, uaddr + len) of ctx's process when
 * it lies inside one host registration of ctx, with a reference held on
 * that registration (*reg); NULL if it does not.
 */
void *npu_host_get(struct npu_ctx *ctx, u64 uaddr, u64 len, struct npu_host_reg **reg);
void npu_host_put(struct npu_host_reg *reg);
bool npu_host_lost(const struct npu_host_reg *reg, const void *kaddr, u64 len);

#endif /* _NPU_HOST_H */
