// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: copies between the "kernel" (the mock's own memory) and
 * user memory, which is current->mm:
 *
 *  - local mm (the process itself): loads and stores guarded against
 *    faults. A SIGSEGV/SIGBUS handler, installed once, jumps back to a
 *    per-thread recovery point when the fault hits the user range of a
 *    guarded copy; any other fault goes to the handler that was there
 *    before (a crash stays a crash). The copy loops are our own code,
 *    exempt from ASan, which would otherwise report the bad user pointer
 *    itself.
 *  - remote mm (an npud client): the client's address space as it was
 *    bound when the mm was made (mm_remote.c), with its protections.
 *  - the relay window of a CUSE/FUSE restricted ioctl: the argument bytes
 *    that the kernel already copied for us (mockdev_file_ioctl_relayed).
 *
 * Copies of 256 KiB or more use non-temporal stores: the data will not be
 * read again soon, and streaming stores nearly double the bandwidth of
 * such copies on the CI machine (x86-64, SSE2/AVX2) compared with glibc's
 * memcpy. On arm64 they are STNP stores; every other CPU, or any CPU
 * built with NPU_MOCK_PORTABLE_COPY defined, copies with memcpy.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
/* NPU_MOCK_PORTABLE_COPY: the plain copies of other CPUs on these too. */
#if defined(__x86_64__) && !defined(NPU_MOCK_PORTABLE_COPY)
#define MOCK_COPY_X86 1
#include <immintrin.h>
#elif defined(__aarch64__) && !defined(NPU_MOCK_PORTABLE_COPY)
#define MOCK_COPY_ARM64 1
#endif

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "internal.h"
#include "uaccess.h"

#define NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

/* gcc says __SANITIZE_ADDRESS__; clang (up to 15 at least) only __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define MOCK_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MOCK_ASAN 1
#endif
#endif

#ifdef MOCK_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * The copy loops below are exempt from ASan (it would report the bad user
 * pointers they are guarded against), so it cannot see their accesses to
 * the kernel side either: a driver that hands them a kernel buffer too
 * short, or freed, would corrupt memory unnoticed until much later. Check
 * that side against ASan's shadow before the copy, and stop as an oops
 * would, naming the copy and where it came from.
 */
static noinline void mock_asan_check(const void *p, size_t n, bool write, void *caller)
{
	void *bad;

	if (!n)
		return;
	bad = __asan_region_is_poisoned((void *)p, n);
	if (likely(!bad))
		return;
	fprintf(stderr,
		"BUG: mock uaccess: %s of %zu bytes of kernel memory at %p (from %p): byte %p (offset %zu) is poisoned\n",
		write ? "write" : "read", n, p, caller, bad,
		(size_t)((char *)bad - (const char *)p));
	__asan_describe_address(bad);
	__sanitizer_print_stack_trace();
	abort();
}
#define MOCK_ASAN_CHECK(p, n, write) \
	mock_asan_check(p, n, write, __builtin_return_address(0))
#else
#define MOCK_ASAN_CHECK(p, n, write) do { } while (0)
#endif

/* Copy helpers, all exempt from the sanitizers */

typedef void (*copy_fn)(void *dst, const void *src, size_t n);

#ifdef MOCK_COPY_X86

static inline NO_SANITIZE void movsb(void *dst, const void *src, size_t n)
{
	__asm__ __volatile__("rep movsb"
			     : "+D"(dst), "+S"(src), "+c"(n)
			     :
			     : "memory");
}

static inline NO_SANITIZE void stosb(void *dst, int c, size_t n)
{
	__asm__ __volatile__("rep stosb"
			     : "+D"(dst), "+c"(n)
			     : "a"(c)
			     : "memory");
}

/* Streaming copy, SSE2: dst aligned to 64 first, 64 bytes per round. */
static NO_SANITIZE void copy_nt_sse2(void *dst, const void *src, size_t n)
{
	size_t head = (-(uintptr_t)dst) & 63;
	char *d = dst;
	const char *s = src;

	if (head > n)
		head = n;
	movsb(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64) {
		__m128i a = _mm_loadu_si128((const __m128i *)s);
		__m128i b = _mm_loadu_si128((const __m128i *)(s + 16));
		__m128i c = _mm_loadu_si128((const __m128i *)(s + 32));
		__m128i e = _mm_loadu_si128((const __m128i *)(s + 48));

		_mm_stream_si128((__m128i *)d, a);
		_mm_stream_si128((__m128i *)(d + 16), b);
		_mm_stream_si128((__m128i *)(d + 32), c);
		_mm_stream_si128((__m128i *)(d + 48), e);
	}
	movsb(d, s, n);
}

