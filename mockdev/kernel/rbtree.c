// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: red-black tree rebalancing (the textbook algorithm with
 * parent pointers; NULL children are the black leaves).
 *
 * Invariants: the root is black, a red node has no red child, and every
 * path from a node to a leaf below it crosses the same number of black
 * nodes.
 */
#include <linux/rbtree.h>

static inline bool rb_is_black(const struct rb_node *n)
{
	return !n || (n->__rb_parent_color & RB_BLACK);
}

static inline bool rb_is_red(const struct rb_node *n)
{
	return !rb_is_black(n);
}

static inline void rb_set_black(struct rb_node *n)
{
	n->__rb_parent_color |= RB_BLACK;
}

static inline void rb_set_red(struct rb_node *n)
{
	n->__rb_parent_color &= ~1UL;
}

static inline void rb_set_color(struct rb_node *n, unsigned long color)
{
	n->__rb_parent_color = (n->__rb_parent_color & ~1UL) | color;
}

static inline unsigned long rb_color(const struct rb_node *n)
{
	return n->__rb_parent_color & 1UL;
}

static inline void rb_set_parent(struct rb_node *n, struct rb_node *p)
{
	n->__rb_parent_color = (unsigned long)p | rb_color(n);
}

/* Make new take old's place under old's parent (or as the root). */
static void rb_change_child(struct rb_node *old, struct rb_node *new,
			    struct rb_node *parent, struct rb_root *root)
{
	if (!parent)
		root->rb_node = new;
	else if (parent->rb_left == old)
		parent->rb_left = new;
	else
		parent->rb_right = new;
}

/*
 *     x              y
 *    / \            / \
 *   a   y    ->    x   c
 *      / \        / \
 *     b   c      a   b
 */
static void rb_rotate_left(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->rb_right;
	struct rb_node *p = rb_parent(x);

	x->rb_right = y->rb_left;
	if (y->rb_left)
		rb_set_parent(y->rb_left, x);
	rb_set_parent(y, p);
	rb_change_child(x, y, p, root);
	y->rb_left = x;
	rb_set_parent(x, y);
}

