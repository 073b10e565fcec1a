// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of sharing in the driver under the mock kernel: IPC keys and
 * whitelists, physical memory and VMM mappings, shareable handles, the
 * npu-smi queries, and every error path of them under failure injection.
 *
 * All files of one test are opened by this process, so they share a TGID:
 * whitelists are exercised with that TGID on and off the list (the
 * system tests cover separate processes).
 */
#include <stdio.h>
#include <stdlib.h>

#include "npu_test_util.h"
#include <linux/sched.h>

#define T_VA2	(T_VA_BASE + T_VA_SIZE)

struct t_file {
	struct file *f;
	struct t_ring r;
	uint32_t tgid;
};

static void t_file_open(struct t_file *t, uint64_t base)
{
	struct npu_ctx_setup s = { .va_base = base, .va_size = T_VA_SIZE };

	memset(t, 0, sizeof(*t));
	assert_int_equal(t_open(&t->f), 0);
	assert_int_equal(t_ioctl(t->f, NPU_IOCTL_CTX_SETUP, &s), 0);
	t->tgid = s.tgid;
	assert_int_equal(t_ring_create(t->f, &t->r, 4, 4), 0);
}

static void t_file_close(struct t_file *t)
{
	t_close(t->f);
	t_ring_unmap(&t->r);
}

static int32_t t_h2d(struct t_file *t, uint64_t va, const void *buf, uint64_t len)
{
	struct npu_sqe s = t_copy(NPU_DIR_H2D, va, (uintptr_t)buf, len);

	return t_ring_run(t->f, &t->r, &s);
}

static int32_t t_d2h(struct t_file *t, void *buf, uint64_t va, uint64_t len)
{
	struct npu_sqe s = t_copy(NPU_DIR_D2H, (uintptr_t)buf, va, len);

	return t_ring_run(t->f, &t->r, &s);
}

static long t_export(struct file *f, uint64_t va, uint64_t size, uint32_t flags, char *key)
{
	struct npu_ipc_export e = { .va = va, .size = size, .flags = flags };
	long ret = t_ioctl(f, NPU_IOCTL_IPC_EXPORT, &e);

	if (!ret)
		memcpy(key, e.key, NPU_IPC_KEY_LEN);
	return ret;
}

static long t_import(struct file *f, const char *key, struct npu_ipc_import *out)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->key, key, NPU_IPC_KEY_LEN);
	return t_ioctl(f, NPU_IOCTL_IPC_IMPORT, out);
}

static long t_set_pid(struct file *f, const char *key, uint64_t handle, int32_t *pids,
		      uint32_t n)
{
	struct npu_share_set_pid sp = { .handle = handle, .pids = (uintptr_t)pids, .count = n };

	if (key)
		memcpy(sp.key, key, NPU_IPC_KEY_LEN);
	return t_ioctl(f, key ? NPU_IOCTL_IPC_SET_PID : NPU_IOCTL_SHARE_SET_PID, &sp);
}

static long t_phys(struct file *f, uint64_t size, uint32_t cls, uint32_t *h)
{
	struct npu_phys_alloc pa = { .size = size, .page_class = cls };
	long ret = t_ioctl(f, NPU_IOCTL_PHYS_ALLOC, &pa);

	*h = pa.handle;
	return ret;
}

static long t_phys_free(struct file *f, uint32_t h)
{
	struct npu_phys_free pf = { .handle = h };

	return t_ioctl(f, NPU_IOCTL_PHYS_FREE, &pf);
}

static long t_reserve(struct file *f, uint64_t size, uint64_t want, uint64_t *va)
{
	struct npu_vmm_reserve r = { .size = size, .va = want };
	long ret = t_ioctl(f, NPU_IOCTL_VMM_RESERVE, &r);

	*va = r.va;
	return ret;
}

static long t_map_h(struct file *f, uint64_t va, uint64_t size, uint32_t h, uint32_t flags)
{
	struct npu_vmm_map m = { .va = va, .size = size, .handle = h, .flags = flags };

	return t_ioctl(f, NPU_IOCTL_VMM_MAP, &m);
}

static long t_unmap(struct file *f, uint64_t va)
{
	struct npu_vmm_unmap u = { .va = va };

	return t_ioctl(f, NPU_IOCTL_VMM_UNMAP, &u);
}

static long t_release(struct file *f, uint64_t va)
{
	struct npu_vmm_release r = { .va = va };

	return t_ioctl(f, NPU_IOCTL_VMM_RELEASE, &r);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 13 + seed);
}

static void assert_idle(struct file *f)
{
	struct npu_device_info info;

	t_device_info(f, &info);
	assert_int_equal(info.hbm_free, info.hbm_total);
	assert_int_equal(info.allocations, 0);
}

