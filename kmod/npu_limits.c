// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Per-process and per-user limits.
 *
 * One process must not be able to take every ring, handle or byte a device
 * (or, for npud, the daemon) has, so each process (TGID) gets a budget per
 * device. A process may open a device many times; the budget is per
 * process, not per file: every context of a process shares one refcounted
 * struct npu_proc, found by TGID in a small per-device hash table when a
 * file is opened. Charging and uncharging are atomic adds on that object,
 * O(1) and lock-free; the table lock is taken only at open and close.
 *
 * Nor may many processes of one user take it all together, so each user
 * (the real UID of the process when it first opened the device) has a
 * budget per device too, a struct npu_user that the struct npu_proc of
 * each of its processes references. A charge takes the user's budget, then
 * the process's, and gives the user's back if the process's is exhausted:
 * still two atomic adds, O(1), lock-free. The user's object lives as long
 * as an object of one of its processes does, so a process that exits while
 * an importer still holds its memory keeps that memory on its user's bill.
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
 * created is taken away. A per-process limit of 0 then refuses every new
 * object of the kind (module load refuses 0); a per-user limit of 0 is no
 * limit, the default: on a machine with one user, that user's processes
 * are bounded by the per-process limits alone.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_limits.h"
#include "npu_smi.h"

#include <linux/cred.h>

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

/*
 * Ring memory is the process's own, but the driver pins it (npud maps it)
 * for the ring's life. The runtime gives each stream a ring of 4096
 * entries, 324 KiB, so its 1984 streams take 628 MiB; 1 GiB lets them all
 * be created while bounding the largest rings (2.5 MiB, 32768 entries) to
 * about 400.
 */
static unsigned int limit_ring_mb = 1024;
module_param(limit_ring_mb, uint, 0644);
MODULE_PARM_DESC(limit_ring_mb,
		 "Ring memory (pinned) one process may create per device, MiB (default 1024)");

/* Per-user limits, the same kinds for all processes of one UID together; 0 is none. */
static unsigned int limit_user_rings;
module_param(limit_user_rings, uint, 0644);
MODULE_PARM_DESC(limit_user_rings, "Rings per user per device (default 0: no limit)");

static unsigned int limit_user_allocations;
module_param(limit_user_allocations, uint, 0644);
MODULE_PARM_DESC(limit_user_allocations,
		 "Allocations and IPC imports per user per device (default 0: no limit)");

static unsigned int limit_user_phys_handles;
module_param(limit_user_phys_handles, uint, 0644);
MODULE_PARM_DESC(limit_user_phys_handles,
		 "Physical handles per user per device (default 0: no limit)");

static unsigned int limit_user_ipc_keys;
module_param(limit_user_ipc_keys, uint, 0644);
MODULE_PARM_DESC(limit_user_ipc_keys, "IPC keys per user per device (default 0: no limit)");

static unsigned int limit_user_share_handles;
module_param(limit_user_share_handles, uint, 0644);
MODULE_PARM_DESC(limit_user_share_handles,
		 "Shareable handles per user per device (default 0: no limit)");

static unsigned int limit_user_pin_mb;
module_param(limit_user_pin_mb, uint, 0644);
MODULE_PARM_DESC(limit_user_pin_mb,
		 "Host memory held for one user per device, MiB (default 0: no limit)");

static unsigned int limit_user_hbm_mb;
module_param(limit_user_hbm_mb, uint, 0644);
MODULE_PARM_DESC(limit_user_hbm_mb,
		 "Device memory one user may allocate per device, MiB (default 0: the whole device)");

static unsigned int limit_user_ring_mb;
module_param(limit_user_ring_mb, uint, 0644);
MODULE_PARM_DESC(limit_user_ring_mb,
		 "Ring memory one user may create per device, MiB (default 0: no limit)");

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
	    !limit_share_handles || !limit_pin_mb || !limit_ring_mb) {
		pr_err("npu: every limit_* parameter must be at least 1\n");
		return -EINVAL;
	}
	mutex_init(&limits->lock);
	hash_init(limits->table);
	spin_lock_init(&limits->users_lock);
	hash_init(limits->users);
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
	case NPU_LIMIT_RING_BYTES:
		return (u64)READ_ONCE(limit_ring_mb) << 20;
	}
	return 0;
}

