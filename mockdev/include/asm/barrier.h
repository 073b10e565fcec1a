/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Mock kernel: memory barriers as C11 fences and acquire/release accesses.
 * The kernel's rules carry over: smp_mb is a full fence, smp_rmb/smp_wmb
 * order loads/stores (acquire/release fences are at least that strong).
 */
#ifndef MOCK_ASM_BARRIER_H
#define MOCK_ASM_BARRIER_H

#define mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)

#define smp_mb()	__atomic_thread_fence(__ATOMIC_SEQ_CST)
#define smp_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)
#define smp_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)
#define dma_rmb()	smp_rmb()
#define dma_wmb()	smp_wmb()

#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()

#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	\
	do { __atomic_store_n((p), (v), __ATOMIC_RELEASE); } while (0)
#define smp_store_mb(var, value) \
	do { __atomic_store_n(&(var), (value), __ATOMIC_SEQ_CST); } while (0)

#endif /* MOCK_ASM_BARRIER_H */
