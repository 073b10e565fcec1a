/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: the module is linked in. module_init/module_exit define the
 * fixed-name hooks that mockdev_module_load()/unload() call; the modinfo
 * macros only check their arguments' syntax.
 */
#ifndef __KERNEL__
#include_next <linux/module.h>
#else
#ifndef MOCK_LINUX_MODULE_H
#define MOCK_LINUX_MODULE_H

#include <linux/types.h>
#include <linux/init.h>
#include <linux/moduleparam.h>

struct module;
#define THIS_MODULE	((struct module *)0)

int mock_module_init_hook(void);
void mock_module_exit_hook(void);

#define module_init(initfn)						\
	int mock_module_init_hook(void)					\
	{								\
		return initfn();					\
	}
#define module_exit(exitfn)						\
	void mock_module_exit_hook(void)				\
	{								\
		exitfn();						\
	}

#define MOCK_MODINFO(tag, info) \
	extern const char mock_modinfo_##tag[]
#define MODULE_LICENSE(x)	MOCK_MODINFO(license, x)
#define MODULE_AUTHOR(x)	MOCK_MODINFO(author, x)
#define MODULE_DESCRIPTION(x)	MOCK_MODINFO(description, x)
#define MODULE_VERSION(x)	MOCK_MODINFO(version, x)

#endif /* MOCK_LINUX_MODULE_H */
#endif /* __KERNEL__ */
