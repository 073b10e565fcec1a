// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Per-process and per-user limits (npu_limits.c): the accounting object is
 * shared by every file of a process (and the user's by its processes),
 * counts are all-or-nothing, every error path gives back what it charged,
 * and releasing many objects costs O(1) each. Ring memory and whitelist
 * entries are charged; a whitelist holds each process once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "npu_test_util.h"

#include "npu_internal.h"
#include "npu_limits.h"

static double t_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static long live_base;

static int load(const char *params)
{
	mock_fail_reset();
	mock_log_clear();
	live_base = mock_live_objects();
	return mockdev_module_load(params);
}

static void unload(void)
{
	mockdev_module_unload();
	assert_int_equal(mock_live_objects(), live_base);
	/* An uncharge below zero or a leaked charge would WARN. */
	assert_int_equal(mock_log_warnings(), 0);
}

/* This process's record on @f's device. */
static void record(struct file *f, struct npu_smi_proc *out)
{
	struct npu_smi_proc recs[32];
	struct npu_smi_query q = { .buf = (uintptr_t)recs, .count = 32 };
	uint32_t i;

	assert_int_equal(t_ioctl(f, NPU_IOCTL_SMI_PROCS, &q), 0);
	for (i = 0; i < q.written; i++) {
		if (recs[i].tgid == (uint32_t)getpid()) {
			*out = recs[i];
			return;
		}
	}
	fail_msg("no record of this process");
}

static struct file *open_setup(void)
{
	struct file *f;

	assert_int_equal(t_open(&f), 0);
	assert_int_equal(t_setup_at(f, T_VA_BASE), 0);
	return f;
}

/* ---- the accounting object itself -------------------------------------- */

static void test_contexts_of_one_tgid_share_one_object(void **state)
{
	struct npu_limits l;
	struct npu_proc *a, *b, *c, *d;

	(void)state;
	assert_int_equal(load("limit_rings=3 limit_hbm_mb=4"), 0);
	assert_int_equal(npu_limits_init(&l, 1ULL << 30), 0);
	assert_int_equal(npu_limits_max(&l, NPU_LIMIT_RINGS), 3);
	assert_int_equal(npu_limits_max(&l, NPU_LIMIT_HBM_BYTES), 4 << 20);
	assert_int_equal(npu_limits_max(&l, NPU_LIMIT_COUNT), 0);
	assert_int_equal(npu_limits_proc_enter(&l, 100, 1000, &a), 0);
	assert_int_equal(npu_limits_proc_enter(&l, 100, 1000, &b), 0);
	assert_int_equal(npu_limits_proc_enter(&l, 101, 1000, &c), 0);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);

	/* The budget is the process's: what one context takes, the other cannot. */
	assert_int_equal(npu_limits_charge(a, NPU_LIMIT_RINGS, 2), 0);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_RINGS, 1), 0);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_RINGS, 1), -ENOSPC);
	/* Another process is not affected. */
	assert_int_equal(npu_limits_charge(c, NPU_LIMIT_RINGS, 3), 0);
	/* Memory limits say -ENOMEM; a huge request neither wraps nor sticks. */
	assert_int_equal(npu_limits_charge(a, NPU_LIMIT_HBM_BYTES, 4 << 20), 0);
	assert_int_equal(npu_limits_charge(a, NPU_LIMIT_HBM_BYTES, 1), -ENOMEM);
	assert_int_equal(npu_limits_charge(a, NPU_LIMIT_HBM_BYTES, ~0ULL), -ENOMEM);
	assert_int_equal(atomic64_read(&a->used[NPU_LIMIT_HBM_BYTES]), 4 << 20);
	npu_limits_uncharge(a, NPU_LIMIT_HBM_BYTES, 4 << 20);
	npu_limits_uncharge(a, NPU_LIMIT_RINGS, 3);
	npu_limits_uncharge(c, NPU_LIMIT_RINGS, 3);

	/* The last context of a TGID takes the object out of the table. */
	npu_limits_proc_leave(a);
	npu_limits_proc_put(a);
	assert_int_equal(npu_limits_proc_enter(&l, 100, 1000, &d), 0);
	assert_ptr_equal(d, b);
	npu_limits_proc_leave(d);
	npu_limits_proc_put(d);
	/* An object that outlives its contexts (a reference) is not found again. */
	npu_limits_proc_get(b);
	npu_limits_proc_leave(b);
	npu_limits_proc_put(b);
	assert_int_equal(npu_limits_proc_enter(&l, 100, 1000, &d), 0);
	assert_ptr_not_equal(d, b);
	npu_limits_proc_put(b);
	npu_limits_proc_leave(d);
	npu_limits_proc_put(d);
	npu_limits_proc_leave(c);
	npu_limits_proc_put(c);
	npu_limits_fini(&l);
	unload();
}

