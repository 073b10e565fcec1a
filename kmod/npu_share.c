// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Sharing device memory between processes.
 *
 * An export (an IPC key or a shareable handle) names physical memory and
 * holds a reference to it. All exports of the driver instance live in one
 * table, so an importer on any device of the instance finds them. A key
 * is 256 bits from get_random_bytes(), handed out as 64 hex characters; a
 * shareable handle is a random non-zero 64-bit value. Neither is derived
 * from anything an attacker sees, and both are compared in full.
 *
 * Unless the exporter turned it off (NPU_SHARE_NO_WHITELIST), only the
 * processes on the export's whitelist may import; only the exporting file
 * may extend the whitelist or destroy the export, and the export dies with
 * that file. A whitelist entry is a TGID with the start time of the process
 * that had it when it was listed (as the context of a file records its
 * opener's), so a new process that reuses a listed pid is not on the list;
 * a pid with no process is refused when it is listed.
 *
 * A whitelist is memory the driver (npud) holds for the exporter, so it is
 * bounded and charged: a TGID is stored once however often it is listed
 * (listed again, its entry names the process that has the pid now), an
 * export lists at most NPU_SHARE_MAX_PIDS processes, and every entry is
 * charged to the exporter's NPU_LIMIT_PIN_BYTES (host memory held for it)
 * until the export goes. One SET_PID call costs one start-time lookup per
 * distinct TGID it names, and time linear in the whitelist's length.
 *
 * Exported memory is marked shared: its frames are scrubbed before any
 * context, the exporter included, gets them again.
 * An import takes its own reference to the physical memory, so it stays
 * valid after the export is gone; the frames go back to the allocator when
 * the last mapping, handle and export of them are gone.
 *
 * Importers are recorded (struct npu_share_link) for npu-smi; a record
 * belongs to its import and leaves the export's list when either goes.
 *
 * Exports are found by name in an rbtree (O(log n) for n live exports);
 * a list keeps them in creation order for npu-smi, and each context lists
 * its own, so closing a file costs what it exported, not what all did.
 *
 * Lock order: a context's lock, then npu_share_lock (never the reverse).
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_phys.h"
#include "npu_share.h"
#include "npu_smi.h"
#include "npu_vmm.h"

#define NPU_IPC_KEY_BYTES	(NPU_IPC_KEY_LEN / 2)

/* A whitelisted process: its TGID and its start (task->group_leader->start_boottime). */
struct npu_share_pid {
	pid_t tgid;
	u64 start;
};

struct npu_export {
	struct rb_node rb;		/* in npu_share_tree, by (kind, name) */
	struct list_head node;		/* in npu_share_exports */
	struct list_head ctx_node;	/* in owner->exports */
	u32 kind;			/* NPU_SMI_IPC_KEY or NPU_SMI_SHARE_HANDLE */
	u8 key[NPU_IPC_KEY_BYTES];	/* IPC key */
	u64 value;			/* shareable handle */
	struct npu_ctx *owner;		/* the owner destroys its exports before it goes */
	pid_t owner_tgid;
	u32 device;			/* of the frames */
	struct npu_phys *phys;		/* referenced */
	u64 size;			/* bytes an import maps */
	u32 flags;			/* NPU_SHARE_* */
	u32 nr_pids;
	struct npu_share_pid *pids;	/* the whitelist */
	struct list_head importers;	/* struct npu_share_link */
};

/* Exports one file may hold: each costs kernel memory, so it is bounded. */
#define NPU_SHARE_MAX_EXPORTS	65536

/* Protects: npu_share_tree, npu_share_exports, every export, every link's node, ctx->exports and ctx->nr_exports */
static DEFINE_MUTEX(npu_share_lock);
static struct rb_root npu_share_tree = RB_ROOT;
static LIST_HEAD(npu_share_exports);

/* 64 hex characters to 32 bytes; false for anything else. */
static bool npu_share_parse_key(const char *text, u8 *key)
{
	unsigned int i;

	for (i = 0; i < NPU_IPC_KEY_LEN; i++) {
		char c = text[i];
		u8 v;

		if (c >= '0' && c <= '9')
			v = c - '0';
		else if (c >= 'a' && c <= 'f')
			v = c - 'a' + 10;
		else
			return false;
		if (i & 1)
			key[i / 2] |= v;
		else
			key[i / 2] = v << 4;
	}
	return true;
}

static void npu_share_format_key(const u8 *key, char *text)
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i;

	for (i = 0; i < NPU_IPC_KEY_BYTES; i++) {
		text[2 * i] = hex[key[i] >> 4];
		text[2 * i + 1] = hex[key[i] & 15];
	}
}

