// SPDX-License-Identifier: GPL-2.0
/*
 * Device memory allocations.
 *
 * An allocation owns its frames (a list of buddy extents), is mapped at one
 * range of its context's address space and has a per-file handle. It is
 * reference counted: the context holds one reference until MEM_FREE or
 * release, and an engine holds one while a descriptor reads or writes it,
 * so a concurrent free never pulls the frames from under a copy.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_hbm.h"
#include "npu_mem.h"

static void npu_mem_release(struct kref *ref)
{
	struct npu_mem *mem = container_of(ref, struct npu_mem, ref);

	npu_pfa_free(&mem->ndev->pfa, mem->extents, mem->nr_extents);
	kvfree(mem->extents);
	atomic64_dec(&mem->ndev->nr_allocations);
	kfree(mem);
}

/**
 * npu_mem_put() - drop a reference to an allocation
 * @mem: the allocation; its frames go back to the allocator with the last
 */
void npu_mem_put(struct npu_mem *mem)
{
	kref_put(&mem->ref, npu_mem_release);
}

/* Frames for @size bytes under @policy; sets the page order actually used. */
static int npu_mem_get_frames(struct npu_device *ndev, struct npu_mem *mem,
			      u64 size, u32 policy)
{
	u64 huge = round_up(size, (u64)SZ_2M) >> NPU_PAGE_SHIFT;
	u64 normal = round_up(size, (u64)SZ_4K) >> NPU_PAGE_SHIFT;
	int ret;

	switch (policy) {
	case NPU_POLICY_HUGE_FIRST:
		if (size > SZ_1M) {
			ret = npu_pfa_alloc(&ndev->pfa, huge, NPU_ORDER_HUGE,
					    &mem->extents, &mem->nr_extents);
			if (ret != -ENOMEM) {
				mem->page_order = NPU_ORDER_HUGE;
				return ret;
			}
		}
		fallthrough;
	case NPU_POLICY_NORMAL_ONLY:
		mem->page_order = NPU_ORDER_NORMAL;
		return npu_pfa_alloc(&ndev->pfa, normal, NPU_ORDER_NORMAL,
				     &mem->extents, &mem->nr_extents);
	case NPU_POLICY_HUGE_ONLY:
		mem->page_order = NPU_ORDER_HUGE;
		return npu_pfa_alloc(&ndev->pfa, huge, NPU_ORDER_HUGE,
				     &mem->extents, &mem->nr_extents);
	case NPU_POLICY_HUGE1G_ONLY:
		mem->page_order = NPU_ORDER_HUGE1G;
		return npu_pfa_alloc(&ndev->pfa,
				     round_up(size, (u64)SZ_1G) >> NPU_PAGE_SHIFT,
				     NPU_ORDER_HUGE1G, &mem->extents, &mem->nr_extents);
	}
	return -EINVAL;
}

/**
 * npu_mem_create() - allocate device memory and map it in the context
 * @ctx: a set-up context
 * @args: NPU_IOCTL_MEM_ALLOC arguments, already checked for reserved
 *	fields and unknown flags; the out fields are filled on success
 *
 * Return: 0; -EINVAL for size 0 or an unknown policy; -ENOMEM when the
 * device (a size larger than the HBM included), the address space or the
 * kernel is out of memory.
 */
int npu_mem_create(struct npu_ctx *ctx, struct npu_mem_alloc *args)
{
	struct npu_device *ndev = ctx->ndev;
	struct npu_mem *mem;
	int ret, id;

	if (!args->size || args->policy >= NPU_POLICY_COUNT)
		return -EINVAL;
	/* Also keeps the rounding below from overflowing. */
	if (args->size > ndev->hbm_size)
		return -ENOMEM;

	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return -ENOMEM;
	kref_init(&mem->ref);
	mem->ndev = ndev;
	mem->size = args->size;
	mem->flags = args->flags;
	RB_CLEAR_NODE(&mem->node.rb);

	ret = npu_mem_get_frames(ndev, mem, args->size, args->policy);
	if (ret)
		goto err_free_mem;
	ret = npu_hbm_populate(&ndev->hbm, mem->extents, mem->nr_extents);
	if (ret)
		goto err_free_frames;

	mutex_lock(&ctx->lock);
	ret = npu_vas_reserve(&ctx->vas, &mem->node,
			      round_up(args->size, NPU_PAGE_SIZE << mem->page_order),
			      NPU_PAGE_SIZE << mem->page_order);
	if (ret)
		goto err_unlock;
	id = idr_alloc(&ctx->mems, mem, 1, 0, GFP_KERNEL);
	if (id < 0) {
		ret = id;
		goto err_unmap;
	}
	mem->handle = id;
	ctx->mapped_bytes += mem->node.size;
	ctx->nr_mems++;
	atomic64_inc(&ndev->nr_allocations);

	args->va = mem->node.start;
	args->handle = mem->handle;
	args->mapped_size = mem->node.size;
	args->page_size = NPU_PAGE_SIZE << mem->page_order;
	mutex_unlock(&ctx->lock);
	return 0;

err_unmap:
	npu_vas_remove(&ctx->vas, &mem->node);
err_unlock:
	mutex_unlock(&ctx->lock);
err_free_frames:
	npu_pfa_free(&ndev->pfa, mem->extents, mem->nr_extents);
	kvfree(mem->extents);
err_free_mem:
	kfree(mem);
	return ret;
}

/* Unmap and unlink @mem from its context; the caller drops the reference. */
static void npu_mem_unlink(struct npu_ctx *ctx, struct npu_mem *mem)
{
	lockdep_assert_held(&ctx->lock);
	idr_remove(&ctx->mems, mem->handle);
	npu_vas_remove(&ctx->vas, &mem->node);
	ctx->mapped_bytes -= mem->node.size;
	ctx->nr_mems--;
}

