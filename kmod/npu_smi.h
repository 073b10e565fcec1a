/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Queries for npu-smi: who uses a device's memory.
 */
#ifndef _NPU_SMI_H
#define _NPU_SMI_H

#include <linux/types.h>

struct npu_device;
struct npu_smi_query;

int npu_smi_reply(struct npu_smi_query *args, void *recs, u32 n, size_t rec_size);
int npu_smi_procs(struct npu_device *ndev, struct npu_smi_query *args);
int npu_smi_users(struct npu_device *ndev, struct npu_smi_query *args);

#endif /* _NPU_SMI_H */