/* Order of the name (@kind, @key or @value) against @exp's. */
static int npu_share_cmp(u32 kind, const u8 *key, u64 value, const struct npu_export *exp)
{
	if (kind != exp->kind)
		return kind < exp->kind ? -1 : 1;
	if (kind == NPU_SMI_IPC_KEY)
		return memcmp(key, exp->key, NPU_IPC_KEY_BYTES);
	return value < exp->value ? -1 : value > exp->value;
}

static struct npu_export *npu_share_find(u32 kind, const u8 *key, u64 value)
{
	struct rb_node *rb = npu_share_tree.rb_node;

	lockdep_assert_held(&npu_share_lock);
	while (rb) {
		struct npu_export *exp = rb_entry(rb, struct npu_export, rb);
		int c = npu_share_cmp(kind, key, value, exp);

		if (!c)
			return exp;
		rb = c < 0 ? rb->rb_left : rb->rb_right;
	}
	return NULL;
}

static struct npu_export *npu_share_find_key(const u8 *key)
{
	return npu_share_find(NPU_SMI_IPC_KEY, key, 0);
}

static struct npu_export *npu_share_find_handle(u64 value)
{
	return value ? npu_share_find(NPU_SMI_SHARE_HANDLE, NULL, value) : NULL;
}

/* Add @exp, whose name no live export has, to the tree. */
static void npu_share_tree_add(struct npu_export *exp)
{
	struct rb_node **link = &npu_share_tree.rb_node, *parent = NULL;

	while (*link) {
		parent = *link;
		if (npu_share_cmp(exp->kind, exp->key, exp->value,
				  rb_entry(parent, struct npu_export, rb)) < 0)
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&exp->rb, parent, link);
	rb_insert_color(&exp->rb, &npu_share_tree);
}

/* A new export of @phys (reference taken), not yet in the table. */
static struct npu_export *npu_share_export_new(struct npu_ctx *ctx, u32 kind,
					       struct npu_phys *phys, u64 size, u32 flags)
{
	struct npu_export *exp = kzalloc(sizeof(*exp), GFP_KERNEL);

	if (!exp)
		return NULL;
	exp->kind = kind;
	exp->owner = ctx;
	exp->owner_tgid = ctx->tgid;
	exp->device = phys->ndev->index;
	exp->phys = npu_phys_get(phys);
	npu_phys_mark_shared(phys);
	exp->size = size;
	exp->flags = flags;
	INIT_LIST_HEAD(&exp->importers);
	return exp;
}

/* Limit of the process for an export of @kind. */
static unsigned int npu_share_limit_kind(u32 kind)
{
	return kind == NPU_SMI_IPC_KEY ? NPU_LIMIT_IPC_KEYS : NPU_LIMIT_SHARE_HANDLES;
}

/*
 * Pick a name no live export has and insert @exp; -ENOMEM past the file's
 * quota, -ENOSPC past the process's limit.
 */
static int npu_share_insert(struct npu_export *exp)
{
	int ret;

	lockdep_assert_held(&npu_share_lock);
	if (exp->owner->nr_exports >= NPU_SHARE_MAX_EXPORTS)
		return -ENOMEM;
	ret = npu_limits_charge(exp->owner->proc, npu_share_limit_kind(exp->kind), 1);
	if (ret)
		return ret;
	exp->owner->nr_exports++;
	if (exp->kind == NPU_SMI_IPC_KEY) {
		do
			get_random_bytes(exp->key, sizeof(exp->key));
		while (npu_share_find_key(exp->key));
	} else {
		do
			exp->value = get_random_u64();
		while (!exp->value || npu_share_find_handle(exp->value));
	}
	npu_share_tree_add(exp);
	list_add_tail(&exp->node, &npu_share_exports);
	list_add_tail(&exp->ctx_node, &exp->owner->exports);
	return 0;
}

