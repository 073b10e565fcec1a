/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Mock kernel: just enough of struct device for misc devices and dev_*(). */
#ifndef MOCK_LINUX_DEVICE_H
#define MOCK_LINUX_DEVICE_H

#include <linux/types.h>
#include <linux/printk.h>

struct device {
	struct device *parent;
	const char *init_name;
	void *driver_data;
	char mock_name[64];
};

#endif /* MOCK_LINUX_DEVICE_H */
