/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: seq_file, the single_open() flavour: show() runs once per
 * open into a growable buffer, read() serves from it.
 */
#ifndef MOCK_LINUX_SEQ_FILE_H
#define MOCK_LINUX_SEQ_FILE_H

#include <linux/types.h>
#include <linux/compiler_types.h>
#include <linux/fs.h>

struct seq_file {
	char *buf;
	size_t size;		/* bytes allocated */
	size_t count;		/* bytes written by show() */
	bool shown;
	int (*show)(struct seq_file *m, void *v);
	void *private;
	struct file *file;
};

__printf(2, 3) void seq_printf(struct seq_file *m, const char *fmt, ...);

int single_open(struct file *file, int (*show)(struct seq_file *, void *),
		void *data);
int single_release(struct inode *inode, struct file *file);
ssize_t seq_read(struct file *file, char __user *buf, size_t size,
		 loff_t *ppos);
loff_t seq_lseek(struct file *file, loff_t offset, int whence);

#define DEFINE_SHOW_ATTRIBUTE(__name)					\
static int __name ## _open(struct inode *inode, struct file *file)	\
{									\
	return single_open(file, __name ## _show, inode->i_private);	\
}									\
									\
static const struct file_operations __name ## _fops = {		\
	.owner		= THIS_MODULE,					\
	.open		= __name ## _open,				\
	.read		= seq_read,					\
	.llseek		= seq_lseek,					\
	.release	= single_release,				\
}

#endif /* MOCK_LINUX_SEQ_FILE_H */
