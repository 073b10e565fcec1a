// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Peer access between contexts of one process on two devices.
 *
 * NPU_IOCTL_PEER_ENABLE links a context (the owner) to a context of the
 * same TGID on another device of this driver instance (the peer): from then
 * on D2D descriptors on the owner's rings may name device VAs of the peer's
 * aperture, and the engine resolves them in the peer with
 * npu_peer_get_ctx(). A link holds a reference on the peer context; when
 * either side closes, npu_peer_release_all() unlinks everything from and
 * to it and marks it dead so that no new link can be made to it. An engine
 * that still holds the peer (between npu_peer_get_ctx() and
 * npu_peer_put_ctx()) keeps the struct alive; the closed peer's address
 * space is empty by then, so its copy fails with -EFAULT.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_dev.h"
#include "npu_drv.h"
#include "npu_peer.h"

/*
 * Protects: every context's peers and peer_of lists, the links on them, and
 * npu_ctx.peer_dead. Taken inside npu_device.lock, never the other way.
 */
static DEFINE_SPINLOCK(npu_peer_lock);

struct npu_peer_link {
	struct list_head owner_node;	/* in owner->peers */
	struct list_head peer_node;	/* in peer->peer_of */
	struct npu_ctx *owner;
	struct npu_ctx *peer;		/* referenced */
};

/* The link from owner to peer context peer_ctx on device peer_device, or NULL. */
static struct npu_peer_link *npu_peer_find(struct npu_ctx *owner, u32 peer_device,
					   u32 peer_ctx)
{
	struct npu_peer_link *link;

	lockdep_assert_held(&npu_peer_lock);
	list_for_each_entry(link, &owner->peers, owner_node) {
		if (link->peer->ndev->index == peer_device && link->peer->id == peer_ctx)
			return link;
	}
	return NULL;
}

/* A referenced context peer_ctx of device peer_device, or an ERR_PTR. */
static struct npu_ctx *npu_peer_lookup(u32 peer_device, u32 peer_ctx)
{
	struct npu_device *ndev = npu_dev_get(peer_device);
	struct npu_ctx *peer;

	if (!ndev || peer_ctx > INT_MAX)
		return ERR_PTR(-ENOENT);
	mutex_lock(&ndev->lock);
	peer = idr_find(&ndev->ctx_idr, peer_ctx);
	/* A context in the idr still has its file's reference. */
	if (peer)
		kref_get(&peer->ref);
	mutex_unlock(&ndev->lock);
	return peer ? peer : ERR_PTR(-ENOENT);
}

/**
 * npu_peer_ctx_of_process() - a set-up context of @ctx's process on another device
 * @ctx: the asking context
 * @peer_device: device index of the other context
 * @peer_ctx: its context id (npu_ctx_setup.ctx_id)
 *
 * Return: the context, referenced (drop with npu_peer_put_ctx()); ERR_PTR of
 * -ENOENT if there is none (or it has no address space yet), -EPERM if
 * another process opened it.
 */
struct npu_ctx *npu_peer_ctx_of_process(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx)
{
	struct npu_ctx *peer = npu_peer_lookup(peer_device, peer_ctx);
	int ret;

	if (IS_ERR(peer))
		return peer;
	ret = -EPERM;
	if (peer->tgid != ctx->tgid)
		goto out_put;
	ret = -ENOENT;
	if (!npu_ctx_is_setup(peer))
		goto out_put;
	return peer;

out_put:
	npu_ctx_put(peer);
	return ERR_PTR(ret);
}

/**
 * npu_peer_enable() - let @ctx's rings name device VAs of a peer context
 * @ctx: the owner
 * @peer_device: device index of the peer
 * @peer_ctx: its context id (npu_ctx_setup.ctx_id)
 *
 * Return: 0; -EINVAL for @ctx's own device; -ENOENT if there is no such
 * context (or it has no address space yet, or is closing); -EPERM if
 * another process opened it; -EEXIST if the link exists; -ENOMEM.
 */
