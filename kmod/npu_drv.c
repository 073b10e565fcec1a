// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The npu driver: module parameters, device instances and their files.
 *
 * Each of the `devices` instances has `hbm_mb` MiB of emulated HBM and is
 * a misc device /dev/npuN. Every open file gets its own context.
 */
#include "npu_internal.h"
#include <npu/npu_uapi.h>
#include "npu_ctx.h"
#include "npu_dev.h"
#include "npu_drv.h"
#include "npu_ioctl.h"
#include "npu_sched.h"
#include "npu_uring.h"

static unsigned int devices = 1;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "Number of npu devices (1..16, default 1)");

static unsigned int hbm_mb = 16384;
module_param(hbm_mb, uint, 0444);
MODULE_PARM_DESC(hbm_mb, "HBM per device in MiB (default 16384; backed lazily)");

static int npu_open(struct inode *inode, struct file *filp)
{
	/* misc_open() left our miscdevice in private_data. */
	struct npu_device *ndev = container_of(filp->private_data,
					       struct npu_device, misc);
	struct npu_ctx *ctx;
	int ret;

	ret = npu_ctx_create(ndev, &ctx);
	if (ret)
		return ret;
	filp->private_data = ctx;
	return 0;
}

static int npu_release(struct inode *inode, struct file *filp)
{
	npu_ctx_release(filp->private_data);
	filp->private_data = NULL;
	return 0;
}

static const struct file_operations npu_fops = {
	.owner = THIS_MODULE,
	.open = npu_open,
	.release = npu_release,
	.unlocked_ioctl = npu_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
#ifdef NPU_URING_CMD
	.uring_cmd = npu_uring_cmd,
#endif
	.llseek = noop_llseek,
};

/* debugfs npu/: removed last at module exit. */
static struct dentry *npu_debugfs_root;

/*
 * npu/npuN/counters: live objects and pages, one "name value" per line.
 * Every value is 0 once no file of the device is open and its deferred
 * release work has finished; the VM test checks exactly that before rmmod.
 */
