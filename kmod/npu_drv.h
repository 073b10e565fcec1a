/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Device instances of the npu driver.
 */
#ifndef _NPU_DRV_H
#define _NPU_DRV_H

#include "npu_internal.h"
#include "npu_hbm.h"
#include "npu_limits.h"
#include "npu_pfa.h"

#define NPU_MAX_HBM_MB		(1U << 20)	/* 1 TiB: frame numbers fit in u32 */

struct npu_jobs;
struct npu_pool;
struct npu_sched;

struct npu_device {
	struct miscdevice misc;
	char name[16];
	unsigned int index;
	u64 hbm_size;
	struct npu_pfa pfa;
	struct npu_hbm hbm;
	struct npu_sched *sched;	/* the ring scheduler of the copy engines */
	struct npu_pool *pool;		/* the engines (set up by npu_sched_init()) */
	struct npu_jobs *jobs;		/* large copies they share (likewise) */

	struct mutex lock; /* Protects: ctx_idr */
	struct idr ctx_idr;	/* context id -> struct npu_ctx */
	struct npu_limits limits;	/* per-process budgets (npu_limits.c), own lock */

	/* Live objects: statistics, and all zero again when the module unloads. */
	atomic_t nr_contexts;
	atomic64_t nr_allocations;
	atomic_t nr_rings;
	atomic64_t nr_pinned_pages;
	/* Doorbells (RING_ENTER) by path: statistics, never reset. */
	atomic64_t nr_enter_ioctls;
	atomic64_t nr_enter_uring_cmds;

	struct dentry *debugfs;	/* npu/npuN/ in debugfs (an ERR_PTR without debugfs) */
};

#endif /* _NPU_DRV_H */