int npu_peer_enable(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx)
{
	struct npu_peer_link *link;
	struct npu_ctx *peer;
	int ret;

	if (peer_device == ctx->ndev->index)
		return -EINVAL;
	peer = npu_peer_ctx_of_process(ctx, peer_device, peer_ctx);
	if (IS_ERR(peer))
		return PTR_ERR(peer);
	ret = -ENOMEM;
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		goto out_put;
	link->owner = ctx;
	link->peer = peer;

	spin_lock(&npu_peer_lock);
	if (peer->peer_dead || ctx->peer_dead) {
		ret = -ENOENT;
	} else if (npu_peer_find(ctx, peer_device, peer_ctx)) {
		ret = -EEXIST;
	} else {
		list_add_tail(&link->owner_node, &ctx->peers);
		list_add_tail(&link->peer_node, &peer->peer_of);
		ret = 0;
	}
	spin_unlock(&npu_peer_lock);
	if (!ret)
		return 0;	/* the link keeps the reference */
	kfree(link);
out_put:
	npu_ctx_put(peer);
	return ret;
}

/**
 * npu_peer_disable() - drop the link from @ctx to a peer context
 * @ctx: the owner
 * @peer_device: device index of the peer
 * @peer_ctx: its context id
 *
 * Return: 0; -EINVAL for @ctx's own device; -ENOENT if there is no link.
 */
int npu_peer_disable(struct npu_ctx *ctx, u32 peer_device, u32 peer_ctx)
{
	struct npu_peer_link *link;

	if (peer_device == ctx->ndev->index)
		return -EINVAL;
	spin_lock(&npu_peer_lock);
	link = npu_peer_find(ctx, peer_device, peer_ctx);
	if (link) {
		list_del(&link->owner_node);
		list_del(&link->peer_node);
	}
	spin_unlock(&npu_peer_lock);
	if (!link)
		return -ENOENT;
	npu_ctx_put(link->peer);
	kfree(link);
	return 0;
}

/**
 * npu_peer_release_all() - unlink a closing context from all peers
 * @ctx: the context; its rings are gone
 *
 * Drops the links it made and the links other contexts made to it, and
 * refuses new ones.
 */
void npu_peer_release_all(struct npu_ctx *ctx)
{
	struct npu_peer_link *link, *tmp;
	LIST_HEAD(dead);

	spin_lock(&npu_peer_lock);
	ctx->peer_dead = true;
	list_for_each_entry_safe(link, tmp, &ctx->peers, owner_node) {
		list_del(&link->owner_node);
		list_del(&link->peer_node);
		list_add(&link->owner_node, &dead);
	}
	list_for_each_entry_safe(link, tmp, &ctx->peer_of, peer_node) {
		list_del(&link->owner_node);
		list_del(&link->peer_node);
		list_add(&link->owner_node, &dead);
	}
	spin_unlock(&npu_peer_lock);

	list_for_each_entry_safe(link, tmp, &dead, owner_node) {
		list_del(&link->owner_node);
		npu_ctx_put(link->peer);
		kfree(link);
	}
}

/**
 * npu_peer_get_ctx() - the peer context whose aperture holds a device range
 * @ctx: the owner (the context of the ring)
 * @va: first byte
 * @len: bytes, > 0
 *
 * Return: a linked peer context of @ctx whose aperture contains
 * [@va, @va + @len), referenced (release with npu_peer_put_ctx()); NULL if
 * there is none.
 */
struct npu_ctx *npu_peer_get_ctx(struct npu_ctx *ctx, u64 va, u64 len)
{
	struct npu_peer_link *link;
	struct npu_ctx *found = NULL;

	if (!len)
		return NULL;
	spin_lock(&npu_peer_lock);
	list_for_each_entry(link, &ctx->peers, owner_node) {
		const struct npu_vas *vas = &link->peer->vas;

		/* The aperture is fixed once set up, and a link needs that. */
		if (va >= vas->base && va - vas->base < vas->size &&
		    len <= vas->size - (va - vas->base)) {
			found = link->peer;
			kref_get(&found->ref);
			break;
		}
	}
	spin_unlock(&npu_peer_lock);
	return found;
}

/**
 * npu_peer_put_ctx() - release what npu_peer_get_ctx() returned
 * @peer: the context, or NULL
 */
void npu_peer_put_ctx(struct npu_ctx *peer)
{
	if (peer)
		npu_ctx_put(peer);
}
