// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: the fault guard of copies to and from this process's own
 * memory. A SIGSEGV/SIGBUS handler, installed once, jumps back to a
 * per-thread recovery point when the fault hits the user range of a
 * guarded copy; any other fault goes to the handler that was there before
 * (a crash stays a crash). The copy loops are our own code (copy_nt.c),
 * exempt from ASan, which would otherwise report the bad user pointer
 * itself.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/string.h>

#include "internal.h"
#include "uaccess.h"

struct fault_guard {
	sigjmp_buf env;
	unsigned long ulo, uhi;		/* the user range being accessed */
};

/*
 * Our handler runs with SA_NODEFER, so leaving it by siglongjmp needs no
 * mask restore (a system call per guarded copy). ThreadSanitizer installs
 * its own handler in front of ours, without SA_NODEFER: there SIGSEGV
 * would stay blocked after the jump and the next fault would kill us.
 */
#ifdef __SANITIZE_THREAD__
#define GUARD_SAVE_SIGMASK 1
#else
#define GUARD_SAVE_SIGMASK 0
#endif

static __thread struct fault_guard *volatile fault_guard
	__attribute__((tls_model("initial-exec")));

static struct sigaction prev_segv, prev_bus;

static void fault_chain(int sig, siginfo_t *info, void *uctx)
{
	struct sigaction *prev = sig == SIGSEGV ? &prev_segv : &prev_bus;

	if (prev->sa_flags & SA_SIGINFO) {
		prev->sa_sigaction(sig, info, uctx);
	} else if (prev->sa_handler == SIG_DFL || prev->sa_handler == SIG_IGN) {
		/* Returning re-executes the access: now it kills us. */
		signal(sig, SIG_DFL);
	} else {
		prev->sa_handler(sig);
	}
}

static void fault_handler(int sig, siginfo_t *info, void *uctx)
{
	struct fault_guard *g = fault_guard;
	unsigned long addr = (unsigned long)info->si_addr;

	/*
	 * Only faults on the user side of a guarded copy are recovered.
	 * A non-canonical address raises #GP, which reports address 0.
	 */
	if (g && ((addr >= g->ulo && addr < g->uhi) || addr == 0)) {
		fault_guard = NULL;
		siglongjmp(g->env, 1);
	}
	/* Client-shared memory that failed under npud: see gup.c. */
	if (mock_pin_fault(addr))
		return;
	fault_chain(sig, info, uctx);
}

static pthread_mutex_t fault_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: prev_segv, prev_bus */

static void fault_install_one(int sig, struct sigaction *prev)
{
	struct sigaction sa, cur;

	BUG_ON(sigaction(sig, NULL, &cur));
	if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == fault_handler)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = fault_handler;
	/* NODEFER: we leave by siglongjmp without restoring the mask. */
	sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	BUG_ON(sigaction(sig, &sa, prev));
}

/* Set once our handler was installed in this process. */
static bool fault_installed;

/* The sigwatch.c snapshot at which our handler was last found installed. */
static unsigned long fault_checked_at = MOCK_SIGWATCH_BLIND;
/* How often the kernel was asked (mock_fault_handler_checks()). */
static unsigned long fault_checks;

/*
 * Make sure our handler is the one installed. Checked again and again, not
 * once: test harnesses (cmocka) and runtimes install their own SIGSEGV
 * handlers around our back, and a guarded copy must still recover; the
 * handler we displace becomes the one we chain to. Asking the kernel costs
 * two system calls, so it is done only when sigwatch.c saw a handler change
 * since the last time (or cannot see changes at all), at most once per
 * entry into the driver (an ioctl, an engine's batch:
 * mock_fault_scope_begin()), and only when the entry makes a guarded access
 * (fault_ensure()): a device-to-device copy or a nop never asks.
 */
static void fault_install(void)
{
	struct sigaction cur;
	unsigned long snapshot;

	if (mock_sigwatch_unchanged(__atomic_load_n(&fault_checked_at, __ATOMIC_ACQUIRE)))
		return;
	/* Taken before asking: a change made meanwhile is seen next time. */
	snapshot = mock_sigwatch_snapshot();
	__atomic_fetch_add(&fault_checks, 1, __ATOMIC_RELAXED);
	if (sigaction(SIGSEGV, NULL, &cur) || !(cur.sa_flags & SA_SIGINFO) ||
	    cur.sa_sigaction != fault_handler ||
	    sigaction(SIGBUS, NULL, &cur) || !(cur.sa_flags & SA_SIGINFO) ||
	    cur.sa_sigaction != fault_handler) {
		pthread_mutex_lock(&fault_lock);
		mock_sigwatch_quiet(true);
		fault_install_one(SIGSEGV, &prev_segv);
		fault_install_one(SIGBUS, &prev_bus);
		mock_sigwatch_quiet(false);
		pthread_mutex_unlock(&fault_lock);
	}
	__atomic_store_n(&fault_checked_at, snapshot, __ATOMIC_RELEASE);
	__atomic_store_n(&fault_installed, true, __ATOMIC_RELEASE);
}

MOCK_EXPORT unsigned long mock_fault_handler_checks(void)
{
	return __atomic_load_n(&fault_checks, __ATOMIC_RELAXED);
}

/*
 * Entries into the driver on this thread, and whether the outermost one
 * has checked the handler yet.
 */
static __thread unsigned int fault_scope __attribute__((tls_model("initial-exec")));
static __thread bool fault_scope_checked __attribute__((tls_model("initial-exec")));

#ifdef __SANITIZE_THREAD__
unsigned long mock_tsan_order;	/* see asm/barrier.h */
#endif