/* Streaming copy, AVX2: 128 bytes per round. */
static __attribute__((target("avx2"))) NO_SANITIZE void
copy_nt_avx2(void *dst, const void *src, size_t n)
{
	size_t head = (-(uintptr_t)dst) & 63;
	char *d = dst;
	const char *s = src;

	if (head > n)
		head = n;
	movsb(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 128; n -= 128, d += 128, s += 128) {
		__m256i a = _mm256_loadu_si256((const __m256i *)s);
		__m256i b = _mm256_loadu_si256((const __m256i *)(s + 32));
		__m256i c = _mm256_loadu_si256((const __m256i *)(s + 64));
		__m256i e = _mm256_loadu_si256((const __m256i *)(s + 96));

		_mm256_stream_si256((__m256i *)d, a);
		_mm256_stream_si256((__m256i *)(d + 32), b);
		_mm256_stream_si256((__m256i *)(d + 64), c);
		_mm256_stream_si256((__m256i *)(d + 96), e);
	}
	movsb(d, s, n);
}

static copy_fn copy_nt_impl;	/* chosen once by CPU features */
static pthread_once_t copy_nt_once = PTHREAD_ONCE_INIT;

static void copy_nt_choose(void)
{
	__builtin_cpu_init();
	copy_nt_impl = __builtin_cpu_supports("avx2") ? copy_nt_avx2 :
							copy_nt_sse2;
}

static copy_fn copy_nt(void)
{
	pthread_once(&copy_nt_once, copy_nt_choose);
	return copy_nt_impl;
}

/* Orders the streaming stores before what follows. */
static inline void copy_nt_fence(void)
{
	_mm_sfence();
}

#else /* plain copies, and arm64's streaming copy */

static inline NO_SANITIZE void movsb(void *dst, const void *src, size_t n)
{
	memcpy(dst, src, n);
}

static inline NO_SANITIZE void stosb(void *dst, int c, size_t n)
{
	memset(dst, c, n);
}

#ifdef MOCK_COPY_ARM64

/*
 * Streaming copy: STNP, the non-temporal store pair that arm64's own
 * copy_page uses, from Advanced SIMD registers, which every arm64 CPU has
 * (so there is nothing to choose at run time); dst aligned to 64 first,
 * 64 bytes per round. Its speed has not been measured on Arm hardware:
 * the CI runs it under qemu-aarch64, which checks what it copies only.
 */
static NO_SANITIZE void copy_nt_stnp(void *dst, const void *src, size_t n)
{
	size_t head = (-(uintptr_t)dst) & 63;
	char *d = dst;
	const char *s = src;

	if (head > n)
		head = n;
	movsb(d, s, head);
	d += head;
	s += head;
	n -= head;
	for (; n >= 64; n -= 64, d += 64, s += 64)
		__asm__ __volatile__("ldp q0, q1, [%1]\n\t"
				     "ldp q2, q3, [%1, #32]\n\t"
				     "stnp q0, q1, [%0]\n\t"
				     "stnp q2, q3, [%0, #32]"
				     :
				     : "r"(d), "r"(s)
				     : "v0", "v1", "v2", "v3", "memory");
	movsb(d, s, n);
}

static copy_fn copy_nt(void)
{
	return copy_nt_stnp;
}

#else

static copy_fn copy_nt(void)
{
	return movsb;
}

#endif

/*
 * No fence: Arm orders STNP with the other stores as it orders plain
 * stores (only loads lose address-dependency ordering with LDNP), so the
 * release that publishes a copy orders it, as on any CPU without x86's
 * weakly ordered streaming stores.
 */
static inline void copy_nt_fence(void)
{
}

#endif

void *mock_memcpy_nt(void *dst, const void *src, size_t n)
{
#ifdef MOCK_ASAN
	/*
	 * Both sides are kernel memory. ASan's memcpy would check them too;
	 * checking here first names the copy the same way as the guarded
	 * copies do. Then let ASan see the driver's big copies through its
	 * memcpy rather than the streaming loops.
	 */
	MOCK_ASAN_CHECK(src, n, false);
	MOCK_ASAN_CHECK(dst, n, true);
	return __builtin_memcpy(dst, src, n);
#else
	copy_nt()(dst, src, n);
	copy_nt_fence();
	return dst;
#endif
}

