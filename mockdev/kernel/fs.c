// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Mock kernel: what the VFS and insmod do for the driver. Misc devices,
 * struct file and the file operations as the host (mockdev/host.h) calls
 * them, module parameters and module init/exit.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/kernel.h>
#include <linux/bug.h>
#include <linux/compat.h>
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/ioctl.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <mockdev/host.h>

#include "internal.h"
#include "uaccess.h"

/* Misc devices */

struct mock_misc {
	struct list_head link;
	struct miscdevice *misc;
	struct inode inode;
	struct device dev;
	long open_files;		/* under misc_lock */
};

static pthread_mutex_t misc_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: misc_list, open_files */
static LIST_HEAD(misc_list);
static int misc_next_minor = 64;

static struct mock_misc *misc_lookup(const struct miscdevice *misc)
{
	struct mock_misc *m;

	list_for_each_entry(m, &misc_list, link) {
		if (m->misc == misc)
			return m;
	}
	return NULL;
}

int misc_register(struct miscdevice *misc)
{
	struct mock_misc *m, *e;

	if (!misc->name || !misc->fops)
		return -EINVAL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	pthread_mutex_lock(&misc_lock);
	list_for_each_entry(e, &misc_list, link) {
		if (!strcmp(e->misc->name, misc->name) ||
		    (misc->minor != MISC_DYNAMIC_MINOR &&
		     e->misc->minor == misc->minor)) {
			pthread_mutex_unlock(&misc_lock);
			free(m);
			return -EBUSY;
		}
	}
	if (misc->minor == MISC_DYNAMIC_MINOR)
		misc->minor = misc_next_minor++;
	m->misc = misc;
	m->inode.i_mode = misc->mode ? misc->mode : 0600;
	m->inode.i_rdev = MKDEV(MISC_MAJOR, misc->minor);
	strscpy(m->dev.mock_name, misc->name, sizeof(m->dev.mock_name));
	m->dev.parent = misc->parent;
	misc->this_device = &m->dev;
	INIT_LIST_HEAD(&misc->list);
	list_add_tail(&m->link, &misc_list);
	pthread_mutex_unlock(&misc_lock);
	return 0;
}

void misc_deregister(struct miscdevice *misc)
{
	struct mock_misc *m;

	pthread_mutex_lock(&misc_lock);
	m = misc_lookup(misc);
	if (m)
		list_del(&m->link);
	pthread_mutex_unlock(&misc_lock);
	if (WARN(!m, "misc_deregister of %s: not registered\n", misc->name))
		return;
	/* The kernel keeps such files working; here they would dangle. */
	WARN(m->open_files, "misc_deregister of %s with %ld open files\n",
	     misc->name, m->open_files);
	misc->this_device = NULL;
	free(m);
}

MOCK_EXPORT struct miscdevice *mockdev_misc_find(const char *name)
{
	struct miscdevice *found = NULL;
	struct mock_misc *m;

	pthread_mutex_lock(&misc_lock);
	list_for_each_entry(m, &misc_list, link) {
		if (!strcmp(m->misc->name, name)) {
			found = m->misc;
			break;
		}
	}
	pthread_mutex_unlock(&misc_lock);
	return found;
}

MOCK_EXPORT const char *mockdev_misc_name(unsigned int index)
{
	const char *name = NULL;
	struct mock_misc *m;

	pthread_mutex_lock(&misc_lock);
	list_for_each_entry(m, &misc_list, link) {
		if (index-- == 0) {
			name = m->misc->name;
			break;
		}
	}
	pthread_mutex_unlock(&misc_lock);
	return name;
}

/* Files, as the VFS drives them */

/* Run the call as task, then restore what the thread was before. */
#define AS_TASK(task, call) ({						\
	struct task_struct *__saved = mock_current_task;		\
	__typeof__(call) __r;						\
	mock_current_task = (task);					\
	__r = (call);							\
	mock_current_task = __saved;					\
	__r; })

/* What the syscall layer makes of the kernel-internal codes. */
static long vfs_errno(long ret)
{
	switch (ret) {
	case -ENOIOCTLCMD:
		return -ENOTTY;
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
	case -ERESTART_RESTARTBLOCK:
		return -EINTR;
	case -ENOTSUPP:
		return -EOPNOTSUPP;
	default:
		return ret;
	}
}

MOCK_EXPORT int mockdev_file_open(struct miscdevice *dev,
				  struct task_struct *task,
				  struct file **filp)
{
	struct mock_misc *m;
	struct file *file;
	int ret = 0;

	*filp = NULL;
	if (!dev || !task)
		return -EINVAL;
	file = calloc(1, sizeof(*file));
	if (!file)
		return -ENOMEM;

	pthread_mutex_lock(&misc_lock);
	m = misc_lookup(dev);
	if (m)
		m->open_files++;
	pthread_mutex_unlock(&misc_lock);
	if (!m) {
		free(file);
		return -ENODEV;
	}