static int setup(void **state)
{
	(void)state;
	mock_fail_reset();
	return mockdev_module_load("devices=2 hbm_mb=4096");
}

static int teardown(void **state)
{
	(void)state;
	mockdev_module_unload();
	return mock_live_objects() ? -1 : 0;
}

static void test_ipc_keys_are_64_hex_characters_and_differ(void **state)
{
	struct npu_mem_alloc a;
	char k1[NPU_IPC_KEY_LEN], k2[NPU_IPC_KEY_LEN];
	struct t_file t;

	(void)state;
	t_file_open(&t, T_VA_BASE);
	assert_int_equal(t_alloc(t.f, 8192, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_export(t.f, a.va, 8192, 0, k1), 0);
	assert_int_equal(t_export(t.f, a.va, 4096, 0, k2), 0);
	for (int i = 0; i < NPU_IPC_KEY_LEN; i++) {
		assert_true((k1[i] >= '0' && k1[i] <= '9') || (k1[i] >= 'a' && k1[i] <= 'f'));
		assert_true((k2[i] >= '0' && k2[i] <= '9') || (k2[i] >= 'a' && k2[i] <= 'f'));
	}
	assert_memory_not_equal(k1, k2, NPU_IPC_KEY_LEN);
	/* Not a base, past the end, size 0, unknown flag, not mapped. */
	assert_int_equal(t_export(t.f, a.va + 4096, 4096, 0, k2), -EINVAL);
	assert_int_equal(t_export(t.f, a.va, a.mapped_size + 1, 0, k2), -EINVAL);
	assert_int_equal(t_export(t.f, a.va, 0, 0, k2), -EINVAL);
	assert_int_equal(t_export(t.f, a.va, 4096, 2, k2), -EINVAL);
	assert_int_equal(t_export(t.f, T_VA_BASE + T_GIB, 4096, 0, k2), -EINVAL);
	t_file_close(&t);
}

static void test_import_shares_frames_that_outlive_the_exporter(void **state)
{
	static unsigned char src[3 << 20], dst[3 << 20];
	struct npu_ipc_import imp, imp2;
	struct npu_mem_alloc a;
	struct npu_device_info info;
	char key[NPU_IPC_KEY_LEN];
	struct t_file x, y;
	uint64_t free_with_both;

	(void)state;
	t_file_open(&x, T_VA_BASE);
	t_file_open(&y, T_VA2);
	assert_int_equal(t_alloc(x.f, sizeof(src), NPU_POLICY_HUGE_FIRST, 0, &a), 0);
	fill(src, sizeof(src), 1);
	assert_int_equal(t_h2d(&x, a.va, src, sizeof(src)), 0);
	assert_int_equal(t_export(x.f, a.va, sizeof(src), NPU_SHARE_NO_WHITELIST, key), 0);
	assert_int_equal(t_import(y.f, key, &imp), 0);
	assert_int_equal(imp.size, 4 << 20);
	assert_int_equal(imp.page_size, 2 << 20);
	assert_int_equal(imp.owner_tgid, x.tgid);
	assert_int_equal(t_d2h(&y, dst, imp.va, sizeof(dst)), 0);
	assert_memory_equal(src, dst, sizeof(src));
	/* Writes through the import are seen by the exporter. */
	fill(src, sizeof(src), 2);
	assert_int_equal(t_h2d(&y, imp.va, src, sizeof(src)), 0);
	assert_int_equal(t_d2h(&x, dst, a.va, sizeof(dst)), 0);
	assert_memory_equal(src, dst, sizeof(src));
	/* The exporter frees and closes: no new import, the old one still works. */
	t_device_info(y.f, &info);
	free_with_both = info.hbm_free;
	assert_int_equal(t_free(x.f, a.va), 0);
	t_file_close(&x);
	assert_int_equal(t_import(y.f, key, &imp2), -ENOENT);
	t_device_info(y.f, &info);
	assert_int_equal(info.hbm_free, free_with_both);
	assert_int_equal(info.allocations, 1);
	assert_int_equal(t_d2h(&y, dst, imp.va, sizeof(dst)), 0);
	assert_memory_equal(src, dst, sizeof(src));
	/* MEM_FREE is not how an import goes; UNIMPORT is, and frees the frames. */
	assert_int_equal(t_free(y.f, imp.va), -EINVAL);
	{
		struct npu_ipc_unimport u = { .va = imp.va + 4096 };

		assert_int_equal(t_ioctl(y.f, NPU_IOCTL_IPC_UNIMPORT, &u), -EINVAL);
		u.va = imp.va;
		assert_int_equal(t_ioctl(y.f, NPU_IOCTL_IPC_UNIMPORT, &u), 0);
		assert_int_equal(t_ioctl(y.f, NPU_IOCTL_IPC_UNIMPORT, &u), -ENOENT);
	}
	assert_idle(y.f);
	t_file_close(&y);
}

static void test_whitelist_decides_who_imports(void **state)
{
	struct npu_ipc_import imp;
	struct npu_mem_alloc a;
	char key[NPU_IPC_KEY_LEN], bad[NPU_IPC_KEY_LEN];
	struct t_file x, y;
	int32_t pids[2];

	(void)state;
	t_file_open(&x, T_VA_BASE);
	t_file_open(&y, T_VA2);
	assert_int_equal(t_alloc(x.f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_export(x.f, a.va, 4096, 0, key), 0);
	assert_int_equal(t_import(y.f, key, &imp), -EPERM);
	/* Another process (init) on the list does not let this one in. */
	pids[0] = 1;
	assert_int_equal(t_set_pid(x.f, key, 0, pids, 1), 0);
	assert_int_equal(t_import(y.f, key, &imp), -EPERM);
	/* Only the exporting file extends the list. */
	pids[1] = (int32_t)y.tgid;
	assert_int_equal(t_set_pid(y.f, key, 0, pids + 1, 1), -EPERM);
	assert_int_equal(t_set_pid(x.f, key, 0, pids + 1, 0), -EINVAL);
	assert_int_equal(t_set_pid(x.f, key, 0, pids + 1, NPU_SHARE_MAX_PIDS + 1), -EINVAL);
	assert_int_equal(t_set_pid(x.f, key, 0, (int32_t *)8, 1), -EFAULT);
	assert_int_equal(t_set_pid(x.f, key, 0, pids + 1, 1), 0);
	assert_int_equal(t_import(y.f, key, &imp), 0);
	/* Wrong keys: one character off, not hex, upper case. */
	memcpy(bad, key, sizeof(bad));
	bad[0] = bad[0] == 'a' ? 'b' : 'a';
	assert_int_equal(t_import(y.f, bad, &imp), -ENOENT);
	memset(bad, 'g', sizeof(bad));
	assert_int_equal(t_import(y.f, bad, &imp), -ENOENT);
	memset(bad, 'A', sizeof(bad));
	assert_int_equal(t_import(y.f, bad, &imp), -ENOENT);
	/* Only the exporter destroys. */
	{
		struct npu_ipc_destroy d;

		memcpy(d.key, key, sizeof(d.key));
		assert_int_equal(t_ioctl(y.f, NPU_IOCTL_IPC_DESTROY, &d), -ENOENT);
		assert_int_equal(t_ioctl(x.f, NPU_IOCTL_IPC_DESTROY, &d), 0);
		assert_int_equal(t_ioctl(x.f, NPU_IOCTL_IPC_DESTROY, &d), -ENOENT);
	}
	assert_int_equal(t_set_pid(x.f, key, 0, pids, 1), -ENOENT);
	/* No whitelist: SET_PID is not permitted. */
	assert_int_equal(t_export(x.f, a.va, 4096, NPU_SHARE_NO_WHITELIST, key), 0);
	assert_int_equal(t_set_pid(x.f, key, 0, pids, 1), -EPERM);
	t_file_close(&y);	/* releases its import */
	t_file_close(&x);	/* releases its key and allocation */
}

/* A pid no process has: pid_max itself (pids are below it). */
static int32_t t_unused_pid(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	int pid_max = 0;

	assert_non_null(f);
	assert_int_equal(fscanf(f, "%d", &pid_max), 1);
	fclose(f);
	return pid_max;
}

static uint32_t t_whitelist_len(struct file *f)
{
	struct npu_smi_share recs[4];
	struct npu_smi_query q = { .buf = (uintptr_t)recs, .count = 4 };

	assert_int_equal(t_ioctl(f, NPU_IOCTL_SMI_SHARES, &q), 0);
	assert_int_equal(q.written, 1);
	return recs[0].whitelist;
}

static void test_whitelist_refuses_pids_without_a_process(void **state)
{
	struct npu_share_export se = { 0 };
	struct npu_mem_alloc a;
	char key[NPU_IPC_KEY_LEN];
	struct t_file x;
	uint32_t h;
	int32_t pids[3];

	(void)state;
	t_file_open(&x, T_VA_BASE);
	assert_int_equal(t_alloc(x.f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_export(x.f, a.va, 4096, 0, key), 0);
	pids[0] = 1;
	pids[1] = t_unused_pid();
	pids[2] = -5;
	/* All or nothing: the good pid before the bad one is not added. */
	assert_int_equal(t_set_pid(x.f, key, 0, pids, 2), -ESRCH);
	assert_int_equal(t_whitelist_len(x.f), 0);
	assert_int_equal(t_set_pid(x.f, key, 0, pids + 2, 1), -ESRCH);
	pids[2] = 0;
	assert_int_equal(t_set_pid(x.f, key, 0, pids + 2, 1), -ESRCH);
	assert_int_equal(t_set_pid(x.f, key, 0, pids, 1), 0);
	assert_int_equal(t_whitelist_len(x.f), 1);
	/* The export's own errors come first. */
	key[0] = key[0] == 'a' ? 'b' : 'a';
	assert_int_equal(t_set_pid(x.f, key, 0, pids + 1, 1), -ENOENT);
	assert_int_equal(t_free(x.f, a.va), 0);
	t_file_close(&x);

	/* Shareable handles: the same rule. */
	t_file_open(&x, T_VA_BASE);
	assert_int_equal(t_phys(x.f, 2 << 20, NPU_CLASS_HUGE, &h), 0);
	se.handle = h;
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_SHARE_EXPORT, &se), 0);
	assert_int_equal(t_set_pid(x.f, NULL, se.share, pids + 1, 1), -ESRCH);
	assert_int_equal(t_whitelist_len(x.f), 0);
	assert_int_equal(t_set_pid(x.f, NULL, se.share, pids, 1), 0);
	assert_int_equal(t_whitelist_len(x.f), 1);
	assert_int_equal(t_phys_free(x.f, h), 0);
	t_file_close(&x);
}

static void test_whitelist_refuses_a_new_process_with_a_listed_pid(void **state)
{
	struct task_struct *self = mockdev_task_self();
	u64 start = self->start_boottime;
	struct npu_ipc_import imp;
	struct npu_mem_alloc a;
	char key[NPU_IPC_KEY_LEN];
	struct t_file x, y, z;
	int32_t pid;

	(void)state;
	/* The mock's start_boottime: field 22 of /proc/self/stat, in ns. */
	{
		char buf[1024], *p;
		unsigned long long ticks = 0;
		FILE *f = fopen("/proc/self/stat", "r");

		assert_non_null(f);
		assert_non_null(fgets(buf, sizeof(buf), f));
		fclose(f);
		p = strrchr(buf, ')');
		assert_non_null(p);
		assert_int_equal(sscanf(p + 2, "%*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
					"%*s %*s %*s %*s %*s %*s %*s %llu", &ticks), 1);
		assert_int_not_equal(ticks, 0);
		assert_int_equal(start, ticks * (1000000000ULL / (unsigned long long)sysconf(_SC_CLK_TCK)));
	}
	t_file_open(&x, T_VA_BASE);
	pid = (int32_t)x.tgid;
	assert_int_equal(pid, getpid());
	assert_int_equal(t_alloc(x.f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_export(x.f, a.va, 4096, 0, key), 0);
	assert_int_equal(t_set_pid(x.f, key, 0, &pid, 1), 0);
	/*
	 * A process that got this pid after the listed one exited: same TGID,
	 * a later start. Its file is not on the list.
	 */
	self->start_boottime = start + 10 * 1000000ULL;
	t_file_open(&y, T_VA2);
	self->start_boottime = start;
	assert_int_equal(y.tgid, x.tgid);
	assert_int_equal(t_import(y.f, key, &imp), -EPERM);
	t_file_close(&y);
	/* The listed process itself is. */
	t_file_open(&z, T_VA2);
	assert_int_equal(t_import(z.f, key, &imp), 0);
	t_file_close(&z);
	t_file_close(&x);
}

static void test_copy_spans_handles_mapped_back_to_back(void **state)
{
	static unsigned char src[6 << 20], dst[6 << 20];
	struct npu_device_info info;
	uint32_t h[3];
	uint64_t va, free_mapped;
	struct t_file t;

	(void)state;
	t_file_open(&t, T_VA_BASE);
	assert_int_equal(t_phys(t.f, 2 << 20, NPU_CLASS_NORMAL, &h[0]), 0);
	assert_int_equal(t_phys(t.f, 2 << 20, NPU_CLASS_HUGE, &h[1]), 0);
	assert_int_equal(t_phys(t.f, 2 << 20, NPU_CLASS_HUGE, &h[2]), 0);
	assert_int_equal(t_reserve(t.f, 8 << 20, 0, &va), 0);
	assert_int_equal(va % (8 << 20), 0);
	assert_int_equal(t_map_h(t.f, va, 2 << 20, h[0], 0), 0);
	assert_int_equal(t_map_h(t.f, va + (2 << 20), 2 << 20, h[1], 0), 0);
	assert_int_equal(t_map_h(t.f, va + (4 << 20), 2 << 20, h[2], NPU_MAP_NOACCESS), 0);
	fill(src, sizeof(src), 5);
	/* Across two mappings; into the no-access one and the hole after it: refused. */
	assert_int_equal(t_h2d(&t, va + 4096, src, (4 << 20) - 4096), 0);
	assert_int_equal(t_d2h(&t, dst, va + 4096, (4 << 20) - 4096), 0);
	assert_memory_equal(src, dst, (4 << 20) - 4096);
	assert_int_equal(t_h2d(&t, va, src, 6 << 20), -EFAULT);
	{
		struct npu_vmm_access acc = { .va = va + (4 << 20), .size = 2 << 20,
					      .loc_type = NPU_LOC_DEVICE, .access = NPU_ACCESS_RW };

		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_VMM_GET_ACCESS, &(struct npu_vmm_access){
			.va = va + (5 << 20), .loc_type = NPU_LOC_DEVICE }), 0);
		acc.access = NPU_ACCESS_READ;
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_VMM_SET_ACCESS, &acc), -EINVAL);
		acc.access = NPU_ACCESS_RW;
		acc.size = 4 << 20;
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_VMM_SET_ACCESS, &acc), -EINVAL);
		acc.size = 2 << 20;
		acc.loc_id = 7;
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_VMM_SET_ACCESS, &acc), -EINVAL);
		acc.loc_id = 0;
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_VMM_SET_ACCESS, &acc), 0);
		acc.size = 0;
		acc.access = 0;
		acc.va = va + (5 << 20);
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_VMM_GET_ACCESS, &acc), 0);
		assert_int_equal(acc.access, NPU_ACCESS_RW);
	}
	assert_int_equal(t_h2d(&t, va, src, 6 << 20), 0);
	assert_int_equal(t_d2h(&t, dst, va, 6 << 20), 0);
	assert_memory_equal(src, dst, 6 << 20);
	assert_int_equal(t_h2d(&t, va + (5 << 20), src, 2 << 20), -EFAULT);
	/* Freeing mapped handles keeps the frames until the unmap. */
	t_device_info(t.f, &info);
	free_mapped = info.hbm_free;
	for (int i = 0; i < 3; i++)
		assert_int_equal(t_phys_free(t.f, h[i]), 0);
	assert_int_equal(t_phys_free(t.f, h[0]), -ENOENT);
	t_device_info(t.f, &info);
	assert_int_equal(info.hbm_free, free_mapped);
	assert_int_equal(t_d2h(&t, dst, va, 6 << 20), 0);
	assert_memory_equal(src, dst, 6 << 20);
	/* Retain hands out a new handle for memory whose handles are gone. */
	{
		struct npu_phys_retain pr = { .va = va + (3 << 20) };
		struct npu_phys_info pi = { 0 };

		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_PHYS_RETAIN, &pr), 0);
		pi.handle = pr.handle;
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_PHYS_INFO, &pi), 0);
		assert_int_equal(pi.page_class, NPU_CLASS_HUGE);
		assert_int_equal(pi.size, 2 << 20);
		assert_int_equal(pi.refs, 1);
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_PHYS_RETAIN, &pr), 0);
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_PHYS_INFO, &pi), 0);
		assert_int_equal(pi.refs, 2);
		pr.va = va + (6 << 20);
		assert_int_equal(t_ioctl(t.f, NPU_IOCTL_PHYS_RETAIN, &pr), -EINVAL);
	}
	assert_int_equal(t_release(t.f, va), -EBUSY);
	assert_int_equal(t_unmap(t.f, va + 4096), -EINVAL);
	for (int i = 0; i < 3; i++)
		assert_int_equal(t_unmap(t.f, va + ((uint64_t)i << 21)), 0);
	assert_int_equal(t_release(t.f, va + 4096), -EINVAL);
	assert_int_equal(t_release(t.f, va), 0);
	t_device_info(t.f, &info);
	assert_int_equal(info.allocations, 1);	/* the retained handle */
	t_file_close(&t);
}