static int npu_counters_show(struct seq_file *m, void *unused)
{
	struct npu_device *ndev = m->private;
	struct npu_pfa_stats st;

	npu_pfa_stats(&ndev->pfa, &st);
	seq_printf(m, "contexts %d\n", atomic_read(&ndev->nr_contexts));
	seq_printf(m, "allocations %lld\n", (long long)atomic64_read(&ndev->nr_allocations));
	seq_printf(m, "rings %d\n", atomic_read(&ndev->nr_rings));
	seq_printf(m, "pinned_pages %lld\n", (long long)atomic64_read(&ndev->nr_pinned_pages));
	seq_printf(m, "hbm_used_bytes %llu\n",
		   st.total[NPU_CLASS_NORMAL] - st.free[NPU_CLASS_NORMAL]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npu_counters);

/* npu/npuN/hbm: size, host memory backing it, and the scrubbing of freed frames. */
static int npu_hbm_show(struct seq_file *m, void *unused)
{
	struct npu_device *ndev = m->private;
	/* Written under hbm.lock; a statistic, so read without it. */
	u32 populated = READ_ONCE(ndev->hbm.nr_populated);

	seq_printf(m, "size %llu\n", ndev->hbm_size);
	seq_printf(m, "chunks %u\n", ndev->hbm.nr_chunks);
	seq_printf(m, "chunks_populated %u\n", populated);
	seq_printf(m, "backing_bytes %llu\n", (u64)populated * NPU_HBM_CHUNK_SIZE);
	seq_printf(m, "chunks_idle %u\n", READ_ONCE(ndev->hbm.nr_idle));
	seq_printf(m, "chunks_replaced %lld\n", (s64)atomic64_read(&ndev->hbm.nr_replaced));
	seq_printf(m, "chunks_released %lld\n", (s64)atomic64_read(&ndev->hbm.nr_released));
	seq_printf(m, "scrubbed_bytes %lld\n", (s64)atomic64_read(&ndev->hbm.scrubbed_bytes));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npu_hbm);

/*
 * npu/npuN/doorbells: RING_ENTER calls that reached the rings through the
 * ioctl and through the io_uring command, since load (the VM test uses it
 * to see which path the runtime took), and how many of them ran their ring
 * in the calling thread (npu_sched_enter_inline()).
 */
static int npu_doorbells_show(struct seq_file *m, void *unused)
{
	struct npu_device *ndev = m->private;

	seq_printf(m, "ioctl %lld\n", (long long)atomic64_read(&ndev->nr_enter_ioctls));
	seq_printf(m, "uring_cmd %lld\n",
		   (long long)atomic64_read(&ndev->nr_enter_uring_cmds));
	seq_printf(m, "inline %llu\n", npu_sched_inline_runs(ndev));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npu_doorbells);

/* npu/npuN/engines: how the engines shared work since load (struct npu_sched_stats). */
static int npu_engines_show(struct seq_file *m, void *unused)
{
	struct npu_device *ndev = m->private;
	struct npu_sched_stats st;

	npu_sched_stats(ndev, &st);
	seq_printf(m, "split %llu\n", st.split);
	seq_printf(m, "helped %llu\n", st.helped);
	seq_printf(m, "nudged %llu\n", st.nudged);
	seq_printf(m, "db_demoted %llu\n", st.db_demoted);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(npu_engines);

static void npu_device_debugfs_init(struct npu_device *ndev)
{
	/* debugfs failures are not errors: the files are only diagnostics. */
	ndev->debugfs = debugfs_create_dir(ndev->name, npu_debugfs_root);
	debugfs_create_file("counters", 0444, ndev->debugfs, ndev, &npu_counters_fops);
	debugfs_create_file("hbm", 0444, ndev->debugfs, ndev, &npu_hbm_fops);
	debugfs_create_file("doorbells", 0444, ndev->debugfs, ndev, &npu_doorbells_fops);
	debugfs_create_file("engines", 0444, ndev->debugfs, ndev, &npu_engines_fops);
}

static void npu_device_destroy(struct npu_device *ndev)
{
	/* Waits for readers of the files, which use ndev. */
	debugfs_remove_recursive(ndev->debugfs);
	misc_deregister(&ndev->misc);
	WARN_ON(atomic_read(&ndev->nr_contexts));
	WARN_ON(atomic64_read(&ndev->nr_allocations));
	WARN_ON(atomic_read(&ndev->nr_rings));
	WARN_ON(atomic64_read(&ndev->nr_pinned_pages));
	npu_sched_fini(ndev);
	npu_limits_fini(&ndev->limits);
	idr_destroy(&ndev->ctx_idr);
	mutex_destroy(&ndev->lock);
	npu_hbm_fini(&ndev->hbm);
	npu_pfa_fini(&ndev->pfa);
	kfree(ndev);
}

static int npu_device_create(unsigned int index, struct npu_device **out)
{
	u32 nr_frames = (u32)hbm_mb << (20 - NPU_PAGE_SHIFT);
	struct npu_device *ndev;
	int ret;

	ndev = kzalloc(sizeof(*ndev), GFP_KERNEL);
	if (!ndev)
		return -ENOMEM;
	ndev->index = index;
	ndev->hbm_size = (u64)nr_frames << NPU_PAGE_SHIFT;
	mutex_init(&ndev->lock);
	idr_init(&ndev->ctx_idr);
	atomic_set(&ndev->nr_contexts, 0);
	atomic64_set(&ndev->nr_allocations, 0);
	atomic_set(&ndev->nr_rings, 0);
	atomic64_set(&ndev->nr_pinned_pages, 0);
	atomic64_set(&ndev->nr_enter_ioctls, 0);
	atomic64_set(&ndev->nr_enter_uring_cmds, 0);

	ret = npu_pfa_init(&ndev->pfa, nr_frames);
	if (ret)
		goto err_free_ndev;
	ret = npu_hbm_init(&ndev->hbm, nr_frames);
	if (ret)
		goto err_fini_pfa;
	ret = npu_limits_init(&ndev->limits, ndev->hbm_size);
	if (ret)
		goto err_fini_hbm;
	ret = npu_sched_init(ndev);
	if (ret)
		goto err_fini_limits;

	snprintf(ndev->name, sizeof(ndev->name), "npu%u", index);
	ndev->misc.minor = MISC_DYNAMIC_MINOR;
	ndev->misc.name = ndev->name;
	ndev->misc.fops = &npu_fops;
	ndev->misc.mode = 0666;
	ret = misc_register(&ndev->misc);
	if (ret)
		goto err_fini_sched;
	npu_device_debugfs_init(ndev);
	*out = ndev;
	return 0;

err_fini_sched:
	npu_sched_fini(ndev);
err_fini_limits:
	npu_limits_fini(&ndev->limits);
err_fini_hbm:
	npu_hbm_fini(&ndev->hbm);
err_fini_pfa:
	npu_pfa_fini(&ndev->pfa);
err_free_ndev:
	idr_destroy(&ndev->ctx_idr);
	mutex_destroy(&ndev->lock);
	kfree(ndev);
	return ret;
}

static void npu_destroy_devices(void)
{
	struct npu_device *ndev;

	while ((ndev = npu_dev_pop()))
		npu_device_destroy(ndev);
}

static int __init npu_init(void)
{
	unsigned int i;
	int ret;

	if (!devices || devices > NPU_MAX_DEVICES) {
		pr_err("npu: devices=%u, must be 1..%u\n", devices, NPU_MAX_DEVICES);
		return -EINVAL;
	}
	if (!hbm_mb || hbm_mb > NPU_MAX_HBM_MB) {
		pr_err("npu: hbm_mb=%u, must be 1..%u\n", hbm_mb, NPU_MAX_HBM_MB);
		return -EINVAL;
	}
	npu_debugfs_root = debugfs_create_dir("npu", NULL);
	for (i = 0; i < devices; i++) {
		struct npu_device *ndev;

		ret = npu_device_create(i, &ndev);
		if (ret)
			goto err_destroy_devices;
		npu_dev_push(ndev);
	}
	pr_info("npu: %u device(s), %u MiB HBM each\n", devices, hbm_mb);
	return 0;

err_destroy_devices:
	npu_destroy_devices();
	debugfs_remove_recursive(npu_debugfs_root);
	return ret;
}

static void __exit npu_exit(void)
{
	npu_destroy_devices();
	debugfs_remove_recursive(npu_debugfs_root);
}

module_init(npu_init);
module_exit(npu_exit);

MODULE_LICENSE("Dual MIT/GPL");
MODULE_AUTHOR("The npu memory stack authors");
MODULE_DESCRIPTION("Emulated NPU: device memory, address spaces and copy engines");
MODULE_VERSION("1.0");
