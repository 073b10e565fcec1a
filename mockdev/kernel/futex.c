// SPDX-License-Identifier: GPL-2.0 OR MIT
/* Mock kernel: shared futexes in ring memory (mockdev/futex.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <mockdev/futex.h>

#include "internal.h"

#ifndef SYS_futex_waitv
#define SYS_futex_waitv 449
#endif

/* The kernel's struct futex_waitv, for headers older than Linux 5.16. */
struct mock_futex_waitv {
	__u64 val;
	__u64 uaddr;
	__u32 flags;
	__u32 __reserved;
};

#define MOCK_FUTEX_WAKE	1	/* FUTEX_WAKE, shared */
#define MOCK_FUTEX_32	2	/* FUTEX2_SIZE_U32; no FUTEX2_PRIVATE: shared */

bool mock_futex_waitv_supported(void)
{
	static int supported = -1;
	long ret;

	if (supported < 0) {
		/* No futexes at all: -EINVAL where the call exists. */
		ret = syscall(SYS_futex_waitv, NULL, 0, 0, NULL, 0);
		supported = ret < 0 && errno == EINVAL;
	}
	return supported;
}

int mock_futex_waitv(u32 *const *words, const u32 *vals, unsigned int n)
{
	struct mock_futex_waitv w[MOCK_FUTEX_WAITV_MAX];
	unsigned int i;
	long ret;

	if (!n || n > MOCK_FUTEX_WAITV_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		w[i].val = vals[i];
		w[i].uaddr = (uintptr_t)words[i];
		w[i].flags = MOCK_FUTEX_32;
		w[i].__reserved = 0;
	}
	ret = syscall(SYS_futex_waitv, w, n, 0, NULL, 0);
	return ret < 0 ? -errno : (int)ret;
}

void mock_futex_wake(u32 *word)
{
	syscall(SYS_futex, word, MOCK_FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}
