// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Virtual memory management: CANN's aclrtMallocPhysical / ReserveMemAddress
 * / MapMem family.
 *
 * A physical handle (struct npu_phys_handle, per file) holds a reference to
 * physical memory; so does every mapping of it. A reservation is a range of
 * the context's address space with an address space of its own inside
 * (npu_resv.maps), where mappings are placed at the addresses the caller
 * picks. Freeing a handle while it is mapped only drops the handle's
 * reference: the frames go when the last mapping is unmapped too.
 *
 * Every object here is protected by the context's lock. Exports and
 * importer records (npu_share.c) are destroyed with that lock held, which
 * makes ctx->lock -> the share table lock the only nesting.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_dev.h"
#include "npu_drv.h"
#include "npu_mem.h"
#include "npu_peer.h"
#include "npu_phys.h"
#include "npu_share.h"
#include "npu_vmm.h"

/* Sizes and map addresses of physical memory are multiples of this. */
static u64 npu_vmm_granularity(u32 page_class)
{
	return page_class == NPU_CLASS_HUGE1G ? SZ_1G : SZ_2M;
}

static void npu_vmm_handle_destroy(struct npu_ctx *ctx, struct npu_phys_handle *h)
{
	lockdep_assert_held(&ctx->lock);
	idr_remove(&ctx->phys, h->id);
	npu_limits_uncharge(ctx->proc, NPU_LIMIT_PHYS_HANDLES, 1);
	WRITE_ONCE(ctx->nr_phys, ctx->nr_phys - 1);
	WRITE_ONCE(ctx->phys_bytes, ctx->phys_bytes - h->phys->size);
	if (h->export)
		npu_share_export_destroy(h->export);
	if (h->link)
		npu_share_link_drop(h->link);
	npu_phys_put(h->phys);
	kfree(h);
}

/**
 * npu_vmm_handle_add() - a new physical handle of the context
 * @ctx: a set-up context
 * @phys: the memory; the caller's reference moves to the handle on success
 * @link: importer record (owned by the handle on success), or NULL for a
 *	local handle
 * @handle: out: its id
 *
 * Return: 0, -ENOSPC past the process's limit of physical handles, or
 * -ENOMEM.
 */
int npu_vmm_handle_add(struct npu_ctx *ctx, struct npu_phys *phys,
		       struct npu_share_link *link, u32 *handle)
{
	struct npu_phys_handle *h;
	int id;

	id = npu_limits_charge(ctx->proc, NPU_LIMIT_PHYS_HANDLES, 1);
	if (id)
		return id;
	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h) {
		npu_limits_uncharge(ctx->proc, NPU_LIMIT_PHYS_HANDLES, 1);
		return -ENOMEM;
	}
	h->phys = phys;
	h->refs = 1;
	h->imported = link != NULL;
	mutex_lock(&ctx->lock);
	id = idr_alloc(&ctx->phys, h, 1, 0, GFP_KERNEL);
	if (id < 0) {
		mutex_unlock(&ctx->lock);
		kfree(h);
		npu_limits_uncharge(ctx->proc, NPU_LIMIT_PHYS_HANDLES, 1);
		return id;
	}
	h->id = id;
	h->link = link;
	WRITE_ONCE(ctx->nr_phys, ctx->nr_phys + 1);
	WRITE_ONCE(ctx->phys_bytes, ctx->phys_bytes + phys->size);
	mutex_unlock(&ctx->lock);
	*handle = id;
	return 0;
}

/**
 * npu_vmm_phys_alloc() - NPU_IOCTL_PHYS_ALLOC
 * @ctx: a set-up context
 * @args: the arguments, pad checked; handle is filled on success
 *
 * Return: 0; -EINVAL for a bad class, flag or a size that is not a multiple
 * of the granularity; -EOPNOTSUPP for 1 GiB pages on a device too small for
 * them; -ENOMEM (device memory, or for NPU_MEM_HOST the pinned budget or
 * the device's bound on host physical memory).
 */