static void test_vmm_rejects_bad_sizes_addresses_and_mixing(void **state)
{
	struct npu_share_export se = { 0 };
	struct npu_share_import si = { 0 };
	uint32_t h, h1g, himp;
	uint64_t va, va2;
	struct t_file x, y;

	(void)state;
	t_file_open(&x, T_VA_BASE);
	t_file_open(&y, T_VA2);
	assert_int_equal(t_phys(x.f, 3 << 20, NPU_CLASS_HUGE, &h), -EINVAL);
	assert_int_equal(t_phys(x.f, 4096, NPU_CLASS_NORMAL, &h), -EINVAL);
	assert_int_equal(t_phys(x.f, 2 << 20, NPU_CLASS_COUNT, &h), -EINVAL);
	assert_int_equal(t_phys(x.f, 2 << 20, NPU_CLASS_HUGE1G, &h), -EINVAL);
	assert_int_equal(t_phys(x.f, 8ULL << 30, NPU_CLASS_HUGE, &h), -ENOMEM);
	assert_int_equal(t_phys(x.f, 1ULL << 30, NPU_CLASS_HUGE1G, &h1g), 0);
	assert_int_equal(t_phys(x.f, 2 << 20, NPU_CLASS_HUGE, &h), 0);
	/* Reservations: flags, size 0, fixed address misaligned / outside / in use. */
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_VMM_RESERVE,
				 &(struct npu_vmm_reserve){ .size = 2 << 20, .flags = 2 }), -EINVAL);
	assert_int_equal(t_reserve(x.f, 0, 0, &va), -EINVAL);
	assert_int_equal(t_reserve(x.f, 4 << 20, T_VA_BASE + (2 << 20), &va), -EINVAL);
	assert_int_equal(t_reserve(x.f, 4 << 20, T_VA2, &va), -EINVAL);
	assert_int_equal(t_reserve(x.f, 4 << 20, T_VA_BASE + (8 << 20), &va), 0);
	assert_int_equal(va, T_VA_BASE + (8 << 20));
	assert_int_equal(t_reserve(x.f, 4 << 20, T_VA_BASE + (8 << 20), &va2), -EEXIST);
	assert_int_equal(t_reserve(x.f, 2ULL << 30, 0, &va2), 0);
	assert_int_equal(va2 % (1ULL << 30), 0);
	/* Maps: size, offset, alignment, outside a reservation, overlap, unknown handle. */
	assert_int_equal(t_map_h(x.f, va, 4 << 20, h, 0), -EINVAL);
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_VMM_MAP, &(struct npu_vmm_map){
		.va = va, .size = 2 << 20, .offset = 4096, .handle = h }), -EINVAL);
	assert_int_equal(t_map_h(x.f, va, 2 << 20, h, 2), -EINVAL);
	assert_int_equal(t_map_h(x.f, va + 4096, 2 << 20, h, 0), -EINVAL);
	assert_int_equal(t_map_h(x.f, va + (4 << 20), 2 << 20, h, 0), -EINVAL);
	assert_int_equal(t_map_h(x.f, T_VA_BASE, 2 << 20, h, 0), -EINVAL);
	assert_int_equal(t_map_h(x.f, va, 2 << 20, 999, 0), -ENOENT);
	assert_int_equal(t_map_h(x.f, va2 + (1 << 20) * 2, 1ULL << 30, h1g, 0), -EINVAL);
	assert_int_equal(t_map_h(x.f, va2 + (1ULL << 30), 1ULL << 30, h1g, 0), 0);
	assert_int_equal(t_map_h(x.f, va, 2 << 20, h, 0), 0);
	assert_int_equal(t_map_h(x.f, va, 2 << 20, h, 0), -EEXIST);
	/* A handle of one file means nothing in another. */
	assert_int_equal(t_phys_free(y.f, h), -ENOENT);
	assert_int_equal(t_map_h(y.f, va, 2 << 20, h, 0), -ENOENT);
	/* Shareable handle: same process imports refused; imported handles do not mix. */
	se.handle = h;
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_SHARE_EXPORT, &se), 0);
	assert_int_not_equal(se.share, 0);
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_SHARE_EXPORT, &se), -EEXIST);
	si.share = se.share;
	assert_int_equal(t_ioctl(y.f, NPU_IOCTL_SHARE_IMPORT, &si), -EPERM);
	{
		int32_t pid = (int32_t)y.tgid;

		assert_int_equal(t_set_pid(y.f, NULL, se.share, &pid, 1), -EPERM);
		assert_int_equal(t_set_pid(x.f, NULL, se.share + 1, &pid, 1), -ENOENT);
		assert_int_equal(t_set_pid(x.f, NULL, se.share, &pid, 1), 0);
	}
	assert_int_equal(t_ioctl(y.f, NPU_IOCTL_SHARE_IMPORT, &si), -EINVAL);	/* same tgid */
	se.handle = h1g;
	se.flags = NPU_SHARE_NO_WHITELIST;
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_SHARE_EXPORT, &se), 0);
	/* Release with the maps still there: closing the file frees everything. */
	(void)himp;
	t_file_close(&y);
	t_file_close(&x);
}

