/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: red-black trees with the kernel's interface. The caller
 * does the search and links the new node (rb_link_node), then
 * rb_insert_color rebalances. The parent pointer and the colour share one
 * word, as in the kernel, so that RB_CLEAR_NODE/RB_EMPTY_NODE work the
 * same way (a cleared node is its own parent).
 */
#ifndef MOCK_LINUX_RBTREE_H
#define MOCK_LINUX_RBTREE_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/compiler.h>

struct rb_node {
	unsigned long __rb_parent_color;	/* parent | colour (bit 0: black) */
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __attribute__((aligned(sizeof(long))));

struct rb_root {
	struct rb_node *rb_node;
};

#define RB_BLACK	1

#define rb_parent(r)	((struct rb_node *)((r)->__rb_parent_color & ~3UL))

#define RB_ROOT		(struct rb_root) { NULL, }
#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define rb_entry_safe(ptr, type, member) ({				\
	typeof(ptr) ____ptr = (ptr);					\
	____ptr ? rb_entry(____ptr, type, member) : NULL;		\
})

#define RB_EMPTY_ROOT(root)	(READ_ONCE((root)->rb_node) == NULL)
#define RB_EMPTY_NODE(node) \
	((node)->__rb_parent_color == (unsigned long)(node))
#define RB_CLEAR_NODE(node) \
	((node)->__rb_parent_color = (unsigned long)(node))

void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);

struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_first_postorder(const struct rb_root *root);
struct rb_node *rb_next_postorder(const struct rb_node *node);

/* Put node (red) at *rb_link, a NULL child slot of parent. */
static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **rb_link)
{
	node->__rb_parent_color = (unsigned long)parent;
	node->rb_left = node->rb_right = NULL;
	*rb_link = node;
}

/* Visit every entry, children before parents: safe for freeing them all. */
#define rbtree_postorder_for_each_entry_safe(pos, n, root, field)	\
	for (pos = rb_entry_safe(rb_first_postorder(root), typeof(*pos), field); \
	     pos && ({ n = rb_entry_safe(rb_next_postorder(&pos->field), \
			typeof(*pos), field); 1; });			\
	     pos = n)

/* Insert node where less() says, leftmost first among equals. */
static __always_inline void
rb_add(struct rb_node *node, struct rb_root *tree,
       bool (*less)(struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &tree->rb_node;
	struct rb_node *parent = NULL;

	while (*link) {
		parent = *link;
		if (less(node, parent))
			link = &parent->rb_left;
		else
			link = &parent->rb_right;
	}
	rb_link_node(node, parent, link);
	rb_insert_color(node, tree);
}

static __always_inline struct rb_node *
rb_find(const void *key, const struct rb_root *tree,
	int (*cmp)(const void *key, const struct rb_node *))
{
	struct rb_node *node = tree->rb_node;

	while (node) {
		int c = cmp(key, node);

		if (c < 0)
			node = node->rb_left;
		else if (c > 0)
			node = node->rb_right;
		else
			return node;
	}
	return NULL;
}

#endif /* MOCK_LINUX_RBTREE_H */
