// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host memory registration.
 *
 * NPU_IOCTL_HOST_REGISTER pins a page-aligned range of the caller with
 * pin_user_pages_fast(FOLL_WRITE | FOLL_LONGTERM) and maps the pages into
 * the kernel with vmap(), so the engines copy to and from it with memcpy
 * instead of copy_{from,to}_user (and, for a daemon serving another
 * process, without a system call per copy). The pins go through the
 * caller's page tables, so fd and fd_off are only checked for form here:
 * the kernel needs neither. The mock kernel's remote pin (npud) finds the
 * memfd that backs the range from the client's /proc/PID/maps and maps the
 * same file pages shared into the daemon; anonymous memory of a remote
 * client cannot be pinned there (-EFAULT), and the runtime then copies it
 * the pageable way.
 *
 * Registrations live in an rbtree by address under a spinlock; each has a
 * reference count so that HOST_UNREGISTER or close racing with an engine
 * that holds it (npu_host_get()) only unlinks it: the last npu_host_put()
 * unmaps and unpins. The pinned pages of each device are counted in
 * npu_device.nr_pinned_pages and capped by the host_pin_mb parameter; what
 * one process registers is also capped by its own limit (npu_limits.c).
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_drv.h"
#include "npu_host.h"

static unsigned int host_pin_mb = 8192;
module_param(host_pin_mb, uint, 0444);
MODULE_PARM_DESC(host_pin_mb, "Host memory the contexts of one device may pin, in MiB (default 8192)");

struct npu_host_reg {
	struct rb_node node;	/* in npu_host_set.root while registered */
	struct kref ref;	/* the tree's, and one per npu_host_get() */
	struct npu_device *ndev;
	struct npu_proc *proc;	/* charged for the pages; referenced */
	u64 addr;
	u64 size;
	unsigned long nr_pages;
	struct page **pages;
	void *kaddr;		/* vmap() of pages */
};

/**
 * npu_host_init() - an empty registration set for a new context
 * @ctx: the context
 */
void npu_host_init(struct npu_ctx *ctx)
{
	spin_lock_init(&ctx->host.lock);
	ctx->host.root = RB_ROOT;
}

static void npu_host_reg_free(struct kref *ref)
{
	struct npu_host_reg *reg = container_of(ref, struct npu_host_reg, ref);

	vunmap(reg->kaddr);
	unpin_user_pages_dirty_lock(reg->pages, reg->nr_pages, true);
	npu_host_pin_uncharge(reg->ndev, reg->proc, reg->nr_pages);
	npu_limits_proc_put(reg->proc);
	kvfree(reg->pages);
	kfree(reg);
}

/* The registration containing addr, or NULL. Caller holds set->lock. */
static struct npu_host_reg *npu_host_find(struct npu_host_set *set, u64 addr)
{
	struct rb_node *n = set->root.rb_node;

	lockdep_assert_held(&set->lock);
	while (n) {
		struct npu_host_reg *reg = rb_entry(n, struct npu_host_reg, node);

		if (addr < reg->addr)
			n = n->rb_left;
		else if (addr - reg->addr >= reg->size)
			n = n->rb_right;
		else
			return reg;
	}
	return NULL;
}

/*
 * Insert reg unless it overlaps a registration: -EEXIST then. Caller holds
 * set->lock.
 */
static int npu_host_insert(struct npu_host_set *set, struct npu_host_reg *reg)
{
	struct rb_node **link = &set->root.rb_node, *parent = NULL;
	u64 end = reg->addr + reg->size;

	lockdep_assert_held(&set->lock);
	while (*link) {
		struct npu_host_reg *cur = rb_entry(*link, struct npu_host_reg, node);

		parent = *link;
		if (end <= cur->addr)
			link = &parent->rb_left;
		else if (reg->addr >= cur->addr + cur->size)
			link = &parent->rb_right;
		else
			return -EEXIST;
	}
	rb_link_node(&reg->node, parent, link);
	rb_insert_color(&reg->node, &set->root);
	return 0;
}

/* Whether [addr, addr + size) overlaps a registration. Caller holds set->lock. */
static bool npu_host_overlaps(struct npu_host_set *set, u64 addr, u64 size)
{
	struct rb_node *n = set->root.rb_node;
	u64 end = addr + size;

	lockdep_assert_held(&set->lock);
	while (n) {
		struct npu_host_reg *cur = rb_entry(n, struct npu_host_reg, node);

		if (end <= cur->addr)
			n = n->rb_left;
		else if (addr >= cur->addr + cur->size)
			n = n->rb_right;
		else
			return true;
	}
	return false;
}

