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
#include <linux/stringify.h>
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

#define U8_MAX		((u8)~0U)
#define S8_MAX		((s8)(U8_MAX >> 1))
#define S8_MIN		((s8)(-S8_MAX - 1))
#define U16_MAX		((u16)~0U)
#define S16_MAX		((s16)(U16_MAX >> 1))
#define S16_MIN		((s16)(-S16_MAX - 1))
#define U32_MAX		((u32)~0U)
#define U32_MIN		((u32)0)
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S32_MIN		((s32)(-S32_MAX - 1))
#define U64_MAX		((u64)~0ULL)
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		((s64)(-S64_MAX - 1))
#ifndef SIZE_MAX
#define SIZE_MAX	(~(size_t)0)
#endif
#define PHYS_ADDR_MAX	(~(phys_addr_t)0)

#define ARRAY_SIZE(arr)	(sizeof(arr) / sizeof((arr)[0]) + __must_be_array(arr))

#define container_of(ptr, type, member) ({				\
	void *__mptr = (void *)(ptr);					\
	static_assert(__same_type(*(ptr), ((type *)0)->member) ||	\
		      __same_type(*(ptr), void),			\
		      "pointer type mismatch in container_of()");	\
	((type *)(__mptr - offsetof(type, member))); })

/* __ALIGN_KERNEL comes from the uapi <linux/const.h>. */
#define ALIGN(x, a)		__ALIGN_KERNEL((x), (a))
#define ALIGN_DOWN(x, a)	__ALIGN_KERNEL((x) - ((a) - 1), (a))
#define PTR_ALIGN(p, a)		((typeof(p))ALIGN((unsigned long)(p), (a)))
#define PTR_ALIGN_DOWN(p, a)	((typeof(p))ALIGN_DOWN((unsigned long)(p), (a)))
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)

#define upper_32_bits(n)	((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n)	((u32)((n) & 0xffffffff))
#define upper_16_bits(n)	((u16)((n) >> 16))
#define lower_16_bits(n)	((u16)((n) & 0xffff))

#define u64_to_user_ptr(x) ({			\
	typecheck(u64, (x));			\
	(void __user *)(uintptr_t)(x);		\
})

#define swap(a, b) \
	do { typeof(a) __tmp = (a); (a) = (b); (b) = __tmp; } while (0)

#define might_sleep()		do { } while (0)
#define might_sleep_if(c)	do { } while (0)
#define might_fault()		do { } while (0)

/* Like snprintf but returns the bytes actually written (without the NUL). */
__printf(3, 4) int scnprintf(char *buf, size_t size, const char *fmt, ...);
int vscnprintf(char *buf, size_t size, const char *fmt, va_list args);
__printf(2, 3) char *kasprintf(gfp_t gfp, const char *fmt, ...);

#define REPEAT_BYTE(x)	((~0ul / 0xff) * (x))

#endif /* MOCK_LINUX_KERNEL_H */
#endif /* __KERNEL__ */
