// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * A file belongs to the process that opened it: another process's ioctl
 * gets -EBADF, and the context dies with its opener (the mmu notifier's
 * ->release; in the mock, when the remote opener's pidfd becomes
 * readable) even while the file is still open, which then answers -EBADF
 * until its release.
 */
#include <stdio.h>
#include <sys/wait.h>

#include "npu_test_util.h"

static long live_before_load;

static int setup(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	return mockdev_module_load("devices=1 hbm_mb=256");
}

static int teardown(void **state)
{
	(void)state;
	mockdev_module_unload();
	assert_int_equal(mock_live_objects(), live_before_load);
	return 0;
}

/* The child exits (and is reaped); its task reference stays. */
static void child_exit(struct t_child *c)
{
	int status;

	assert_int_equal(write(c->wfd, "x", 1), 1);
	close(c->wfd);
	assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
}

static void test_ioctl_from_another_process_is_ebadf(void **state)
{
	struct npu_device_info info = { 0 };
	struct npu_version v = { 0 };
	struct t_child c;
	struct file *f;

	(void)state;
	t_child_start(&c);
	assert_int_equal(t_open(&f), 0);
	assert_int_equal(t_setup_at(f, T_VA_BASE), 0);
	/* Every command, set-up or not, before anything else is looked at. */
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_DEVICE_INFO, &info), -EBADF);
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_GET_VERSION, &v), -EBADF);
	assert_int_equal(t_child_ioctl(&c, f, 0xdeadbeef, &v), -EBADF);
	/* The opener's calls are unaffected. */
	t_device_info(f, &info);
	assert_int_equal(info.contexts, 1);
	t_close(f);
	child_exit(&c);
	mockdev_task_put(c.task);
}

static void test_opener_exit_tears_down_open_context(void **state)
{
	struct npu_ctx_setup s = { .va_base = T_VA_BASE, .va_size = T_VA_SIZE };
	struct npu_mem_alloc ma = { .size = 4 * T_MIB, .policy = NPU_POLICY_HUGE_FIRST };
	struct npu_device_info info;
	struct file *obs, *f;
	struct t_child c;
	int waited;

	(void)state;
	assert_int_equal(t_open(&obs), 0);
	t_child_start(&c);
	assert_int_equal(mockdev_file_open(t_misc(), c.task, &f), 0);
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_CTX_SETUP, &s), 0);
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_MEM_ALLOC, &ma), 0);
	t_device_info(obs, &info);
	assert_int_equal(info.allocations, 1);
	assert_int_equal(info.contexts, 2);

	/* The opener exits; its file stays open (another process could hold it). */
	child_exit(&c);
	for (waited = 0; waited < 2000; waited += 5) {
		t_device_info(obs, &info);
		if (info.allocations == 0 && info.hbm_free == info.hbm_total)
			break;
		usleep(5000);
	}
	assert_int_equal(info.allocations, 0);
	assert_int_equal(info.hbm_free, info.hbm_total);
	/* An empty shell: -EBADF, even for the opener's own (stale) task. */
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_MEM_ALLOC, &ma), -EBADF);
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_DEVICE_INFO, &info), -EBADF);
	/* The struct goes at the last close. */
	assert_int_equal(mockdev_file_release(f, c.task), 0);
	t_device_info(obs, &info);
	assert_int_equal(info.contexts, 1);
	mockdev_task_put(c.task);
	t_close(obs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ioctl_from_another_process_is_ebadf, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_opener_exit_tears_down_open_context, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
