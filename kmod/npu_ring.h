/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Submission/completion rings in memory the application provides.
 */
#ifndef _NPU_RING_H
#define _NPU_RING_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

struct npu_ctx;

struct npu_ring {
	struct kref ref;	/* the context's id, plus each RING_ENTER in progress */
	struct npu_ctx *ctx;	/* owner; outlives every ioctl on its file */
	u32 id;
	u32 sq_entries;
	u32 cq_entries;

	/* The pinned region: header, SQEs, CQEs; shared with the application. */
	struct page **pages;
	unsigned int nr_pages;
	void *vaddr;
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqes;
	struct npu_cqe *cqes;

	struct mutex submit_lock; /* Protects: sq_head, cq_overflow, flags, bounce; cq_tail writes */
	u32 sq_head;		/* private copies of the driver-written fields */
	u32 cq_tail;		/* read locklessly by waiters (READ_ONCE) */
	u32 cq_overflow;
	u32 flags;
	void *bounce;		/* the engine's host-to-host staging buffer */

	/* NPU_IOCTL_RING_STATS counters. */
	atomic64_t st_sqes;
	atomic64_t st_doorbells;
	atomic64_t st_waits;
	atomic64_t st_wakeups;

	atomic_t submitters;	/* RING_ENTER calls consuming SQEs right now */
	wait_queue_head_t cq_wait;	/* woken when CQEs are posted or submitters finish */
};

int npu_ring_create(struct npu_ctx *ctx, struct npu_ring_create *args);
int npu_ring_destroy(struct npu_ctx *ctx, u32 ring_id);
int npu_ring_enter(struct npu_ctx *ctx, struct npu_ring_enter *args);
int npu_ring_stats(struct npu_ctx *ctx, struct npu_ring_stats *args);
void npu_ring_release_all(struct npu_ctx *ctx);

u32 npu_ring_sq_ready(struct npu_ring *ring);
void npu_ring_read_sqe(struct npu_ring *ring, struct npu_sqe *sqe);
void npu_ring_post_cqe(struct npu_ring *ring, u64 user_data, s32 res);

#endif /* _NPU_RING_H */
