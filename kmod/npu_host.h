/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host memory registered with a context (NPU_IOCTL_HOST_REGISTER).
 */
#ifndef _NPU_HOST_H
#define _NPU_HOST_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

struct npu_ctx;

int npu_host_register(struct npu_ctx *ctx, struct npu_host_register *args);
int npu_host_unregister(struct npu_ctx *ctx, u64 addr);
void npu_host_release_all(struct npu_ctx *ctx);

#endif /* _NPU_HOST_H */
