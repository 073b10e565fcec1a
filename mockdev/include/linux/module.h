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
#include <linux/export.h>

struct module;
#define THIS_MODULE	((struct module *)0)
#define KBUILD_MODNAME	"npu"

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
#define MODULE_ALIAS(x)		MOCK_MODINFO(alias, x)
#define MODULE_SOFTDEP(x)	MOCK_MODINFO(softdep, x)
#define MODULE_IMPORT_NS(x)	MOCK_MODINFO(import_ns, x)
#define MODULE_INFO(tag, x)	MOCK_MODINFO(tag, x)

static inline bool try_module_get(struct module *module)
{
	(void)module;
	return true;
}

static inline void module_put(struct module *module)
{
	(void)module;
}

#endif /* MOCK_LINUX_MODULE_H */
#endif /* __KERNEL__ */
