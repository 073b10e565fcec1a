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

static inline const char *dev_name(const struct device *dev)
{
	return dev->mock_name[0] ? dev->mock_name :
	       (dev->init_name ? dev->init_name : "(null)");
}

static inline void *dev_get_drvdata(const struct device *dev)
{
	return dev->driver_data;
}

static inline void dev_set_drvdata(struct device *dev, void *data)
{
	dev->driver_data = data;
}

#define dev_printk(level, dev, fmt, ...) \
	printk(level "%s: " fmt, dev_name(dev), ##__VA_ARGS__)
#define dev_emerg(dev, fmt, ...) dev_printk(KERN_EMERG, dev, fmt, ##__VA_ARGS__)
#define dev_crit(dev, fmt, ...)	dev_printk(KERN_CRIT, dev, fmt, ##__VA_ARGS__)
#define dev_err(dev, fmt, ...)	dev_printk(KERN_ERR, dev, fmt, ##__VA_ARGS__)
#define dev_warn(dev, fmt, ...)	dev_printk(KERN_WARNING, dev, fmt, ##__VA_ARGS__)
#define dev_notice(dev, fmt, ...) dev_printk(KERN_NOTICE, dev, fmt, ##__VA_ARGS__)
#define dev_info(dev, fmt, ...)	dev_printk(KERN_INFO, dev, fmt, ##__VA_ARGS__)
#define dev_dbg(dev, fmt, ...)	\
	no_printk(KERN_DEBUG "%s: " fmt, dev_name(dev), ##__VA_ARGS__)

#endif /* MOCK_LINUX_DEVICE_H */
