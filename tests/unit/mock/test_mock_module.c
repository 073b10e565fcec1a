// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The host side: module load with parameters, misc devices, file
 * operations with the caller's task as current, the relay window of a
 * relayed ioctl, debugfs. This file plays the driver.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/kernel.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "mock_test.h"

static unsigned int devices = 1;
static int level = -3;
static unsigned long hbm_mb = 16384;
static bool fast;
static char *label = "default";
module_param(devices, uint, 0444);
module_param(level, int, 0444);
module_param(hbm_mb, ulong, 0444);
module_param(fast, bool, 0444);
module_param(label, charp, 0444);

static int init_calls, exit_calls, init_result;
static struct task_struct *seen_task;
static void *seen_private;

/* What the test's ioctl does: set per test. */
static long (*ioctl_body)(struct file *f, unsigned int cmd, unsigned long arg);

static int t_open(struct inode *inode, struct file *f)
{
	seen_task = current;
	seen_private = f->private_data;
	return 0;
}

static int t_release(struct inode *inode, struct file *f)
{
	seen_task = current;
	return 0;
}

static long t_ioctl(struct file *f, unsigned int cmd, unsigned long arg)
{
	seen_task = current;
	return ioctl_body ? ioctl_body(f, cmd, arg) : -ENOIOCTLCMD;
}

static const struct file_operations t_fops = {
	.owner = THIS_MODULE,
	.open = t_open,
	.release = t_release,
	.unlocked_ioctl = t_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice t_misc[2] = {
	{ .minor = MISC_DYNAMIC_MINOR, .name = "tdev0", .fops = &t_fops },
	{ .minor = MISC_DYNAMIC_MINOR, .name = "tdev1", .fops = &t_fops },
};

static struct dentry *t_debugfs;

static int stats_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "devices %u label %s\n", devices, (char *)m->private);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init t_init(void)
{
	unsigned int i;
	int ret;

	init_calls++;
	if (init_result)
		return init_result;
	for (i = 0; i < devices && i < 2; i++) {
		ret = misc_register(&t_misc[i]);
		if (ret)
			goto err;
	}
	t_debugfs = debugfs_create_dir("tmod", NULL);
	debugfs_create_file("stats", 0444, t_debugfs, label, &stats_fops);
	debugfs_create_u32("devices", 0444, t_debugfs, &devices);
	return 0;
err:
	while (i--)
		misc_deregister(&t_misc[i]);
	return ret;
}

static void __exit t_exit(void)
{
	unsigned int i;

	exit_calls++;
	debugfs_remove_recursive(t_debugfs);
	for (i = 0; i < devices && i < 2; i++)
		misc_deregister(&t_misc[i]);
}

module_init(t_init);
module_exit(t_exit);
MODULE_LICENSE("GPL");
MODULE_PARM_DESC(devices, "number of devices");

static void test_parameters_are_parsed_and_reset_per_load(void **state)
{
	(void)state;
	assert_int_equal(mockdev_module_load("devices=2 level=-7 hbm-mb=0x10 fast label=abc"), 0);
	assert_int_equal(devices, 2);
	assert_int_equal(level, -7);
	assert_int_equal(hbm_mb, 16);
	assert_true(fast);
	assert_string_equal(label, "abc");
	assert_string_equal(mockdev_misc_name(0), "tdev0");
	assert_string_equal(mockdev_misc_name(1), "tdev1");
	assert_null(mockdev_misc_name(2));
	assert_int_equal(mockdev_module_load(NULL), -EBUSY);
	mockdev_module_unload();
	assert_int_equal(exit_calls, 1);
	assert_null(mockdev_misc_find("tdev0"));

	/* A new load starts from the defaults. */
	assert_int_equal(mockdev_module_load(""), 0);
	assert_int_equal(devices, 1);
	assert_int_equal(level, -3);
	assert_int_equal(hbm_mb, 16384);
	assert_false(fast);
	assert_string_equal(label, "default");
	mockdev_module_unload();
}

static void test_bad_parameters_do_not_run_init(void **state)
{
	static const char *const bad[] = {
		"nosuch=1", "devices=-1", "devices=abc", "fast=maybe",
		"level=99999999999", "devices", "devices=4294967296",
	};

	(void)state;
	init_calls = 0;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(mockdev_module_load(bad[i]), -EINVAL);
	assert_int_equal(init_calls, 0);
	init_result = -ENOMEM;
	assert_int_equal(mockdev_module_load(NULL), -ENOMEM);
	init_result = 0;
	assert_null(mockdev_misc_find("tdev0"));
	/* pr_err for each bad one. */
	assert_int_equal(mock_log_warnings(), ARRAY_SIZE(bad));
	mock_log_clear();
}

