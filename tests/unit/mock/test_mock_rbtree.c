// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The mock's red-black tree against a reference model (a sorted array),
 * with random inserts and erases, checking the red-black invariants and
 * the parent links after every step.
 */
#include <stdlib.h>

#include <linux/kernel.h>
#include <linux/rbtree.h>
#include <linux/slab.h>

#include "mock_test.h"

struct item {
	struct rb_node node;
	int key;
};

static bool item_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct item, node)->key <
	       rb_entry(b, struct item, node)->key;
}

static int item_cmp_key(const void *key, const struct rb_node *n)
{
	int k = *(const int *)key;
	int nk = rb_entry(n, struct item, node)->key;

	return k < nk ? -1 : k > nk;
}

/* Black height of the subtree, checking every invariant on the way. */
static int check_subtree(const struct rb_node *n, const struct rb_node *parent)
{
	int lh, rh;

	if (!n)
		return 1;
	assert_ptr_equal(rb_parent(n), parent);
	if (!(n->__rb_parent_color & RB_BLACK)) {
		/* Red: both children black. */
		assert_true(!n->rb_left || (n->rb_left->__rb_parent_color & RB_BLACK));
		assert_true(!n->rb_right || (n->rb_right->__rb_parent_color & RB_BLACK));
	}
	if (n->rb_left)
		assert_true(!item_less((struct rb_node *)n, n->rb_left));
	if (n->rb_right)
		assert_true(!item_less(n->rb_right, n));
	lh = check_subtree(n->rb_left, n);
	rh = check_subtree(n->rb_right, n);
	assert_int_equal(lh, rh);
	return lh + !!(n->__rb_parent_color & RB_BLACK);
}

static void check_tree(struct rb_root *root, const int *model, int n)
{
	struct rb_node *node;
	int i = 0;

	if (root->rb_node)
		assert_true(root->rb_node->__rb_parent_color & RB_BLACK);
	check_subtree(root->rb_node, NULL);
	for (node = rb_first(root); node; node = rb_next(node), i++) {
		assert_true(i < n);
		assert_int_equal(rb_entry(node, struct item, node)->key, model[i]);
	}
	assert_int_equal(i, n);
	for (node = rb_last(root); node; node = rb_prev(node))
		assert_int_equal(rb_entry(node, struct item, node)->key, model[--i]);
	assert_int_equal(i, 0);
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static void test_random_inserts_and_erases_match_a_sorted_array(void **state)
{
	enum { MAXN = 2000, STEPS = 20000 };
	struct rb_root root = RB_ROOT;
	struct item *items[MAXN];
	int model[MAXN];
	int n = 0, step;

	(void)state;
	srand(12345);
	for (step = 0; step < STEPS; step++) {
		bool insert = n == 0 || (n < MAXN && rand() % 100 < 55);

		if (insert) {
			struct item *it = kmalloc(sizeof(*it), GFP_KERNEL);

			assert_non_null(it);
			/* Duplicates too: the tree must keep both. */
			it->key = rand() % 3000;
			rb_add(&it->node, &root, item_less);
			items[n] = it;
			model[n++] = it->key;
		} else {
			int victim = rand() % n;

			rb_erase(&items[victim]->node, &root);
			kfree(items[victim]);
			items[victim] = items[n - 1];
			n--;
			for (int i = 0; i < n; i++)
				model[i] = items[i]->key;
		}
		qsort(model, n, sizeof(int), cmp_int);
		if (step % 97 == 0 || n < 20)
			check_tree(&root, model, n);
	}
	check_tree(&root, model, n);

	/* rb_find sees every present key and no absent one. */
	for (int k = 0; k < 3000; k++) {
		bool present = bsearch(&k, model, n, sizeof(int), cmp_int);
		struct rb_node *f = rb_find(&k, &root, item_cmp_key);

		assert_int_equal(present, f != NULL);
		if (f)
			assert_int_equal(rb_entry(f, struct item, node)->key, k);
	}

	/* Postorder visits every node once and allows freeing as we go. */
	{
		struct item *pos, *nxt;
		int visited = 0;

		rbtree_postorder_for_each_entry_safe(pos, nxt, &root, node) {
			kfree(pos);
			visited++;
		}
		assert_int_equal(visited, n);
	}
}

static void test_sequential_keys_stay_balanced(void **state)
{
	enum { N = 1 << 14 };
	struct rb_root root = RB_ROOT;
	struct item *items = calloc(N, sizeof(*items));
	int depth = 0;
	struct rb_node *node;

	(void)state;
	assert_non_null(items);
	for (int i = 0; i < N; i++) {
		items[i].key = i;
		rb_add(&items[i].node, &root, item_less);
	}
	/* A red-black tree of n nodes is at most 2*log2(n+1) deep. */
	for (node = rb_first(&root); node; node = rb_parent(node))
		depth++;
	assert_true(depth <= 2 * 15);
	assert_int_equal(check_subtree(root.rb_node, NULL) > 0, 1);
	for (int i = 0; i < N; i += 2)
		rb_erase(&items[i].node, &root);
	node = rb_first(&root);
	assert_int_equal(rb_entry(node, struct item, node)->key, 1);
	check_subtree(root.rb_node, NULL);
	free(items);
}

static void test_cleared_node_reads_empty(void **state)
{
	struct item it = { .key = 1 };
	struct rb_root root = RB_ROOT;

	(void)state;
	RB_CLEAR_NODE(&it.node);
	assert_true(RB_EMPTY_NODE(&it.node));
	assert_true(RB_EMPTY_ROOT(&root));
	assert_null(rb_next(&it.node));
	rb_add(&it.node, &root, item_less);
	assert_false(RB_EMPTY_NODE(&it.node));
	assert_false(RB_EMPTY_ROOT(&root));
	rb_erase(&it.node, &root);
	assert_true(RB_EMPTY_ROOT(&root));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MOCK_TEST(test_random_inserts_and_erases_match_a_sorted_array),
		MOCK_TEST(test_sequential_keys_stay_balanced),
		MOCK_TEST(test_cleared_node_reads_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