/* Fault guard */

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
	copy_fn fn = n >= MOCK_MEMCPY_NT_THRESHOLD ? copy_nt() : movsb;

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
		if (fn != movsb)
			copy_nt_fence();
		return len - done;
	}
	fault_guard = &g;
	while (done < len) {
		unsigned long uaddr = ulo + done;
		size_t chunk = min_t(size_t, len - done,
				     PAGE_SIZE - (uaddr & ~PAGE_MASK));

		/* Big copies: whole runs of pages at a time. */
		if (fn != movsb)
			chunk = min_t(size_t, len - done,
				      chunk + (64UL << PAGE_SHIFT));
		fn((char *)dst + done, (const char *)src + done, chunk);
		done += chunk;
	}
	fault_guard = NULL;
	if (fn != movsb)
		copy_nt_fence();
	return 0;
}

/*
 * Store zeros to user memory; returns the bytes not cleared. Nothing for
 * MOCK_ASAN_CHECK: there is no kernel side, and the user side may be any
 * address at all (ASan's shadow does not cover non-canonical or kernel
 * half addresses, which must fault here, not in the check).
 */
static NO_SANITIZE size_t guarded_clear(void *dst, size_t n)
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
 * writes the same byte meanwhile). User memory only, as guarded_clear():
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

/*
 * Remote process memory: through the files that bind the client's address
 * space (mm_remote.c), never through its pid.
 */
static size_t remote_rw(const struct mm_struct *mm, void *local,
			unsigned long remote, size_t n, bool write)
{
	return mock_mm_remote_rw(mm, local, remote, n, write);
}

/* The user-memory side, with the mm of the calling context. */

static size_t user_read(void *to, unsigned long from, size_t n)
{
	struct mm_struct *mm = current->mm;

	if (!n)
		return 0;
	if (!access_ok((const void __user *)from, n))
		return n;
	if (!mm) {
		WARN_ONCE(1, "copy_from_user by %s without an mm\n",
			  current->comm);
		return n;
	}
	if (mm->kind == MOCK_MM_REMOTE)
		return remote_rw(mm, to, from, n, false);
	return mock_guarded_copy(to, (const void *)from, n, from, from + n);
}

static size_t user_write(unsigned long to, const void *from, size_t n)
{
	struct mm_struct *mm = current->mm;

	if (!n)
		return 0;
	if (!access_ok((void __user *)to, n))
		return n;
	if (!mm) {
		WARN_ONCE(1, "copy_to_user by %s without an mm\n",
			  current->comm);
		return n;
	}
	if (mm->kind == MOCK_MM_REMOTE)
		return remote_rw(mm, (void *)from, to, n, true);
	return mock_guarded_copy((void *)to, from, n, to, to + n);
}

/* Relay window */

static __thread struct mock_relay *relay
	__attribute__((tls_model("initial-exec")));

void mock_relay_push(struct mock_relay *r, unsigned long uarg, size_t size,
		     void *buf)
{
	r->uarg = uarg;
	r->size = size;
	r->buf = buf;
	r->prev = relay;
	relay = r;
}

void mock_relay_pop(struct mock_relay *r)
{
	relay = r->prev;
}

/*
 * Split [addr, addr + n) into the part before the window, the part inside
 * and the part after, and run each through the right path, in order,
 * stopping at the first failure. Returns the bytes not copied.
 */
static size_t relay_copy(void *kbuf, unsigned long addr, size_t n, bool write)
{
	struct mock_relay *r = relay;
	unsigned long end = addr + n;
	unsigned long wlo, whi, cut[4];
	size_t done = 0;
	int i;

	if (!r || !r->size || end <= r->uarg || addr >= r->uarg + r->size ||
	    end < addr) {
		return write ? user_write(addr, kbuf, n) :
			       user_read(kbuf, addr, n);
	}
	wlo = max(addr, r->uarg);
	whi = min(end, r->uarg + r->size);
	cut[0] = addr;
	cut[1] = wlo;
	cut[2] = whi;
	cut[3] = end;
	for (i = 0; i < 3; i++) {
		size_t len = cut[i + 1] - cut[i];
		char *k = (char *)kbuf + (cut[i] - addr);
		size_t left;

		if (!len)
			continue;
		if (i == 1) {
			char *w = (char *)r->buf + (cut[i] - r->uarg);

			__builtin_memcpy(write ? w : k, write ? k : w, len);
			left = 0;
		} else {
			left = write ? user_write(cut[i], k, len) :
				       user_read(k, cut[i], len);
		}
		done += len - left;
		if (left)
			break;
	}
	return n - done;
}

