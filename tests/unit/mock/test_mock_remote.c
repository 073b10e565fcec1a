// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A remote task (npud's view of a client): copies through the files that
 * bind the client's address space (with its protections, and never after
 * it exec'd) and pinning of the client's shared memfd, against a forked
 * child.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "mock_test.h"

#define RING_PAGES 4

/* What the child maps; the child's addresses are the same as ours (fork). */
static char *shared;		/* memfd, sealed F_SEAL_SHRINK, MAP_SHARED */
static char *private_mem;	/* anonymous, private */
static char *unsealed;		/* memfd without seals, MAP_SHARED; the child holds it */
static char *closed;		/* sealed memfd, MAP_SHARED; nobody holds the fd */
static char *past_eof;		/* sealed one-page memfd mapped over two pages */
static char *readonly_mem;	/* anonymous, private, PROT_READ */
static char *none_mem;		/* anonymous, private, PROT_NONE */
static pid_t child;
static int to_child[2];

static void child_main(void)
{
	char c;

	/* Wait until the parent is done, then exit. */
	close(to_child[1]);
	while (read(to_child[0], &c, 1) < 0 && errno == EINTR)
		;
	_exit(0);
}

/* A memfd of @pages pages, sealed against shrinking if @seal, mapped over @map_pages. */
static char *map_memfd(unsigned int pages, unsigned int map_pages, bool seal, int *fdp)
{
	int fd = memfd_create("mock-ring", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	char *p;

	if (fd < 0 || ftruncate(fd, pages * PAGE_SIZE))
		return MAP_FAILED;
	if (seal && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK))
		return MAP_FAILED;
	p = mmap(NULL, map_pages * PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (fdp)
		*fdp = fd;
	else
		close(fd);
	return p;
}

static int start_child(void **state)
{
	int fd = -1, unsealed_fd = -1, eof_fd;

	(void)state;
	shared = map_memfd(RING_PAGES, RING_PAGES, true, &fd);
	unsealed = map_memfd(1, 1, false, &unsealed_fd);
	closed = map_memfd(1, 1, true, NULL);
	past_eof = map_memfd(1, 2, true, &eof_fd);
	if (unsealed == MAP_FAILED || closed == MAP_FAILED || past_eof == MAP_FAILED)
		return -1;
	private_mem = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED || private_mem == MAP_FAILED)
		return -1;
	strcpy(private_mem, "child's private page");
	readonly_mem = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	none_mem = mmap(NULL, PAGE_SIZE, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (readonly_mem == MAP_FAILED || none_mem == MAP_FAILED)
		return -1;
	strcpy(readonly_mem, "read-only page");
	strcpy(none_mem, "inaccessible page");
	if (mprotect(readonly_mem, PAGE_SIZE, PROT_READ) || mprotect(none_mem, PAGE_SIZE, PROT_NONE))
		return -1;
	if (pipe(to_child))
		return -1;
	child = fork();
	if (child < 0)
		return -1;
	if (child == 0)
		child_main();
	close(to_child[0]);
	/* The child keeps the memfds open; we close ours to prove we use its. */
	close(fd);
	close(unsealed_fd);
	close(eof_fd);
	/* After the fork, our private page differs from the child's. */
	strcpy(private_mem, "parent's page");
	return 0;
}

static int stop_child(void **state)
{
	(void)state;
	close(to_child[1]);
	waitpid(child, NULL, 0);
	munmap(shared, RING_PAGES * PAGE_SIZE);
	munmap(private_mem, PAGE_SIZE);
	munmap(unsealed, PAGE_SIZE);
	munmap(closed, PAGE_SIZE);
	munmap(past_eof, 2 * PAGE_SIZE);
	munmap(readonly_mem, PAGE_SIZE);
	munmap(none_mem, PAGE_SIZE);
	return 0;
}

static bool pidfd_getfd_allowed(void)
{
	int pidfd = syscall(434, child, 0);
	int fd = pidfd >= 0 ? syscall(438, pidfd, 0, 0) : -1;

	if (fd >= 0)
		close(fd);
	if (pidfd >= 0)
		close(pidfd);
	return fd >= 0;
}

static void test_remote_copies_reach_the_client(void **state)
{
	struct task_struct *task, *again, *saved = mock_current_task;
	struct mock_counters c;
	char buf[64];

	(void)state;
	assert_int_equal(mockdev_task_get(0, &task), -EPERM);
	assert_int_equal(mockdev_task_get(child, &task), 0);
	assert_int_equal(mockdev_task_get(child, &again), 0);
	assert_ptr_equal(task, again);		/* cached by tgid */
	assert_int_equal(task_tgid_nr(task), child);
	mock_counters_get(&c);
	assert_int_equal(c.tasks, 2);
	mockdev_task_put(again);

	mock_current_task = task;
	memset(buf, 0, sizeof(buf));
	assert_int_equal(copy_from_user(buf, (void __user *)private_mem, 21), 0);
	assert_string_equal(buf, "child's private page");
	assert_int_equal(copy_to_user((void __user *)private_mem, "hello", 6), 0);
	assert_int_equal(copy_from_user(buf, (void __user *)private_mem, 6), 0);
	assert_string_equal(buf, "hello");
	/* Our own page was not touched. */
	assert_string_equal(private_mem, "parent's page");
	/* Bad client address: nothing copied, zero-filled. */
	assert_int_equal(copy_from_user(buf, (void __user *)16, 8), 8);
	assert_null(memchr_inv(buf, 0, 8));
	/* A copy running off the end of the client's mapping is partial. */
	assert_int_equal(copy_from_user(buf, (void __user *)(private_mem + PAGE_SIZE - 10), 20) <= 20, 1);
	mock_current_task = saved;
	mockdev_task_put(task);
}

static void test_remote_pin_maps_the_clients_memfd(void **state)
{
	struct task_struct *task, *saved = mock_current_task;
	struct page *pages[RING_PAGES];
	struct mock_counters c;
	char *v;

	(void)state;
	if (!pidfd_getfd_allowed())
		skip();
	assert_int_equal(mockdev_task_get(child, &task), 0);
	mock_current_task = task;
	assert_int_equal(pin_user_pages_fast((unsigned long)shared, RING_PAGES,
					     FOLL_WRITE | FOLL_LONGTERM, pages),
			 RING_PAGES);
	v = vmap(pages, RING_PAGES, VM_MAP, PAGE_KERNEL);
	assert_non_null(v);
	/* Our own mapping of the same file, not the client's address. */
	assert_ptr_not_equal(v, shared);
	strcpy(v + PAGE_SIZE, "written through the pin");
	/* The memfd is shared: the parent's own mapping sees it too. */
	assert_string_equal(shared + PAGE_SIZE, "written through the pin");

	/* A private mapping cannot be pinned remotely. */
	assert_int_equal(pin_user_pages_fast((unsigned long)private_mem, 1, 0,
					     pages + 0), -EFAULT);
	mock_counters_get(&c);
	assert_int_equal(c.pinned_pages, RING_PAGES);
	vunmap(v);
	mock_current_task = saved;
	/* The mapping lives until the last unpin, even after the task put. */
	mockdev_task_put(task);
	assert_string_equal(page_address(pages[1]), "written through the pin");
	unpin_user_pages(pages, RING_PAGES);
}

/*
 * Only a file the client holds, sealed against shrinking and covering the
 * range, can be pinned: the daemon never opens anything with its own
 * rights for a client.
 */
static void test_remote_pin_refuses_what_the_client_does_not_hold_sealed(void **state)
{
	struct task_struct *task, *saved = mock_current_task;
	struct page *pages[2];
	struct mock_counters c;

	(void)state;
	if (!pidfd_getfd_allowed())
		skip();
	assert_int_equal(mockdev_task_get(child, &task), 0);
	mock_current_task = task;
	/* Not sealed: the client could truncate it under the daemon. */
	assert_int_equal(pin_user_pages_fast((unsigned long)unsealed, 1, FOLL_WRITE, pages),
			 -EINVAL);
	/* Mapped, but the client no longer holds the file. */
	assert_int_equal(pin_user_pages_fast((unsigned long)closed, 1, FOLL_WRITE, pages),
			 -EFAULT);
	/* The second page lies past the end of the file. */
	assert_int_equal(pin_user_pages_fast((unsigned long)past_eof, 2, FOLL_WRITE, pages),
			 -EFAULT);
	assert_int_equal(pin_user_pages_fast((unsigned long)past_eof, 1, FOLL_WRITE, pages), 1);
	unpin_user_pages(pages, 1);
	mock_counters_get(&c);
	assert_int_equal(c.pinned_pages, 0);
	mock_current_task = saved;
	mockdev_task_put(task);
}

/*
 * A fault on the daemon's mapping of a pinned client file (the file failed
 * under it) does not kill the process: the page reads as zeros from then
 * on and is poisoned, which is what the driver checks.
 */
static void test_fault_on_remote_pin_poisons_the_page(void **state)
{
	struct task_struct *task, *saved = mock_current_task;
	struct page *pages[RING_PAGES];
	volatile char *v;

	(void)state;
	if (!pidfd_getfd_allowed())
		skip();
	assert_int_equal(mockdev_task_get(child, &task), 0);
	mock_current_task = task;
	assert_int_equal(pin_user_pages_fast((unsigned long)shared, RING_PAGES, FOLL_WRITE, pages),
			 RING_PAGES);
	mock_current_task = saved;
	mockdev_task_put(task);
	v = page_address(pages[0]);
	v[PAGE_SIZE] = 'x';
	v[2 * PAGE_SIZE] = 'y';
	assert_false(PageHWPoison(pages[1]));
	/* Stand-in for a failed page: make ours fault. */
	assert_int_equal(mprotect((void *)(v + PAGE_SIZE), PAGE_SIZE, PROT_NONE), 0);
	assert_int_equal(v[PAGE_SIZE], 0);
	assert_true(PageHWPoison(pages[1]));
	v[PAGE_SIZE] = 'z';		/* writes land on the stand-in page */
	assert_false(PageHWPoison(pages[0]));
	assert_false(PageHWPoison(pages[2]));
	assert_int_equal(v[2 * PAGE_SIZE], 'y');
	/* The client's file did not get the stand-in's bytes. */
	assert_int_equal(shared[PAGE_SIZE], 'x');
	unpin_user_pages(pages, RING_PAGES);
}

static void test_dead_client_is_not_reused(void **state)
{
	struct task_struct *task, *saved = mock_current_task;
	char buf[8];
	pid_t dead;

	(void)state;
	dead = fork();
	if (dead == 0)
		_exit(0);
	assert_int_equal(mockdev_task_get(dead, &task), 0);
	waitpid(dead, NULL, 0);
	mock_current_task = task;
	assert_int_equal(copy_from_user(buf, (void __user *)private_mem, 8), 8);
	mock_current_task = saved;
	mockdev_task_put(task);
	assert_int_equal(mockdev_task_get(dead, &task), -ESRCH);
}

static void test_tid_to_tgid(void **state)
{
	(void)state;
	assert_int_equal(mockdev_tid_to_tgid(gettid()), getpid());
	assert_int_equal(mockdev_tid_to_tgid(child), child);
	assert_int_equal(mockdev_tid_to_tgid(0), -EPERM);
}

/*
 * The client's protections hold for npud's copies as for its own loads and
 * stores (procfs' mem file alone would force its way past them).
 */
static void test_remote_copies_keep_the_clients_protections(void **state)
{
	struct task_struct *task, *saved = mock_current_task;
	char buf[32];

	(void)state;
	assert_int_equal(mockdev_task_get(child, &task), 0);
	mock_current_task = task;
	memset(buf, 0, sizeof(buf));
	assert_int_equal(copy_from_user(buf, (void __user *)readonly_mem, 15), 0);
	assert_string_equal(buf, "read-only page");
	assert_int_equal(copy_to_user((void __user *)readonly_mem, "written", 8), 8);
	assert_int_equal(copy_from_user(buf, (void __user *)readonly_mem, 15), 0);
	assert_string_equal(buf, "read-only page");
	assert_int_equal(copy_from_user(buf, (void __user *)none_mem, 8), 8);
	assert_int_equal(copy_to_user((void __user *)none_mem, "written", 8), 8);
	/* Across a boundary: the part before the protected page is done. */
	assert_int_equal(copy_from_user(buf, (void __user *)(none_mem - 4), 8) >= 4, 1);
	mock_current_task = saved;
	mockdev_task_put(task);
}

/*
 * A client that execs has a new address space under the same pid: the
 * task looked up before sees its address space end, copies through it
 * fail, and a new lookup is a new client.
 */
static void test_remote_mm_ends_when_the_client_execs(void **state)
{
	struct task_struct *task, *again, *saved = mock_current_task;
	int go[2], waited;
	char buf[32], c = 'x';
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		while (read(go[0], &c, 1) < 0 && errno == EINTR)
			;
		execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(127);
	}
	close(go[0]);
	assert_int_equal(mockdev_task_get(pid, &task), 0);
	assert_true(mockdev_task_mm_alive(task));
	mock_current_task = task;
	memset(buf, 0, sizeof(buf));
	/* Forked from us: the page as we have it. */
	assert_int_equal(copy_from_user(buf, (void __user *)private_mem, 14), 0);
	assert_string_equal(buf, "parent's page");

	assert_int_equal(write(go[1], &c, 1), 1);
	for (waited = 0; waited < 5000 && mockdev_task_mm_alive(task); waited += 5)
		usleep(5000);
	assert_false(mockdev_task_mm_alive(task));
	assert_int_equal(kill(pid, 0), 0);	/* the pid lives on */
	assert_int_equal(copy_from_user(buf, (void __user *)private_mem, 14), 14);
	assert_int_equal(copy_to_user((void __user *)private_mem, "hello", 6), 6);
	mock_current_task = saved;

	assert_int_equal(mockdev_task_get(pid, &again), 0);
	assert_ptr_not_equal(again, task);
	assert_true(mockdev_task_mm_alive(again));
	mockdev_task_put(again);
	mockdev_task_put(task);
	close(go[1]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MOCK_TEST(test_remote_copies_reach_the_client),
		MOCK_TEST(test_remote_pin_maps_the_clients_memfd),
		MOCK_TEST(test_remote_pin_refuses_what_the_client_does_not_hold_sealed),
		MOCK_TEST(test_fault_on_remote_pin_poisons_the_page),
		MOCK_TEST(test_dead_client_is_not_reused),
		MOCK_TEST(test_tid_to_tgid),
		MOCK_TEST(test_remote_copies_keep_the_clients_protections),
		MOCK_TEST(test_remote_mm_ends_when_the_client_execs),
	};

	return cmocka_run_group_tests(tests, start_child, stop_child);
}