/* A per-user count limit: 0 is none. */
static u64 npu_limits_user_count(unsigned int n)
{
	return n ? n : NPU_LIMIT_NONE;
}

/* A per-user memory limit in MiB: 0 is none. */
static u64 npu_limits_user_mb(unsigned int mb)
{
	return mb ? (u64)mb << 20 : NPU_LIMIT_NONE;
}

/**
 * npu_limits_user_max() - the current per-user limit of a kind on a device
 * @limits: the device's table
 * @kind: NPU_LIMIT_*
 *
 * Return: objects, or bytes for the memory kinds; NPU_LIMIT_NONE when the
 * kind has no per-user limit (HBM: the whole device).
 */
u64 npu_limits_user_max(const struct npu_limits *limits, unsigned int kind)
{
	u64 hbm;

	switch (kind) {
	case NPU_LIMIT_RINGS:
		return npu_limits_user_count(READ_ONCE(limit_user_rings));
	case NPU_LIMIT_ALLOCATIONS:
		return npu_limits_user_count(READ_ONCE(limit_user_allocations));
	case NPU_LIMIT_PHYS_HANDLES:
		return npu_limits_user_count(READ_ONCE(limit_user_phys_handles));
	case NPU_LIMIT_IPC_KEYS:
		return npu_limits_user_count(READ_ONCE(limit_user_ipc_keys));
	case NPU_LIMIT_SHARE_HANDLES:
		return npu_limits_user_count(READ_ONCE(limit_user_share_handles));
	case NPU_LIMIT_PIN_BYTES:
		return npu_limits_user_mb(READ_ONCE(limit_user_pin_mb));
	case NPU_LIMIT_HBM_BYTES:
		hbm = (u64)READ_ONCE(limit_user_hbm_mb) << 20;
		return hbm && hbm < limits->hbm_size ? hbm : limits->hbm_size;
	case NPU_LIMIT_RING_BYTES:
		return npu_limits_user_mb(READ_ONCE(limit_user_ring_mb));
	}
	return 0;
}

/**
 * npu_limits_current_uid() - the user whose budget a file opened now charges
 *
 * Return: the caller's real UID in the initial user namespace.
 */
u32 npu_limits_current_uid(void)
{
	return from_kuid(&init_user_ns, current_uid());
}

/**
 * npu_limits_fini() - tear down a device's table
 * @limits: the table; every context of the device is gone
 */
