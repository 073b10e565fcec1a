// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Physical device memory.
 *
 * An npu_phys owns frames of one device (or, for CANN's host physical
 * memory, a zeroed host buffer charged like pinned host memory). It is what an allocation, an IPC
 * import and a VMM mapping point at, and what a physical handle or an
 * export holds: each of them takes a reference, and the frames go back to
 * the page-frame allocator only when the last reference is dropped. An
 * engine holds a reference for the duration of a descriptor, so no unmap,
 * free or close can pull frames from under a copy.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_drv.h"
#include "npu_hbm.h"
#include "npu_host.h"
#include "npu_limits.h"
#include "npu_phys.h"

static void npu_phys_release(struct kref *ref)
{
	struct npu_phys *phys = container_of(ref, struct npu_phys, ref);

	if (phys->host) {
		vfree(phys->host);
		atomic64_dec(&phys->ndev->nr_allocations);
		npu_host_pin_uncharge(phys->ndev, phys->proc, phys->size >> PAGE_SHIFT);
		npu_limits_proc_put(phys->proc);
		kfree(phys);
		return;
	}
	npu_hbm_release(&phys->ndev->hbm, phys->extents, phys->nr_extents,
			READ_ONCE(phys->owner));
	npu_pfa_free(&phys->ndev->pfa, phys->extents, phys->nr_extents);
	kvfree(phys->extents);
	atomic64_dec(&phys->ndev->nr_allocations);
	npu_limits_uncharge(phys->proc, NPU_LIMIT_HBM_BYTES, phys->size);
	npu_limits_proc_put(phys->proc);
	kfree(phys);
}

/**
 * npu_phys_mark_shared() - other contexts may write the memory from now on
 * @phys: the memory, referenced by the caller
 *
 * Its frames are then scrubbed before any context gets them again, its
 * creator included.
 */
void npu_phys_mark_shared(struct npu_phys *phys)
{
	WRITE_ONCE(phys->owner, NPU_HBM_OWNER_SHARED);
}

/**
 * npu_phys_put() - drop a reference to physical memory
 * @phys: the memory; its frames go back to the allocator with the last
 */
void npu_phys_put(struct npu_phys *phys)
{
	kref_put(&phys->ref, npu_phys_release);
}

/* Frames for @size bytes under @policy; sets the page order actually used. */
static int npu_phys_get_frames(struct npu_phys *phys, u64 size, u32 policy)
{
	struct npu_pfa *pfa = &phys->ndev->pfa;
	u64 huge = round_up(size, (u64)SZ_2M) >> NPU_PAGE_SHIFT;
	u64 normal = round_up(size, (u64)SZ_4K) >> NPU_PAGE_SHIFT;
	int ret;

	switch (policy) {
	case NPU_POLICY_HUGE_FIRST:
		if (size > SZ_1M) {
			ret = npu_pfa_alloc(pfa, huge, NPU_ORDER_HUGE,
					    &phys->extents, &phys->nr_extents);
			if (ret != -ENOMEM) {
				phys->page_order = NPU_ORDER_HUGE;
				phys->page_class = NPU_CLASS_HUGE;
				return ret;
			}
		}
		fallthrough;
	case NPU_POLICY_NORMAL_ONLY:
		phys->page_order = NPU_ORDER_NORMAL;
		phys->page_class = NPU_CLASS_NORMAL;
		return npu_pfa_alloc(pfa, normal, NPU_ORDER_NORMAL,
				     &phys->extents, &phys->nr_extents);
	case NPU_POLICY_HUGE_ONLY:
		phys->page_order = NPU_ORDER_HUGE;
		phys->page_class = NPU_CLASS_HUGE;
		return npu_pfa_alloc(pfa, huge, NPU_ORDER_HUGE,
				     &phys->extents, &phys->nr_extents);
	case NPU_POLICY_HUGE1G_ONLY:
		phys->page_order = NPU_ORDER_HUGE1G;
		phys->page_class = NPU_CLASS_HUGE1G;
		return npu_pfa_alloc(pfa, round_up(size, (u64)SZ_1G) >> NPU_PAGE_SHIFT,
				     NPU_ORDER_HUGE1G, &phys->extents, &phys->nr_extents);
	}
	return -EINVAL;
}

