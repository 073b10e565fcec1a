// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Per-process limits.
 *
 * One process must not be able to take every ring, handle or byte a device
 * (or, for npud, the daemon) has, so each process (TGID) gets a budget per
 * device. A process may open a device many times; the budget is per
 * process, not per file: every context of a process shares one refcounted
 * struct npu_proc, found by TGID in a small per-device hash table when a
 * file is opened. Charging and uncharging are atomic adds on that object,
 * O(1) and lock-free; the table lock is taken only at open and close.
 *
 * Objects that can outlive the contexts of their process (physical memory
 * held by an importer, a host registration an engine still holds) keep a
 * reference to the struct npu_proc they were charged to and uncharge it
 * when they go. Once the last context of a process is closed the object
 * leaves the table, so a new process that reuses the TGID starts afresh.
 *
 * A count past its limit fails with -ENOSPC, memory past its limit with
 * -ENOMEM (the runtime reports both as out of resources).
 *
 * The limits are the module parameters, read at each charge: root may
 * change them at run time (/sys/module/npu/parameters/limit_*). A lower
 * limit refuses new objects until the use is below it; nothing already
 * created is taken away. 0 then refuses every new object of the kind
 * (module load refuses 0).
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_limits.h"

static unsigned int limit_rings = 1984;
module_param(limit_rings, uint, 0644);
MODULE_PARM_DESC(limit_rings, "Rings (streams) per process per device (default 1984)");

static unsigned int limit_allocations = 1U << 20;
module_param(limit_allocations, uint, 0644);
MODULE_PARM_DESC(limit_allocations,
		 "Allocations and IPC imports per process per device (default 1048576)");

static unsigned int limit_phys_handles = 1U << 20;
module_param(limit_phys_handles, uint, 0644);
MODULE_PARM_DESC(limit_phys_handles, "Physical handles per process per device (default 1048576)");

static unsigned int limit_ipc_keys = 65536;
module_param(limit_ipc_keys, uint, 0644);
MODULE_PARM_DESC(limit_ipc_keys, "IPC keys per process per device (default 65536)");

static unsigned int limit_share_handles = 65536;
module_param(limit_share_handles, uint, 0644);
MODULE_PARM_DESC(limit_share_handles,
		 "Shareable handles per process per device (default 65536)");

static unsigned int limit_pin_mb = 4096;
module_param(limit_pin_mb, uint, 0644);
MODULE_PARM_DESC(limit_pin_mb, "Host memory one process may register per device, MiB (default 4096)");

static unsigned int limit_hbm_mb;
module_param(limit_hbm_mb, uint, 0644);
MODULE_PARM_DESC(limit_hbm_mb,
		 "Device memory one process may allocate per device, MiB (default 0: the whole device)");

/**
 * npu_limits_init() - an empty process table
 * @limits: the device's table
 * @hbm_size: bytes of device memory, the default HBM limit
 *
 * Return: 0, or -EINVAL when a count limit is 0.
 */
int npu_limits_init(struct npu_limits *limits, u64 hbm_size)
{
	if (!limit_rings || !limit_allocations || !limit_phys_handles || !limit_ipc_keys ||
	    !limit_share_handles || !limit_pin_mb) {
		pr_err("npu: every limit_* parameter must be at least 1\n");
		return -EINVAL;
	}
	mutex_init(&limits->lock);
	hash_init(limits->table);
	limits->hbm_size = hbm_size;
	return 0;
}

/**
 * npu_limits_max() - the current limit of a kind on a device
 * @limits: the device's table
 * @kind: NPU_LIMIT_*
 *
 * Return: objects, or bytes for the memory kinds.
 */
u64 npu_limits_max(const struct npu_limits *limits, unsigned int kind)
{
	u64 hbm;

	switch (kind) {
	case NPU_LIMIT_RINGS:
		return READ_ONCE(limit_rings);
	case NPU_LIMIT_ALLOCATIONS:
		return READ_ONCE(limit_allocations);
	case NPU_LIMIT_PHYS_HANDLES:
		return READ_ONCE(limit_phys_handles);
	case NPU_LIMIT_IPC_KEYS:
		return READ_ONCE(limit_ipc_keys);
	case NPU_LIMIT_SHARE_HANDLES:
		return READ_ONCE(limit_share_handles);
	case NPU_LIMIT_PIN_BYTES:
		return (u64)READ_ONCE(limit_pin_mb) << 20;
	case NPU_LIMIT_HBM_BYTES:
		hbm = (u64)READ_ONCE(limit_hbm_mb) << 20;
		return hbm && hbm < limits->hbm_size ? hbm : limits->hbm_size;
	}
	return 0;
}

/**
 * npu_limits_fini() - tear down a device's table
 * @limits: the table; every context of the device is gone
 */
void npu_limits_fini(struct npu_limits *limits)
{
	WARN_ON(!hash_empty(limits->table));
	mutex_destroy(&limits->lock);
}

