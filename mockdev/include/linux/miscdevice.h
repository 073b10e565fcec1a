/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: misc devices. misc_register() puts the device in the host's
 * table (mockdev_misc_find()); opening it gives file->private_data = the
 * miscdevice, as the kernel's misc_open() does.
 */
#ifndef MOCK_LINUX_MISCDEVICE_H
#define MOCK_LINUX_MISCDEVICE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/fs.h>
#include <linux/device.h>

#define MISC_MAJOR		10
#define MISC_DYNAMIC_MINOR	255

struct attribute_group;

struct miscdevice {
	int minor;
	const char *name;
	const struct file_operations *fops;
	struct list_head list;
	struct device *parent;
	struct device *this_device;
	const struct attribute_group **groups;
	const char *nodename;
	umode_t mode;
};

/* 0, -EBUSY (name or minor taken), -EINVAL, -ENOMEM. */
int misc_register(struct miscdevice *misc);
void misc_deregister(struct miscdevice *misc);

#endif /* MOCK_LINUX_MISCDEVICE_H */