static void test_zero_count_limit_is_refused(void **state)
{
	(void)state;
	live_base = mock_live_objects();
	assert_int_equal(mockdev_module_load("limit_rings=0"), -EINVAL);
	assert_int_equal(mockdev_module_load("limit_ipc_keys=0"), -EINVAL);
	assert_int_equal(mock_live_objects(), live_base);
}

static void test_enter_allocation_failure(void **state)
{
	struct npu_limits l;
	struct npu_proc *p;

	(void)state;
	assert_int_equal(load(""), 0);
	assert_int_equal(npu_limits_init(&l, 1ULL << 30), 0);
	mock_fail_alloc_nth(1);
	assert_int_equal(npu_limits_proc_enter(&l, 7, 1000, &p), -ENOMEM);
	mock_fail_reset();
	assert_true(hash_empty(l.table));
	/* Opening a file fails cleanly too. */
	mock_fail_alloc_nth(2);
	{
		struct file *f = NULL;
		long ret = t_open(&f);

		mock_fail_reset();
		if (!ret)
			t_close(f);
		else
			assert_int_equal(ret, -ENOMEM);
	}
	npu_limits_fini(&l);
	unload();
}

/* ---- through the driver ------------------------------------------------- */

static void test_limits_hold_across_files_of_a_process(void **state)
{
	struct t_ring r[6];
	struct npu_mem_alloc a[6];
	struct npu_smi_proc rec;
	struct file *f, *g;
	int i;

	(void)state;
	assert_int_equal(load("limit_rings=4 limit_allocations=5 limit_hbm_mb=8"), 0);
	f = open_setup();
	g = open_setup();
	for (i = 0; i < 4; i++)
		assert_int_equal(t_ring_create(i & 1 ? g : f, &r[i], 4, 4), 0);
	assert_int_equal(t_ring_create(f, &r[4], 4, 4), -ENOSPC);
	t_ring_unmap(&r[4]);
	assert_int_equal(t_ring_create(g, &r[4], 4, 4), -ENOSPC);
	t_ring_unmap(&r[4]);

	/* HBM: 6 MiB, then 4 more do not fit in 8; 2 do. */
	assert_int_equal(t_alloc(f, 6 << 20, NPU_POLICY_HUGE_ONLY, 0, &a[0]), 0);
	assert_int_equal(t_alloc(g, 4 << 20, NPU_POLICY_HUGE_ONLY, 0, &a[1]), -ENOMEM);
	assert_int_equal(t_alloc(g, 2 << 20, NPU_POLICY_HUGE_ONLY, 0, &a[1]), 0);
	/* Allocations: 5 in all, whatever the HBM (HBM is full: 4 KiB needs none left). */
	assert_int_equal(t_alloc(g, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a[2]), -ENOMEM);
	assert_int_equal(t_free(f, a[0].va), 0);
	for (i = 2; i < 5; i++)
		assert_int_equal(t_alloc(i & 1 ? f : g, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a[i]), 0);
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a[5]), 0);
	assert_int_equal(t_alloc(g, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a[0]), -ENOSPC);

	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_RINGS], 4);
	assert_int_equal(rec.limit[NPU_LIMIT_RINGS], 4);
	assert_int_equal(rec.used[NPU_LIMIT_ALLOCATIONS], 5);
	assert_int_equal(rec.used[NPU_LIMIT_HBM_BYTES], (2 << 20) + 4 * 4096);
	assert_int_equal(rec.limit[NPU_LIMIT_HBM_BYTES], 8 << 20);

	/* Closing g gives back g's share only. */
	t_close(g);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_RINGS], 2);
	assert_int_equal(rec.used[NPU_LIMIT_ALLOCATIONS], 2);
	assert_int_equal(rec.used[NPU_LIMIT_HBM_BYTES], 2 * 4096);
	t_close(f);
	for (i = 0; i < 4; i++)
		t_ring_unmap(&r[i]);

	f = open_setup();
	record(f, &rec);
	for (i = 0; i < NPU_LIMIT_COUNT; i++)
		assert_int_equal(rec.used[i], 0);
	t_close(f);
	unload();
}