	file->f_op = dev->fops;
	file->f_inode = &m->inode;
	file->f_flags = O_RDWR;
	file->f_mode = FMODE_READ | FMODE_WRITE | FMODE_LSEEK |
		       FMODE_PREAD | FMODE_PWRITE;
	atomic_long_set(&file->f_count, 1);
	/* misc_open(): the driver finds its device here. */
	file->private_data = dev;
	INIT_LIST_HEAD(&file->mock_link);
	if (file->f_op->open)
		ret = AS_TASK(task, file->f_op->open(&m->inode, file));
	if (ret) {
		pthread_mutex_lock(&misc_lock);
		m->open_files--;
		pthread_mutex_unlock(&misc_lock);
		free(file);
		return (int)vfs_errno(ret);
	}
	mock_live_add(&mock_live.files, 1);
	*filp = file;
	return 0;
}

MOCK_EXPORT long mockdev_file_ioctl(struct file *filp,
				    struct task_struct *task,
				    unsigned int cmd, unsigned long arg)
{
	long ret;

	if (!filp->f_op->unlocked_ioctl)
		return -ENOTTY;
	mock_fault_scope_begin();
	ret = AS_TASK(task, filp->f_op->unlocked_ioctl(filp, cmd, arg));
	mock_fault_scope_end();
	return vfs_errno(ret);
}

MOCK_EXPORT long mockdev_file_ioctl_relayed(struct file *filp,
					    struct task_struct *task,
					    unsigned int cmd,
					    unsigned long uarg, void *buf)
{
	struct mock_relay relay;
	long ret;

	mock_relay_push(&relay, uarg, _IOC_SIZE(cmd), buf);
	ret = mockdev_file_ioctl(filp, task, cmd, uarg);
	mock_relay_pop(&relay);
	return ret;
}

MOCK_EXPORT int mockdev_file_release(struct file *filp,
				     struct task_struct *task)
{
	struct mock_misc *m;
	int ret = 0;

	if (!filp)
		return -EINVAL;
	if (filp->f_op->release)
		ret = AS_TASK(task, filp->f_op->release(filp->f_inode, filp));

	pthread_mutex_lock(&misc_lock);
	list_for_each_entry(m, &misc_list, link) {
		if (&m->inode == filp->f_inode) {
			m->open_files--;
			break;
		}
	}
	pthread_mutex_unlock(&misc_lock);
	mock_live_add(&mock_live.files, -1);
	free(filp);
	return (int)vfs_errno(ret);
}

loff_t noop_llseek(struct file *file, loff_t offset, int whence)
{
	(void)offset;
	(void)whence;
	return file->f_pos;
}

ssize_t simple_read_from_buffer(void __user *to, size_t count, loff_t *ppos,
				const void *from, size_t available)
{
	loff_t pos = *ppos;
	size_t ret;

	if (pos < 0)
		return -EINVAL;
	if ((size_t)pos >= available || !count)
		return 0;
	if (count > available - pos)
		count = available - pos;
	ret = copy_to_user(to, (const char *)from + pos, count);
	if (ret == count)
		return -EFAULT;
	count -= ret;
	*ppos = pos + count;
	return count;
}

long compat_ptr_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	if (!file->f_op->unlocked_ioctl)
		return -ENOIOCTLCMD;
	return file->f_op->unlocked_ioctl(file, cmd,
					  (unsigned long)compat_ptr(arg));
}

/* Module parameters */

#define MOCK_MAX_PARAMS 64

struct mock_param {
	const char *name;
	void *var;
	enum mock_param_type type;
	union {
		unsigned long long u;
		long long s;
		bool b;
		char *p;
	} dflt;			/* the value at program start */
	char *owned;		/* charp: the string we allocated, if any */
};

/* Registered by constructors before main(); changed only under load_lock. */
static struct mock_param params[MOCK_MAX_PARAMS];
static unsigned int nr_params;

void mock_param_register(const char *name, void *var,
			 enum mock_param_type type)
{
	struct mock_param *p;

	if (nr_params == MOCK_MAX_PARAMS)
		mock_bug(__FILE__, __LINE__, "too many module parameters");
	p = &params[nr_params++];
	p->name = name;
	p->var = var;
	p->type = type;
	switch (type) {
	case MOCK_PARAM_uint:
		p->dflt.u = *(unsigned int *)var;
		break;
	case MOCK_PARAM_int:
		p->dflt.s = *(int *)var;
		break;
	case MOCK_PARAM_ulong:
		p->dflt.u = *(unsigned long *)var;
		break;
	case MOCK_PARAM_bool:
		p->dflt.b = *(bool *)var;
		break;
	case MOCK_PARAM_charp:
		p->dflt.p = *(char **)var;
		break;
	}
}