static void test_smi_queries_report_processes_and_exports(void **state)
{
	struct npu_smi_proc procs[4];
	struct npu_smi_share recs[4];
	struct npu_smi_query q = { .buf = (uintptr_t)procs, .count = 4 };
	struct npu_ipc_import imp;
	struct npu_mem_alloc a;
	char key[NPU_IPC_KEY_LEN];
	struct t_file x, y;

	(void)state;
	t_file_open(&x, T_VA_BASE);
	t_file_open(&y, T_VA2);
	assert_int_equal(t_alloc(x.f, 2 << 20, NPU_POLICY_HUGE_ONLY, 0, &a), 0);
	assert_int_equal(t_export(x.f, a.va, 2 << 20, NPU_SHARE_NO_WHITELIST, key), 0);
	assert_int_equal(t_import(y.f, key, &imp), 0);
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_SMI_PROCS, &q), 0);
	assert_int_equal(q.total, 2);
	assert_int_equal(q.written, 2);
	assert_int_equal(procs[0].mapped_bytes, 2 << 20);
	assert_int_equal(procs[0].allocations, 1);
	assert_int_equal(procs[1].imports, 1);
	assert_int_equal(procs[1].mapped_bytes, 2 << 20);
	q.count = 1;
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_SMI_PROCS, &q), 0);
	assert_int_equal(q.total, 2);
	assert_int_equal(q.written, 1);
	q.buf = 8;
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_SMI_PROCS, &q), -EFAULT);
	q = (struct npu_smi_query){ .buf = (uintptr_t)recs, .count = 4 };
	assert_int_equal(t_ioctl(y.f, NPU_IOCTL_SMI_SHARES, &q), 0);
	assert_int_equal(q.total, 2);
	assert_int_equal(recs[0].kind, NPU_SMI_IPC_KEY);
	assert_int_equal(recs[0].tgid, x.tgid);
	assert_int_equal(recs[0].whitelist, UINT32_MAX);
	assert_memory_equal(recs[0].tag, key, 8);
	assert_int_equal(recs[0].tag[8], 0);
	assert_int_equal(recs[1].kind, NPU_SMI_IMPORTER);
	assert_int_equal(recs[1].size, 2 << 20);
	q.count = NPU_SHARE_MAX_PIDS * 2;
	assert_int_equal(t_ioctl(y.f, NPU_IOCTL_SMI_SHARES, &q), -EINVAL);
	t_file_close(&x);
	q = (struct npu_smi_query){ .buf = (uintptr_t)recs, .count = 4 };
	assert_int_equal(t_ioctl(y.f, NPU_IOCTL_SMI_SHARES, &q), 0);
	assert_int_equal(q.total, 0);
	t_file_close(&y);
}