/**
 * npu_mem_free() - free the allocation mapped at @va
 * @ctx: a set-up context
 * @va: the base address MEM_ALLOC returned
 *
 * Return: 0; -ENOENT if no allocation of @ctx contains @va; -EINVAL if
 * @va is inside an allocation but not its base.
 */
int npu_mem_free(struct npu_ctx *ctx, u64 va)
{
	struct npu_vas_node *node;
	struct npu_mem *mem;

	mutex_lock(&ctx->lock);
	node = npu_vas_lookup(&ctx->vas, va);
	if (!node) {
		mutex_unlock(&ctx->lock);
		return -ENOENT;
	}
	if (node->start != va) {
		mutex_unlock(&ctx->lock);
		return -EINVAL;
	}
	mem = container_of(node, struct npu_mem, node);
	npu_mem_unlink(ctx, mem);
	mutex_unlock(&ctx->lock);
	npu_mem_put(mem);
	return 0;
}

/**
 * npu_mem_query() - describe the mapping that contains args->va
 * @ctx: a set-up context
 * @args: NPU_IOCTL_MEM_QUERY arguments; kind NPU_MAPPING_NONE if nothing
 */
void npu_mem_query(struct npu_ctx *ctx, struct npu_mem_query *args)
{
	struct npu_vas_node *node;

	args->base = 0;
	args->size = 0;
	args->kind = NPU_MAPPING_NONE;
	args->page_size = 0;
	args->flags = 0;
	mutex_lock(&ctx->lock);
	node = npu_vas_lookup(&ctx->vas, args->va);
	if (node) {
		struct npu_mem *mem = container_of(node, struct npu_mem, node);

		args->base = node->start;
		args->size = node->size;
		args->kind = NPU_MAPPING_ALLOC;
		args->page_size = NPU_PAGE_SIZE << mem->page_order;
		args->flags = mem->flags;
	}
	mutex_unlock(&ctx->lock);
}

/**
 * npu_mem_release_all() - free every allocation of a closing context
 * @ctx: the context; no ioctl can run on it any more
 */
void npu_mem_release_all(struct npu_ctx *ctx)
{
	struct npu_mem *mem;
	int id;

	mutex_lock(&ctx->lock);
	idr_for_each_entry(&ctx->mems, mem, id) {
		npu_mem_unlink(ctx, mem);
		npu_mem_put(mem);
	}
	mutex_unlock(&ctx->lock);
}

/**
 * npu_mem_range_get() - find and hold the allocation behind a device range
 * @ctx: the context whose address space @va belongs to
 * @va: first byte
 * @len: bytes, > 0
 * @write: the range will be written
 * @range: out; release with npu_mem_range_put()
 *
 * The whole range [va, va + len) must lie in one allocation of @ctx.
 *
 * Return: 0; -EFAULT if it does not (or wraps); -EPERM for a write to a
 * READONLY allocation.
 */
int npu_mem_range_get(struct npu_ctx *ctx, u64 va, u64 len, bool write,
		      struct npu_mem_range *range)
{
	struct npu_vas_node *node;
	struct npu_mem *mem;
	u64 last;
	int ret = 0;

	if (!len || check_add_overflow(va, len - 1, &last))
		return -EFAULT;

	mutex_lock(&ctx->lock);
	node = npu_vas_lookup(&ctx->vas, va);
	if (!node || last - node->start >= node->size) {
		ret = -EFAULT;
		goto out_unlock;
	}
	mem = container_of(node, struct npu_mem, node);
	if (write && (mem->flags & NPU_MEM_READONLY)) {
		ret = -EPERM;
		goto out_unlock;
	}
	kref_get(&mem->ref);
	range->mem = mem;
	range->off = va - node->start;
	range->len = len;
out_unlock:
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * npu_mem_range_put() - release what npu_mem_range_get() took
 * @range: the range
 */
void npu_mem_range_put(struct npu_mem_range *range)
{
	npu_mem_put(range->mem);
	range->mem = NULL;
}

/**
 * npu_mem_range_seg() - kernel address of byte @pos of a range
 * @range: a held range
 * @pos: offset in the range, < range->len
 * @seg_len: out: bytes from there that are contiguous in the kernel (they
 *	end at an extent or backing chunk boundary, or at the range's end)
 *
 * Return: the address, or NULL if the backing is missing (a driver bug).
 */
void *npu_mem_range_seg(const struct npu_mem_range *range, u64 pos, u64 *seg_len)
{
	const struct npu_mem *mem = range->mem;
	u64 off = range->off + pos;
	u32 frame = off >> NPU_PAGE_SHIFT;
	const struct npu_extent *e;
	unsigned int lo = 0, hi = mem->nr_extents;
	u64 in_frame = off & (NPU_PAGE_SIZE - 1);
	u64 ext_end, chunk_left;
	u32 pfn;
	char *addr;

	/* The extents are sorted by index and cover the allocation. */
	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (mem->extents[mid].index <= frame)
			lo = mid;
		else
			hi = mid;
	}
	e = &mem->extents[lo];
	pfn = e->pfn + (frame - e->index);
	ext_end = (u64)(e->index + (1U << e->order)) << NPU_PAGE_SHIFT;
	chunk_left = ((u64)(round_up(pfn + 1, 1U << NPU_HBM_CHUNK_ORDER) - pfn)
		      << NPU_PAGE_SHIFT) - in_frame;

	addr = npu_hbm_frame_addr(&mem->ndev->hbm, pfn);
	if (!addr)
		return NULL;
	*seg_len = min(min(ext_end - off, chunk_left), range->len - pos);
	return addr + in_frame;
}