/* The most bytes @policy may take for @size: what is charged up front. */
static u64 npu_phys_max_bytes(u64 size, u32 policy)
{
	switch (policy) {
	case NPU_POLICY_HUGE_FIRST:
		return round_up(size, size > SZ_1M ? (u64)SZ_2M : (u64)SZ_4K);
	case NPU_POLICY_HUGE_ONLY:
		return round_up(size, (u64)SZ_2M);
	case NPU_POLICY_HUGE1G_ONLY:
		return round_up(size, (u64)SZ_1G);
	default:
		return round_up(size, (u64)SZ_4K);
	}
}

/**
 * npu_phys_create() - allocate and back physical memory
 * @ndev: the device whose frames to take
 * @proc: the process charged for the memory until its last reference goes
 * @owner: owner id of the creating context (struct npu_ctx.owner): frames
 *	it freed earlier come back without a scrub, anybody else's are zeroed
 * @size: bytes, > 0 and <= the device's HBM size
 * @policy: NPU_POLICY_*
 * @flags: NPU_MEM_*
 * @out: the memory, holding one reference
 *
 * The process's HBM budget is charged before any frame is taken, so a
 * process at its limit cannot take frames from others even for a moment.
 *
 * Return: 0, -EINVAL for an unknown policy, -ENOMEM (the device's or the
 * process's memory exhausted).
 */
int npu_phys_create(struct npu_device *ndev, struct npu_proc *proc, u64 owner, u64 size,
		    u32 policy, u32 flags, struct npu_phys **out)
{
	struct npu_phys *phys;
	u64 charged;
	int ret;

	if (!size || policy >= NPU_POLICY_COUNT)
		return -EINVAL;
	/* Also keeps the rounding below from overflowing. */
	if (size > ndev->hbm_size)
		return -ENOMEM;
	charged = npu_phys_max_bytes(size, policy);
	ret = npu_limits_charge(proc, NPU_LIMIT_HBM_BYTES, charged);
	if (ret && policy == NPU_POLICY_HUGE_FIRST) {
		/* Where 2 MiB pages would not fit the budget, 4 KiB pages may. */
		policy = NPU_POLICY_NORMAL_ONLY;
		charged = npu_phys_max_bytes(size, policy);
		ret = npu_limits_charge(proc, NPU_LIMIT_HBM_BYTES, charged);
	}
	if (ret)
		return ret;

	phys = kzalloc(sizeof(*phys), GFP_KERNEL);
	if (!phys) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	kref_init(&phys->ref);
	phys->ndev = ndev;
	phys->flags = flags;
	phys->owner = owner;
	ret = npu_phys_get_frames(phys, size, policy);
	if (ret)
		goto err_free_phys;
	phys->size = round_up(size, (u64)npu_phys_page_size(phys));
	ret = npu_hbm_populate(&ndev->hbm, phys->extents, phys->nr_extents, owner);
	if (ret)
		goto err_free_frames;
	/* HUGE_FIRST may have fallen back to smaller pages. */
	npu_limits_uncharge(proc, NPU_LIMIT_HBM_BYTES, charged - phys->size);
	phys->proc = npu_limits_proc_get(proc);
	atomic64_inc(&ndev->nr_allocations);
	*out = phys;
	return 0;

err_free_frames:
	npu_pfa_free(&ndev->pfa, phys->extents, phys->nr_extents);
	kvfree(phys->extents);
err_free_phys:
	kfree(phys);
err_uncharge:
	npu_limits_uncharge(proc, NPU_LIMIT_HBM_BYTES, charged);
	return ret;
}

