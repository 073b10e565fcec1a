/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Test controls of the mock kernel: leak counters and failure injection.
 * Unit tests use these to prove that every error path frees what it took.
 */
#ifndef MOCKDEV_MOCK_H
#define MOCKDEV_MOCK_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Live objects per kind; each is back to its starting value when nothing leaked. */
struct mock_counters {
	long kmalloc;		/* kmalloc/kzalloc/kcalloc/kvmalloc objects */
	long vmalloc;		/* vmalloc/vzalloc areas */
	long pages;		/* alloc_page(s) pages */
	long pinned_pages;	/* pages pinned by pin_user_pages*, not yet unpinned */
	long vmaps;		/* vmap() areas */
	long kthreads;		/* kthreads started, not yet stopped/exited */
	long tasks;		/* remote task references */
	long files;		/* open struct files */
};

void mock_counters_get(struct mock_counters *c);
/* Live objects of every kind added together. */
long mock_live_objects(void);

/*
 * Failure injection. Each counts calls from the moment it is armed:
 * n == 1 fails the next call, n == 2 the one after, n == 0 disarms.
 * A call that fails this way returns what the kernel would (NULL or
 * -ENOMEM for allocations, the byte count not copied for user copies,
 * -EFAULT for pinning).
 */
void mock_fail_alloc_nth(unsigned long n);	/* kmalloc/vmalloc/alloc_page families */
void mock_fail_copy_from_user_nth(unsigned long n);
void mock_fail_copy_to_user_nth(unsigned long n);
void mock_fail_pin_nth(unsigned long n);
/* Number of allocation calls since mock_fail_reset(), to size injection loops. */
unsigned long mock_alloc_calls(void);
unsigned long mock_user_copy_calls(void);
/* Disarm everything, open every gate (below) and zero the call counters. */
void mock_fail_reset(void);

/*
 * vmalloc_huge() backs its pages when it is called, as the kernel does
 * (the first copy into a fresh HBM chunk must not pay a 2 MiB clear).
 * The fuzz harnesses and test_fault_injection, whose every input or run
 * makes fresh chunks and touches few of their bytes, turn that off: the
 * pages then come, zeroed, on first touch. Nothing but the time of that
 * clear differs.
 */
void mock_vmalloc_huge_populate(bool populate);

/*
 * An npud client's address space that ends by an exec is torn down within
 * 50 ms, when the mock's reaper next asks whether it lives (the host tells
 * no one of an exec). Ask now: for tests that have just seen an exec.
 */
void mock_mm_reap_now(void);

/*
 * Gates: copy_from_user and copy_to_user of a range that meets a closed
 * gate wait until it opens (at most four gates closed at once). Tests hold
 * an engine inside a descriptor with them. mock_gate_close() returns the
 * gate's id, or -EINVAL/-ENOSPC; mock_gate_waiting() counts the copies
 * waiting at a gate now.
 */
int mock_gate_close(const void *addr, size_t len);
void mock_gate_open(int id);
unsigned long mock_gate_waiting(int id);

/*
 * The guarded user copies' SIGSEGV and SIGBUS handler: true where the mock
 * cannot see a program replace it (mockdev/kernel/sigwatch.c) and so asks
 * the kernel at every driver entry; and how often it asked.
 */
bool mock_sigwatch_blind(void);
unsigned long mock_fault_handler_checks(void);

/* Kernel log lines printed with printk/pr_* since the last clear. */
unsigned long mock_log_warnings(void);	/* WARN_ON and KERN_WARNING or worse */
void mock_log_clear(void);
/* WARN()s fired since the process started; mock_log_clear() leaves it alone. */
unsigned long mock_warn_count(void);

/*
 * Read a debugfs file the driver created, e.g. "npu/npu0/stats" (as cat
 * would: open, read to the end, release). Returns the length read, with a
 * NUL written after it, or -ENOENT/-EISDIR/-errno.
 */
long mock_debugfs_read(const char *path, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* MOCKDEV_MOCK_H */
