// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * In an ASan build, the mock's guarded user copies (exempt from ASan, so
 * that a bad user pointer faults into the guard instead of a report) still
 * check their kernel-side buffer against ASan's shadow: a copy into or out
 * of a kernel buffer one byte too short, or freed, stops the process with
 * a BUG line at once instead of corrupting memory ASan cannot see. The
 * same for the streaming copy behind large memcpy()s. Each case runs in a
 * forked child, which must die of SIGABRT having printed the BUG line.
 * Without ASan there is nothing to check: the tests are skipped.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "mock_test.h"

#if defined(__SANITIZE_ADDRESS__)
#define T_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_ASAN 1
#endif
#endif

#define T_LEN 200	  /* a small copy: the guarded byte loop */
#define T_BIG (1UL << 20) /* a large one: the streaming copy */

static char *t_user; /* user memory: an anonymous mapping, never poisoned */

/*
 * Run fn in a child with stderr captured. Returns whether it died of
 * SIGABRT having printed "BUG: mock uaccess"; a child that returns from
 * fn exits with 0.
 */
static bool t_child_bugs(void (*fn)(void))
{
	char out[8192] = {0};
	size_t got = 0;
	int fds[2], status;
	ssize_t n;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		dup2(fds[1], STDERR_FILENO);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while (got < sizeof(out) - 1 &&
	       (n = read(fds[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGABRT) {
		fprintf(stderr, "child: status 0x%x, stderr:\n%s\n", status,
			out);
		return false;
	}
	return strstr(out, "BUG: mock uaccess") != NULL;
}

static void from_user_short(void)
{
	char *k = malloc(T_LEN - 1);

	(void)!copy_from_user(k, (const void __user *)t_user, T_LEN);
	free(k);
}

static void to_user_short(void)
{
	char *k = malloc(T_LEN - 1);

	memset(k, 1, T_LEN - 1);
	(void)!copy_to_user((void __user *)t_user, k, T_LEN);
	free(k);
}

/* Volatile: the compiler would rightly refuse the use after free. */
static char *volatile t_freed;

static void from_user_freed(void)
{
	t_freed = malloc(T_LEN);
	free(t_freed);
	(void)!copy_from_user(t_freed, (const void __user *)t_user, T_LEN);
}

static void from_user_big_short(void)
{
	char *k = malloc(T_BIG - 1);

	(void)!copy_from_user(k, (const void __user *)t_user, T_BIG);
	free(k);
}

static void memcpy_big_short(void)
{
	char *d = malloc(T_BIG - 1), *s = malloc(T_BIG);

	memset(s, 2, T_BIG);
	memcpy(d, s, T_BIG);
	free(s);
	free(d);
}

static void exact_sizes(void)
{
	char *k = malloc(T_BIG);

	if (copy_from_user(k, (const void __user *)t_user, T_LEN) ||
	    copy_to_user((void __user *)t_user, k, T_LEN) ||
	    copy_from_user(k, (const void __user *)t_user, T_BIG))
		_exit(3);
	free(k);
}

static int setup(void **state)
{
	t_user = mmap(NULL, T_BIG, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t_user == MAP_FAILED)
		return -1;
	memset(t_user, 3, T_BIG);
	return mock_test_setup(state);
}

static int teardown(void **state)
{
	munmap(t_user, T_BIG);
	return mock_test_teardown(state);
}

#ifdef T_ASAN
static void test_short_kernel_buffer_bugs(void **state)
{
	(void)state;
	assert_true(t_child_bugs(from_user_short));
	assert_true(t_child_bugs(to_user_short));
	assert_true(t_child_bugs(from_user_freed));
	assert_true(t_child_bugs(from_user_big_short));
	assert_true(t_child_bugs(memcpy_big_short));
}

static void test_exact_kernel_buffer_passes(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		exact_sizes();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}
#else
static void test_short_kernel_buffer_bugs(void **state)
{
	(void)state;
	(void)t_child_bugs;
	(void)from_user_short;
	(void)to_user_short;
	(void)from_user_freed;
	(void)from_user_big_short;
	(void)memcpy_big_short;
	skip();
}

static void test_exact_kernel_buffer_passes(void **state)
{
	(void)state;
	(void)exact_sizes;
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_short_kernel_buffer_bugs,
					    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_kernel_buffer_passes,
					    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
