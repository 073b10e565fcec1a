/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Exporting allocations and importing shared memory into a context.
 */
#ifndef _NPU_IPC_H
#define _NPU_IPC_H

#include "npu_internal.h"

struct npu_ctx;
struct npu_ipc_export;
struct npu_ipc_import;
struct npu_share_import;

int npu_ipc_export(struct npu_ctx *ctx, struct npu_ipc_export *args);
int npu_ipc_import(struct npu_ctx *ctx, struct npu_ipc_import *args);
int npu_ipc_handle_import(struct npu_ctx *ctx, struct npu_share_import *args);

#endif /* _NPU_IPC_H */