int npu_vmm_phys_alloc(struct npu_ctx *ctx, struct npu_phys_alloc *args)
{
	static const u32 policy[NPU_CLASS_COUNT] = {
		[NPU_CLASS_NORMAL] = NPU_POLICY_NORMAL_ONLY,
		[NPU_CLASS_HUGE] = NPU_POLICY_HUGE_ONLY,
		[NPU_CLASS_HUGE1G] = NPU_POLICY_HUGE1G_ONLY,
	};
	static const u32 order[NPU_CLASS_COUNT] = {
		[NPU_CLASS_NORMAL] = NPU_ORDER_NORMAL,
		[NPU_CLASS_HUGE] = NPU_ORDER_HUGE,
		[NPU_CLASS_HUGE1G] = NPU_ORDER_HUGE1G,
	};
	struct npu_phys *phys;
	int ret;

	if (args->page_class >= NPU_CLASS_COUNT || args->flags & ~(NPU_MEM_P2P | NPU_MEM_HOST))
		return -EINVAL;
	if (!args->size || !IS_ALIGNED(args->size, npu_vmm_granularity(args->page_class)))
		return -EINVAL;
	if (args->page_class == NPU_CLASS_HUGE1G && ctx->ndev->hbm_size < SZ_1G)
		return -EOPNOTSUPP;
	if (args->flags & NPU_MEM_HOST)
		ret = npu_phys_create_host(ctx->ndev, ctx->proc, args->size,
					   order[args->page_class], args->flags, &phys);
	else
		ret = npu_phys_create(ctx->ndev, ctx->proc, ctx->owner, args->size,
				      policy[args->page_class], args->flags, &phys);
	if (ret)
		return ret;
	phys->page_class = args->page_class;
	ret = npu_vmm_handle_add(ctx, phys, NULL, &args->handle);
	if (ret)
		npu_phys_put(phys);
	return ret;
}

/**
 * npu_vmm_phys_free() - NPU_IOCTL_PHYS_FREE: drop one handle reference
 * @ctx: a set-up context
 * @handle: the handle
 *
 * Return: 0 or -ENOENT for a handle this file does not hold.
 */
int npu_vmm_phys_free(struct npu_ctx *ctx, u32 handle)
{
	struct npu_phys_handle *h;

	mutex_lock(&ctx->lock);
	h = idr_find(&ctx->phys, handle);
	if (!h) {
		mutex_unlock(&ctx->lock);
		return -ENOENT;
	}
	if (!--h->refs)
		npu_vmm_handle_destroy(ctx, h);
	mutex_unlock(&ctx->lock);
	return 0;
}

/**
 * npu_vmm_phys_retain() - NPU_IOCTL_PHYS_RETAIN
 * @ctx: a set-up context
 * @va: any address of a VMM mapping
 * @handle: out: the handle, with one more reference
 *
 * Return: 0; -EINVAL if @va is not in a VMM mapping; -ENOMEM.
 */
int npu_vmm_phys_retain(struct npu_ctx *ctx, u64 va, u32 *handle)
{
	struct npu_phys_handle *h;
	struct npu_phys *phys;
	struct npu_mem *mem;
	bool imported;
	int id, ret;

	mutex_lock(&ctx->lock);
	mem = npu_mem_lookup(ctx, va);
	if (!mem || mem->kind != NPU_MAPPING_VMM) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	idr_for_each_entry(&ctx->phys, h, id) {
		if (h->phys == mem->phys) {
			h->refs++;
			*handle = h->id;
			mutex_unlock(&ctx->lock);
			return 0;
		}
	}
	phys = npu_phys_get(mem->phys);
	imported = mem->resv->bound == NPU_RESV_IMPORTED;
	mutex_unlock(&ctx->lock);

	/* The handles were all freed: make a new one. */
	ret = npu_vmm_handle_add(ctx, phys, NULL, handle);
	if (ret) {
		npu_phys_put(phys);
		return ret;
	}
	mutex_lock(&ctx->lock);
	h = idr_find(&ctx->phys, *handle);
	if (h)
		h->imported = imported;
	mutex_unlock(&ctx->lock);
	return 0;
}

/**
 * npu_vmm_phys_peer() - NPU_IOCTL_PHYS_PEER
 * @ctx: a set-up context
 * @args: the arguments; handle is filled on success
 *
 * Return: 0; -EINVAL for @ctx's own device; -ENOENT if there is no such
 * context or handle; -EPERM if another process opened the context;
 * -ENOSPC past the process's limit of physical handles; -ENOMEM.
 */
