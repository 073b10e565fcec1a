/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The client side of the futex doorbell (NPU_RING_FUTEX), as the runtime's
 * HAL does it, for the tests that play a client: ring the SQ doorbell, and
 * wait on the completion word. Header-only, shared by the unit tests (the
 * driver under the mock kernel) and the system tests (through npud).
 */
#ifndef NPU_TESTS_RING_FUTEX_CLIENT_H
#define NPU_TESTS_RING_FUTEX_CLIENT_H

#include <limits.h>
#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <npu/npu_uapi.h>

static inline uint64_t rfc_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* A shared (not process-private) futex: the word is in the ring's memfd. */
static inline void rfc_futex_wake(uint32_t *word)
{
	syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static inline void rfc_futex_wait(uint32_t *word, uint32_t val, uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL),
			       .tv_nsec = (long)(ns % 1000000000ULL) };

	syscall(SYS_futex, word, FUTEX_WAIT, val, &ts, NULL, 0);
}

/* Ring the SQ doorbell: bump the word the driver watches and wake it. */
static inline void rfc_doorbell(struct npu_ring_hdr *hdr)
{
	__atomic_fetch_add(&hdr->sq_doorbell, 1, __ATOMIC_SEQ_CST);
	rfc_futex_wake(&hdr->sq_doorbell);
}

/*
 * Wait (up to @timeout_ns) until cq_tail is @n: announce a waiter, take the
 * completion word, look at the tail again, and sleep on the word only if
 * nothing came in between. Returns whether the tail got there.
 */
static inline bool rfc_wait_cq(struct npu_ring_hdr *hdr, uint32_t n, uint64_t timeout_ns)
{
	uint64_t end = rfc_now_ns() + timeout_ns;

	while (rfc_now_ns() < end) {
		uint32_t val;

		if (__atomic_load_n(&hdr->cq_tail, __ATOMIC_ACQUIRE) == n)
			return true;
		__atomic_fetch_add(&hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
		val = __atomic_load_n(&hdr->cq_futex, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&hdr->cq_tail, __ATOMIC_SEQ_CST) != n)
			rfc_futex_wait(&hdr->cq_futex, val, 100000000ULL);
		__atomic_fetch_sub(&hdr->cq_waiters, 1, __ATOMIC_SEQ_CST);
	}
	return false;
}

#endif /* NPU_TESTS_RING_FUTEX_CLIENT_H */