/* Free an export that is not (or no longer) in the table. */
static void npu_share_export_free(struct npu_export *exp)
{
	npu_phys_put(exp->phys);
	kvfree(exp->pids);
	kfree(exp);
}

/* Bytes of host memory a whitelist of @nr entries is charged. */
static u64 npu_share_pids_bytes(u32 nr)
{
	return (u64)nr * sizeof(struct npu_share_pid);
}

static void npu_share_destroy_locked(struct npu_export *exp)
{
	struct npu_share_link *link, *tmp;

	lockdep_assert_held(&npu_share_lock);
	exp->owner->nr_exports--;
	npu_limits_uncharge(exp->owner->proc, npu_share_limit_kind(exp->kind), 1);
	if (exp->nr_pids)
		npu_limits_uncharge(exp->owner->proc, NPU_LIMIT_PIN_BYTES,
				    npu_share_pids_bytes(exp->nr_pids));
	rb_erase(&exp->rb, &npu_share_tree);
	list_del(&exp->node);
	list_del(&exp->ctx_node);
	list_for_each_entry_safe(link, tmp, &exp->importers, node)
		list_del_init(&link->node);
	npu_share_export_free(exp);
}

/**
 * npu_share_export_destroy() - destroy an export: no new imports
 * @exp: the export; existing imports are not affected
 */
void npu_share_export_destroy(struct npu_export *exp)
{
	mutex_lock(&npu_share_lock);
	npu_share_destroy_locked(exp);
	mutex_unlock(&npu_share_lock);
}

/**
 * npu_share_link_drop() - forget an importer record
 * @link: the record, owned by the import that is going away
 */
void npu_share_link_drop(struct npu_share_link *link)
{
	mutex_lock(&npu_share_lock);
	if (!list_empty(&link->node))
		list_del(&link->node);
	mutex_unlock(&npu_share_lock);
	kfree(link);
}

static struct npu_share_link *npu_share_link_new(struct npu_ctx *ctx)
{
	struct npu_share_link *link = kzalloc(sizeof(*link), GFP_KERNEL);

	if (link) {
		INIT_LIST_HEAD(&link->node);
		link->tgid = ctx->tgid;
	}
	return link;
}

/* May @ctx import @exp? 0 or -EPERM. */
static int npu_share_check_pid(const struct npu_export *exp, const struct npu_ctx *ctx)
{
	u32 i;

	if (exp->flags & NPU_SHARE_NO_WHITELIST)
		return 0;
	/* TGID 0 is "unknown" (npud could not tell who the caller is): deny. */
	if (ctx->tgid <= 0)
		return -EPERM;
	for (i = 0; i < exp->nr_pids; i++)
		if (exp->pids[i].tgid == ctx->tgid && exp->pids[i].start == ctx->start_time)
			return 0;
	return -EPERM;
}

/* Put @link on @exp's importer list. */
static void npu_share_link_add(struct npu_export *exp, struct npu_share_link *link)
{
	lockdep_assert_held(&npu_share_lock);
	link->size = exp->size;
	list_add_tail(&link->node, &exp->importers);
}

/**
 * npu_share_export_key() - export physical memory under a new IPC key
 * @ctx: the exporting context
 * @phys: the memory; the export takes its own reference
 * @size: bytes the key grants, a multiple of @phys's page size
 * @flags: NPU_SHARE_* flags, already checked
 * @key: out: the key, NPU_IPC_KEY_LEN characters
 *
 * Return: 0; -ENOSPC past the process's limit of IPC keys; -ENOMEM.
 */
int npu_share_export_key(struct npu_ctx *ctx, struct npu_phys *phys, u64 size, u32 flags,
			 char *key)
{
	struct npu_export *exp;
	int ret;

	exp = npu_share_export_new(ctx, NPU_SMI_IPC_KEY, phys, size, flags);
	if (!exp)
		return -ENOMEM;
	mutex_lock(&npu_share_lock);
	ret = npu_share_insert(exp);
	if (!ret)
		npu_share_format_key(exp->key, key);
	mutex_unlock(&npu_share_lock);
	if (ret)
		npu_share_export_free(exp);
	return ret;
}