/*
 * Every sharing call under failure injection: for n = 1, 2, ... the n-th
 * allocation (or user copy) fails; whatever the calls return, closing the
 * files and unloading must leave no object behind.
 */
static void share_scenario(void)
{
	static unsigned char buf[4 << 20];
	struct npu_share_import si = { 0 };
	struct npu_share_export se = { 0 };
	struct npu_smi_share recs[4];
	struct npu_smi_query q = { .buf = (uintptr_t)recs, .count = 4 };
	struct npu_ipc_import imp;
	struct npu_mem_alloc a;
	char key[NPU_IPC_KEY_LEN] = { 0 };
	struct file *x = NULL, *y = NULL;
	struct npu_ring_create rc;
	uint32_t h = 0, h2 = 0;
	uint64_t va = 0;
	int32_t pid = 1;

	if (t_open(&x) || t_setup_at(x, T_VA_BASE) || t_open(&y) || t_setup_at(y, T_VA2))
		goto out;
	(void)rc;
	if (!t_alloc(x, 2 << 20, NPU_POLICY_HUGE_FIRST, 0, &a)) {
		if (!t_export(x, a.va, 2 << 20, 0, key)) {
			t_set_pid(x, key, 0, &pid, 1);
			t_set_pid(x, key, 0, &pid, 1);
		}
		if (!t_export(x, a.va, 2 << 20, NPU_SHARE_NO_WHITELIST, key))
			t_import(y, key, &imp);
	}
	if (!t_phys(x, 2 << 20, NPU_CLASS_NORMAL, &h) && !t_reserve(x, 4 << 20, 0, &va)) {
		t_map_h(x, va, 2 << 20, h, 0);
		if (!t_phys(x, 2 << 20, NPU_CLASS_HUGE, &h2))
			t_map_h(x, va + (2 << 20), 2 << 20, h2, 0);
		t_ioctl(x, NPU_IOCTL_PHYS_RETAIN, &(struct npu_phys_retain){ .va = va });
	}
	se.handle = h;
	se.flags = NPU_SHARE_NO_WHITELIST;
	if (!t_ioctl(x, NPU_IOCTL_SHARE_EXPORT, &se)) {
		si.share = se.share;
		t_ioctl(y, NPU_IOCTL_SHARE_IMPORT, &si);
	}
	t_ioctl(y, NPU_IOCTL_SMI_SHARES, &q);
	q.buf = (uintptr_t)buf;
	t_ioctl(x, NPU_IOCTL_SMI_PROCS, &q);
	/* Half of it is taken down by hand, the rest by release(). */
	if (va)
		t_unmap(x, va);
	if (h)
		t_phys_free(x, h);
out:
	if (y)
		t_close(y);
	if (x)
		t_close(x);
}

