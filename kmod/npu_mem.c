// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mappings of device memory in a context.
 *
 * A mapping (struct npu_mem) puts physical memory (struct npu_phys) at a
 * range of device VAs. MEM_ALLOC creates both at once; an IPC import maps
 * the exporter's physical memory again, in the importer's context; a VMM
 * mapping (npu_vmm.c) puts a physical handle inside a reservation. The
 * mapping holds a reference to the physical memory, so the frames outlive
 * every mapping of them, wherever they are.
 *
 * npu_mem_range_get() is how an engine resolves a device range: it holds
 * a reference to each physical memory the range crosses (several, for VMM
 * mappings placed back to back), so an unmap or free racing with a copy
 * only drops the mapping, never the frames under the copy.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_mem.h"
#include "npu_share.h"
#include "npu_vmm.h"

/* Counters npu-smi reads without the lock. */
static void npu_mem_account(struct npu_ctx *ctx, const struct npu_mem *mem, int sign)
{
	lockdep_assert_held(&ctx->lock);
	WRITE_ONCE(ctx->mapped_bytes, ctx->mapped_bytes + sign * (s64)mem->node.size);
	if (mem->kind == NPU_MAPPING_ALLOC)
		WRITE_ONCE(ctx->nr_mems, ctx->nr_mems + sign);
	else if (mem->kind == NPU_MAPPING_IMPORT)
		WRITE_ONCE(ctx->nr_imports, ctx->nr_imports + sign);
}

/* Place @mem (phys and kind set) in the context's address space with a handle. */
static int npu_mem_insert(struct npu_ctx *ctx, struct npu_mem *mem, u64 size)
{
	u32 page = npu_phys_page_size(mem->phys);
	int ret, id;

	lockdep_assert_held(&ctx->lock);
	ret = npu_limits_charge(ctx->proc, NPU_LIMIT_ALLOCATIONS, 1);
	if (ret)
		return ret;
	mem->node.kind = NPU_VAS_MAPPING;
	ret = npu_vas_reserve(&ctx->vas, &mem->node, round_up(size, (u64)page), page);
	if (ret)
		goto err_uncharge;
	id = idr_alloc(&ctx->mems, mem, 1, 0, GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto err_remove;
	}
	mem->handle = id;
	npu_mem_account(ctx, mem, 1);
	return 0;

err_remove:
	npu_vas_remove(&ctx->vas, &mem->node);
err_uncharge:
	npu_limits_uncharge(ctx->proc, NPU_LIMIT_ALLOCATIONS, 1);
	return ret;
}

/* Unmap and unlink an ALLOC or IMPORT mapping; the caller frees it. */
static void npu_mem_unlink(struct npu_ctx *ctx, struct npu_mem *mem)
{
	lockdep_assert_held(&ctx->lock);
	idr_remove(&ctx->mems, mem->handle);
	npu_vas_remove(&ctx->vas, &mem->node);
	npu_ctx_unmapped(ctx);
	npu_mem_account(ctx, mem, -1);
	npu_limits_uncharge(ctx->proc, NPU_LIMIT_ALLOCATIONS, 1);
}

/* Free an unlinked mapping and what it references. */
static void npu_mem_destroy(struct npu_mem *mem)
{
	if (mem->link)
		npu_share_link_drop(mem->link);
	npu_phys_put(mem->phys);
	kfree(mem);
}

/**
 * npu_mem_create() - allocate device memory and map it in the context
 * @ctx: a set-up context
 * @args: NPU_IOCTL_MEM_ALLOC arguments, already checked for reserved
 *	fields and unknown flags; the out fields are filled on success
 *
 * Return: 0; -EINVAL for size 0 or an unknown policy; -ENOSPC when the
 * process has its limit of allocations; -ENOMEM when the device (a size
 * larger than the HBM included), the process's HBM budget, the address
 * space or the kernel is out of memory.
 */