/**
 * npu_share_import_key() - find the export of an IPC key for an importer
 * @ctx: the importing context
 * @args: NPU_IOCTL_IPC_IMPORT arguments; owner_device and owner_tgid are
 *	filled on success
 * @phys: out on success: the exported memory, referenced
 *
 * The caller maps @phys and hands it the returned record, or drops both.
 *
 * Return: the importer record, on the export's list (its size is what the
 * key grants); ERR_PTR of -ENOENT for a malformed or unknown key, -EPERM
 * when the caller is not on the whitelist, -ENOMEM.
 */
struct npu_share_link *npu_share_import_key(struct npu_ctx *ctx, struct npu_ipc_import *args,
					    struct npu_phys **phys)
{
	u8 key[NPU_IPC_KEY_BYTES];
	struct npu_share_link *link;
	struct npu_export *exp;
	int ret;

	if (!npu_share_parse_key(args->key, key))
		return ERR_PTR(-ENOENT);
	link = npu_share_link_new(ctx);
	if (!link)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&npu_share_lock);
	exp = npu_share_find_key(key);
	ret = exp ? npu_share_check_pid(exp, ctx) : -ENOENT;
	if (ret) {
		mutex_unlock(&npu_share_lock);
		kfree(link);
		return ERR_PTR(ret);
	}
	*phys = npu_phys_get(exp->phys);
	args->owner_device = exp->device;
	args->owner_tgid = exp->owner_tgid;
	npu_share_link_add(exp, link);
	mutex_unlock(&npu_share_lock);
	return link;
}

/**
 * npu_share_ipc_destroy() - NPU_IOCTL_IPC_DESTROY
 * @ctx: a set-up context
 * @key: NPU_IPC_KEY_LEN characters
 *
 * Return: 0 or -ENOENT for a key this file did not export.
 */
int npu_share_ipc_destroy(struct npu_ctx *ctx, const char *key)
{
	u8 raw[NPU_IPC_KEY_BYTES];
	struct npu_export *exp;
	int ret = -ENOENT;

	if (!npu_share_parse_key(key, raw))
		return -ENOENT;
	mutex_lock(&npu_share_lock);
	exp = npu_share_find_key(raw);
	if (exp && exp->owner == ctx) {
		npu_share_destroy_locked(exp);
		ret = 0;
	}
	mutex_unlock(&npu_share_lock);
	return ret;
}

/*
 * The export named by a SET_PID call, if @ctx may extend its whitelist:
 * -ENOENT or -EPERM otherwise.
 */
static struct npu_export *npu_share_set_pid_target(struct npu_ctx *ctx,
						   const struct npu_share_set_pid *args,
						   const u8 *raw, bool ipc, int *err)
{
	struct npu_export *exp;

	lockdep_assert_held(&npu_share_lock);
	exp = ipc ? npu_share_find_key(raw) : npu_share_find_handle(args->handle);
	if (!exp)
		*err = -ENOENT;
	else if (exp->owner != ctx || exp->flags & NPU_SHARE_NO_WHITELIST)
		*err = -EPERM;
	else
		*err = 0;
	return *err ? NULL : exp;
}

/*
 * The start time of the process whose TGID is @nr (a number as
 * task_tgid_nr() reports it, so in the initial pid namespace): -ESRCH if
 * there is none, or @nr is a thread that does not lead its group.
 */
static int npu_share_pid_start(pid_t nr, u64 *start)
{
	struct task_struct *task;

	if (nr <= 0)
		return -ESRCH;
	rcu_read_lock();
	task = get_pid_task(find_pid_ns(nr, &init_pid_ns), PIDTYPE_TGID);
	rcu_read_unlock();
	if (!task)
		return -ESRCH;
	*start = task->group_leader->start_boottime;
	put_task_struct(task);
	return 0;
}