static void run_share_injection(int copy)
{
	unsigned long n;

	mockdev_module_unload();
	for (n = 1; n <= 2000; n++) {
		unsigned long calls_at_arm;
		long base;
		bool fired;

		mock_fail_reset();
		base = mock_live_objects();
		assert_int_equal(mockdev_module_load("devices=2 hbm_mb=2048"), 0);
		calls_at_arm = copy ? mock_user_copy_calls() : mock_alloc_calls();
		if (copy)
			mock_fail_copy_from_user_nth(n);
		else
			mock_fail_alloc_nth(n);
		share_scenario();
		fired = (copy ? mock_user_copy_calls() : mock_alloc_calls()) - calls_at_arm >= n;
		mock_fail_reset();
		mockdev_module_unload();
		if (mock_live_objects() != base)
			fail_msg("n=%lu: %ld live objects leaked", n, mock_live_objects() - base);
		if (!fired) {
			print_message("%lu injected failures, all unwound\n", n - 1);
			assert_true(n > 10);
			break;
		}
	}
	assert_int_equal(mockdev_module_load("devices=2 hbm_mb=4096"), 0);
}

/*
 * A file's full quota of IPC keys: every one is found again by name (the
 * table is a tree: a list searched per export took 100 s for these), the
 * quota is exact, destroying one frees a slot, and closing the file
 * destroys them all.
 */