int npu_vmm_phys_peer(struct npu_ctx *ctx, struct npu_phys_peer *args)
{
	struct npu_phys_handle *h;
	struct npu_phys *phys = NULL;
	struct npu_ctx *peer;
	int ret;

	if (args->peer_device == ctx->ndev->index)
		return -EINVAL;
	peer = npu_peer_ctx_of_process(ctx, args->peer_device, args->peer_ctx);
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	mutex_lock(&peer->lock);
	h = idr_find(&peer->phys, args->peer_handle);
	/* An import stays the importing device's: only local memory crosses. */
	if (h && !h->imported)
		phys = npu_phys_get(h->phys);
	mutex_unlock(&peer->lock);
	npu_peer_put_ctx(peer);
	if (!phys)
		return -ENOENT;
	/* Two contexts may write it now: scrub the frames when they are freed. */
	npu_phys_mark_shared(phys);
	ret = npu_vmm_handle_add(ctx, phys, NULL, &args->handle);
	if (ret)
		npu_phys_put(phys);
	return ret;
}

/**
 * npu_vmm_phys_info() - NPU_IOCTL_PHYS_INFO
 * @ctx: a set-up context
 * @args: handle in, the rest out
 *
 * Return: 0 or -ENOENT.
 */
int npu_vmm_phys_info(struct npu_ctx *ctx, struct npu_phys_info *args)
{
	struct npu_phys_handle *h;

	mutex_lock(&ctx->lock);
	h = idr_find(&ctx->phys, args->handle);
	if (!h) {
		mutex_unlock(&ctx->lock);
		return -ENOENT;
	}
	args->page_class = h->phys->page_class;
	args->size = h->phys->size;
	args->flags = h->phys->flags;
	args->device = h->phys->ndev->index;
	args->imported = h->imported;
	args->refs = h->refs;
	mutex_unlock(&ctx->lock);
	return 0;
}

/**
 * npu_vmm_reserve() - NPU_IOCTL_VMM_RESERVE
 * @ctx: a set-up context
 * @args: the arguments, pad checked; va is filled on success
 *
 * Return: 0; -EINVAL for a bad size, flag or requested address; -EEXIST if
 * the requested range is in use; -ENOMEM.
 */
int npu_vmm_reserve(struct npu_ctx *ctx, struct npu_vmm_reserve *args)
{
	struct npu_resv *resv;
	u64 size, align;
	int ret;

	if (args->flags & ~NPU_RESERVE_FLAGS_ALL || !args->size ||
	    args->size > U64_MAX - SZ_2M)
		return -EINVAL;
	size = round_up(args->size, (u64)SZ_2M);
	align = size >= SZ_1G ? SZ_1G : roundup_pow_of_two(size);
	if (args->va && !IS_ALIGNED(args->va, align))
		return -EINVAL;

	resv = kzalloc(sizeof(*resv), GFP_KERNEL);
	if (!resv)
		return -ENOMEM;
	resv->node.kind = NPU_VAS_RESV;
	mutex_lock(&ctx->lock);
	if (args->va)
		ret = npu_vas_reserve_at(&ctx->vas, &resv->node, args->va, size);
	else
		ret = npu_vas_reserve(&ctx->vas, &resv->node, size, align);
	if (ret) {
		mutex_unlock(&ctx->lock);
		kfree(resv);
		return ret;
	}
	npu_vas_init(&resv->maps, resv->node.start, resv->node.size);
	args->va = resv->node.start;
	mutex_unlock(&ctx->lock);
	return 0;
}

/* The reservation containing @va, or NULL. */
static struct npu_resv *npu_vmm_resv_lookup(struct npu_ctx *ctx, u64 va)
{
	struct npu_vas_node *node = npu_vas_lookup(&ctx->vas, va);

	if (!node || node->kind != NPU_VAS_RESV)
		return NULL;
	return container_of(node, struct npu_resv, node);
}

