/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: the VFS objects a character device driver sees. The host
 * layer (mockdev/host.h) creates struct file and calls file_operations the
 * way the VFS does for a misc device.
 */
#ifndef __KERNEL__
#include_next <linux/fs.h>
#else
#ifndef MOCK_LINUX_FS_H
#define MOCK_LINUX_FS_H

#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/err.h>
#include <linux/list.h>
#include <linux/atomic.h>
#include <linux/ioctl.h>

struct module;
struct poll_table_struct;
struct vm_area_struct;
struct io_uring_cmd;
struct io_comp_batch;
struct kiocb;
struct iov_iter;
struct seq_file;

#define FMODE_READ		((fmode_t)0x1)
#define FMODE_WRITE		((fmode_t)0x2)
#define FMODE_LSEEK		((fmode_t)0x4)
#define FMODE_PREAD		((fmode_t)0x8)
#define FMODE_PWRITE		((fmode_t)0x10)

#ifndef O_ACCMODE
#define O_ACCMODE	00000003
#define O_RDONLY	00000000
#define O_RDWR		00000002
#define O_NONBLOCK	00004000
#define O_CLOEXEC	02000000
#endif

#define MINORBITS	20
#define MKDEV(ma, mi)	(((ma) << MINORBITS) | (mi))

struct inode {
	umode_t i_mode;
	unsigned int i_rdev;	/* MKDEV(major, minor) */
	void *i_private;	/* debugfs: the file's data */
};

struct file {
	const struct file_operations *f_op;
	struct inode *f_inode;
	unsigned int f_flags;	/* O_* from open() */
	fmode_t f_mode;		/* FMODE_* */
	loff_t f_pos;
	atomic_long_t f_count;
	void *private_data;	/* misc devices: the miscdevice, until open() changes it */
	struct list_head mock_link; /* the host's list of open files */
};

struct file_operations {
	struct module *owner;
	loff_t (*llseek)(struct file *, loff_t, int);
	ssize_t (*read)(struct file *, char __user *, size_t, loff_t *);
	ssize_t (*write)(struct file *, const char __user *, size_t, loff_t *);
	ssize_t (*read_iter)(struct kiocb *, struct iov_iter *);
	ssize_t (*write_iter)(struct kiocb *, struct iov_iter *);
	__poll_t (*poll)(struct file *, struct poll_table_struct *);
	long (*unlocked_ioctl)(struct file *, unsigned int, unsigned long);
	long (*compat_ioctl)(struct file *, unsigned int, unsigned long);
	int (*mmap)(struct file *, struct vm_area_struct *);
	unsigned long mmap_supported_flags;
	int (*open)(struct inode *, struct file *);
	int (*flush)(struct file *, void *id);
	int (*release)(struct inode *, struct file *);
	int (*fsync)(struct file *, loff_t, loff_t, int datasync);
	int (*fasync)(int, struct file *, int);
	void (*show_fdinfo)(struct seq_file *m, struct file *f);
	int (*uring_cmd)(struct io_uring_cmd *ioucmd, unsigned int issue_flags);
	int (*uring_cmd_iopoll)(struct io_uring_cmd *, struct io_comp_batch *,
				unsigned int poll_flags);
};

loff_t noop_llseek(struct file *file, loff_t offset, int whence);
/* unlocked_ioctl with arg converted from a 32-bit pointer (linux/compat.h). */
long compat_ptr_ioctl(struct file *file, unsigned int cmd, unsigned long arg);
ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available);

#endif /* MOCK_LINUX_FS_H */
#endif /* __KERNEL__ */
