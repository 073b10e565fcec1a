/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Mock kernel: memory barriers as C11 fences and acquire/release accesses.
 * The kernel's rules carry over: smp_mb is a full fence, smp_rmb/smp_wmb
 * order loads/stores (acquire/release fences are at least that strong).
 */
#ifndef MOCK_ASM_BARRIER_H
#define MOCK_ASM_BARRIER_H

#define mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define smp_mb__after_atomic()	smp_mb()

/*
 * ThreadSanitizer builds only. What a store-release publishes in memory a
 * client shares (a CQ tail) reaches another process, which answers with a
 * system call that npud serves on another thread: an order TSan cannot see,
 * so device memory an engine wrote and the call's thread then reads looked
 * like a race. Each release store, and each entry into the driver
 * (mock_fault_scope_begin), also updates this one word, which shows TSan
 * the order that the shared memory and the system call give.
 */
#ifdef __SANITIZE_THREAD__
extern unsigned long mock_tsan_order;
#define mock_tsan_publish() __atomic_fetch_add(&mock_tsan_order, 1, __ATOMIC_ACQ_REL)
#else
#define mock_tsan_publish() do { } while (0)
#endif

#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	\
	do { mock_tsan_publish(); __atomic_store_n((p), (v), __ATOMIC_RELEASE); } while (0)

#endif /* MOCK_ASM_BARRIER_H */
