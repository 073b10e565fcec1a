// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: debugfs as an in-memory tree, and seq_file (single_open).
 * mock_debugfs_read() opens and reads a file the way cat would.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/list.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <mockdev/host.h>
#include <mockdev/mock.h>

#include "internal.h"

enum dentry_kind {
	DENTRY_DIR,
	DENTRY_FILE,
	DENTRY_U32,
	DENTRY_U64,
	DENTRY_BOOL,
};

struct dentry {
	char name[64];
	enum dentry_kind kind;
	struct dentry *parent;
	struct list_head children;
	struct list_head sibling;
	const struct file_operations *fops;
	void *data;
};

static pthread_mutex_t debugfs_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: the tree */
static struct dentry debugfs_root = {
	.name = "",
	.kind = DENTRY_DIR,
	.children = LIST_HEAD_INIT(debugfs_root.children),
};

static struct dentry *child_find(struct dentry *dir, const char *name,
				 size_t len)
{
	struct dentry *d;

	list_for_each_entry(d, &dir->children, sibling) {
		if (strlen(d->name) == len && !strncmp(d->name, name, len))
			return d;
	}
	return NULL;
}

static struct dentry *dentry_create(const char *name, struct dentry *parent,
				    enum dentry_kind kind)
{
	struct dentry *d;

	if (!parent)
		parent = &debugfs_root;
	if (IS_ERR(parent))
		return parent;
	pthread_mutex_lock(&debugfs_lock);
	if (child_find(parent, name, strlen(name))) {
		pthread_mutex_unlock(&debugfs_lock);
		return ERR_PTR(-EEXIST);
	}
	d = mock_xzalloc(sizeof(*d));
	strscpy(d->name, name, sizeof(d->name));
	d->kind = kind;
	d->parent = parent;
	INIT_LIST_HEAD(&d->children);
	list_add_tail(&d->sibling, &parent->children);
	pthread_mutex_unlock(&debugfs_lock);
	return d;
}

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent)
{
	return dentry_create(name, parent, DENTRY_DIR);
}

struct dentry *debugfs_create_file(const char *name, umode_t mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops)
{
	struct dentry *d = dentry_create(name, parent, DENTRY_FILE);

	(void)mode;
	if (!IS_ERR(d)) {
		d->fops = fops;
		d->data = data;
	}
	return d;
}

static void create_value(const char *name, struct dentry *parent,
			 enum dentry_kind kind, void *value)
{
	struct dentry *d = dentry_create(name, parent, kind);

	if (!IS_ERR(d))
		d->data = value;
}

void debugfs_create_u32(const char *name, umode_t mode, struct dentry *parent,
			u32 *value)
{
	(void)mode;
	create_value(name, parent, DENTRY_U32, value);
}

static void dentry_free_tree(struct dentry *d)
{
	struct dentry *c, *n;

	list_for_each_entry_safe(c, n, &d->children, sibling)
		dentry_free_tree(c);
	list_del(&d->sibling);
	free(d);
}

void debugfs_remove_recursive(struct dentry *dentry)
{
	if (IS_ERR_OR_NULL(dentry) || dentry == &debugfs_root)
		return;
	pthread_mutex_lock(&debugfs_lock);
	dentry_free_tree(dentry);
	pthread_mutex_unlock(&debugfs_lock);
}

/* seq_file */

static void seq_grow(struct seq_file *m, size_t need)
{
	size_t size = m->size ? m->size : 256;
	char *buf;

	while (size < m->count + need + 1)
		size *= 2;
	if (size == m->size)
		return;
	buf = realloc(m->buf, size);
	BUG_ON(!buf);
	m->buf = buf;
	m->size = size;
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list args, copy;
	int len;

	va_start(args, fmt);
	va_copy(copy, args);
	len = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (len > 0) {
		seq_grow(m, len);
		vsnprintf(m->buf + m->count, len + 1, fmt, args);
		m->count += len;
	}
	va_end(args);
}

int single_open(struct file *file, int (*show)(struct seq_file *, void *),
		void *data)
{
	struct seq_file *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->show = show;
	m->private = data;
	m->file = file;
	file->private_data = m;
	return 0;
}

int single_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	(void)inode;
	free(m->buf);
	free(m);
	return 0;
}

ssize_t seq_read(struct file *file, char __user *buf, size_t size,
		 loff_t *ppos)
{
	struct seq_file *m = file->private_data;

	if (!m->shown) {
		int ret = m->show(m, m->private);

		if (ret)
			return ret;
		m->shown = true;
	}
	return simple_read_from_buffer(buf, size, ppos, m->buf ? m->buf : "",
				       m->count);
}

loff_t seq_lseek(struct file *file, loff_t offset, int whence)
{
	if (whence != 0 || offset < 0)
		return -EINVAL;
	file->f_pos = offset;
	return offset;
}

/* Reading, as a test would cat the file */

static struct dentry *debugfs_walk(const char *path)
{
	struct dentry *d = &debugfs_root;

	while (d && *path) {
		size_t len = strcspn(path, "/");

		if (len)
			d = child_find(d, path, len);
		path += len;
		if (*path == '/')
			path++;
	}
	return d;
}

static long read_value(const struct dentry *d, char *buf, size_t len)
{
	switch (d->kind) {
	case DENTRY_U32:
		return snprintf(buf, len, "%u\n", *(u32 *)d->data);
	case DENTRY_U64:
		return snprintf(buf, len, "%llu\n",
				(unsigned long long)*(u64 *)d->data);
	case DENTRY_BOOL:
		return snprintf(buf, len, "%c\n", *(bool *)d->data ? 'Y' : 'N');
	default:
		return -EISDIR;
	}
}

static long read_file(const struct dentry *d, char *buf, size_t len)
{
	struct inode inode = { .i_private = d->data };
	struct file file = { .f_op = d->fops, .f_inode = &inode };
	struct task_struct *saved = mock_current_task;
	long total = 0, ret = 0;
	loff_t pos = 0;

	if (!d->fops->read)
		return -EINVAL;
	mock_current_task = mockdev_task_self();
	if (d->fops->open)
		ret = d->fops->open(&inode, &file);
	if (!ret) {
		while ((size_t)total + 1 < len) {
			ssize_t n = d->fops->read(&file, buf + total,
						  len - 1 - total, &pos);

			if (n <= 0) {
				ret = n;
				break;
			}
			total += n;
		}
		buf[total] = '\0';
		if (d->fops->release)
			d->fops->release(&inode, &file);
	}
	mock_current_task = saved;
	return ret < 0 ? ret : total;
}

MOCK_EXPORT long mock_debugfs_read(const char *path, char *buf, size_t len)
{
	struct dentry *d;
	long ret;

	if (!len)
		return -EINVAL;
	pthread_mutex_lock(&debugfs_lock);
	d = debugfs_walk(path);
	if (!d)
		ret = -ENOENT;
	else if (d->kind == DENTRY_DIR)
		ret = -EISDIR;
	else if (d->kind != DENTRY_FILE)
		ret = read_value(d, buf, len);
	else
		ret = read_file(d, buf, len);
	pthread_mutex_unlock(&debugfs_lock);
	return ret;
}
