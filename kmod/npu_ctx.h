/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Per-open-file context: the caller's identity, its device address space
 * and the objects it owns.
 */
#ifndef _NPU_CTX_H
#define _NPU_CTX_H

#include "npu_internal.h"
#include "npu_host.h"
#include "npu_limits.h"
#include "npu_vas.h"

struct npu_device;
struct npu_smi_query;

struct npu_ctx {
	/*
	 * The open file holds one reference, so do peer links naming this
	 * context and engines between npu_peer_get_ctx()/npu_peer_put_ctx().
	 * release() or the opener's exit tears the context down
	 * (npu_ctx_destroy()); the memory of the struct, its lock and its
	 * (then empty) address space stay valid until the last npu_ctx_put(),
	 * which only follows release().
	 */
	struct kref ref;
	struct npu_device *ndev;
	pid_t tgid;		/* of the opener, fixed at open */
	struct npu_proc *proc;	/* the opener's limits, shared by its contexts; referenced */
	u64 start_time;		/* the opener's process start (start_boottime), with tgid its identity */
	u64 owner;		/* owner id of its device memory, unique for the driver's life */
	u32 id;
	/*
	 * The opener's thread group, one reference: only its threads may use
	 * the file (npu_ctx_enter()). A struct pid, not a number, so that a
	 * new process that gets the opener's pid is still somebody else.
	 */
	struct pid *opener;
	/*
	 * Subscribed to the opener's mm at open: its ->release (the opener's
	 * exit, or exec) runs npu_ctx_destroy() even while another process
	 * (a forked child, a receiver of the fd) still holds the file.
	 */
	struct mmu_notifier mn;

	/*
	 * Protects: dead (writes), torn_down. Readers are the ioctls and io_uring
	 * commands in flight (npu_ctx_enter()/npu_ctx_exit()); the writer is
	 * npu_ctx_destroy(), which so waits for them to leave.
	 */
	struct rw_semaphore live;
	bool dead;		/* being or torn down: every call gets -EBADF; read with READ_ONCE */
	bool torn_down;		/* npu_ctx_destroy() has released everything */

	struct mutex lock; /* Protects: setup (writes), vas, mems, rings, phys, the counters */
	bool setup;		/* CTX_SETUP done; read locklessly with smp_load_acquire */
	struct npu_vas vas;
	struct idr mems;	/* handle -> struct npu_mem (allocations, IPC imports) */
	struct idr rings;	/* ring id -> struct npu_ring */
	struct idr phys;	/* physical handle -> struct npu_phys_handle */
	/*
	 * Bumped (under lock, WRITE_ONCE) whenever a mapping leaves vas or a
	 * reservation: a translation an engine cached while it held the same
	 * value still names the same memory (struct npu_mem_xlate).
	 */
	u64 map_gen;
	/* Counters, written under lock with WRITE_ONCE, read by npu-smi without it. */
	u64 mapped_bytes;
	u64 nr_mems;
	u64 nr_imports;
	u64 nr_phys;
	u64 phys_bytes;
	struct list_head exports; /* its keys and shareable handles; protected by the share table's lock */
	u32 nr_exports;		/* their number; protected by the share table's lock */

	struct npu_host_set host;	/* host registrations (npu_host.c), own lock */
	/* Peer links (npu_peer.c), both protected by npu_peer.c's npu_peer_lock. */
	struct list_head peers;		/* links this context made (npu_peer_link.owner_node) */
	struct list_head peer_of;	/* links naming this context (npu_peer_link.peer_node) */
	bool peer_dead;			/* closing: no new links to or from it */
	/*
	 * Its rings whose futex doorbell the device's doorbell thread
	 * watches (at most NPU_SCHED_DB_PER_CTX); protected by the device's
	 * doorbell lock (npu_sched.c's db_lock).
	 */
	unsigned int nr_db;
};

int npu_ctx_create(struct npu_device *ndev, struct npu_ctx **out);
void npu_ctx_destroy(struct npu_ctx *ctx);
void npu_ctx_release(struct npu_ctx *ctx);
int npu_ctx_enter(struct npu_ctx *ctx);
void npu_ctx_exit(struct npu_ctx *ctx);
int npu_ctx_setup(struct npu_ctx *ctx, u64 va_base, u64 va_size);
void npu_ctx_put(struct npu_ctx *ctx);
int npu_ctx_smi_procs(struct npu_device *ndev, struct npu_smi_query *args);

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

/**
 * npu_ctx_unmapped() - a mapping left the context's address space
 * @ctx: the context; the caller holds its lock
 *
 * Invalidates every translation engines cached (struct npu_mem_xlate).
 */
static inline void npu_ctx_unmapped(struct npu_ctx *ctx)
{
	lockdep_assert_held(&ctx->lock);
	WRITE_ONCE(ctx->map_gen, ctx->map_gen + 1);
}

#endif /* _NPU_CTX_H */