static long echo_tgid(struct file *f, unsigned int cmd, unsigned long arg)
{
	u64 v = task_tgid_nr(current);

	if (copy_to_user((void __user *)arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

static void test_file_ops_run_as_the_task(void **state)
{
	struct miscdevice *misc;
	struct mock_counters c;
	struct task_struct *before = current;
	struct file *f;
	u64 out = 0;

	(void)state;
	assert_int_equal(mockdev_module_load(NULL), 0);
	misc = mockdev_misc_find("tdev0");
	assert_ptr_equal(misc, &t_misc[0]);
	assert_non_null(misc->this_device);
	assert_int_equal(mockdev_file_open(misc, mockdev_task_self(), &f), 0);
	assert_ptr_equal(seen_private, misc);
	assert_ptr_equal(seen_task, mockdev_task_self());
	mock_counters_get(&c);
	assert_int_equal(c.files, 1);

	ioctl_body = echo_tgid;
	assert_int_equal(mockdev_file_ioctl(f, mockdev_task_self(), _IOR('T', 1, u64),
					    (unsigned long)&out), 0);
	assert_int_equal(out, getpid());
	assert_int_equal(mockdev_file_ioctl(f, mockdev_task_self(), _IOR('T', 1, u64), 8),
			 -EFAULT);
	/* -ENOIOCTLCMD becomes -ENOTTY, as the VFS does. */
	ioctl_body = NULL;
	assert_int_equal(mockdev_file_ioctl(f, mockdev_task_self(), 1, 0), -ENOTTY);
	assert_ptr_equal(current, before);

	assert_int_equal(mockdev_file_release(f, mockdev_task_self()), 0);
	mockdev_module_unload();
}

/* The relayed argument: 16 bytes at uarg; other user memory is the client's. */
static char client[64], relay[16];
static long relay_result[8];

static long relay_body(struct file *f, unsigned int cmd, unsigned long uarg)
{
	char buf[64];

	relay_result[0] = copy_from_user(buf, (void __user *)uarg, 16);
	relay_result[1] = !memchr_inv(buf, 'r', 16);
	/* Straddling both edges: client, relay, client. */
	relay_result[2] = copy_from_user(buf, (void __user *)(uarg - 4), 24);
	relay_result[3] = !memchr_inv(buf, 'c', 4) &&
			  !memchr_inv(buf + 4, 'r', 16) &&
			  !memchr_inv(buf + 20, 'c', 4);
	memset(buf, 'w', sizeof(buf));
	relay_result[4] = copy_to_user((void __user *)(uarg + 8), buf, 16);
	return 0;
}

static void test_relayed_ioctl_serves_the_argument_from_the_buffer(void **state)
{
	unsigned long uarg = (unsigned long)client + 16;
	struct file *f;
	char buf[16];

	(void)state;
	memset(client, 'c', sizeof(client));
	memset(relay, 'r', sizeof(relay));
	assert_int_equal(mockdev_module_load(NULL), 0);
	assert_int_equal(mockdev_file_open(mockdev_misc_find("tdev0"),
					   mockdev_task_self(), &f), 0);
	ioctl_body = relay_body;
	assert_int_equal(mockdev_file_ioctl_relayed(f, mockdev_task_self(),
						    _IOWR('T', 2, char[16]),
						    uarg, relay), 0);
	assert_int_equal(relay_result[0], 0);
	assert_true(relay_result[1]);
	assert_int_equal(relay_result[2], 0);
	assert_true(relay_result[3]);
	assert_int_equal(relay_result[4], 0);
	/* Inside the window: the buffer; past it: the client. */
	assert_null(memchr_inv(relay, 'r', 8));
	assert_null(memchr_inv(relay + 8, 'w', 8));
	assert_null(memchr_inv(client + 16, 'c', 16));
	assert_null(memchr_inv(client + 32, 'w', 8));
	assert_null(memchr_inv(client + 40, 'c', 24));
	/* After the call the window is gone. */
	assert_int_equal(copy_from_user(buf, (void __user *)uarg, 16), 0);
	assert_null(memchr_inv(buf, 'c', 16));
	ioctl_body = NULL;
	assert_int_equal(mockdev_file_release(f, mockdev_task_self()), 0);
	mockdev_module_unload();
}

static void test_debugfs_files_read_back(void **state)
{
	char buf[128];

	(void)state;
	assert_int_equal(mockdev_module_load("devices=2 label=xyz"), 0);
	assert_int_equal(mock_debugfs_read("tmod/stats", buf, sizeof(buf)),
			 strlen("devices 2 label xyz\n"));
	assert_string_equal(buf, "devices 2 label xyz\n");
	assert_int_equal(mock_debugfs_read("tmod/devices", buf, sizeof(buf)), 2);
	assert_string_equal(buf, "2\n");
	assert_int_equal(mock_debugfs_read("tmod/none", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(mock_debugfs_read("tmod", buf, sizeof(buf)), -EISDIR);
	mockdev_module_unload();
	assert_int_equal(mock_debugfs_read("tmod/stats", buf, sizeof(buf)), -ENOENT);
}

static void test_deregister_with_open_file_warns(void **state)
{
	struct file *f;

	(void)state;
	assert_int_equal(mockdev_module_load(NULL), 0);
	assert_int_equal(mockdev_file_open(mockdev_misc_find("tdev0"),
					   mockdev_task_self(), &f), 0);
	mockdev_module_unload();
	assert_true(mock_log_warnings() >= 2);
	mock_log_clear();
	assert_int_equal(mockdev_file_release(f, mockdev_task_self()), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		MOCK_TEST(test_parameters_are_parsed_and_reset_per_load),
		MOCK_TEST(test_bad_parameters_do_not_run_init),
		MOCK_TEST(test_file_ops_run_as_the_task),
		MOCK_TEST(test_relayed_ioctl_serves_the_argument_from_the_buffer),
		MOCK_TEST(test_debugfs_files_read_back),
		MOCK_TEST(test_deregister_with_open_file_warns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