static int npu_host_check_args(const struct npu_host_register *args)
{
	u64 end;

	if (!args->size || !PAGE_ALIGNED(args->addr) || !PAGE_ALIGNED(args->size) ||
	    check_add_overflow(args->addr, args->size, &end))
		return -EINVAL;
	if (args->fd < -1 || !PAGE_ALIGNED(args->fd_off) ||
	    (args->fd == -1 && args->fd_off))
		return -EINVAL;
	/* pin_user_pages_fast() and vmap() count pages in an int. */
	if (args->size >> PAGE_SHIFT > INT_MAX)
		return -EINVAL;
	if (!access_ok(u64_to_user_ptr(args->addr), args->size))
		return -EFAULT;
	return 0;
}

/**
 * npu_host_pin_charge() - reserve pinned host memory
 * @ndev: the device whose budget (host_pin_mb) is charged
 * @proc: the process whose budget (NPU_LIMIT_PIN_BYTES) is charged
 * @nr: pages
 *
 * Registrations and physical host memory (npu_phys.c) share both budgets.
 *
 * Return: 0 or -ENOMEM.
 */
int npu_host_pin_charge(struct npu_device *ndev, struct npu_proc *proc, unsigned long nr)
{
	u64 cap = (u64)host_pin_mb << (20 - PAGE_SHIFT);
	int ret;

	ret = npu_limits_charge(proc, NPU_LIMIT_PIN_BYTES, (u64)nr << PAGE_SHIFT);
	if (ret)
		return ret;
	if (atomic64_add_return(nr, &ndev->nr_pinned_pages) > cap) {
		npu_host_pin_uncharge(ndev, proc, nr);
		return -ENOMEM;
	}
	return 0;
}

/**
 * npu_host_pin_uncharge() - give back what npu_host_pin_charge() reserved
 * @ndev: the device
 * @proc: the process
 * @nr: pages
 */
void npu_host_pin_uncharge(struct npu_device *ndev, struct npu_proc *proc, unsigned long nr)
{
	atomic64_sub(nr, &ndev->nr_pinned_pages);
	npu_limits_uncharge(proc, NPU_LIMIT_PIN_BYTES, (u64)nr << PAGE_SHIFT);
}

/**
 * npu_host_register() - pin a range of the caller for the engines
 * @ctx: the context
 * @args: the range; flags already checked
 *
 * Return: 0; -EINVAL for a range that is empty, not page aligned, wraps,
 * or a bad fd/fd_off; -EEXIST if it overlaps a registration of @ctx;
 * -ENOMEM past the process's or the device's pin budget or out of memory; -EFAULT if the
 * range is not mapped writable in the caller.
 */
int npu_host_register(struct npu_ctx *ctx, struct npu_host_register *args)
{
	struct npu_host_set *set = &ctx->host;
	struct npu_host_reg *reg;
	unsigned long nr;
	bool busy;
	int ret;

	ret = npu_host_check_args(args);
	if (ret)
		return ret;
	nr = args->size >> PAGE_SHIFT;

	/* Cheap early answer; the insert below decides for real. */
	spin_lock(&set->lock);
	busy = npu_host_overlaps(set, args->addr, args->size);
	spin_unlock(&set->lock);
	if (busy)
		return -EEXIST;

	ret = npu_host_pin_charge(ctx->ndev, ctx->proc, nr);
	if (ret)
		return ret;
	ret = -ENOMEM;
	reg = kzalloc(sizeof(*reg), GFP_KERNEL);
	if (!reg)
		goto err_uncharge;
	reg->pages = kvmalloc_array(nr, sizeof(*reg->pages), GFP_KERNEL);
	if (!reg->pages)
		goto err_free_reg;
	kref_init(&reg->ref);
	reg->ndev = ctx->ndev;
	reg->addr = args->addr;
	reg->size = args->size;

	ret = pin_user_pages_fast(args->addr, nr, FOLL_WRITE | FOLL_LONGTERM, reg->pages);
	if (ret < 0)
		goto err_free_pages;
	if ((unsigned long)ret != nr) {
		unpin_user_pages(reg->pages, ret);
		ret = -EFAULT;
		goto err_free_pages;
	}
	reg->nr_pages = nr;
	reg->kaddr = vmap(reg->pages, nr, VM_MAP, PAGE_KERNEL);
	if (!reg->kaddr) {
		ret = -ENOMEM;
		goto err_unpin;
	}

	reg->proc = npu_limits_proc_get(ctx->proc);

	spin_lock(&set->lock);
	ret = npu_host_insert(set, reg);
	spin_unlock(&set->lock);
	if (ret)
		goto err_put_proc;
	return 0;

err_put_proc:
	npu_limits_proc_put(reg->proc);
	vunmap(reg->kaddr);
err_unpin:
	unpin_user_pages(reg->pages, nr);
err_free_pages:
	kvfree(reg->pages);
err_free_reg:
	kfree(reg);
err_uncharge:
	npu_host_pin_uncharge(ctx->ndev, ctx->proc, nr);
	return ret;
}