/* Memory an importer still holds stays charged to its exporter, then goes. */
static void test_hbm_follows_the_memory_not_the_file(void **state)
{
	struct npu_phys_alloc pa = { .size = 2 << 20, .page_class = NPU_CLASS_HUGE };
	struct npu_phys_free pf = { 0 };
	struct npu_vmm_reserve vr = { .size = 2 << 20 };
	struct npu_vmm_map vm = { 0 };
	struct npu_vmm_release vrel = { 0 };
	struct npu_vmm_unmap vu = { 0 };
	struct npu_smi_proc rec;
	struct file *f;

	(void)state;
	assert_int_equal(load("limit_phys_handles=1"), 0);
	f = open_setup();
	assert_int_equal(t_ioctl(f, NPU_IOCTL_PHYS_ALLOC, &pa), 0);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_PHYS_ALLOC, &pa), -ENOSPC);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_VMM_RESERVE, &vr), 0);
	vm.va = vr.va;
	vm.size = 2 << 20;
	vm.handle = pa.handle;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_VMM_MAP, &vm), 0);
	/* The handle goes; the mapping keeps the memory, still charged. */
	pf.handle = pa.handle;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_PHYS_FREE, &pf), 0);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_PHYS_HANDLES], 0);
	assert_int_equal(rec.used[NPU_LIMIT_HBM_BYTES], 2 << 20);
	vu.va = vr.va;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_VMM_UNMAP, &vu), 0);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_HBM_BYTES], 0);
	vrel.va = vr.va;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_VMM_RELEASE, &vrel), 0);
	t_close(f);
	unload();
}

/* HUGE_FIRST falls back to 4 KiB pages where 2 MiB ones would pass the budget. */
static void test_huge_first_falls_back_under_the_hbm_limit(void **state)
{
	struct npu_mem_alloc a, b;
	struct npu_smi_proc rec;
	struct file *f;

	(void)state;
	assert_int_equal(load("limit_hbm_mb=4"), 0);
	f = open_setup();
	assert_int_equal(t_alloc(f, 2560 << 10, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_alloc(f, 1536 << 10, NPU_POLICY_HUGE_ONLY, 0, &b), -ENOMEM);
	assert_int_equal(t_alloc(f, 1536 << 10, NPU_POLICY_HUGE_FIRST, 0, &b), 0);
	assert_int_equal(b.page_size, 4096);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_HBM_BYTES], 4 << 20);
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_HUGE_FIRST, 0, &b), -ENOMEM);
	t_close(f);
	unload();
}

/*
 * Every failure injected into the charged paths leaves the counters where
 * they were: nothing charged for an object that does not exist.
 */
static void test_failed_calls_charge_nothing(void **state)
{
	struct npu_smi_proc rec;
	unsigned long n;
	struct file *f;

	(void)state;
	assert_int_equal(load(""), 0);
	f = open_setup();
	for (n = 1; n < 40; n++) {
		struct npu_phys_alloc pa = { .size = 2 << 20, .page_class = NPU_CLASS_HUGE };
		struct npu_mem_alloc a;
		struct t_ring r;
		long ret;
		int i;

		mock_fail_alloc_nth(n);
		ret = t_ring_create(f, &r, 8, 8);
		mock_fail_reset();
		if (!ret) {
			struct npu_ring_destroy d = { .ring_id = r.id };

			assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), 0);
		}
		t_ring_unmap(&r);

		mock_fail_pin_nth(n);
		ret = t_ring_create(f, &r, 8, 8);
		mock_fail_reset();
		if (!ret) {
			struct npu_ring_destroy d = { .ring_id = r.id };

			assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), 0);
		}
		t_ring_unmap(&r);

		mock_fail_alloc_nth(n);
		ret = t_alloc(f, 3 << 20, NPU_POLICY_HUGE_FIRST, 0, &a);
		mock_fail_reset();
		if (!ret)
			assert_int_equal(t_free(f, a.va), 0);

		mock_fail_alloc_nth(n);
		ret = t_ioctl(f, NPU_IOCTL_PHYS_ALLOC, &pa);
		mock_fail_reset();
		if (!ret) {
			struct npu_phys_free pf = { .handle = pa.handle };

			assert_int_equal(t_ioctl(f, NPU_IOCTL_PHYS_FREE, &pf), 0);
		}

		record(f, &rec);
		for (i = 0; i < NPU_LIMIT_COUNT; i++) {
			if (rec.used[i])
				fail_msg("n=%lu: limit %d left at %llu", n, i,
					 (unsigned long long)rec.used[i]);
		}
	}
	t_close(f);
	unload();
}