int npu_mem_create(struct npu_ctx *ctx, struct npu_mem_alloc *args)
{
	struct npu_mem *mem;
	int ret;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	mem->kind = NPU_MAPPING_ALLOC;
	mem->size = args->size;
	mem->access = NPU_MEM_ACCESS_ALL;
	ret = npu_phys_create(ctx->ndev, ctx->proc, ctx->owner, args->size, args->policy,
			      args->flags, &mem->phys);
	if (ret)
		goto err_free_mem;

	mutex_lock(&ctx->lock);
	ret = npu_mem_insert(ctx, mem, args->size);
	if (ret)
		goto err_unlock;
	args->va = mem->node.start;
	args->handle = mem->handle;
	args->mapped_size = mem->node.size;
	args->page_size = npu_phys_page_size(mem->phys);
	mutex_unlock(&ctx->lock);
	return 0;

err_unlock:
	mutex_unlock(&ctx->lock);
	npu_phys_put(mem->phys);
err_free_mem:
	kfree(mem);
	return ret;
}

/**
 * npu_mem_import() - map physical memory of an IPC export in the context
 * @ctx: the importer, set up
 * @phys: the exported memory; the caller's reference moves to the mapping
 *	on success
 * @size: bytes to map (rounded up to the page size, at most phys->size)
 * @link: the importer record, owned by the mapping on success
 * @va: out: base
 * @mapped: out: mapped size
 *
 * Return: 0, -ENOSPC past the process's limit of allocations, or -ENOMEM.
 */
int npu_mem_import(struct npu_ctx *ctx, struct npu_phys *phys, u64 size,
		   struct npu_share_link *link, u64 *va, u64 *mapped)
{
	struct npu_mem *mem;
	int ret;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	mem->kind = NPU_MAPPING_IMPORT;
	mem->phys = phys;
	mem->size = size;
	mem->access = NPU_MEM_ACCESS_ALL;
	mutex_lock(&ctx->lock);
	ret = npu_mem_insert(ctx, mem, min(size, phys->size));
	if (ret) {
		mutex_unlock(&ctx->lock);
		kfree(mem);
		return ret;
	}
	mem->link = link;
	*va = mem->node.start;
	*mapped = mem->node.size;
	mutex_unlock(&ctx->lock);
	return 0;
}

/* Unlink the mapping of @kind whose base is @va; -ENOENT / -EINVAL otherwise. */
static int npu_mem_remove_kind(struct npu_ctx *ctx, u64 va, u32 kind)
{
	struct npu_vas_node *node;
	struct npu_mem *mem;

	mutex_lock(&ctx->lock);
	node = npu_vas_lookup(&ctx->vas, va);
	if (!node) {
		mutex_unlock(&ctx->lock);
		return -ENOENT;
	}
	mem = container_of(node, struct npu_mem, node);
	if (node->start != va || node->kind != NPU_VAS_MAPPING || mem->kind != kind) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	npu_mem_unlink(ctx, mem);
	mutex_unlock(&ctx->lock);
	npu_mem_destroy(mem);
	return 0;
}

/**
 * npu_mem_free() - free the allocation mapped at @va
 * @ctx: a set-up context
 * @va: the base address MEM_ALLOC returned
 *
 * Return: 0; -ENOENT if nothing of @ctx contains @va; -EINVAL if @va is
 * inside an allocation but not its base, or is an import or VMM address.
 */
int npu_mem_free(struct npu_ctx *ctx, u64 va)
{
	return npu_mem_remove_kind(ctx, va, NPU_MAPPING_ALLOC);
}

/**
 * npu_mem_unimport() - unmap the IPC import at @va
 * @ctx: a set-up context
 * @va: the base address IPC_IMPORT returned
 *
 * Return: 0; -ENOENT if nothing contains @va; -EINVAL if it is not an
 * import's base.
 */
int npu_mem_unimport(struct npu_ctx *ctx, u64 va)
{
	return npu_mem_remove_kind(ctx, va, NPU_MAPPING_IMPORT);
}

/**
 * npu_mem_lookup() - the mapping that contains @va
 * @ctx: a set-up context; the caller holds its lock
 * @va: any address
 *
 * Looks through reservations into their VMM mappings.
 *
 * Return: the mapping, or NULL.
 */
struct npu_mem *npu_mem_lookup(struct npu_ctx *ctx, u64 va)
{
	struct npu_vas_node *node;

	lockdep_assert_held(&ctx->lock);
	node = npu_vas_lookup(&ctx->vas, va);
	if (node && node->kind == NPU_VAS_RESV)
		node = npu_vas_lookup(&container_of(node, struct npu_resv, node)->maps, va);
	return node ? container_of(node, struct npu_mem, node) : NULL;
}

/**
 * npu_mem_query() - describe the mapping that contains args->va
 * @ctx: a set-up context
 * @args: NPU_IOCTL_MEM_QUERY arguments; kind NPU_MAPPING_NONE if nothing
 */