static void param_restore(struct mock_param *p)
{
	switch (p->type) {
	case MOCK_PARAM_uint:
		*(unsigned int *)p->var = p->dflt.u;
		break;
	case MOCK_PARAM_int:
		*(int *)p->var = p->dflt.s;
		break;
	case MOCK_PARAM_ulong:
		*(unsigned long *)p->var = p->dflt.u;
		break;
	case MOCK_PARAM_bool:
		*(bool *)p->var = p->dflt.b;
		break;
	case MOCK_PARAM_charp:
		*(char **)p->var = p->dflt.p;
		free(p->owned);
		p->owned = NULL;
		break;
	}
}

/* The kernel treats '-' and '_' in parameter names as the same. */
static bool param_name_eq(const char *a, const char *b)
{
	for (; *a && *b; a++, b++) {
		char ca = *a == '-' ? '_' : *a;
		char cb = *b == '-' ? '_' : *b;

		if (ca != cb)
			return false;
	}
	return *a == *b;
}

static int param_set(struct mock_param *p, const char *val)
{
	unsigned long long u;
	long long s;
	bool b;
	int r;

	/* A bare name sets a bool; anything else needs a value. */
	if (!val) {
		if (p->type != MOCK_PARAM_bool)
			return -EINVAL;
		*(bool *)p->var = true;
		return 0;
	}
	switch (p->type) {
	case MOCK_PARAM_uint:
		r = kstrtoull(val, 0, &u);
		if (!r && u > UINT_MAX)
			r = -ERANGE;
		if (!r)
			*(unsigned int *)p->var = u;
		return r;
	case MOCK_PARAM_ulong:
		r = kstrtoull(val, 0, &u);
		if (!r)
			*(unsigned long *)p->var = u;
		return r;
	case MOCK_PARAM_int:
		r = kstrtoll(val, 0, &s);
		if (r)
			return r;
		if (s < INT_MIN || s > INT_MAX)
			return -ERANGE;
		*(int *)p->var = s;
		return 0;
	case MOCK_PARAM_bool:
		r = *val ? kstrtobool(val, &b) : (b = true, 0);
		if (!r)
			*(bool *)p->var = b;
		return r;
	case MOCK_PARAM_charp:
		free(p->owned);
		p->owned = strdup(val);
		if (!p->owned)
			return -ENOMEM;
		*(char **)p->var = p->owned;
		return 0;
	}
	return -EINVAL;
}

/* Apply "a=1 b=2 flag" to the registered parameters. */
static int params_parse(const char *list)
{
	char *copy, *tok, *save = NULL;
	int ret = 0;

	if (!list || !*list)
		return 0;
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		char *val = strchr(tok, '=');
		unsigned int i;

		if (val)
			*val++ = '\0';
		for (i = 0; i < nr_params; i++) {
			if (param_name_eq(params[i].name, tok))
				break;
		}
		if (i == nr_params) {
			pr_err("npu-mock: unknown parameter '%s'\n", tok);
			ret = -EINVAL;
			break;
		}
		ret = param_set(&params[i], val);
		if (ret) {
			pr_err("npu-mock: '%s' invalid for parameter '%s'\n",
			       val ? val : "", tok);
			ret = -EINVAL;
			break;
		}
	}
	free(copy);
	return ret;
}

/* The module: hooks defined by module_init()/module_exit() */

int mock_module_init_hook(void) __attribute__((weak));
void mock_module_exit_hook(void) __attribute__((weak));

static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER; /* Protects: loaded, params */
static bool loaded;

MOCK_EXPORT int mockdev_module_load(const char *params_list)
{
	unsigned int i;
	int ret;

	pthread_mutex_lock(&load_lock);
	if (loaded) {
		ret = -EBUSY;
		goto out;
	}
	/* Every load starts from the defaults, like a fresh insmod. */
	for (i = 0; i < nr_params; i++)
		param_restore(&params[i]);
	ret = params_parse(params_list);
	if (ret)
		goto out;
	if (!mock_module_init_hook) {
		ret = -ENOEXEC;
		goto out;
	}
	ret = AS_TASK(mockdev_task_self(), mock_module_init_hook());
	if (ret) {
		ret = (int)vfs_errno(ret);
		goto out;
	}
	loaded = true;
out:
	pthread_mutex_unlock(&load_lock);
	return ret;
}

MOCK_EXPORT void mockdev_module_unload(void)
{
	struct task_struct *saved = mock_current_task;

	pthread_mutex_lock(&load_lock);
	if (WARN(!loaded, "mockdev_module_unload: not loaded\n"))
		goto out;
	WARN(__atomic_load_n(&mock_live.files, __ATOMIC_RELAXED),
	     "mockdev_module_unload with open files\n");
	mock_current_task = mockdev_task_self();
	if (mock_module_exit_hook)
		mock_module_exit_hook();
	mock_current_task = saved;
	loaded = false;
out:
	pthread_mutex_unlock(&load_lock);
}