/*
 * Releasing n rings and allocations costs O(1) each: a close with
 * thousands of them takes a small fraction of a second (it used to grow
 * quadratically, from a linear vunmap() and a hand-off to an engine per
 * ring).
 */
static void test_release_of_many_objects_is_fast(void **state)
{
	enum { RINGS = 16384, FILES = 200, ALLOCS = 100000 };
	struct npu_mem_alloc a;
	struct file *f[FILES];
	char *mem;
	double t0, create_ms, release_ms;
	size_t bytes = (size_t)npu_ring_bytes(1, 1);
	int i;

	(void)state;
	assert_int_equal(load("limit_rings=65536"), 0);
	bytes = (bytes + 4095) & ~(size_t)4095;
	mem = t_map(bytes * RINGS);
	for (i = 0; i < FILES; i++)
		f[i] = open_setup();
	t0 = t_now_ms();
	for (i = 0; i < RINGS; i++) {
		struct npu_ring_create c = {
			.addr = (uintptr_t)(mem + (size_t)i * bytes), .size = bytes,
			.sq_entries = 1, .cq_entries = 1,
		};

		assert_int_equal(t_ioctl(f[0], NPU_IOCTL_RING_CREATE, &c), 0);
	}
	for (i = 0; i < ALLOCS; i++)
		assert_int_equal(t_alloc(f[i % FILES], 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	create_ms = t_now_ms() - t0;
	t0 = t_now_ms();
	for (i = 0; i < FILES; i++)
		t_close(f[i]);
	release_ms = t_now_ms() - t0;
	print_message("%d rings + %d allocations: created in %.0f ms, released in %.1f ms\n",
		      RINGS, ALLOCS, create_ms, release_ms);
	/*
	 * Under 1 s, or, where load, sanitizers or qemu-user slow everything
	 * down (1018 ms under ASan beside a loaded build; tens of times
	 * slower under emulation), less than creating the same objects took
	 * in this run: creation is linear, and a release that grew
	 * quadratically again would cost many times more at this size
	 * (natively release takes about a tenth of creation).
	 */
	assert_true(release_ms < 1000 || release_ms < create_ms);
	munmap(mem, bytes * RINGS);
	unload();
}


/* ---- per-user budgets ---------------------------------------------------- */

static void test_processes_of_one_user_share_its_budget(void **state)
{
	struct npu_smi_user recs[4];
	struct npu_smi_query q = { .buf = (uintptr_t)recs, .count = 4 };
	struct npu_limits l;
	struct npu_proc *a, *b, *c;
	uint32_t i;

	(void)state;
	assert_int_equal(load("limit_user_rings=3 limit_user_hbm_mb=4 limit_user_ring_mb=1"), 0);
	assert_int_equal(npu_limits_init(&l, 1ULL << 30), 0);
	assert_int_equal(npu_limits_user_max(&l, NPU_LIMIT_RINGS), 3);
	assert_int_equal(npu_limits_user_max(&l, NPU_LIMIT_RING_BYTES), 1 << 20);
	/* Not set: no per-user limit. */
	assert_true(npu_limits_user_max(&l, NPU_LIMIT_IPC_KEYS) == NPU_LIMIT_NONE);
	assert_int_equal(npu_limits_proc_enter(&l, 100, 1000, &a), 0);
	assert_int_equal(npu_limits_proc_enter(&l, 101, 1000, &b), 0);
	assert_int_equal(npu_limits_proc_enter(&l, 102, 2000, &c), 0);
	assert_ptr_equal(a->user, b->user);
	assert_ptr_not_equal(a->user, c->user);

	/* Each process is far below its own limit, together they are at the user's. */
	assert_int_equal(npu_limits_charge(a, NPU_LIMIT_RINGS, 2), 0);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_RINGS, 1), 0);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_RINGS, 1), -ENOSPC);
	assert_int_equal(atomic64_read(&b->used[NPU_LIMIT_RINGS]), 1);
	assert_int_equal(atomic64_read(&a->user->used[NPU_LIMIT_RINGS]), 3);
	/* Another user is not affected. */
	assert_int_equal(npu_limits_charge(c, NPU_LIMIT_RINGS, 3), 0);
	/* Memory past the user's limit is -ENOMEM, and nothing sticks. */
	assert_int_equal(npu_limits_charge(a, NPU_LIMIT_HBM_BYTES, 3 << 20), 0);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_HBM_BYTES, 2 << 20), -ENOMEM);
	assert_int_equal(atomic64_read(&b->used[NPU_LIMIT_HBM_BYTES]), 0);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_RING_BYTES, (1 << 20) + 1), -ENOMEM);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_RING_BYTES, ~0ULL), -ENOMEM);
	assert_int_equal(npu_limits_charge(b, NPU_LIMIT_RING_BYTES, 1 << 20), 0);

	/* npu-smi sees both users with what they hold and their limits. */
	assert_int_equal(npu_limits_smi_users(&l, &q), 0);
	assert_int_equal(q.total, 2);
	for (i = 0; i < q.written; i++) {
		if (recs[i].uid == 1000) {
			assert_int_equal(recs[i].procs, 2);
			assert_int_equal(recs[i].used[NPU_LIMIT_RINGS], 3);
			assert_int_equal(recs[i].used[NPU_LIMIT_HBM_BYTES], 3 << 20);
			assert_int_equal(recs[i].used[NPU_LIMIT_RING_BYTES], 1 << 20);
			assert_int_equal(recs[i].limit[NPU_LIMIT_RINGS], 3);
			assert_true(recs[i].limit[NPU_LIMIT_PIN_BYTES] == NPU_LIMIT_NONE);
		} else {
			assert_int_equal(recs[i].uid, 2000);
			assert_int_equal(recs[i].procs, 1);
			assert_int_equal(recs[i].used[NPU_LIMIT_RINGS], 3);
		}
	}
	q.pad = 0;
	q.count = 70000;
	assert_int_equal(npu_limits_smi_users(&l, &q), -EINVAL);

	npu_limits_uncharge(a, NPU_LIMIT_RINGS, 2);
	npu_limits_uncharge(b, NPU_LIMIT_RINGS, 1);
	npu_limits_uncharge(c, NPU_LIMIT_RINGS, 3);
	npu_limits_uncharge(a, NPU_LIMIT_HBM_BYTES, 3 << 20);
	npu_limits_uncharge(b, NPU_LIMIT_RING_BYTES, 1 << 20);

	/* A user's object lives while any of its processes' does. */
	npu_limits_proc_leave(a);
	npu_limits_proc_put(a);
	assert_false(hash_empty(l.users));
	npu_limits_proc_leave(b);
	npu_limits_proc_put(b);
	npu_limits_proc_leave(c);
	npu_limits_proc_put(c);
	assert_true(hash_empty(l.users));
	npu_limits_fini(&l);
	unload();
}

