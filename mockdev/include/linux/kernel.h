/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: linux/kernel.h, the grab bag (ARRAY_SIZE, container_of,
 * alignment and rounding helpers, limits). Outside kernel builds this is
 * the uapi header (glibc's <sys/sysinfo.h> includes it).
 */
#ifndef __KERNEL__
#include_next <linux/kernel.h>
#else
#ifndef MOCK_LINUX_KERNEL_H
#define MOCK_LINUX_KERNEL_H

#include <stdarg.h>
#include <stdio.h>		/* snprintf, vsnprintf, sprintf */
#include <limits.h>		/* INT_MAX, LONG_MAX, ... */

#include <linux/types.h>
#include <linux/const.h>
#include <linux/compiler.h>
#include <linux/build_bug.h>
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/math.h>
#include <linux/typecheck.h>
#include <linux/printk.h>
#include <linux/kstrtox.h>
#include <linux/sizes.h>

#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#ifndef SIZE_MAX
#define SIZE_MAX	(~(size_t)0)
#endif

#define ARRAY_SIZE(arr)	(sizeof(arr) / sizeof((arr)[0]) + __must_be_array(arr))

#define container_of(ptr, type, member) ({				\
	void *__mptr = (void *)(ptr);					\
	static_assert(__same_type(*(ptr), ((type *)0)->member) ||	\
		      __same_type(*(ptr), void),			\
		      "pointer type mismatch in container_of()");	\
	((type *)(__mptr - offsetof(type, member))); })

/* __ALIGN_KERNEL comes from the uapi <linux/const.h>. */
#define ALIGN(x, a)		__ALIGN_KERNEL((x), (a))
#define PTR_ALIGN(p, a)		((typeof(p))ALIGN((unsigned long)(p), (a)))
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)

#define u64_to_user_ptr(x) ({			\
	typecheck(u64, (x));			\
	(void __user *)(uintptr_t)(x);		\
})

#endif /* MOCK_LINUX_KERNEL_H */
#endif /* __KERNEL__ */