/*
 * A set of distinct TGIDs, to drop repeats from a SET_PID call and find
 * which entries of the whitelist it renews: open addressing over a table
 * at least twice the size of the call, so O(1) expected per TGID. A slot
 * holds an index into the call's distinct TGIDs plus one; 0 is empty.
 */
struct npu_share_pidset {
	u32 *slots;
	u32 bits;
	const struct npu_share_pid *list;	/* the distinct TGIDs */
};

static int npu_share_pidset_init(struct npu_share_pidset *set, u32 count,
				 const struct npu_share_pid *list)
{
	set->bits = order_base_2(count) + 1;
	set->slots = kvcalloc(1U << set->bits, sizeof(*set->slots), GFP_KERNEL);
	set->list = list;
	return set->slots ? 0 : -ENOMEM;
}

/* The slot of @tgid: the one holding it, or the empty one where it goes. */
static u32 *npu_share_pidset_slot(const struct npu_share_pidset *set, pid_t tgid)
{
	u32 mask = (1U << set->bits) - 1;
	u32 i = hash_32((u32)tgid, set->bits);

	/* Never full (at most half its slots are used), so this ends. */
	while (set->slots[i] && set->list[set->slots[i] - 1].tgid != tgid)
		i = (i + 1) & mask;
	return &set->slots[i];
}

static bool npu_share_pidset_has(const struct npu_share_pidset *set, pid_t tgid)
{
	return *npu_share_pidset_slot(set, tgid) != 0;
}

/*
 * Replace @exp's whitelist by its entries whose TGID is not in @set, then
 * @set's @nr entries; charge the growth to the owner. 0, -EINVAL past
 * NPU_SHARE_MAX_PIDS, -ENOMEM past the owner's budget or out of memory.
 */
static int npu_share_merge_pids(struct npu_export *exp, const struct npu_share_pidset *set,
				u32 nr)
{
	struct npu_share_pid *merged;
	u32 i, kept = 0;
	int ret;

	lockdep_assert_held(&npu_share_lock);
	for (i = 0; i < exp->nr_pids; i++)
		kept += !npu_share_pidset_has(set, exp->pids[i].tgid);
	if (kept + nr > NPU_SHARE_MAX_PIDS)
		return -EINVAL;
	if (kept + nr > exp->nr_pids) {
		ret = npu_limits_charge(exp->owner->proc, NPU_LIMIT_PIN_BYTES,
					npu_share_pids_bytes(kept + nr - exp->nr_pids));
		if (ret)
			return ret;
	}
	merged = kvmalloc_array(kept + nr, sizeof(*merged), GFP_KERNEL);
	if (!merged) {
		if (kept + nr > exp->nr_pids)
			npu_limits_uncharge(exp->owner->proc, NPU_LIMIT_PIN_BYTES,
					    npu_share_pids_bytes(kept + nr - exp->nr_pids));
		return -ENOMEM;
	}
	kept = 0;
	for (i = 0; i < exp->nr_pids; i++)
		if (!npu_share_pidset_has(set, exp->pids[i].tgid))
			merged[kept++] = exp->pids[i];
	memcpy(merged + kept, set->list, nr * sizeof(*merged));
	if (kept + nr < exp->nr_pids)
		npu_limits_uncharge(exp->owner->proc, NPU_LIMIT_PIN_BYTES,
				    npu_share_pids_bytes(exp->nr_pids - kept - nr));
	kvfree(exp->pids);
	exp->pids = merged;
	exp->nr_pids = kept + nr;
	return 0;
}

/**
 * npu_share_set_pid() - NPU_IOCTL_IPC_SET_PID and NPU_IOCTL_SHARE_SET_PID
 * @ctx: a set-up context
 * @args: the arguments, pad checked
 * @ipc: the export is named by args->key (else by args->handle)
 *
 * Each distinct TGID is recorded once, with the start time of its process,
 * looked up now (once per TGID, however often the call names it); an
 * entry the export has for that TGID already is replaced. All or none of
 * them are added.
 *
 * Return: 0; -EINVAL for a bad count, the wrong name field set, or a
 * whitelist that would list more than NPU_SHARE_MAX_PIDS processes;
 * -EFAULT if the TGIDs cannot be read; -ENOENT for an unknown export;
 * -EPERM if the caller did not export it or it has no whitelist; -ESRCH if
 * a TGID names no process; -ENOMEM past the process's (or its user's)
 * budget of host memory, or out of memory.
 */