/* The uid a file is charged to is its opener's real uid. */
static void test_a_file_charges_its_opener_user(void **state)
{
	struct npu_smi_user recs[8];
	struct npu_smi_query q = { .buf = (uintptr_t)recs, .count = 8 };
	struct t_ring r, r2;
	struct file *f;
	uint32_t i;
	bool found = false;

	(void)state;
	assert_int_equal(load("limit_user_rings=1"), 0);
	f = open_setup();
	assert_int_equal(t_ring_create(f, &r, 64, 64), 0);
	assert_int_equal(t_ring_create(f, &r2, 64, 64), -ENOSPC);
	t_ring_unmap(&r2);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_SMI_USERS, &q), 0);
	for (i = 0; i < q.written; i++) {
		if (recs[i].uid != (uint32_t)getuid())
			continue;
		found = true;
		assert_int_equal(recs[i].used[NPU_LIMIT_RINGS], 1);
		assert_int_equal(recs[i].used[NPU_LIMIT_RING_BYTES], r.bytes);
	}
	assert_true(found);
	q.pad = 1;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_SMI_USERS, &q), -EINVAL);
	t_close(f);
	t_ring_unmap(&r);
	unload();
}

/* ---- ring memory ----------------------------------------------------------- */

static void test_ring_memory_is_charged_until_the_ring_goes(void **state)
{
	struct npu_ring_destroy rd = { 0 };
	struct npu_smi_proc rec;
	struct t_ring r[4];
	struct file *f;
	uint64_t one = (npu_ring_bytes(4096, 4096) + 4095) & ~4095ULL;
	int i;

	(void)state;
	assert_int_equal(load("limit_ring_mb=1"), 0);
	f = open_setup();
	/* A maximum ring (2.5 MiB) is past the limit: refused before pinning. */
	assert_int_equal(t_ring_create(f, &r[0], NPU_RING_MAX_ENTRIES, NPU_RING_MAX_ENTRIES),
			 -ENOMEM);
	t_ring_unmap(&r[0]);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_RINGS], 0);
	assert_int_equal(rec.used[NPU_LIMIT_RING_BYTES], 0);
	assert_int_equal(rec.limit[NPU_LIMIT_RING_BYTES], 1 << 20);
	/* The runtime's rings (4096 entries, 324 KiB): three fit in 1 MiB. */
	for (i = 0; i < 3; i++)
		assert_int_equal(t_ring_create(f, &r[i], 4096, 4096), 0);
	assert_int_equal(t_ring_create(f, &r[3], 4096, 4096), -ENOMEM);
	t_ring_unmap(&r[3]);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_RINGS], 3);
	assert_int_equal(rec.used[NPU_LIMIT_RING_BYTES], 3 * one);
	/* Destroying one gives its bytes back: another fits again. */
	rd.ring_id = r[0].id;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &rd), 0);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_RING_BYTES], 2 * one);
	assert_int_equal(t_ring_create(f, &r[3], 4096, 4096), 0);
	t_close(f);
	for (i = 0; i < 4; i++)
		t_ring_unmap(&r[i]);
	f = open_setup();
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_RING_BYTES], 0);
	t_close(f);
	unload();
}