void npu_mem_query(struct npu_ctx *ctx, struct npu_mem_query *args)
{
	struct npu_vas_node *node;
	struct npu_mem *mem;

	args->base = 0;
	args->size = 0;
	args->kind = NPU_MAPPING_NONE;
	args->page_size = 0;
	args->flags = 0;
	mutex_lock(&ctx->lock);
	mem = npu_mem_lookup(ctx, args->va);
	if (mem) {
		args->base = mem->node.start;
		args->size = mem->node.size;
		args->kind = mem->kind;
		args->page_size = npu_phys_page_size(mem->phys);
		args->flags = mem->phys->flags;
	} else {
		node = npu_vas_lookup(&ctx->vas, args->va);
		if (node) {
			args->base = node->start;
			args->size = node->size;
			args->kind = NPU_MAPPING_RESERVED;
		}
	}
	mutex_unlock(&ctx->lock);
}

/**
 * npu_mem_release_all() - unmap every allocation and import of a closing context
 * @ctx: the context; no ioctl can run on it any more
 */
void npu_mem_release_all(struct npu_ctx *ctx)
{
	struct npu_mem *mem;
	int id;

	mutex_lock(&ctx->lock);
	idr_for_each_entry(&ctx->mems, mem, id) {
		npu_mem_unlink(ctx, mem);
		npu_mem_destroy(mem);
	}
	mutex_unlock(&ctx->lock);
}

/* Whether the device running @ctx's engines may read (and write) @mem. */
static int npu_mem_check_access(struct npu_ctx *ctx, const struct npu_mem *mem, bool write)
{
	if (!(mem->access & BIT(ctx->ndev->index)))
		return -EFAULT;
	if (write && (mem->phys->flags & NPU_MEM_READONLY))
		return -EPERM;
	return 0;
}

static struct npu_mem_range_part *npu_mem_range_parts(const struct npu_mem_range *range)
{
	return range->more ? range->more : (struct npu_mem_range_part *)range->part;
}

/* Add a piece; grows into a kmalloc'd array past the inline ones. */
static int npu_mem_range_add(struct npu_mem_range *range, struct npu_phys *phys,
			     u64 off, u64 len)
{
	struct npu_mem_range_part *parts = npu_mem_range_parts(range);
	unsigned int n = range->nr_parts;

	if (n >= NPU_MEM_RANGE_INLINE && is_power_of_2(n)) {
		struct npu_mem_range_part *more;

		more = kmalloc_array(2 * n, sizeof(*more), GFP_KERNEL);
		if (!more)
			return -ENOMEM;
		memcpy(more, parts, n * sizeof(*more));
		kfree(range->more);
		range->more = more;
		parts = more;
	}
	parts[n].phys = npu_phys_get(phys);
	parts[n].off = off;
	parts[n].len = len;
	range->nr_parts = n + 1;
	return 0;
}

/*
 * npu_mem_range_get() without the argument checks. With @fill, a range
 * that lies in one mapping also fills that slot (the caller has saved its
 * old contents, to put after the lock is dropped).
 */
static int npu_mem_range_lookup(struct npu_ctx *ctx, u64 va, u64 len, bool write,
				struct npu_mem_range *range, struct npu_mem_xlate_slot *fill)
{
	struct npu_mem *mem;
	u64 pos = 0;
	int ret = 0;

	mutex_lock(&ctx->lock);
	mem = npu_mem_lookup(ctx, va);
	while (pos < len) {
		u64 off, n;

		if (!mem || mem->node.start > va + pos) {
			ret = -EFAULT;
			break;
		}
		ret = npu_mem_check_access(ctx, mem, write);
		if (ret)
			break;
		off = va + pos - mem->node.start;
		n = min(mem->node.size - off, len - pos);
		ret = npu_mem_range_add(range, mem->phys, off, n);
		if (ret)
			break;
		pos += n;
		if (pos < len) {
			struct npu_vas_node *next;

			/* Only VMM mappings of one reservation continue. */
			next = mem->kind == NPU_MAPPING_VMM ? npu_vas_next(&mem->node) : NULL;
			mem = next ? container_of(next, struct npu_mem, node) : NULL;
		}
	}
	if (!ret && fill && range->nr_parts == 1) {
		fill->phys = npu_phys_get(mem->phys);
		fill->gen = ctx->map_gen;
		fill->start = mem->node.start;
		fill->size = mem->node.size;
		fill->writable = !npu_mem_check_access(ctx, mem, true);
		fill->win_len = 0;
	}
	mutex_unlock(&ctx->lock);
	if (ret)
		npu_mem_range_put(range);
	return ret;
}

