/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Sharing device memory between processes: IPC keys, shareable handles of
 * physical memory, their whitelists and importers.
 */
#ifndef _NPU_SHARE_H
#define _NPU_SHARE_H

#include "npu_internal.h"

struct npu_ctx;
struct npu_ipc_import;
struct npu_phys;
struct npu_export;
struct npu_share_export;
struct npu_share_import;
struct npu_share_set_pid;
struct npu_smi_query;

/*
 * One importer of an export, for npu-smi. Owned by the import (mapping or
 * handle); on the export's list until either side goes. Protected by the
 * share table's lock.
 */
struct npu_share_link {
	struct list_head node;	/* in npu_export.importers, or empty */
	pid_t tgid;
	u64 size;
};

int npu_share_export_key(struct npu_ctx *ctx, struct npu_phys *phys, u64 size, u32 flags,
			 char *key);
struct npu_share_link *npu_share_import_key(struct npu_ctx *ctx, struct npu_ipc_import *args,
					    struct npu_phys **phys);
struct npu_share_link *npu_share_import_handle(struct npu_ctx *ctx,
					       struct npu_share_import *args,
					       struct npu_phys **phys);
int npu_share_ipc_destroy(struct npu_ctx *ctx, const char *key);
int npu_share_set_pid(struct npu_ctx *ctx, const struct npu_share_set_pid *args, bool ipc);
int npu_share_handle_export(struct npu_ctx *ctx, struct npu_share_export *args);
void npu_share_export_destroy(struct npu_export *exp);
void npu_share_link_drop(struct npu_share_link *link);
void npu_share_release_ctx(struct npu_ctx *ctx);
int npu_share_smi(struct npu_smi_query *args);

#endif /* _NPU_SHARE_H */
