/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The copy engine: executes ring descriptors.
 */
#ifndef _NPU_ENGINE_H
#define _NPU_ENGINE_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

struct npu_ring;

/* Bytes of the host-to-host staging buffer each engine owns. */
#define NPU_ENGINE_BOUNCE_SIZE	SZ_64K
/* Copies from this size on are cut into chunks other engines may take (npu_job_run()). */
#define NPU_ENGINE_SPLIT_MIN	SZ_8M
/* Device-to-device copies and fills up to this size complete quickly (npu_engine_quick()). */
#define NPU_ENGINE_QUICK_BYTES	SZ_4K

/* Why npu_engine_run() returned. */
enum npu_engine_stop {
	NPU_ENGINE_IDLE,	/* the SQ is empty */
	NPU_ENGINE_MORE,	/* the budget ran out; SQEs are left */
	NPU_ENGINE_PARKED,	/* a VALUE_WAIT holds the ring */
};

s32 npu_engine_exec(struct npu_ring *ring, void *bounce, const struct npu_sqe *sqe, bool *wrote);
enum npu_engine_stop npu_engine_run(struct npu_ring *ring, void *bounce, u32 budget,
				    bool abort, u32 abort_tail, bool *wrote);

#endif /* _NPU_ENGINE_H */
