/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Limits: what one process (TGID), and all processes of one user (UID)
 * together, may hold on one device.
 */
#ifndef _NPU_LIMITS_H
#define _NPU_LIMITS_H

#include "npu_internal.h"
#include <npu/npu_uapi.h>

struct npu_smi_proc;
struct npu_smi_query;

#define NPU_LIMITS_HASH_BITS	6

/*
 * The accounting object of one user on one device, shared by the
 * accounting objects of all its processes. Charged and uncharged like
 * theirs, locklessly, in O(1).
 */
struct npu_user {
	struct hlist_node node;	/* in npu_limits.users while nr_procs > 0 */
	u32 uid;		/* real UID in the initial user namespace */
	unsigned int nr_procs;	/* struct npu_procs charging it; under npu_limits.users_lock */
	atomic64_t used[NPU_LIMIT_COUNT];	/* NPU_LIMIT_* units in use */
};

/*
 * The accounting object of one process on one device, shared by every
 * context (open file) of that process. The counters are charged and
 * uncharged locklessly, in O(1).
 */
struct npu_proc {
	struct hlist_node node;	/* in npu_limits.table while nr_ctx > 0 */
	struct kref ref;	/* one per context, one per object that outlives them */
	struct npu_limits *limits;
	struct npu_user *user;	/* of the opener of the process's first context */
	pid_t tgid;
	unsigned int nr_ctx;	/* contexts of the process; under npu_limits.lock */
	/* Its rings the device's futex doorbell thread watches; under that db_lock. */
	unsigned int nr_db;
	atomic64_t used[NPU_LIMIT_COUNT];	/* NPU_LIMIT_* units in use */
};

/* The accounting objects of a device's processes and users, and the device's limits. */
struct npu_limits {
	struct mutex lock; /* Protects: table, the node and nr_ctx of every npu_proc in it */
	DECLARE_HASHTABLE(table, NPU_LIMITS_HASH_BITS);	/* struct npu_proc by tgid */
	/* A spinlock: the last reference to a process may go in any context. */
	spinlock_t users_lock; /* Protects: users, the node and nr_procs of every npu_user */
	DECLARE_HASHTABLE(users, NPU_LIMITS_HASH_BITS);	/* struct npu_user by uid */
	u64 hbm_size;		/* the device's: the default and highest HBM limit */
};

int npu_limits_init(struct npu_limits *limits, u64 hbm_size);
void npu_limits_fini(struct npu_limits *limits);
u64 npu_limits_max(const struct npu_limits *limits, unsigned int kind);
u64 npu_limits_user_max(const struct npu_limits *limits, unsigned int kind);
u32 npu_limits_current_uid(void);

int npu_limits_proc_enter(struct npu_limits *limits, pid_t tgid, u32 uid,
			  struct npu_proc **out);
void npu_limits_proc_leave(struct npu_proc *proc);
struct npu_proc *npu_limits_proc_get(struct npu_proc *proc);
void npu_limits_proc_put(struct npu_proc *proc);

int npu_limits_charge(struct npu_proc *proc, unsigned int kind, u64 n);
void npu_limits_uncharge(struct npu_proc *proc, unsigned int kind, u64 n);
void npu_limits_smi_fill(const struct npu_proc *proc, struct npu_smi_proc *rec);
int npu_limits_smi_users(struct npu_limits *limits, struct npu_smi_query *args);

#endif /* _NPU_LIMITS_H */