static void test_full_quota_of_keys_each_found_by_name(void **state)
{
	enum { N = 65536 };
	char (*keys)[NPU_IPC_KEY_LEN] = calloc(N, NPU_IPC_KEY_LEN);
	struct npu_ipc_import imp;
	struct npu_mem_alloc a;
	char extra[NPU_IPC_KEY_LEN];
	struct t_file x, y;
	unsigned int i;

	(void)state;
	assert_non_null(keys);
	t_file_open(&x, T_VA_BASE);
	t_file_open(&y, T_VA2);
	assert_int_equal(t_alloc(x.f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	for (i = 0; i < N; i++)
		assert_int_equal(t_export(x.f, a.va, 4096, NPU_SHARE_NO_WHITELIST, keys[i]), 0);
	assert_int_equal(t_export(x.f, a.va, 4096, 0, extra), -ENOMEM);
	for (i = 0; i < N; i += 4099) {
		assert_int_equal(t_import(y.f, keys[i], &imp), 0);
		assert_int_equal(imp.size, 4096);
		assert_int_equal(t_ioctl(y.f, NPU_IOCTL_IPC_UNIMPORT,
					 &(struct npu_ipc_unimport){ .va = imp.va }), 0);
	}
	assert_int_equal(t_ioctl(x.f, NPU_IOCTL_IPC_DESTROY, keys[N / 2]), 0);
	assert_int_equal(t_import(y.f, keys[N / 2], &imp), -ENOENT);
	assert_int_equal(t_export(x.f, a.va, 4096, 0, extra), 0);
	t_file_close(&x);
	for (i = 0; i < N; i += 8191)
		assert_int_equal(t_import(y.f, keys[i], &imp), -ENOENT);
	assert_idle(y.f);
	t_file_close(&y);
	free(keys);
}

static void test_alloc_failures_in_sharing_unwind_without_leaks(void **state)
{
	(void)state;
	run_share_injection(0);
}

static void test_copy_failures_in_sharing_unwind_without_leaks(void **state)
{
	(void)state;
	run_share_injection(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ipc_keys_are_64_hex_characters_and_differ, setup, teardown),
		cmocka_unit_test_setup_teardown(test_import_shares_frames_that_outlive_the_exporter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_whitelist_decides_who_imports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_whitelist_refuses_pids_without_a_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_whitelist_refuses_a_new_process_with_a_listed_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_spans_handles_mapped_back_to_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vmm_rejects_bad_sizes_addresses_and_mixing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_smi_queries_report_processes_and_exports, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_quota_of_keys_each_found_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_alloc_failures_in_sharing_unwind_without_leaks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_copy_failures_in_sharing_unwind_without_leaks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