int npu_share_set_pid(struct npu_ctx *ctx, const struct npu_share_set_pid *args, bool ipc)
{
	struct npu_share_pidset set;
	struct npu_share_pid *list;
	u8 raw[NPU_IPC_KEY_BYTES];
	struct npu_export *exp;
	pid_t *pids;
	u32 i, nr = 0;
	u32 *slot;
	int ret;

	/* Bounded before anything is copied: the copies below are this big. */
	if (!args->count || args->count > NPU_SHARE_MAX_PIDS)
		return -EINVAL;
	if (ipc ? args->handle != 0 : memchr_inv(args->key, 0, sizeof(args->key)) != NULL)
		return -EINVAL;
	if (ipc && !npu_share_parse_key(args->key, raw))
		return -ENOENT;
	BUILD_BUG_ON(sizeof(pid_t) != sizeof(__s32));
	pids = kvmalloc_array(args->count, sizeof(*pids), GFP_KERNEL);
	if (!pids)
		return -ENOMEM;
	list = kvmalloc_array(args->count, sizeof(*list), GFP_KERNEL);
	if (!list) {
		ret = -ENOMEM;
		goto out_free_pids;
	}
	ret = npu_share_pidset_init(&set, args->count, list);
	if (ret)
		goto out_free_list;
	if (copy_from_user(pids, u64_to_user_ptr(args->pids), args->count * sizeof(*pids))) {
		ret = -EFAULT;
		goto out_free;
	}

	/* Name the export's errors first; the lookups below may sleep. */
	mutex_lock(&npu_share_lock);
	npu_share_set_pid_target(ctx, args, raw, ipc, &ret);
	mutex_unlock(&npu_share_lock);
	if (ret)
		goto out_free;
	for (i = 0; i < args->count; i++) {
		slot = npu_share_pidset_slot(&set, pids[i]);
		if (*slot)
			continue;
		list[nr].tgid = pids[i];
		ret = npu_share_pid_start(pids[i], &list[nr].start);
		if (ret)
			goto out_free;
		*slot = ++nr;
	}

	mutex_lock(&npu_share_lock);
	exp = npu_share_set_pid_target(ctx, args, raw, ipc, &ret);
	if (exp)
		ret = npu_share_merge_pids(exp, &set, nr);
	mutex_unlock(&npu_share_lock);
out_free:
	kvfree(set.slots);
out_free_list:
	kvfree(list);
out_free_pids:
	kvfree(pids);
	return ret;
}

/**
 * npu_share_handle_export() - NPU_IOCTL_SHARE_EXPORT
 * @ctx: a set-up context
 * @args: the arguments; share is filled on success
 *
 * Return: 0; -EINVAL for flags or an imported handle; -ENOENT for an
 * unknown handle; -EEXIST if it is exported already; -ENOSPC past the
 * process's limit of shareable handles; -ENOMEM.
 */
