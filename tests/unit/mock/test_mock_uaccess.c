// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * User copies in the process itself: guarded against bad pointers, exact
 * partial counts, the relay window, failure injection, local pinning.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

#include <linux/kernel.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "mock_test.h"

/* Two pages: the first read-write, the second inaccessible. */
static char *map_rw_then_none(void)
{
	char *p = mmap(NULL, 2 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	assert_int_equal(mprotect(p + PAGE_SIZE, PAGE_SIZE, PROT_NONE), 0);
	return p;
}

static void test_bad_pointer_copies_nothing_and_does_not_crash(void **state)
{
	char buf[64];
	char *p = map_rw_then_none();

	(void)state;
	memset(buf, 0x55, sizeof(buf));
	assert_int_equal(copy_from_user(buf, (void __user *)(p + PAGE_SIZE),
					sizeof(buf)), sizeof(buf));
	/* What could not be read is zero-filled, as in the kernel. */
	assert_null(memchr_inv(buf, 0, sizeof(buf)));
	assert_int_equal(copy_to_user((void __user *)(p + PAGE_SIZE), buf, 10), 10);
	assert_int_equal(copy_from_user(buf, (void __user *)8, 8), 8);
	assert_int_equal(copy_from_user(buf, (void __user *)0xdead000000000000UL, 8), 8);
	assert_int_equal(clear_user((void __user *)(p + PAGE_SIZE), 8), 8);
	munmap(p, 2 * PAGE_SIZE);
}

/* NULL as the user side of copies big enough for the streaming path. */
static void test_null_user_pointer_with_a_big_copy(void **state)
{
	const size_t n = 2 * MOCK_MEMCPY_NT_THRESHOLD;
	char *buf = malloc(n);

	(void)state;
	assert_non_null(buf);
	memset(buf, 0x55, n);
	assert_int_equal(copy_from_user(buf, (void __user *)NULL, n), n);
	assert_null(memchr_inv(buf, 0, n));
	assert_int_equal(copy_to_user((void __user *)NULL, buf, n), n);
	assert_int_equal(copy_to_user((void __user *)(PAGE_SIZE - 64), buf, n), n);
	free(buf);
}

static void test_copy_across_into_a_bad_page_is_partial(void **state)
{
	char buf[300];
	char *p = map_rw_then_none();
	char *edge = p + PAGE_SIZE - 100;

	(void)state;
	memset(edge, 'x', 100);
	memset(buf, 0x55, sizeof(buf));
	assert_int_equal(copy_from_user(buf, (void __user *)edge, 300), 200);
	assert_null(memchr_inv(buf, 'x', 100));
	assert_null(memchr_inv(buf + 100, 0, 200));
	memset(buf, 'y', sizeof(buf));
	assert_int_equal(copy_to_user((void __user *)edge, buf, 300), 200);
	assert_null(memchr_inv(edge, 'y', 100));
	munmap(p, 2 * PAGE_SIZE);
}

static void test_large_copies_and_user_helpers(void **state)
{
	const size_t n = (4UL << 20) + 123;
	char *src = malloc(n), *dst = malloc(n);
	u32 v = 0, *up = malloc(sizeof(u32));

	(void)state;
	for (size_t i = 0; i < n; i++)
		src[i] = (char)(i * 13);
	assert_int_equal(copy_from_user(dst, (void __user *)src, n), 0);
	assert_memory_equal(dst, src, n);
	memset(dst, 0, n);
	assert_int_equal(copy_to_user((void __user *)(dst + 1), src, n - 1), 0);
	assert_memory_equal(dst + 1, src, n - 1);
	assert_int_equal(clear_user((void __user *)dst, n), 0);
	assert_null(memchr_inv(dst, 0, n));

	assert_int_equal(put_user(0xabcdu, (u32 __user *)up), 0);
	assert_int_equal(get_user(v, (u32 __user *)up), 0);
	assert_int_equal(v, 0xabcd);
	assert_int_equal(get_user(v, (u32 __user *)16), -EFAULT);
	assert_int_equal(v, 0);
	free(up);
	free(src);
	free(dst);
}

static void test_copy_failure_injection(void **state)
{
	char a[8] = "abcdefg", b[8];

	(void)state;
	mock_fail_copy_from_user_nth(2);
	assert_int_equal(copy_from_user(b, (void __user *)a, 8), 0);
	assert_int_equal(copy_from_user(b, (void __user *)a, 8), 8);
	assert_int_equal(copy_from_user(b, (void __user *)a, 8), 0);
	mock_fail_copy_to_user_nth(1);
	assert_int_equal(copy_to_user((void __user *)b, a, 8), 8);
	assert_int_equal(copy_to_user((void __user *)b, a, 8), 0);
	assert_int_equal(mock_user_copy_calls(), 5);
}

static void test_local_pin_and_vmap(void **state)
{
	struct page *pages[4];
	struct mock_counters c;
	char *p = map_rw_then_none();
	char *ro = mmap(NULL, PAGE_SIZE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			-1, 0);
	char *buf = aligned_alloc(PAGE_SIZE, 4 * PAGE_SIZE);
	char *v;

	(void)state;
	assert_int_equal(pin_user_pages_fast((unsigned long)buf, 4,
					     FOLL_WRITE | FOLL_LONGTERM, pages), 4);
	v = vmap(pages, 4, VM_MAP, PAGE_KERNEL);
	assert_ptr_equal(v, buf);
	mock_counters_get(&c);
	assert_int_equal(c.pinned_pages, 4);
	assert_int_equal(c.vmaps, 1);
	vunmap(v);
	unpin_user_pages(pages, 4);

	/* Into the inaccessible page; read-only with FOLL_WRITE. */
	assert_int_equal(pin_user_pages_fast((unsigned long)p, 2, 0, pages), -EFAULT);
	assert_int_equal(pin_user_pages_fast((unsigned long)ro, 1, FOLL_WRITE, pages), -EFAULT);
	assert_int_equal(pin_user_pages_fast((unsigned long)ro, 1, 0, pages), 1);
	unpin_user_page(pages[0]);
	mock_fail_pin_nth(1);
	assert_int_equal(pin_user_pages_fast((unsigned long)buf, 1, 0, pages), -EFAULT);
	munmap(p, 2 * PAGE_SIZE);
	munmap(ro, PAGE_SIZE);
	free(buf);
}

struct use_mm_args {
	struct mm_struct *mm;
	const char *src;
	char dst[8];
	unsigned long without, with;
	int done;
};

static int use_mm_fn(void *data)
{
	struct use_mm_args *a = data;

	/* A kthread has no mm: user copies fail (with a warning) until it adopts one. */
	a->without = copy_from_user(a->dst, (void __user *)a->src, 8);
	kthread_use_mm(a->mm);
	a->with = copy_from_user(a->dst, (void __user *)a->src, 8);
	kthread_unuse_mm(a->mm);
	WRITE_ONCE(a->done, 1);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

static void test_kthread_use_mm_reaches_user_memory(void **state)
{
	struct use_mm_args a = { .src = "1234567" };
	struct task_struct *k;

	(void)state;
	a.mm = get_task_mm(mockdev_task_self());
	assert_non_null(a.mm);
	k = kthread_run(use_mm_fn, &a, "use_mm");
	while (!READ_ONCE(a.done))
		schedule_timeout_uninterruptible(1);
	kthread_stop(k);
	mmput(a.mm);
	assert_int_equal(a.without, 8);
	assert_int_equal(a.with, 0);
	assert_string_equal(a.dst, "1234567");
	assert_int_equal(mock_log_warnings(), 1);
	mock_log_clear();
}

static void foreign_segv(int sig)
{
	static const char msg[] = "the program's SIGSEGV handler ran: the guarded copy did not check\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(98);
	_exit(99);
}

struct displaced_args {
	struct mm_struct *mm;
	char *bad;
	char dst[8];
	unsigned long left;
	int done;
};

static int displaced_fn(void *data)
{
	struct displaced_args *a = data;

	/* An engine's batch: the scope opens without a handler check... */
	kthread_use_mm(a->mm);
	/* ...so the first guarded access of the batch makes it. */
	a->left = copy_from_user(a->dst, (void __user *)a->bad, sizeof(a->dst));
	kthread_unuse_mm(a->mm);
	WRITE_ONCE(a->done, 1);
	while (!kthread_should_stop())
		schedule_timeout_interruptible(1);
	return 0;
}

/*
 * A program installs its own SIGSEGV handler after the driver installed
 * one (test harnesses do it before every test): a guarded copy in the
 * next driver entry still recovers from a bad pointer.
 */
static void test_guarded_copy_recovers_after_the_handler_was_replaced(void **state)
{
	struct displaced_args a = { .bad = map_rw_then_none() + PAGE_SIZE };
	struct sigaction foreign = { .sa_handler = foreign_segv }, before, after;
	struct task_struct *k;
	char buf[8];

	(void)state;
	/* The driver's handler is installed (and a first scope was entered). */
	assert_int_equal(copy_from_user(buf, (void __user *)a.bad, sizeof(buf)), sizeof(buf));
	sigemptyset(&foreign.sa_mask);
	assert_int_equal(sigaction(SIGSEGV, &foreign, &before), 0);
	a.mm = get_task_mm(mockdev_task_self());
	assert_non_null(a.mm);
	k = kthread_run(displaced_fn, &a, "displaced");
	while (!READ_ONCE(a.done))
		schedule_timeout_uninterruptible(1);
	kthread_stop(k);
	mmput(a.mm);
	assert_int_equal(a.left, sizeof(a.dst));
	assert_int_equal(sigaction(SIGSEGV, &before, &after), 0);
	assert_true(after.sa_handler != foreign_segv);
	munmap(a.bad - PAGE_SIZE, 2 * PAGE_SIZE);
}

/*
 * The handler is asked of the kernel only after a program changed it:
 * copies in a row make no system call, a query is not a change, and
 * signal() (what cmocka uses before every test) is seen at once.
 */
static void test_handler_is_asked_for_only_after_a_change(void **state)
{
	char *p = map_rw_then_none();
	struct sigaction cur;
	sighandler_t before;
	unsigned long asked;
	char buf[8];
	int i;

	(void)state;
	assert_int_equal(copy_from_user(buf, (void __user *)(p + PAGE_SIZE), 8), 8);
	asked = mock_fault_handler_checks();
	for (i = 0; i < 100; i++)
		assert_int_equal(copy_from_user(buf, (void __user *)(p + PAGE_SIZE), 8), 8);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(NPU_MOCK_SIGWATCH)
	/* A build without the wrappers (sigwatch.c): every copy must ask. */
	assert_true(mock_sigwatch_blind());
	assert_int_equal(mock_fault_handler_checks(), asked + 100);
	munmap(p, 2 * PAGE_SIZE);
	skip();
#endif
	/* This executable exports the wrappers (mockdev/CMakeLists.txt). */
	assert_false(mock_sigwatch_blind());
	assert_int_equal(sigaction(SIGSEGV, NULL, &cur), 0);
	assert_int_equal(copy_from_user(buf, (void __user *)(p + PAGE_SIZE), 8), 8);
	assert_int_equal(mock_fault_handler_checks(), asked);

	before = signal(SIGSEGV, foreign_segv);
	assert_true(before != SIG_ERR);
	assert_int_equal(copy_from_user(buf, (void __user *)(p + PAGE_SIZE), 8), 8);
	assert_int_equal(mock_fault_handler_checks(), asked + 1);
	/* Putting ours back in front was not a change: no more asking. */
	asked = mock_fault_handler_checks();
	for (i = 0; i < 10; i++)
		assert_int_equal(copy_from_user(buf, (void __user *)(p + PAGE_SIZE), 8), 8);
	assert_int_equal(mock_fault_handler_checks(), asked);
	assert_int_equal(sigaction(SIGSEGV, NULL, &cur), 0);
	assert_true(cur.sa_handler != foreign_segv);
	munmap(p, 2 * PAGE_SIZE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MOCK_TEST(test_bad_pointer_copies_nothing_and_does_not_crash),
		MOCK_TEST(test_null_user_pointer_with_a_big_copy),
		MOCK_TEST(test_copy_across_into_a_bad_page_is_partial),
		MOCK_TEST(test_large_copies_and_user_helpers),
		MOCK_TEST(test_copy_failure_injection),
		MOCK_TEST(test_local_pin_and_vmap),
		MOCK_TEST(test_kthread_use_mm_reaches_user_memory),
		MOCK_TEST(test_guarded_copy_recovers_after_the_handler_was_replaced),
		MOCK_TEST(test_handler_is_asked_for_only_after_a_change),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
