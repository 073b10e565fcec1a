// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A context's device virtual address space.
 *
 * The ranges live in an rbtree sorted by start, and those with free space
 * after them in a second rbtree sorted by the size of that space (see
 * struct npu_vas): reservation is best fit in O(log n) however many
 * ranges are live, lookup of the range containing an address is a probe of
 * a hash table by start, else a descent of the first tree.
 */
#include "npu_internal.h"
#include "npu_vas.h"

/* Where @node's hole starts, as an offset from base (no wrap at 2^64). */
static u64 npu_vas_hole_off(const struct npu_vas *vas, const struct npu_vas_node *node)
{
	return node->start - vas->base + node->size;
}

static void npu_vas_hole_insert(struct npu_vas *vas, struct npu_vas_node *node)
{
	struct rb_node **link = &vas->holes.rb_node, *parent = NULL;
	u64 off = npu_vas_hole_off(vas, node);

	while (*link) {
		struct npu_vas_node *n = rb_entry(*link, struct npu_vas_node, hole_rb);

		parent = *link;
		if (node->hole < n->hole ||
		    (node->hole == n->hole && off < npu_vas_hole_off(vas, n)))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(&node->hole_rb, parent, link);
	rb_insert_color(&node->hole_rb, &vas->holes);
}

/* Give @node a hole of @hole bytes; the holes tree holds the non-empty ones. */
static void npu_vas_hole_set(struct npu_vas *vas, struct npu_vas_node *node, u64 hole)
{
	if (node->hole)
		rb_erase(&node->hole_rb, &vas->holes);
	node->hole = hole;
	if (hole)
		npu_vas_hole_insert(vas, node);
}

/* The smallest hole of at least @len bytes, the lowest among equals. */
static struct npu_vas_node *npu_vas_hole_find(struct npu_vas *vas, u64 len)
{
	struct rb_node *rb = vas->holes.rb_node;
	struct npu_vas_node *best = NULL;

	while (rb) {
		struct npu_vas_node *n = rb_entry(rb, struct npu_vas_node, hole_rb);

		if (n->hole >= len) {
			best = n;
			rb = rb->rb_left;
		} else {
			rb = rb->rb_right;
		}
	}
	return best;
}

/*
 * Whether @size bytes aligned to @align fit in the hole after @prev; if so,
 * *@pad is the distance from the hole's start to theirs.
 */
static bool npu_vas_hole_fits(const struct npu_vas *vas, const struct npu_vas_node *prev,
			      u64 size, u64 align, u64 *pad)
{
	u64 from = vas->base + npu_vas_hole_off(vas, prev);
	u64 s;

	if (check_add_overflow(from, align - 1, &s))
		return false;
	s &= ~(align - 1);
	*pad = s - from;
	return *pad <= prev->hole && prev->hole - *pad >= size;
}

/*
 * Holes of at least @size bytes tried, smallest first, before taking the
 * smallest one of size + align - 1 bytes, where an aligned range surely
 * fits: this bounds the search, and makes best fit exact for page
 * alignment (every hole is page aligned).
 */
#define NPU_VAS_FIT_TRIES	8

/* The range whose hole takes @size bytes aligned to @align, and the pad. */
static struct npu_vas_node *npu_vas_find_fit(struct npu_vas *vas, u64 size, u64 align,
					     u64 *pad)
{
	struct npu_vas_node *prev = npu_vas_hole_find(vas, size);
	unsigned int tries;
	u64 len;

	for (tries = 0; prev && tries < NPU_VAS_FIT_TRIES; tries++) {
		struct rb_node *rb;

		if (npu_vas_hole_fits(vas, prev, size, align, pad))
			return prev;
		rb = rb_next(&prev->hole_rb);
		prev = rb ? rb_entry(rb, struct npu_vas_node, hole_rb) : NULL;
	}
	if (!prev || check_add_overflow(size, align - 1, &len))
		return NULL;
	prev = npu_vas_hole_find(vas, len);
	if (prev && npu_vas_hole_fits(vas, prev, size, align, pad))
		return prev;
	return NULL;
}

static struct hlist_head *npu_vas_bucket(const struct npu_vas_index *idx, u64 start)
{
	return &idx->tab[hash_64(start, idx->bits)];
}

/* Move the ranges of old's next few buckets to index; free old once empty. */
static void npu_vas_index_step(struct npu_vas *vas)
{
	unsigned int i;

	for (i = 0; vas->old.tab && i < NPU_VAS_INDEX_STEP; i++) {
		struct hlist_head *from = &vas->old.tab[vas->old_next];

		while (!hlist_empty(from)) {
			struct npu_vas_node *n = hlist_entry(from->first, struct npu_vas_node, hash);

			hlist_del_init(&n->hash);
			hlist_add_head(&n->hash, npu_vas_bucket(&vas->index, n->start));
		}
		if (++vas->old_next == 1U << vas->old.bits) {
			if (vas->old.tab != vas->inline_tab)
				kvfree(vas->old.tab);
			vas->old.tab = NULL;
		}
	}
}

/*
 * Start moving to a table of 2^@bits buckets, unless one is being filled
 * already or none can be allocated (then the current one stays).
 */
static void npu_vas_index_resize(struct npu_vas *vas, unsigned int bits)
{
	struct hlist_head *tab;

	if (vas->old.tab)
		return;
	if (bits == NPU_VAS_INDEX_MIN_BITS) {
		tab = vas->inline_tab;
		memset(tab, 0, sizeof(vas->inline_tab));
	} else {
		tab = kvcalloc(1UL << bits, sizeof(*tab), GFP_KERNEL | __GFP_NOWARN);
		if (!tab)
			return;
	}
	vas->old = vas->index;
	vas->old_next = 0;
	vas->index.tab = tab;
	vas->index.bits = bits;
}

static void npu_vas_index_add(struct npu_vas *vas, struct npu_vas_node *node)
{
	npu_vas_index_step(vas);
	if (vas->hashed >= 1ULL << vas->index.bits)
		npu_vas_index_resize(vas, vas->index.bits + 1);
	/*
	 * Past two ranges a bucket (the table could not grow), new ranges
	 * stay out of the index, so that its chains stay short: lookups of
	 * them take the tree.
	 */
	if (vas->hashed >= 2ULL << vas->index.bits) {
		INIT_HLIST_NODE(&node->hash);
		return;
	}
	hlist_add_head(&node->hash, npu_vas_bucket(&vas->index, node->start));
	vas->hashed++;
}

static void npu_vas_index_del(struct npu_vas *vas, struct npu_vas_node *node)
{
	if (!hlist_unhashed(&node->hash)) {
		hlist_del_init(&node->hash);
		vas->hashed--;
	}
	npu_vas_index_step(vas);
	if (vas->index.bits > NPU_VAS_INDEX_MIN_BITS &&
	    vas->hashed <= 1ULL << (vas->index.bits - 2))
		npu_vas_index_resize(vas, vas->index.bits - 1);
}

/* The range that starts at @addr, if it is in the index. */
static struct npu_vas_node *npu_vas_index_find(const struct npu_vas *vas, u64 addr)
{
	struct npu_vas_node *n;

	hlist_for_each_entry(n, npu_vas_bucket(&vas->index, addr), hash)
		if (n->start == addr)
			return n;
	if (vas->old.tab)
		hlist_for_each_entry(n, npu_vas_bucket(&vas->old, addr), hash)
			if (n->start == addr)
				return n;
	return NULL;
}

/* Put @node at [start, start + size), in the hole after @prev, @pad bytes in. */
static void npu_vas_place(struct npu_vas *vas, struct npu_vas_node *prev,
			  struct npu_vas_node *node, u64 start, u64 size, u64 pad)
{
	struct rb_node **link = &vas->root.rb_node, *parent = NULL;
	u64 after = prev->hole - pad - size;

	while (*link) {
		struct npu_vas_node *n = rb_entry(*link, struct npu_vas_node, rb);

		parent = *link;
		link = start < n->start ? &parent->rb_left : &parent->rb_right;
	}
	node->start = start;
	node->size = size;
	node->hole = 0;
	rb_link_node(&node->rb, parent, link);
	rb_insert_color(&node->rb, &vas->root);
	npu_vas_hole_set(vas, prev, pad);
	npu_vas_hole_set(vas, node, after);
	npu_vas_index_add(vas, node);
	vas->used += size;
}

/**
 * npu_vas_init() - an empty address space over [base, base + size)
 * @vas: the address space
 * @base: first address; base + size must not wrap past U64_MAX
 * @size: bytes
 */
void npu_vas_init(struct npu_vas *vas, u64 base, u64 size)
{
	vas->base = base;
	vas->size = size;
	vas->root = RB_ROOT;
	vas->holes = RB_ROOT;
	vas->used = 0;
	vas->head.start = base;
	vas->head.size = 0;
	vas->head.hole = 0;
	npu_vas_hole_set(vas, &vas->head, size);
	memset(vas->inline_tab, 0, sizeof(vas->inline_tab));
	vas->index.tab = vas->inline_tab;
	vas->index.bits = NPU_VAS_INDEX_MIN_BITS;
	vas->old.tab = NULL;
	vas->old.bits = 0;
	vas->old_next = 0;
	vas->hashed = 0;
}

/**
 * npu_vas_fini() - tear down an address space
 * @vas: the address space; its owner has removed every range
 */
void npu_vas_fini(struct npu_vas *vas)
{
	WARN_ON(!RB_EMPTY_ROOT(&vas->root));
	WARN_ON(vas->hashed);
	if (vas->old.tab && vas->old.tab != vas->inline_tab)
		kvfree(vas->old.tab);
	if (vas->index.tab != vas->inline_tab)
		kvfree(vas->index.tab);
	vas->old.tab = NULL;
	vas->index.tab = vas->inline_tab;
	vas->index.bits = NPU_VAS_INDEX_MIN_BITS;
	vas->root = RB_ROOT;
	vas->holes = RB_ROOT;
}

/**
 * npu_vas_reserve() - place a range of @size bytes aligned to @align
 * @vas: the address space
 * @node: the range; start and size are set on success
 * @size: bytes, > 0
 * @align: a power of two
 *
 * The range goes into the smallest hole it fits in (best fit), the lowest
 * such hole among equals: freed space is reused before the aperture grows.
 *
 * Return: 0, -EINVAL for a bad size or alignment, -ENOMEM when no gap fits.
 */
int npu_vas_reserve(struct npu_vas *vas, struct npu_vas_node *node, u64 size,
		    u64 align)
{
	struct npu_vas_node *prev;
	u64 pad;

	if (!size || !align || !is_power_of_2(align))
		return -EINVAL;
	if (size > vas->size)
		return -ENOMEM;
	prev = npu_vas_find_fit(vas, size, align, &pad);
	if (!prev)
		return -ENOMEM;
	npu_vas_place(vas, prev, node, vas->base + npu_vas_hole_off(vas, prev) + pad, size, pad);
	return 0;
}

/**
 * npu_vas_reserve_at() - place a range at a fixed address
 * @vas: the address space
 * @node: the range; start and size are set on success
 * @start: first address
 * @size: bytes, > 0
 *
 * Return: 0; -EINVAL if [start, start + size) is not inside the address
 * space; -EEXIST if it overlaps a range already there.
 */
int npu_vas_reserve_at(struct npu_vas *vas, struct npu_vas_node *node,
		       u64 start, u64 size)
{
	struct npu_vas_node *prev = &vas->head;
	struct rb_node *rb = vas->root.rb_node;
	u64 off, pad;

	if (!size || start < vas->base || start - vas->base > vas->size ||
	    size > vas->size - (start - vas->base))
		return -EINVAL;
	/* The range with the greatest start at or below @start, else head. */
	while (rb) {
		struct npu_vas_node *n = rb_entry(rb, struct npu_vas_node, rb);

		if (start < n->start) {
			rb = rb->rb_left;
		} else {
			prev = n;
			rb = rb->rb_right;
		}
	}
	off = npu_vas_hole_off(vas, prev);
	if (start - vas->base < off)
		return -EEXIST;
	pad = start - vas->base - off;
	if (pad > prev->hole || prev->hole - pad < size)
		return -EEXIST;
	npu_vas_place(vas, prev, node, start, size, pad);
	return 0;
}

/**
 * npu_vas_first() - the range with the lowest start
 * @vas: the address space
 *
 * Return: the range, or NULL when the address space is empty.
 */
struct npu_vas_node *npu_vas_first(struct npu_vas *vas)
{
	struct rb_node *rb = rb_first(&vas->root);

	return rb ? rb_entry(rb, struct npu_vas_node, rb) : NULL;
}

/**
 * npu_vas_next() - the range after @node
 * @node: a range of an address space
 *
 * Return: the next range by start, or NULL.
 */
struct npu_vas_node *npu_vas_next(struct npu_vas_node *node)
{
	struct rb_node *rb = rb_next(&node->rb);

	return rb ? rb_entry(rb, struct npu_vas_node, rb) : NULL;
}

/**
 * npu_vas_lookup() - the range that contains @addr
 * @vas: the address space
 * @addr: any address
 *
 * Return: the range, or NULL.
 */
struct npu_vas_node *npu_vas_lookup(struct npu_vas *vas, u64 addr)
{
	struct npu_vas_node *hit = npu_vas_index_find(vas, addr);
	struct rb_node *rb = vas->root.rb_node;

	if (hit)
		return hit;

	while (rb) {
		struct npu_vas_node *n = rb_entry(rb, struct npu_vas_node, rb);

		if (addr < n->start)
			rb = rb->rb_left;
		else if (addr - n->start >= n->size)
			rb = rb->rb_right;
		else
			return n;
	}
	return NULL;
}

/**
 * npu_vas_remove() - give a range back
 * @vas: the address space
 * @node: a range reserved in @vas
 */
void npu_vas_remove(struct npu_vas *vas, struct npu_vas_node *node)
{
	struct rb_node *rb = rb_prev(&node->rb);
	struct npu_vas_node *prev = rb ? rb_entry(rb, struct npu_vas_node, rb) : &vas->head;

	/* The previous hole swallows the range and the hole after it. */
	npu_vas_hole_set(vas, prev, prev->hole + node->size + node->hole);
	npu_vas_hole_set(vas, node, 0);
	npu_vas_index_del(vas, node);
	rb_erase(&node->rb, &vas->root);
	RB_CLEAR_NODE(&node->rb);
	vas->used -= node->size;
}