/* ---- whitelists -------------------------------------------------------------- */

static long set_pids(struct file *f, const char *key, const int32_t *pids, uint32_t count)
{
	struct npu_share_set_pid sp = { .pids = (uintptr_t)pids, .count = count };

	memcpy(sp.key, key, NPU_IPC_KEY_LEN);
	return t_ioctl(f, NPU_IOCTL_IPC_SET_PID, &sp);
}

/* Entries on the whitelist of the only export. */
static uint32_t whitelist_len(struct file *f)
{
	struct npu_smi_share recs[4];
	struct npu_smi_query q = { .buf = (uintptr_t)recs, .count = 4 };

	assert_int_equal(t_ioctl(f, NPU_IOCTL_SMI_SHARES, &q), 0);
	assert_int_equal(q.written, 1);
	return recs[0].whitelist;
}

static double time_set_pids(struct file *f, const char *key, const int32_t *pids, uint32_t n)
{
	double t0 = t_now_ms();

	assert_int_equal(set_pids(f, key, pids, n), 0);
	return t_now_ms() - t0;
}

static void test_whitelist_holds_each_process_once_and_is_charged(void **state)
{
	struct npu_ipc_export ex = { .size = 4096 };
	struct npu_mem_alloc ma;
	struct npu_ipc_destroy ds;
	struct npu_smi_proc rec;
	const uint32_t n = NPU_SHARE_MAX_PIDS;
	int32_t *pids = calloc(n + 1, sizeof(*pids));
	struct file *f;
	double one, many;
	uint32_t i;

	(void)state;
	assert_non_null(pids);
	for (i = 0; i <= n; i++)
		pids[i] = getpid();
	assert_int_equal(load("limit_pin_mb=1"), 0);
	f = open_setup();
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &ma), 0);
	ex.va = ma.va;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_IPC_EXPORT, &ex), 0);

	/* The count is bounded before anything is read: no -EFAULT. */
	{
		struct npu_share_set_pid sp = { .pids = 8, .count = n + 1 };

		memcpy(sp.key, ex.key, NPU_IPC_KEY_LEN);
		assert_int_equal(t_ioctl(f, NPU_IOCTL_IPC_SET_PID, &sp), -EINVAL);
	}
	/* One pid listed 65535 times is one entry, looked up once. */
	one = time_set_pids(f, ex.key, pids, 1);
	many = time_set_pids(f, ex.key, pids, n);
	assert_int_equal(whitelist_len(f), 1);
	/* Across calls too. */
	assert_int_equal(set_pids(f, ex.key, pids, 2), 0);
	assert_int_equal(whitelist_len(f), 1);
	print_message("one pid: %.3f ms, 65535 times the same pid: %.3f ms\n", one, many);
	/* 65535 start-time lookups take far longer than one copy and one pass. */
	assert_true(many < 50 * one + 50.0);

	/* The entry is host memory held for the process: charged, and bounded. */
	record(f, &rec);
	assert_true(rec.used[NPU_LIMIT_PIN_BYTES] > 0);
	assert_true(rec.used[NPU_LIMIT_PIN_BYTES] <= 64);
	{
		size_t len = 1 << 20;
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct npu_host_register hr = { .addr = (uintptr_t)p, .size = len, .fd = -1 };
		struct npu_host_unregister hu = { .addr = (uintptr_t)p };
		uint64_t before = rec.used[NPU_LIMIT_PIN_BYTES];

		assert_true(p != MAP_FAILED);
		memset(p, 1, len);
		/* The whitelist's bytes leave less than 1 MiB to register. */
		assert_int_equal(t_ioctl(f, NPU_IOCTL_HOST_REGISTER, &hr), -ENOMEM);
		hr.size = len - 4096;
		assert_int_equal(t_ioctl(f, NPU_IOCTL_HOST_REGISTER, &hr), 0);
		record(f, &rec);
		assert_int_equal(rec.used[NPU_LIMIT_PIN_BYTES], before + len - 4096);
		assert_int_equal(t_ioctl(f, NPU_IOCTL_HOST_UNREGISTER, &hu), 0);
		munmap(p, len);
	}

	/* Destroying the key gives the entry back. */
	memcpy(ds.key, ex.key, NPU_IPC_KEY_LEN);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_IPC_DESTROY, &ds), 0);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_PIN_BYTES], 0);
	t_close(f);
	free(pids);
	unload();
}

