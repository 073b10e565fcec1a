/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Futexes in ring memory, for the futex doorbell of npud's rings
 * (NPU_RING_CREATE_FUTEX). A real kernel offers a module no such thing,
 * so the driver uses these only where the build defines
 * NPU_FUTEX_DOORBELL, which the mock build does and Kbuild does not.
 *
 * The words are in memory the client maps too (a memfd mapped shared), so
 * the futexes are shared ones, keyed by the file page: a FUTEX_WAKE of the
 * client on its mapping reaches a wait of the driver on its own, and back.
 * The kernel reads a word itself and fails with -EFAULT where it cannot:
 * no futex call can fault in the caller.
 */
#ifndef MOCKDEV_FUTEX_H
#define MOCKDEV_FUTEX_H

#include <linux/types.h>

/* Most words one mock_futex_waitv() sleeps on (the kernel's FUTEX_WAITV_MAX). */
#define MOCK_FUTEX_WAITV_MAX	128

/* Whether this kernel has futex_waitv (Linux 5.16). */
bool mock_futex_waitv_supported(void);
/*
 * Sleep until one of @words[0..n) is woken, or one of them no longer holds
 * @vals[i] when the call starts. Returns the index of the woken word,
 * -EAGAIN (a word changed), -EINTR, -EFAULT, -EINVAL.
 */
int mock_futex_waitv(u32 *const *words, const u32 *vals, unsigned int n);
/* Wake every sleeper of @word. */
void mock_futex_wake(u32 *word);

#endif /* MOCKDEV_FUTEX_H */
