/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: debugfs in memory. Entries form a tree under a root that
 * tests read with mock_debugfs_read("npu/npu0/stats", ...) (mockdev/mock.h).
 */
#ifndef MOCK_LINUX_DEBUGFS_H
#define MOCK_LINUX_DEBUGFS_H

#include <linux/types.h>
#include <linux/fs.h>
#include <linux/seq_file.h>
#include <linux/module.h>

struct dentry;

struct dentry *debugfs_create_dir(const char *name, struct dentry *parent);
struct dentry *debugfs_create_file(const char *name, umode_t mode,
				   struct dentry *parent, void *data,
				   const struct file_operations *fops);
void debugfs_create_u32(const char *name, umode_t mode, struct dentry *parent,
			u32 *value);
void debugfs_remove_recursive(struct dentry *dentry);

#endif /* MOCK_LINUX_DEBUGFS_H */