static void npu_vmm_resv_destroy(struct npu_ctx *ctx, struct npu_resv *resv)
{
	lockdep_assert_held(&ctx->lock);
	npu_vas_remove(&ctx->vas, &resv->node);
	npu_ctx_unmapped(ctx);
	npu_vas_fini(&resv->maps);
	kfree(resv);
}

/**
 * npu_vmm_release() - NPU_IOCTL_VMM_RELEASE
 * @ctx: a set-up context
 * @va: the start of a reservation
 *
 * Return: 0; -EINVAL if @va is not a reservation's start; -EBUSY while
 * anything is mapped in it.
 */
int npu_vmm_release(struct npu_ctx *ctx, u64 va)
{
	struct npu_resv *resv;
	int ret = 0;

	mutex_lock(&ctx->lock);
	resv = npu_vmm_resv_lookup(ctx, va);
	if (!resv || resv->node.start != va)
		ret = -EINVAL;
	else if (resv->nr_maps)
		ret = -EBUSY;
	else
		npu_vmm_resv_destroy(ctx, resv);
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * npu_vmm_map() - NPU_IOCTL_VMM_MAP
 * @ctx: a set-up context
 * @args: the arguments
 *
 * Return: 0; -EINVAL for flags, offset, size or alignment, an address
 * outside a reservation or a reservation bound to other memory; -ENOENT
 * for an unknown handle; -EEXIST if the range is already mapped; -ENOMEM.
 */
int npu_vmm_map(struct npu_ctx *ctx, const struct npu_vmm_map *args)
{
	struct npu_phys_handle *h;
	struct npu_resv *resv;
	struct npu_mem *mem;
	u32 bound;
	int ret;

	if (args->flags & ~NPU_MAP_FLAGS_ALL || args->offset)
		return -EINVAL;
	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;

	mutex_lock(&ctx->lock);
	h = idr_find(&ctx->phys, args->handle);
	if (!h) {
		ret = -ENOENT;
		goto err_unlock;
	}
	ret = -EINVAL;
	if (args->size != h->phys->size ||
	    !IS_ALIGNED(args->va, npu_vmm_granularity(h->phys->page_class)))
		goto err_unlock;
	resv = npu_vmm_resv_lookup(ctx, args->va);
	if (!resv)
		goto err_unlock;
	bound = h->imported ? NPU_RESV_IMPORTED : NPU_RESV_LOCAL;
	if (resv->nr_maps &&
	    (resv->bound != bound || resv->device != h->phys->ndev->index))
		goto err_unlock;

	mem->node.kind = NPU_VAS_MAPPING;
	ret = npu_vas_reserve_at(&resv->maps, &mem->node, args->va, args->size);
	if (ret)
		goto err_unlock;
	mem->kind = NPU_MAPPING_VMM;
	mem->phys = npu_phys_get(h->phys);
	mem->size = args->size;
	mem->resv = resv;
	/*
	 * The device the handle is for may use it, and the device of the
	 * frames (another one for a PHYS_PEER handle); NOACCESS: nobody yet.
	 */
	if (args->flags & NPU_MAP_NOACCESS)
		mem->access = 0;
	else if (h->imported || h->phys->host)
		mem->access = BIT(ctx->ndev->index);
	else
		mem->access = BIT(ctx->ndev->index) | BIT(h->phys->ndev->index);
	resv->bound = bound;
	resv->device = h->phys->ndev->index;
	resv->nr_maps++;
	WRITE_ONCE(ctx->mapped_bytes, ctx->mapped_bytes + args->size);
	mutex_unlock(&ctx->lock);
	return 0;

err_unlock:
	mutex_unlock(&ctx->lock);
	kfree(mem);
	return ret;
}

static void npu_vmm_mem_destroy(struct npu_ctx *ctx, struct npu_mem *mem)
{
	struct npu_resv *resv = mem->resv;

	lockdep_assert_held(&ctx->lock);
	npu_vas_remove(&resv->maps, &mem->node);
	npu_ctx_unmapped(ctx);
	if (!--resv->nr_maps)
		resv->bound = NPU_RESV_UNBOUND;
	WRITE_ONCE(ctx->mapped_bytes, ctx->mapped_bytes - mem->node.size);
	npu_phys_put(mem->phys);
	kfree(mem);
}

/* The VMM mapping that starts exactly at @va, or NULL. */
static struct npu_mem *npu_vmm_mem_at(struct npu_ctx *ctx, u64 va)
{
	struct npu_mem *mem = npu_mem_lookup(ctx, va);

	if (!mem || mem->kind != NPU_MAPPING_VMM || mem->node.start != va)
		return NULL;
	return mem;
}

/**
 * npu_vmm_unmap() - NPU_IOCTL_VMM_UNMAP
 * @ctx: a set-up context
 * @va: the start of a VMM mapping
 *
 * Return: 0 or -EINVAL.
 */
int npu_vmm_unmap(struct npu_ctx *ctx, u64 va)
{
	struct npu_mem *mem;
	int ret = 0;

	mutex_lock(&ctx->lock);
	mem = npu_vmm_mem_at(ctx, va);
	if (mem)
		npu_vmm_mem_destroy(ctx, mem);
	else
		ret = -EINVAL;
	mutex_unlock(&ctx->lock);
	return ret;
}

/* The npu_mem.access bit of a location, or 0 if it names none. */
static u32 npu_vmm_loc_bit(u32 type, u32 id)
{
	if (type == NPU_LOC_HOST)
		return id ? 0 : NPU_MEM_ACCESS_HOST;
	if (type == NPU_LOC_DEVICE && id < npu_dev_count())
		return BIT(id);
	return 0;
}

/**
 * npu_vmm_set_access() - NPU_IOCTL_VMM_SET_ACCESS
 * @ctx: a set-up context
 * @args: the arguments, pad checked
 *
 * Return: 0; -EINVAL for a range that is not exactly one mapping, a bad
 * location or an access other than RW.
 */
int npu_vmm_set_access(struct npu_ctx *ctx, const struct npu_vmm_access *args)
{
	u32 bit = npu_vmm_loc_bit(args->loc_type, args->loc_id);
	struct npu_mem *mem;
	int ret = 0;

	if (!bit || args->access != NPU_ACCESS_RW)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	mem = npu_vmm_mem_at(ctx, args->va);
	if (!mem || mem->node.size != args->size)
		ret = -EINVAL;
	else
		mem->access |= bit;
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * npu_vmm_get_access() - NPU_IOCTL_VMM_GET_ACCESS
 * @ctx: a set-up context
 * @args: va and location in, access out
 *
 * Return: 0; -EINVAL for an address outside every VMM mapping or a bad
 * location.
 */
int npu_vmm_get_access(struct npu_ctx *ctx, struct npu_vmm_access *args)
{
	u32 bit = npu_vmm_loc_bit(args->loc_type, args->loc_id);
	struct npu_mem *mem;
	int ret = 0;

	if (!bit || args->size || args->access)
		return -EINVAL;
	mutex_lock(&ctx->lock);
	mem = npu_mem_lookup(ctx, args->va);
	if (!mem || mem->kind != NPU_MAPPING_VMM)
		ret = -EINVAL;
	else
		args->access = mem->access & bit ? NPU_ACCESS_RW : NPU_ACCESS_NONE;
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * npu_vmm_release_all() - drop every reservation, mapping and handle
 * @ctx: a closing context; no ioctl can run on it any more
 */
void npu_vmm_release_all(struct npu_ctx *ctx)
{
	struct npu_phys_handle *h;
	struct npu_vas_node *node, *next;
	int id;

	mutex_lock(&ctx->lock);
	for (node = ctx->setup ? npu_vas_first(&ctx->vas) : NULL; node; node = next) {
		struct npu_resv *resv;
		struct npu_vas_node *m;

		next = npu_vas_next(node);
		if (WARN_ON(node->kind != NPU_VAS_RESV))
			continue;
		resv = container_of(node, struct npu_resv, node);
		while ((m = npu_vas_first(&resv->maps)))
			npu_vmm_mem_destroy(ctx, container_of(m, struct npu_mem, node));
		npu_vmm_resv_destroy(ctx, resv);
	}
	idr_for_each_entry(&ctx->phys, h, id)
		npu_vmm_handle_destroy(ctx, h);
	mutex_unlock(&ctx->lock);
}