/**
 * npu_phys_create_host() - allocate physical host memory
 * @ndev: the device of the allocating file
 * @proc: the process of the allocating file
 * @size: bytes, > 0, a multiple of the page size
 * @page_order: NPU_ORDER_* the memory reports
 * @flags: NPU_MEM_*, NPU_MEM_HOST included
 * @out: the memory, zeroed, holding one reference
 *
 * The memory is pinned host memory: it is charged to the same budgets as
 * host registrations, the process's NPU_LIMIT_PIN_BYTES and the device's
 * host_pin_mb, until the last reference goes.
 *
 * Return: 0 or -ENOMEM (a budget or the host exhausted).
 */
int npu_phys_create_host(struct npu_device *ndev, struct npu_proc *proc, u64 size,
			 u32 page_order, u32 flags, struct npu_phys **out)
{
	unsigned long nr = size >> PAGE_SHIFT;
	struct npu_phys *phys;
	int ret;

	/* Also keeps the page count of any size in an unsigned long. */
	if (!size || size > ndev->hbm_size)
		return -ENOMEM;
	ret = npu_host_pin_charge(ndev, proc, nr);
	if (ret)
		return ret;
	ret = -ENOMEM;
	phys = kzalloc(sizeof(*phys), GFP_KERNEL);
	if (!phys)
		goto err_uncharge;
	phys->host = vzalloc(size);
	if (!phys->host)
		goto err_free_phys;
	kref_init(&phys->ref);
	phys->ndev = ndev;
	phys->flags = flags;
	/* Zeroed here and never given back to a frame pool: nobody's data. */
	phys->owner = NPU_HBM_OWNER_SHARED;
	phys->size = size;
	phys->page_order = page_order;
	phys->proc = npu_limits_proc_get(proc);
	atomic64_inc(&ndev->nr_allocations);
	*out = phys;
	return 0;

err_free_phys:
	kfree(phys);
err_uncharge:
	npu_host_pin_uncharge(ndev, proc, nr);
	return ret;
}

/**
 * npu_phys_addr() - kernel address of byte @off of physical memory
 * @phys: the memory, referenced by the caller
 * @off: byte offset, < phys->size
 * @contig: out: bytes from there that are contiguous in the kernel (they
 *	end at an extent or backing chunk boundary)
 *
 * Return: the address, or NULL if the backing is missing (a driver bug).
 */
void *npu_phys_addr(struct npu_phys *phys, u64 off, u64 *contig)
{
	u32 frame = off >> NPU_PAGE_SHIFT;
	u64 in_frame = off & (NPU_PAGE_SIZE - 1);
	unsigned int lo = READ_ONCE(phys->extent_hint), hi;
	const struct npu_extent *e;
	u64 ext_end, chunk_left;
	char *addr;
	u32 pfn;

	if (phys->host) {
		*contig = phys->size - off;
		return (char *)phys->host + off;
	}
	e = lo < phys->nr_extents ? &phys->extents[lo] : NULL;
	if (!e || frame < e->index || frame - e->index >= 1U << e->order) {
		/* The extents are sorted by index and cover the memory. */
		lo = 0;
		hi = phys->nr_extents;
		while (hi - lo > 1) {
			unsigned int mid = lo + (hi - lo) / 2;

			if (phys->extents[mid].index <= frame)
				lo = mid;
			else
				hi = mid;
		}
		WRITE_ONCE(phys->extent_hint, lo);
		e = &phys->extents[lo];
	}
	pfn = e->pfn + (frame - e->index);
	ext_end = (u64)(e->index + (1U << e->order)) << NPU_PAGE_SHIFT;
	chunk_left = ((u64)(round_up(pfn + 1, 1U << NPU_HBM_CHUNK_ORDER) - pfn)
		      << NPU_PAGE_SHIFT) - in_frame;

	addr = npu_hbm_frame_addr(&phys->ndev->hbm, pfn);
	if (!addr)
		return NULL;
	*contig = min(ext_end - off, chunk_left);
	return addr + in_frame;
}