static void rb_rotate_right(struct rb_node *x, struct rb_root *root)
{
	struct rb_node *y = x->rb_left;
	struct rb_node *p = rb_parent(x);

	x->rb_left = y->rb_right;
	if (y->rb_right)
		rb_set_parent(y->rb_right, x);
	rb_set_parent(y, p);
	rb_change_child(x, y, p, root);
	y->rb_right = x;
	rb_set_parent(x, y);
}

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *parent, *gparent, *uncle;

	/* node is red (rb_link_node); fix a red parent upwards. */
	while ((parent = rb_parent(node)) && rb_is_red(parent)) {
		/* A red parent is not the root, so the grandparent exists. */
		gparent = rb_parent(parent);
		if (parent == gparent->rb_left) {
			uncle = gparent->rb_right;
			if (rb_is_red(uncle)) {
				/* Recolour and continue two levels up. */
				rb_set_black(parent);
				rb_set_black(uncle);
				rb_set_red(gparent);
				node = gparent;
				continue;
			}
			if (node == parent->rb_right) {
				/* Zig-zag: make it zig-zig. */
				rb_rotate_left(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			rb_set_black(parent);
			rb_set_red(gparent);
			rb_rotate_right(gparent, root);
		} else {
			uncle = gparent->rb_left;
			if (rb_is_red(uncle)) {
				rb_set_black(parent);
				rb_set_black(uncle);
				rb_set_red(gparent);
				node = gparent;
				continue;
			}
			if (node == parent->rb_left) {
				rb_rotate_right(parent, root);
				node = parent;
				parent = rb_parent(node);
			}
			rb_set_black(parent);
			rb_set_red(gparent);
			rb_rotate_left(gparent, root);
		}
	}
	rb_set_black(root->rb_node);
}

/*
 * node (possibly NULL) under parent is one black short on its side: push
 * the deficit up or fix it with rotations.
 */
static void rb_erase_fixup(struct rb_node *node, struct rb_node *parent,
			   struct rb_root *root)
{
	struct rb_node *sibling;

	while (node != root->rb_node && rb_is_black(node)) {
		if (node == parent->rb_left) {
			sibling = parent->rb_right;
			if (rb_is_red(sibling)) {
				rb_set_black(sibling);
				rb_set_red(parent);
				rb_rotate_left(parent, root);
				sibling = parent->rb_right;
			}
			if (rb_is_black(sibling->rb_left) &&
			    rb_is_black(sibling->rb_right)) {
				rb_set_red(sibling);
				node = parent;
				parent = rb_parent(node);
				continue;
			}
			if (rb_is_black(sibling->rb_right)) {
				rb_set_black(sibling->rb_left);
				rb_set_red(sibling);
				rb_rotate_right(sibling, root);
				sibling = parent->rb_right;
			}
			rb_set_color(sibling, rb_color(parent));
			rb_set_black(parent);
			rb_set_black(sibling->rb_right);
			rb_rotate_left(parent, root);
		} else {
			sibling = parent->rb_left;
			if (rb_is_red(sibling)) {
				rb_set_black(sibling);
				rb_set_red(parent);
				rb_rotate_right(parent, root);
				sibling = parent->rb_left;
			}
			if (rb_is_black(sibling->rb_left) &&
			    rb_is_black(sibling->rb_right)) {
				rb_set_red(sibling);
				node = parent;
				parent = rb_parent(node);
				continue;
			}
			if (rb_is_black(sibling->rb_left)) {
				rb_set_black(sibling->rb_right);
				rb_set_red(sibling);
				rb_rotate_left(sibling, root);
				sibling = parent->rb_left;
			}
			rb_set_color(sibling, rb_color(parent));
			rb_set_black(parent);
			rb_set_black(sibling->rb_left);
			rb_rotate_right(parent, root);
		}
		node = root->rb_node;
		break;
	}
	if (node)
		rb_set_black(node);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	struct rb_node *child, *parent, *succ;
	unsigned long color;

	if (!node->rb_left || !node->rb_right) {
		/* At most one child: it takes node's place. */
		child = node->rb_left ? node->rb_left : node->rb_right;
		parent = rb_parent(node);
		color = rb_color(node);
		rb_change_child(node, child, parent, root);
		if (child)
			rb_set_parent(child, parent);
	} else {
		/* Two children: the in-order successor takes node's place. */
		succ = node->rb_right;
		while (succ->rb_left)
			succ = succ->rb_left;
		color = rb_color(succ);
		child = succ->rb_right;
		if (rb_parent(succ) == node) {
			parent = succ;
		} else {
			parent = rb_parent(succ);
			parent->rb_left = child;
			if (child)
				rb_set_parent(child, parent);
			succ->rb_right = node->rb_right;
			rb_set_parent(succ->rb_right, succ);
		}
		rb_change_child(node, succ, rb_parent(node), root);
		succ->__rb_parent_color = node->__rb_parent_color;
		succ->rb_left = node->rb_left;
		rb_set_parent(succ->rb_left, succ);
	}
	if (color == RB_BLACK)
		rb_erase_fixup(child, parent, root);
}

struct rb_node *rb_first(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_left)
		n = n->rb_left;
	return n;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	struct rb_node *n = root->rb_node;

	if (!n)
		return NULL;
	while (n->rb_right)
		n = n->rb_right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	struct rb_node *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_right) {
		node = node->rb_right;
		while (node->rb_left)
			node = node->rb_left;
		return (struct rb_node *)node;
	}
	/* Up until we come from a left child. */
	while ((parent = rb_parent(node)) && node == parent->rb_right)
		node = parent;
	return parent;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	struct rb_node *parent;

	if (RB_EMPTY_NODE(node))
		return NULL;
	if (node->rb_left) {
		node = node->rb_left;
		while (node->rb_right)
			node = node->rb_right;
		return (struct rb_node *)node;
	}
	while ((parent = rb_parent(node)) && node == parent->rb_left)
		node = parent;
	return parent;
}

static struct rb_node *rb_left_deepest(const struct rb_node *node)
{
	for (;;) {
		if (node->rb_left)
			node = node->rb_left;
		else if (node->rb_right)
			node = node->rb_right;
		else
			return (struct rb_node *)node;
	}
}

struct rb_node *rb_first_postorder(const struct rb_root *root)
{
	if (!root->rb_node)
		return NULL;
	return rb_left_deepest(root->rb_node);
}

struct rb_node *rb_next_postorder(const struct rb_node *node)
{
	const struct rb_node *parent;

	if (!node)
		return NULL;
	parent = rb_parent(node);
	if (parent && node == parent->rb_left && parent->rb_right)
		return rb_left_deepest(parent->rb_right);
	return (struct rb_node *)parent;
}