/* A whitelist past the budget of host memory is refused whole. */
static void test_whitelist_past_the_pin_budget_is_refused(void **state)
{
	struct npu_ipc_export ex = { .size = 4096 };
	struct npu_mem_alloc ma;
	struct npu_smi_proc rec;
	int32_t pid = getpid();
	size_t len = 1 << 20;
	void *p;
	struct npu_host_register hr = { .size = len, .fd = -1 };
	struct file *f;

	(void)state;
	assert_int_equal(load("limit_pin_mb=1"), 0);
	f = open_setup();
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &ma), 0);
	ex.va = ma.va;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_IPC_EXPORT, &ex), 0);
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(p != MAP_FAILED);
	memset(p, 1, len);
	hr.addr = (uintptr_t)p;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_HOST_REGISTER, &hr), 0);
	assert_int_equal(set_pids(f, ex.key, &pid, 1), -ENOMEM);
	assert_int_equal(whitelist_len(f), 0);
	record(f, &rec);
	assert_int_equal(rec.used[NPU_LIMIT_PIN_BYTES], len);
	t_close(f);
	munmap(p, len);
	unload();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contexts_of_one_tgid_share_one_object),
		cmocka_unit_test(test_zero_count_limit_is_refused),
		cmocka_unit_test(test_enter_allocation_failure),
		cmocka_unit_test(test_limits_hold_across_files_of_a_process),
		cmocka_unit_test(test_hbm_follows_the_memory_not_the_file),
		cmocka_unit_test(test_huge_first_falls_back_under_the_hbm_limit),
		cmocka_unit_test(test_failed_calls_charge_nothing),
		cmocka_unit_test(test_release_of_many_objects_is_fast),
		cmocka_unit_test(test_processes_of_one_user_share_its_budget),
		cmocka_unit_test(test_a_file_charges_its_opener_user),
		cmocka_unit_test(test_ring_memory_is_charged_until_the_ring_goes),
		cmocka_unit_test(test_whitelist_holds_each_process_once_and_is_charged),
		cmocka_unit_test(test_whitelist_past_the_pin_budget_is_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
