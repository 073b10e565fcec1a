/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Replies to npu-smi queries: the room for their records, and the copy out.
 */
#ifndef _NPU_SMI_H
#define _NPU_SMI_H

#include "npu_internal.h"

struct npu_smi_query;

void *npu_smi_alloc(const struct npu_smi_query *args, size_t rec_size);
int npu_smi_reply(struct npu_smi_query *args, void *recs, u32 n, size_t rec_size);

#endif /* _NPU_SMI_H */