int npu_share_handle_export(struct npu_ctx *ctx, struct npu_share_export *args)
{
	struct npu_phys_handle *h;
	struct npu_export *exp;
	int ret = 0;

	if (args->flags & ~NPU_SHARE_FLAGS_ALL)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	h = idr_find(&ctx->phys, args->handle);
	if (!h)
		ret = -ENOENT;
	else if (h->imported)
		ret = -EINVAL;
	else if (h->export)
		ret = -EEXIST;
	if (ret)
		goto out_unlock;
	exp = npu_share_export_new(ctx, NPU_SMI_SHARE_HANDLE, h->phys, h->phys->size,
				   args->flags);
	if (!exp) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	mutex_lock(&npu_share_lock);
	ret = npu_share_insert(exp);
	args->share = exp->value;
	mutex_unlock(&npu_share_lock);
	if (ret)
		npu_share_export_free(exp);
	else
		h->export = exp;
out_unlock:
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * npu_share_import_handle() - find the export of a shareable handle for an importer
 * @ctx: the importing context
 * @args: NPU_IOCTL_SHARE_IMPORT arguments; size and owner_device are
 *	filled on success
 * @phys: out on success: the exported memory, referenced
 *
 * The caller makes a handle of @phys and hands it the returned record, or
 * drops both.
 *
 * Return: the importer record, on the export's list; ERR_PTR of -ENOENT
 * for an unknown shareable handle, -EPERM when the caller is not
 * whitelisted, -EINVAL when it is the exporting process, -ENOMEM.
 */
struct npu_share_link *npu_share_import_handle(struct npu_ctx *ctx,
					       struct npu_share_import *args,
					       struct npu_phys **phys)
{
	struct npu_share_link *link;
	struct npu_export *exp;
	int ret;

	link = npu_share_link_new(ctx);
	if (!link)
		return ERR_PTR(-ENOMEM);
	mutex_lock(&npu_share_lock);
	exp = npu_share_find_handle(args->share);
	ret = exp ? npu_share_check_pid(exp, ctx) : -ENOENT;
	if (!ret && exp->owner_tgid == ctx->tgid)
		ret = -EINVAL;
	if (ret) {
		mutex_unlock(&npu_share_lock);
		kfree(link);
		return ERR_PTR(ret);
	}
	*phys = npu_phys_get(exp->phys);
	args->size = exp->size;
	args->owner_device = exp->device;
	npu_share_link_add(exp, link);
	mutex_unlock(&npu_share_lock);
	return link;
}

/**
 * npu_share_release_ctx() - destroy the IPC keys of a closing context
 * @ctx: the context
 *
 * Its shareable handles go with its physical handles (npu_vmm_release_all).
 */
void npu_share_release_ctx(struct npu_ctx *ctx)
{
	struct npu_export *exp, *tmp;

	mutex_lock(&npu_share_lock);
	list_for_each_entry_safe(exp, tmp, &ctx->exports, ctx_node)
		if (exp->kind == NPU_SMI_IPC_KEY)
			npu_share_destroy_locked(exp);
	mutex_unlock(&npu_share_lock);
}

static void npu_share_smi_fill(const struct npu_export *exp, struct npu_smi_share *rec)
{
	char key[NPU_IPC_KEY_LEN];

	memset(rec, 0, sizeof(*rec));
	rec->kind = exp->kind;
	rec->tgid = exp->owner_tgid;
	rec->device = exp->device;
	rec->whitelist = exp->flags & NPU_SHARE_NO_WHITELIST ? U32_MAX : exp->nr_pids;
	rec->size = exp->size;
	if (exp->kind == NPU_SMI_IPC_KEY) {
		npu_share_format_key(exp->key, key);
		memcpy(rec->tag, key, 8);
	} else {
		snprintf(rec->tag, sizeof(rec->tag), "0x%04llx", exp->value >> 48);
	}
}

/**
 * npu_share_smi() - NPU_IOCTL_SMI_SHARES
 * @args: the query; total and written are filled on success
 *
 * One record per export, each followed by one per importer of it.
 *
 * Return: 0; -EINVAL for a count above the limit; -EFAULT; -ENOMEM.
 */
int npu_share_smi(struct npu_smi_query *args)
{
	struct npu_smi_share *recs = npu_smi_alloc(args, sizeof(*recs));
	const struct npu_share_link *link;
	const struct npu_export *exp;
	u32 n = 0;

	if (IS_ERR(recs))
		return PTR_ERR(recs);
	mutex_lock(&npu_share_lock);
	list_for_each_entry(exp, &npu_share_exports, node) {
		if (n < args->count)
			npu_share_smi_fill(exp, &recs[n]);
		n++;
		list_for_each_entry(link, &exp->importers, node) {
			if (n < args->count) {
				recs[n].kind = NPU_SMI_IMPORTER;
				recs[n].tgid = link->tgid;
				recs[n].device = exp->device;
				recs[n].size = link->size;
			}
			n++;
		}
	}
	mutex_unlock(&npu_share_lock);
	return npu_smi_reply(args, recs, n, sizeof(*recs));
}