/* Start @range empty; false if [va, va + len) is empty or wraps. */
static bool npu_mem_range_init(struct npu_mem_range *range, u64 va, u64 len)
{
	u64 last;

	range->len = len;
	range->lender = NULL;
	range->nr_parts = 0;
	range->more = NULL;
	return len && !check_add_overflow(va, len - 1, &last);
}

/**
 * npu_mem_range_get() - find and hold the memory behind a device range
 * @ctx: the context whose address space @va belongs to
 * @va: first byte
 * @len: bytes, > 0
 * @write: the range will be written
 * @range: out; release with npu_mem_range_put()
 *
 * The whole range [va, va + len) must be mapped in @ctx: inside one
 * allocation or import, or across VMM mappings that follow each other
 * without a gap inside one reservation, each accessible from @ctx's device.
 * Takes @ctx's lock: O(log n) in the mappings of @ctx, plus one step per
 * further mapping the range crosses.
 *
 * Return: 0; -EFAULT if it is not (or wraps); -EPERM for a write to a
 * READONLY allocation; -ENOMEM.
 */
int npu_mem_range_get(struct npu_ctx *ctx, u64 va, u64 len, bool write,
		      struct npu_mem_range *range)
{
	if (!npu_mem_range_init(range, va, len))
		return -EFAULT;
	return npu_mem_range_lookup(ctx, va, len, write, range, NULL);
}

/* The slot of @xlate that holds all of [va, va + len) and is still valid, or NULL. */
static struct npu_mem_xlate_slot *npu_mem_xlate_find(struct npu_ctx *ctx,
						      struct npu_mem_xlate *xlate, u64 va, u64 len)
{
	u64 gen = READ_ONCE(ctx->map_gen);
	struct npu_mem_xlate_slot *slot;
	unsigned int i;

	for (i = 0; i < NPU_MEM_XLATE_SLOTS; i++) {
		slot = &xlate->slot[i];
		if (slot->phys && slot->gen == gen && va >= slot->start &&
		    va - slot->start < slot->size && len <= slot->size - (va - slot->start))
			return slot;
	}
	return NULL;
}

/**
 * npu_mem_range_get_cached() - npu_mem_range_get() through an engine's cache
 * @ctx: the context whose address space @va belongs to
 * @xlate: the translations the caller keeps for @ctx
 * @va: first byte
 * @len: bytes, > 0
 * @write: the range will be written
 * @range: out; release with npu_mem_range_put()
 *
 * A range inside a mapping held in @xlate is held without the context's
 * lock and without an atomic operation: O(NPU_MEM_XLATE_SLOTS), and the
 * range borrows the slot's reference. Otherwise it is npu_mem_range_get(),
 * and a range inside one mapping then refills the oldest slot that has
 * nothing lent.
 *
 * Return: as npu_mem_range_get().
 */
int npu_mem_range_get_cached(struct npu_ctx *ctx, struct npu_mem_xlate *xlate, u64 va, u64 len,
			     bool write, struct npu_mem_range *range)
{
	struct npu_mem_xlate_slot *slot, old;
	unsigned int i;
	int ret;

	if (!npu_mem_range_init(range, va, len))
		return -EFAULT;
	slot = npu_mem_xlate_find(ctx, xlate, va, len);
	/* A write to a read-only mapping: the lookup gives the error. */
	if (slot && (!write || slot->writable)) {
		range->nr_parts = 1;
		range->part[0].phys = slot->phys;
		range->part[0].off = va - slot->start;
		range->part[0].len = len;
		range->lender = slot;
		slot->lent++;
		return 0;
	}
	/* A lent slot keeps its memory until the borrower is put. */
	for (i = 0; i < NPU_MEM_XLATE_SLOTS; i++) {
		slot = &xlate->slot[(xlate->next + i) % NPU_MEM_XLATE_SLOTS];
		if (!slot->lent)
			break;
	}
	if (i == NPU_MEM_XLATE_SLOTS)
		return npu_mem_range_lookup(ctx, va, len, write, range, NULL);
	old = *slot;
	slot->phys = NULL;
	ret = npu_mem_range_lookup(ctx, va, len, write, range, slot);
	if (slot->phys)
		xlate->next = (slot - xlate->slot + 1) % NPU_MEM_XLATE_SLOTS;
	if (old.phys)
		npu_phys_put(old.phys);
	return ret;
}