void mock_fault_scope_begin(void)
{
	/* An entry into the driver sees what was published before it. */
	mock_tsan_publish();
	if (fault_scope++)
		return;
	fault_scope_checked = false;
	/*
	 * The first entry of the process installs the handler; where remote
	 * pins exist, a plain access of ring memory may fault into it too
	 * (mock_pin_fault()), so there every entry checks at once.
	 */
	if (!__atomic_load_n(&fault_installed, __ATOMIC_ACQUIRE) || mock_pin_remote_seen()) {
		fault_install();
		fault_scope_checked = true;
	}
}

void mock_fault_scope_end(void)
{
	fault_scope--;
}

static noinline void fault_check(void)
{
	fault_install();
	if (fault_scope)
		fault_scope_checked = true;
}

/* Before a guarded access: our handler must be the one that runs. */
static inline void fault_ensure(void)
{
	if (!fault_scope || !fault_scope_checked)
		fault_check();
}

/*
 * Copy n bytes; the user side is [ulo, uhi). Work goes in chunks that end
 * at user page boundaries, so that after a fault "done" is exactly the
 * bytes before the bad page. Returns the bytes not copied.
 */
NO_SANITIZE size_t mock_guarded_copy(void *dst, const void *src, size_t n,
				     unsigned long ulo, unsigned long uhi)
{
	struct fault_guard g;
	volatile size_t done = 0;
	const volatile size_t len = n;	/* n, read again after a fault */
	copy_fn nt = n >= MOCK_MEMCPY_NT_THRESHOLD ? mock_copy_nt() : NULL;
	copy_fn fn = nt ? nt : movsb;

	/* The kernel side is whichever of dst and src is not [ulo, uhi). */
	if ((unsigned long)dst == ulo)
		MOCK_ASAN_CHECK(src, n, false);
	else
		MOCK_ASAN_CHECK(dst, n, true);
	/*
	 * The null page is never mapped (mmap_min_addr), so its first byte
	 * faults: nothing is copied. Said here rather than found by a fault,
	 * because the streaming copy's intrinsics, inlined from the
	 * compiler's headers, keep UBSan's null check despite NO_SANITIZE.
	 */
	if (ulo < PAGE_SIZE)
		return n;
	fault_ensure();
	g.ulo = ulo;
	g.uhi = uhi;
	if (sigsetjmp(g.env, GUARD_SAVE_SIGMASK)) {
		if (nt)
			copy_nt_fence();
		return len - done;
	}
	fault_guard = &g;
	while (done < len) {
		unsigned long uaddr = ulo + done;
		size_t chunk = min_t(size_t, len - done,
				     PAGE_SIZE - (uaddr & ~PAGE_MASK));

		/* Big copies: whole runs of pages at a time. */
		if (nt)
			chunk = min_t(size_t, len - done,
				      chunk + (64UL << PAGE_SHIFT));
		fn((char *)dst + done, (const char *)src + done, chunk);
		done += chunk;
	}
	fault_guard = NULL;
	if (nt)
		copy_nt_fence();
	return 0;
}

/**
 * mock_host_copy() - copy to or from this process's own memory, guarded
 * @dst: destination
 * @src: source
 * @n: bytes
 * @from_user: @src is the memory that may be bad (else @dst is)
 *
 * For a host of the driver that moves a program's memory itself, as the
 * runtime stages small copies from pageable memory for npud: a bad address
 * on the program's side ends the copy at its first bad page instead of
 * crashing, as copy_from_user() and copy_to_user() do in the driver.
 *
 * Return: the bytes not copied.
 */
MOCK_EXPORT size_t mock_host_copy(void *dst, const void *src, size_t n, bool from_user)
{
	unsigned long u = from_user ? (unsigned long)src : (unsigned long)dst;
	size_t left;

	if (u + n < u)
		return n;
	mock_fault_scope_begin();
	left = mock_guarded_copy(dst, src, n, u, u + n);
	mock_fault_scope_end();
	return left;
}

/*
 * Store zeros to user memory; returns the bytes not cleared. Nothing for
 * MOCK_ASAN_CHECK: there is no kernel side, and the user side may be any
 * address at all (ASan's shadow does not cover non-canonical or kernel
 * half addresses, which must fault here, not in the check).
 */
NO_SANITIZE size_t mock_guarded_clear(void *dst, size_t n)
{
	struct fault_guard g;
	volatile size_t done = 0;

	fault_ensure();
	g.ulo = (unsigned long)dst;
	g.uhi = g.ulo + n;
	if (sigsetjmp(g.env, GUARD_SAVE_SIGMASK))
		return n - done;
	fault_guard = &g;
	while (done < n) {
		unsigned long uaddr = g.ulo + done;
		size_t chunk = min_t(size_t, n - done,
				     PAGE_SIZE - (uaddr & ~PAGE_MASK));

		stosb((char *)dst + done, 0, chunk);
		done += chunk;
	}
	fault_guard = NULL;
	return 0;
}

/*
 * Touch one byte per page: a load, or for write a locked add of zero
 * (which needs write access but changes nothing, even if another thread
 * writes the same byte meanwhile). User memory only, as mock_guarded_clear():
 * no kernel side to check.
 */
NO_SANITIZE int mock_guarded_probe(unsigned long addr, size_t len, bool write)
{
	struct fault_guard g;
	unsigned long p, end = addr + len;

	fault_ensure();
	g.ulo = addr;
	g.uhi = end;
	if (sigsetjmp(g.env, GUARD_SAVE_SIGMASK))
		return -EFAULT;
	fault_guard = &g;
	for (p = addr & PAGE_MASK; p < end; p += PAGE_SIZE) {
		unsigned long a = max(p, addr);

		if (write)
			__atomic_fetch_add((volatile char *)a, 0,
					   __ATOMIC_RELAXED);
		else
			(void)*(volatile const char *)a;
	}
	fault_guard = NULL;
	return 0;
}
