/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: module parameters. module_param() registers the variable
 * with the mock at program start (a constructor), together with its
 * initial value, so that every mockdev_module_load() starts from the
 * defaults and then applies its "name=value" list, as insmod would.
 */
#ifndef MOCK_LINUX_MODULEPARAM_H
#define MOCK_LINUX_MODULEPARAM_H

#include <linux/types.h>
#include <linux/compiler_types.h>

enum mock_param_type {
	MOCK_PARAM_uint,
	MOCK_PARAM_int,
	MOCK_PARAM_ulong,
	MOCK_PARAM_bool,
	MOCK_PARAM_charp,
};

void mock_param_register(const char *name, void *var,
			 enum mock_param_type type);

/* Type checks: module_param(x, uint, ...) needs an unsigned int x. */
static inline void *__mock_param_check_uint(unsigned int *p) { return p; }
static inline void *__mock_param_check_int(int *p) { return p; }
static inline void *__mock_param_check_ulong(unsigned long *p) { return p; }
static inline void *__mock_param_check_bool(bool *p) { return p; }
static inline void *__mock_param_check_charp(char **p) { return p; }

/*
 * The type is pasted before it can be macro-expanded (stdbool's "bool"
 * is a macro).
 */
#define __mock_module_param(name, value, check, ptype, perm)		\
	static void __attribute__((constructor))			\
	__mock_param_register_##name(void)				\
	{								\
		(void)(perm);						\
		mock_param_register(#name, check(&(value)), ptype);	\
	}

#define module_param(name, type, perm)					\
	__mock_module_param(name, name, __mock_param_check_##type,	\
			    MOCK_PARAM_##type, perm)

#define MODULE_PARM_DESC(_parm, desc) \
	extern const char mock_parm_desc_##_parm[]

#endif /* MOCK_LINUX_MODULEPARAM_H */
