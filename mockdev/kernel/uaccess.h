/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the mock's user-copy files share (never included by the driver):
 * the copy routines of copy_nt.c, exempt from the sanitizers, with the
 * ASan check of a copy's kernel side; the fault guard of fault_guard.c;
 * the user side in current's mm (user_mm.c); the relay window (relay.c);
 * the gates (gate.c). uaccess.c puts them together.
 */
#ifndef MOCKDEV_KERNEL_UACCESS_H
#define MOCKDEV_KERNEL_UACCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
/* NPU_MOCK_PORTABLE_COPY: the plain copies of other CPUs on these too. */
#if defined(__x86_64__) && !defined(NPU_MOCK_PORTABLE_COPY)
#define MOCK_COPY_X86 1
#include <immintrin.h>
#elif defined(__aarch64__) && !defined(NPU_MOCK_PORTABLE_COPY)
#define MOCK_COPY_ARM64 1
#endif

#include <linux/compiler.h>

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
/*
 * The copy loops are exempt from ASan (it would report the bad user
 * pointers they are guarded against), so it cannot see their accesses to
 * the kernel side either: a driver that hands them a kernel buffer too
 * short, or freed, would corrupt memory unnoticed until much later.
 * mock_asan_check() checks that side against ASan's shadow before the
 * copy, and stops as an oops would, naming the copy and where it came from.
 */
void mock_asan_check(const void *p, size_t n, bool write, void *caller);
#define MOCK_ASAN_CHECK(p, n, write) \
	mock_asan_check(p, n, write, __builtin_return_address(0))
#else
#define MOCK_ASAN_CHECK(p, n, write) do { } while (0)
#endif

/* Copy routines (copy_nt.c), all exempt from the sanitizers */

typedef void (*copy_fn)(void *dst, const void *src, size_t n);

/* The streaming copy of this CPU (SSE2/AVX2, STNP), or NULL where it has none. */
copy_fn mock_copy_nt(void);

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

/* Fault guard (fault_guard.c): stores zeros; returns the bytes not cleared. */
size_t mock_guarded_clear(void *dst, size_t n);

/*
 * The user side of a copy in current's mm, local or remote (user_mm.c).
 * Each returns the bytes not copied.
 */
size_t mock_user_read(void *to, unsigned long from, size_t n);
size_t mock_user_write(unsigned long to, const void *from, size_t n);

/* The relay window of mockdev_file_ioctl_relayed (relay.c, fs.c). */

/* While pushed, user addresses [uarg, uarg + size) are buf. */
struct mock_relay {
	unsigned long uarg;
	size_t size;
	void *buf;
	struct mock_relay *prev;	/* relays nest per thread */
};

void mock_relay_push(struct mock_relay *r, unsigned long uarg, size_t size,
		     void *buf);
void mock_relay_pop(struct mock_relay *r);
/* Whether a relay window is pushed on this thread. */
bool mock_relay_active(void);
/*
 * Copy through the window where [addr, addr + n) meets it, the user side
 * elsewhere. Returns the bytes not copied.
 */
size_t mock_relay_copy(void *kbuf, unsigned long addr, size_t n, bool write);

/* Wait while a closed gate covers [addr, addr + n) (gate.c). */
void mock_gate_pass(unsigned long addr, unsigned long n);

#endif /* MOCKDEV_KERNEL_UACCESS_H */