/* The process's object in the table, or NULL. O(1) expected. */
static struct npu_proc *npu_limits_find(struct npu_limits *limits, pid_t tgid)
{
	struct npu_proc *proc;

	lockdep_assert_held(&limits->lock);
	hash_for_each_possible(limits->table, proc, node, tgid)
		if (proc->tgid == tgid)
			return proc;
	return NULL;
}

/**
 * npu_limits_proc_enter() - the accounting object of a context's process
 * @limits: the device's table
 * @tgid: the process
 * @out: the object, with a reference for the context
 *
 * Every call must be paired with npu_limits_proc_leave() and, once nothing
 * of the context uses it any more, npu_limits_proc_put().
 *
 * Return: 0 or -ENOMEM.
 */
int npu_limits_proc_enter(struct npu_limits *limits, pid_t tgid, struct npu_proc **out)
{
	struct npu_proc *proc, *fresh;
	unsigned int i;

	/* Allocated outside the lock; freed again if the process has one. */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return -ENOMEM;
	mutex_lock(&limits->lock);
	proc = npu_limits_find(limits, tgid);
	if (proc) {
		kref_get(&proc->ref);
	} else {
		proc = fresh;
		fresh = NULL;
		kref_init(&proc->ref);
		proc->limits = limits;
		proc->tgid = tgid;
		for (i = 0; i < NPU_LIMIT_COUNT; i++)
			atomic64_set(&proc->used[i], 0);
		hash_add(limits->table, &proc->node, tgid);
	}
	proc->nr_ctx++;
	mutex_unlock(&limits->lock);
	kfree(fresh);
	*out = proc;
	return 0;
}

/**
 * npu_limits_proc_leave() - a context of the process is closing
 * @proc: its accounting object
 *
 * With the last context, the object leaves the table: a later process with
 * the same TGID gets a fresh one. The context still holds its reference.
 */
void npu_limits_proc_leave(struct npu_proc *proc)
{
	struct npu_limits *limits = proc->limits;

	mutex_lock(&limits->lock);
	if (!--proc->nr_ctx)
		hash_del(&proc->node);
	mutex_unlock(&limits->lock);
}

/**
 * npu_limits_proc_get() - another reference, for an object charged to @proc
 * @proc: the accounting object
 *
 * Return: @proc.
 */
struct npu_proc *npu_limits_proc_get(struct npu_proc *proc)
{
	kref_get(&proc->ref);
	return proc;
}

static void npu_limits_proc_free(struct kref *ref)
{
	struct npu_proc *proc = container_of(ref, struct npu_proc, ref);
	unsigned int i;

	WARN_ON(proc->nr_ctx);
	for (i = 0; i < NPU_LIMIT_COUNT; i++)
		WARN_ON(atomic64_read(&proc->used[i]));
	kfree(proc);
}

/**
 * npu_limits_proc_put() - drop a reference
 * @proc: the accounting object; freed with the last reference
 */
void npu_limits_proc_put(struct npu_proc *proc)
{
	kref_put(&proc->ref, npu_limits_proc_free);
}

/**
 * npu_limits_charge() - take @n units of a limited resource
 * @proc: the process
 * @kind: NPU_LIMIT_*
 * @n: units (objects, or bytes for the memory kinds)
 *
 * All or nothing: on failure nothing is charged.
 *
 * Return: 0; -ENOSPC past a count limit; -ENOMEM past a memory limit.
 */
int npu_limits_charge(struct npu_proc *proc, unsigned int kind, u64 n)
{
	u64 max = npu_limits_max(proc->limits, kind);

	/* A request larger than the limit could wrap the counter. */
	if (n > max)
		goto err_limit;
	if ((u64)atomic64_add_return(n, &proc->used[kind]) > max) {
		atomic64_sub(n, &proc->used[kind]);
		goto err_limit;
	}
	return 0;

err_limit:
	return kind == NPU_LIMIT_PIN_BYTES || kind == NPU_LIMIT_HBM_BYTES ? -ENOMEM : -ENOSPC;
}

/**
 * npu_limits_uncharge() - give back what npu_limits_charge() took
 * @proc: the process
 * @kind: NPU_LIMIT_*
 * @n: the units charged
 */
void npu_limits_uncharge(struct npu_proc *proc, unsigned int kind, u64 n)
{
	WARN_ON((s64)atomic64_sub_return(n, &proc->used[kind]) < 0);
}

/**
 * npu_limits_smi_fill() - the process's use and limits, for npu-smi
 * @proc: the process
 * @rec: the record whose used[] and limit[] are filled
 */
void npu_limits_smi_fill(const struct npu_proc *proc, struct npu_smi_proc *rec)
{
	unsigned int i;

	BUILD_BUG_ON(NPU_LIMIT_COUNT > NPU_LIMIT_SLOTS);
	for (i = 0; i < NPU_LIMIT_SLOTS; i++) {
		rec->used[i] = i < NPU_LIMIT_COUNT ? atomic64_read(&proc->used[i]) : 0;
		rec->limit[i] = npu_limits_max(proc->limits, i);
	}
}