/**
 * npu_host_unregister() - drop the registration based at @addr
 * @ctx: the context
 * @addr: the addr it was registered with
 *
 * The pages stay pinned while an engine still holds the registration.
 *
 * Return: 0, or -ENOENT if no registration starts at @addr.
 */
int npu_host_unregister(struct npu_ctx *ctx, u64 addr)
{
	struct npu_host_set *set = &ctx->host;
	struct npu_host_reg *reg;

	spin_lock(&set->lock);
	reg = npu_host_find(set, addr);
	if (reg && reg->addr == addr)
		rb_erase(&reg->node, &set->root);
	else
		reg = NULL;
	spin_unlock(&set->lock);
	if (!reg)
		return -ENOENT;
	npu_host_put(reg);
	return 0;
}

/**
 * npu_host_release_all() - drop every registration of a closing context
 * @ctx: the context
 */
void npu_host_release_all(struct npu_ctx *ctx)
{
	struct npu_host_set *set = &ctx->host;
	struct npu_host_reg *reg;
	struct rb_node *n;

	for (;;) {
		spin_lock(&set->lock);
		n = rb_first(&set->root);
		if (n)
			rb_erase(n, &set->root);
		spin_unlock(&set->lock);
		if (!n)
			break;
		reg = rb_entry(n, struct npu_host_reg, node);
		npu_host_put(reg);
	}
}

/**
 * npu_host_get() - kernel address of a registered user range
 * @ctx: the context whose registrations to search
 * @uaddr: first byte, an address of @ctx's process
 * @len: bytes, > 0
 * @reg: out: the registration, referenced; release with npu_host_put()
 *
 * Return: the kernel address of @uaddr when [@uaddr, @uaddr + @len) lies
 * inside one registration, else NULL (*@reg NULL too).
 */
void *npu_host_get(struct npu_ctx *ctx, u64 uaddr, u64 len, struct npu_host_reg **reg)
{
	struct npu_host_set *set = &ctx->host;
	struct npu_host_reg *r;
	void *kaddr = NULL;

	*reg = NULL;
	if (!len)
		return NULL;
	spin_lock(&set->lock);
	r = npu_host_find(set, uaddr);
	if (r && len <= r->size - (uaddr - r->addr)) {
		kref_get(&r->ref);
		*reg = r;
		kaddr = (char *)r->kaddr + (uaddr - r->addr);
	}
	spin_unlock(&set->lock);
	return kaddr;
}

/**
 * npu_host_put() - release what npu_host_get() returned
 * @reg: the registration, or NULL
 */
void npu_host_put(struct npu_host_reg *reg)
{
	if (reg)
		kref_put(&reg->ref, npu_host_reg_free);
}

/**
 * npu_host_lost() - whether registered memory the engine touched has failed
 * @reg: the registration, held
 * @kaddr: first byte touched, inside @reg's kernel mapping
 * @len: bytes touched, > 0
 *
 * The pages are pinned, so only a memory error (PageHWPoison(); in the
 * mock kernel also a client file that failed under npud) can take them
 * away. The engine asks after each piece it copied and fails that copy
 * with -EFAULT.
 *
 * Return: true if a page of [@kaddr, @kaddr + @len) is poisoned.
 */
bool npu_host_lost(const struct npu_host_reg *reg, const void *kaddr, u64 len)
{
	unsigned long first = ((const char *)kaddr - (const char *)reg->kaddr) >> PAGE_SHIFT;
	unsigned long last = ((const char *)kaddr + len - 1 - (const char *)reg->kaddr) >> PAGE_SHIFT;
	unsigned long i;

	for (i = first; i <= last; i++) {
		if (PageHWPoison(reg->pages[i]))
			return true;
	}
	return false;
}