/**
 * npu_mem_xlate_kaddr() - kernel address of a small device range, from the cache alone
 * @ctx: the context whose address space @va belongs to
 * @xlate: the translations the caller keeps for @ctx
 * @va: first byte
 * @len: bytes, > 0
 * @write: the range will be written
 *
 * For the small copies of a stream: no range is taken, so nothing needs
 * putting, and the slot remembers the run of kernel-contiguous bytes it
 * found last, so the next copy in that run costs two comparisons (where
 * npu_mem_range_get_cached(), npu_mem_range_seg() and npu_mem_range_put()
 * walk the range, its extents and its backing). The address is valid while
 * the slot holds its physical memory: the caller uses it at once, before it
 * looks anything else up in @xlate. O(NPU_MEM_XLATE_SLOTS).
 *
 * Return: the address of [va, va + len), contiguous; NULL when the cache
 * cannot answer (a miss, a mapping that may not be written, bytes that
 * cross a run): the caller then takes the full path, which also gives the
 * error, if any.
 */
void *npu_mem_xlate_kaddr(struct npu_ctx *ctx, struct npu_mem_xlate *xlate, u64 va, u64 len,
			  bool write)
{
	struct npu_mem_xlate_slot *slot = npu_mem_xlate_find(ctx, xlate, va, len);
	u64 off, contig;
	char *k;

	if (!slot || (write && !slot->writable))
		return NULL;
	if (va >= slot->win_va && va - slot->win_va < slot->win_len &&
	    len <= slot->win_len - (va - slot->win_va))
		return slot->win_k + (va - slot->win_va);
	off = va - slot->start;
	k = npu_phys_addr(slot->phys, off, &contig);
	if (!k)
		return NULL;
	slot->win_va = va;
	slot->win_len = min(contig, slot->size - off);
	slot->win_k = k;
	return len <= slot->win_len ? k : NULL;
}

/**
 * npu_mem_xlate_drop() - empty an engine's translation cache
 * @xlate: the cache; its physical memory is released
 */
void npu_mem_xlate_drop(struct npu_mem_xlate *xlate)
{
	unsigned int i;

	for (i = 0; i < NPU_MEM_XLATE_SLOTS; i++) {
		/* Every range of the batch is put before the batch ends. */
		WARN_ON_ONCE(xlate->slot[i].lent);
		if (xlate->slot[i].phys)
			npu_phys_put(xlate->slot[i].phys);
		xlate->slot[i].phys = NULL;
	}
	xlate->next = 0;
}

/**
 * npu_mem_range_put() - release what npu_mem_range_get() took
 * @range: the range
 */
void npu_mem_range_put(struct npu_mem_range *range)
{
	struct npu_mem_range_part *parts = npu_mem_range_parts(range);
	unsigned int i;

	if (range->lender) {
		range->lender->lent--;
		range->lender = NULL;
		range->nr_parts = 0;
		return;
	}
	for (i = 0; i < range->nr_parts; i++)
		npu_phys_put(parts[i].phys);
	kfree(range->more);
	range->more = NULL;
	range->nr_parts = 0;
}

/**
 * npu_mem_range_seg() - kernel address of byte @pos of a range
 * @range: a held range
 * @pos: offset in the range, < range->len
 * @seg_len: out: bytes from there that are contiguous in the kernel (they
 *	end at an extent, backing chunk or mapping boundary, or at the
 *	range's end)
 *
 * Return: the address, or NULL if the backing is missing (a driver bug).
 */
void *npu_mem_range_seg(const struct npu_mem_range *range, u64 pos, u64 *seg_len)
{
	const struct npu_mem_range_part *parts = npu_mem_range_parts(range);
	unsigned int i;
	u64 contig;
	void *addr;

	for (i = 0; i < range->nr_parts && pos >= parts[i].len; i++)
		pos -= parts[i].len;
	if (i == range->nr_parts)
		return NULL;
	addr = npu_phys_addr(parts[i].phys, parts[i].off + pos, &contig);
	if (!addr)
		return NULL;
	*seg_len = min(contig, parts[i].len - pos);
	return addr;
}