void npu_limits_fini(struct npu_limits *limits)
{
	WARN_ON(!hash_empty(limits->table));
	WARN_ON(!hash_empty(limits->users));
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

/*
 * The user's object, with one more process charging it: @fresh if the
 * user has none yet (then *@fresh is cleared), which the caller frees
 * otherwise. O(1) expected.
 */
static struct npu_user *npu_limits_user_enter(struct npu_limits *limits, u32 uid,
					      struct npu_user **fresh)
{
	struct npu_user *user;
	unsigned int i;

	spin_lock(&limits->users_lock);
	hash_for_each_possible(limits->users, user, node, uid)
		if (user->uid == uid)
			goto found;
	user = *fresh;
	*fresh = NULL;
	user->uid = uid;
	for (i = 0; i < NPU_LIMIT_COUNT; i++)
		atomic64_set(&user->used[i], 0);
	hash_add(limits->users, &user->node, uid);
found:
	user->nr_procs++;
	spin_unlock(&limits->users_lock);
	return user;
}

/* A process no longer charges @user: the last one takes it out of the table. */
static void npu_limits_user_leave(struct npu_limits *limits, struct npu_user *user)
{
	unsigned int i;
	bool last;

	spin_lock(&limits->users_lock);
	last = !--user->nr_procs;
	if (last)
		hash_del(&user->node);
	spin_unlock(&limits->users_lock);
	if (!last)
		return;
	for (i = 0; i < NPU_LIMIT_COUNT; i++)
		WARN_ON(atomic64_read(&user->used[i]));
	kfree(user);
}

/**
 * npu_limits_proc_enter() - the accounting object of a context's process
 * @limits: the device's table
 * @tgid: the process
 * @uid: its user (npu_limits_current_uid()), if the process has no object yet
 * @out: the object, with a reference for the context
 *
 * Every call must be paired with npu_limits_proc_leave() and, once nothing
 * of the context uses it any more, npu_limits_proc_put().
 *
 * Return: 0 or -ENOMEM.
 */
int npu_limits_proc_enter(struct npu_limits *limits, pid_t tgid, u32 uid,
			  struct npu_proc **out)
{
	struct npu_user *fresh_user;
	struct npu_proc *proc, *fresh;
	unsigned int i;

	/* Allocated outside the locks; freed again if the process (user) has one. */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	fresh_user = kzalloc(sizeof(*fresh_user), GFP_KERNEL);
	if (!fresh || !fresh_user) {
		kfree(fresh_user);
		kfree(fresh);
		return -ENOMEM;
	}
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
		proc->user = npu_limits_user_enter(limits, uid, &fresh_user);
		for (i = 0; i < NPU_LIMIT_COUNT; i++)
			atomic64_set(&proc->used[i], 0);
		hash_add(limits->table, &proc->node, tgid);
	}
	proc->nr_ctx++;
	mutex_unlock(&limits->lock);
	kfree(fresh_user);
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
	npu_limits_user_leave(proc->limits, proc->user);
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

/* Memory kinds fail with -ENOMEM, counts with -ENOSPC. */
static int npu_limits_error(unsigned int kind)
{
	switch (kind) {
	case NPU_LIMIT_PIN_BYTES:
	case NPU_LIMIT_HBM_BYTES:
	case NPU_LIMIT_RING_BYTES:
		return -ENOMEM;
	}
	return -ENOSPC;
}

/* Add @n to @used unless that takes it past @max; @n <= @max. */
static bool npu_limits_take(atomic64_t *used, u64 max, u64 n)
{
	if ((u64)atomic64_add_return(n, used) > max) {
		atomic64_sub(n, used);
		return false;
	}
	return true;
}

/**
 * npu_limits_charge() - take @n units of a limited resource
 * @proc: the process; its user is charged too
 * @kind: NPU_LIMIT_*
 * @n: units (objects, or bytes for the memory kinds)
 *
 * All or nothing: on failure nothing is charged, to the process or its user.
 *
 * Return: 0; -ENOSPC past a count limit; -ENOMEM past a memory limit.
 */
int npu_limits_charge(struct npu_proc *proc, unsigned int kind, u64 n)
{
	u64 max = npu_limits_max(proc->limits, kind);
	u64 user_max = npu_limits_user_max(proc->limits, kind);
	struct npu_user *user = proc->user;

	/* A request larger than a limit could wrap the counter. */
	if (n > max || n > user_max)
		return npu_limits_error(kind);
	if (!npu_limits_take(&user->used[kind], user_max, n))
		return npu_limits_error(kind);
	if (!npu_limits_take(&proc->used[kind], max, n)) {
		atomic64_sub(n, &user->used[kind]);
		return npu_limits_error(kind);
	}
	return 0;
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
	WARN_ON((s64)atomic64_sub_return(n, &proc->user->used[kind]) < 0);
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

/**
 * npu_limits_smi_users() - NPU_IOCTL_SMI_USERS: one record per user of a device
 * @limits: the device's table
 * @args: the query, pad checked; total and written are filled on success
 *
 * Return: 0; -EINVAL for a count above the limit; -EFAULT; -ENOMEM.
 */
int npu_limits_smi_users(struct npu_limits *limits, struct npu_smi_query *args)
{
	struct npu_smi_user *recs = npu_smi_alloc(args, sizeof(*recs));
	const struct npu_user *user;
	unsigned int bkt, i;
	u32 n = 0;

	if (IS_ERR(recs))
		return PTR_ERR(recs);
	spin_lock(&limits->users_lock);
	hash_for_each(limits->users, bkt, user, node) {
		if (n < args->count) {
			struct npu_smi_user *r = &recs[n];

			r->uid = user->uid;
			r->procs = user->nr_procs;
			for (i = 0; i < NPU_LIMIT_SLOTS; i++) {
				r->used[i] = i < NPU_LIMIT_COUNT ? atomic64_read(&user->used[i]) : 0;
				r->limit[i] = npu_limits_user_max(limits, i);
			}
		}
		n++;
	}
	spin_unlock(&limits->users_lock);
	return npu_smi_reply(args, recs, n, sizeof(*recs));
}