/*
 * Gates (mock_gate_close()): a user copy that meets a closed gate's range
 * waits until the gate opens, so a test can hold an engine inside a
 * descriptor at a point of its choosing. gates_closed lets every copy pass
 * with one load while no gate is closed.
 */
static struct {
	pthread_mutex_t lock;	/* protects: the gates, their waiters */
	pthread_cond_t opened;
	struct {
		unsigned long lo, hi;	/* [lo, hi); hi == 0: free */
		unsigned long waiting;
	} gate[MOCK_GATES];
} gates = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, { { 0 } } };
static int gates_closed;

MOCK_EXPORT int mock_gate_close(const void *addr, size_t len)
{
	unsigned long lo = (unsigned long)addr;
	int i;

	if (!len || lo + len < lo)
		return -EINVAL;
	pthread_mutex_lock(&gates.lock);
	for (i = 0; i < MOCK_GATES && gates.gate[i].hi; i++)
		;
	if (i < MOCK_GATES) {
		gates.gate[i].lo = lo;
		gates.gate[i].hi = lo + len;
		__atomic_add_fetch(&gates_closed, 1, __ATOMIC_SEQ_CST);
	}
	pthread_mutex_unlock(&gates.lock);
	return i < MOCK_GATES ? i : -ENOSPC;
}

MOCK_EXPORT void mock_gate_open(int id)
{
	if (id < 0 || id >= MOCK_GATES)
		return;
	pthread_mutex_lock(&gates.lock);
	if (gates.gate[id].hi) {
		gates.gate[id].hi = 0;
		__atomic_sub_fetch(&gates_closed, 1, __ATOMIC_SEQ_CST);
		pthread_cond_broadcast(&gates.opened);
	}
	pthread_mutex_unlock(&gates.lock);
}

MOCK_EXPORT unsigned long mock_gate_waiting(int id)
{
	unsigned long n = 0;

	if (id < 0 || id >= MOCK_GATES)
		return 0;
	pthread_mutex_lock(&gates.lock);
	n = gates.gate[id].waiting;
	pthread_mutex_unlock(&gates.lock);
	return n;
}

static void gate_pass(unsigned long addr, unsigned long n)
{
	int i;

	if (!__atomic_load_n(&gates_closed, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&gates.lock);
	for (i = 0; i < MOCK_GATES; i++) {
		while (gates.gate[i].hi && addr < gates.gate[i].hi &&
		       gates.gate[i].lo < addr + n) {
			gates.gate[i].waiting++;
			pthread_cond_wait(&gates.opened, &gates.lock);
			gates.gate[i].waiting--;
		}
	}
	pthread_mutex_unlock(&gates.lock);
}

unsigned long mock_copy_from_user(void *to, const void __user *from,
				  unsigned long n)
{
	size_t left;

	gate_pass((unsigned long)from, n);
	if (mock_inject_copy_from_user_failure())
		left = n;
	else
		left = relay_copy(to, (unsigned long)from, n, false);
	/* The kernel zero-fills what it could not read. */
	if (left)
		memset((char *)to + (n - left), 0, left);
	return left;
}

unsigned long mock_copy_to_user(void __user *to, const void *from,
				unsigned long n)
{
	gate_pass((unsigned long)to, n);
	if (mock_inject_copy_to_user_failure())
		return n;
	return relay_copy((void *)from, (unsigned long)to, n, true);
}

unsigned long mock_clear_user(void __user *to, unsigned long n)
{
	static const char zeros[4096];
	struct mm_struct *mm = current->mm;
	unsigned long addr = (unsigned long)to, done = 0;

	if (mock_inject_copy_to_user_failure())
		return n;
	if (!n)
		return 0;
	if (relay || !mm || mm->kind == MOCK_MM_REMOTE) {
		while (done < n) {
			size_t chunk = min_t(size_t, n - done, sizeof(zeros));
			size_t left = relay_copy((void *)zeros, addr + done,
						 chunk, true);

			done += chunk - left;
			if (left)
				break;
		}
		return n - done;
	}
	if (!access_ok(to, n))
		return n;
	return guarded_clear(to, n);
}
