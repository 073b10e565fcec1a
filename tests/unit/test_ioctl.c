// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The driver's ioctl interface, driven through the mock kernel's host
 * interface exactly as npud and the in-process device drive it: every
 * rejection with its exact errno, and the happy paths with data read back.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "npu_test_util.h"

#define HBM_MB		4096
#define HBM_BYTES	((uint64_t)HBM_MB << 20)

static long live_before_load;

static int setup(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	return mockdev_module_load("hbm_mb=4096");
}

static int teardown(void **state)
{
	(void)state;
	mockdev_module_unload();
	/* Everything the driver ever allocated is gone with the module. */
	assert_int_equal(mock_live_objects(), live_before_load);
	return 0;
}

static struct file *open_ctx_at(uint64_t base)
{
	struct file *f;

	assert_int_equal(t_open(&f), 0);
	assert_int_equal(t_setup_at(f, base), 0);
	return f;
}

static struct file *open_ctx(void)
{
	return open_ctx_at(T_VA_BASE);
}

static void test_get_version_needs_no_context(void **state)
{
	struct npu_version v;
	struct file *f;

	(void)state;
	assert_int_equal(t_open(&f), 0);
	memset(&v, 0xff, sizeof(v));
	assert_int_equal(t_ioctl(f, NPU_IOCTL_GET_VERSION, &v), 0);
	assert_int_equal(v.abi_major, NPU_ABI_VERSION_MAJOR);
	assert_int_equal(v.abi_minor, NPU_ABI_VERSION_MINOR);
	assert_int_equal(v.features & ~NPU_FEATURE_FUTEX_DOORBELL,
			 NPU_FEATURE_RING | NPU_FEATURE_HUGE | NPU_FEATURE_HUGE1G);
	assert_int_equal(v.device_count, 1);
	assert_int_equal(v.device_index, 0);
	assert_int_equal(v.hbm_size, HBM_BYTES);
	assert_int_equal(v.page_order_mask, (1u << 0) | (1u << 9) | (1u << 18));
	t_close(f);
}

static void test_nop_echoes_cookie(void **state)
{
	struct npu_nop n = { .cookie = 0xfeedfacecafebeefULL, .out = 1 };
	struct file *f;

	(void)state;
	assert_int_equal(t_open(&f), 0);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_NOP, &n), 0);
	assert_int_equal(n.out, 0xfeedfacecafebeefULL);
	t_close(f);
}

static void test_bad_cmd_is_enotty(void **state)
{
	static const struct {
		const char *what;
		unsigned int cmd;
	} rows[] = {
		{ "reserved nr", _IOWR('N', 0x0b, struct npu_nop) },
		{ "experimental nr", _IOWR('N', 0x80, struct npu_nop) },
		{ "last nr", _IOWR('N', 0xff, struct npu_nop) },
		{ "wrong magic", _IOR('M', 0x00, struct npu_version) },
		{ "short size", _IOC(_IOC_READ, 'N', 0x00, 32) },
		{ "long size", _IOC(_IOC_READ, 'N', 0x00, 48) },
		{ "write instead of read", _IOW('N', 0x00, struct npu_version) },
		{ "read-write instead of read", _IOWR('N', 0x01, struct npu_device_info) },
		{ "read instead of read-write", _IOR('N', 0x03, struct npu_mem_alloc) },
		{ "no direction", _IOC(_IOC_NONE, 'N', 0x0a, 16) },
		{ "zero", 0 },
	};
	struct file *f;
	unsigned int i;

	(void)state;
	f = open_ctx();
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char buf[256] = { 0 };

		if (t_ioctl(f, rows[i].cmd, buf) != -ENOTTY)
			fail_msg("%s: expected -ENOTTY", rows[i].what);
	}
	t_close(f);
}

static void test_commands_before_ctx_setup_are_einval(void **state)
{
	static const unsigned int cmds[] = {
		NPU_IOCTL_MEM_ALLOC, NPU_IOCTL_MEM_FREE, NPU_IOCTL_MEM_QUERY,
		NPU_IOCTL_MEM_INFO, NPU_IOCTL_RING_CREATE, NPU_IOCTL_RING_DESTROY,
		NPU_IOCTL_RING_ENTER,
	};
	struct npu_device_info info;
	struct npu_nop nop = { 0 };
	struct file *f;
	unsigned int i;

	(void)state;
	assert_int_equal(t_open(&f), 0);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		char buf[128] = { 0 };

		((struct npu_mem_alloc *)buf)->size = 4096;
		if (t_ioctl(f, cmds[i], buf) != -EINVAL)
			fail_msg("cmd nr %u: expected -EINVAL before CTX_SETUP", _IOC_NR(cmds[i]));
	}
	t_device_info(f, &info);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_NOP, &nop), 0);
	t_close(f);
}

static void test_ctx_setup_rejects_bad_aperture(void **state)
{
	const struct {
		const char *what;
		struct npu_ctx_setup s;
	} rows[] = {
		{ "base 0", { .va_base = 0, .va_size = T_GIB } },
		{ "size 0", { .va_base = T_VA_BASE, .va_size = 0 } },
		{ "base not 1 GiB aligned", { .va_base = T_VA_BASE + 4096, .va_size = T_GIB } },
		{ "size not 1 GiB multiple", { .va_base = T_VA_BASE, .va_size = T_GIB + 4096 } },
		{ "wraps", { .va_base = 0ULL - T_GIB, .va_size = 2 * T_GIB } },
		{ "ends at 2^64", { .va_base = 0ULL - T_GIB, .va_size = T_GIB } },
		{ "flags", { .va_base = T_VA_BASE, .va_size = T_GIB, .flags = 1 } },
		{ "pad", { .va_base = T_VA_BASE, .va_size = T_GIB, .pad = 1 } },
	};
	struct npu_ctx_setup s;
	struct file *f;
	unsigned int i;

	(void)state;
	assert_int_equal(t_open(&f), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		s = rows[i].s;
		if (t_ioctl(f, NPU_IOCTL_CTX_SETUP, &s) != -EINVAL)
			fail_msg("%s: expected -EINVAL", rows[i].what);
	}
	memset(&s, 0, sizeof(s));
	s.va_base = T_VA_BASE;
	s.va_size = T_VA_SIZE;
	s.ctx_id = 0xdead;	/* out fields are ignored on input */
	assert_int_equal(t_ioctl(f, NPU_IOCTL_CTX_SETUP, &s), 0);
	assert_int_not_equal(s.ctx_id, 0);
	assert_int_equal(s.tgid, getpid());
	assert_int_equal(t_ioctl(f, NPU_IOCTL_CTX_SETUP, &s), -EEXIST);
	t_close(f);
}

static void test_mem_alloc_rejects_bad_arguments(void **state)
{
	static const struct {
		const char *what;
		struct npu_mem_alloc a;
		long err;
	} rows[] = {
		{ "size 0", { .size = 0 }, -EINVAL },
		{ "unknown policy", { .size = 4096, .policy = NPU_POLICY_COUNT }, -EINVAL },
		{ "huge policy number", { .size = 4096, .policy = 0xffffffff }, -EINVAL },
		{ "unknown flag", { .size = 4096, .flags = 1u << 2 }, -EINVAL },
		{ "high flag", { .size = 4096, .flags = 1u << 31 }, -EINVAL },
		{ "pad", { .size = 4096, .pad = 1 }, -EINVAL },
		{ "size U64_MAX", { .size = ~0ULL }, -ENOMEM },
		{ "size U64_MAX huge", { .size = ~0ULL, .policy = NPU_POLICY_HUGE_ONLY }, -ENOMEM },
		{ "size U64_MAX 1G", { .size = ~0ULL - 4095, .policy = NPU_POLICY_HUGE1G_ONLY },
		  -ENOMEM },
		{ "HBM + 1", { .size = HBM_BYTES + 1 }, -ENOMEM },
		{ "HBM + 1 GiB pages", { .size = HBM_BYTES + 1, .policy = NPU_POLICY_HUGE1G_ONLY },
		  -ENOMEM },
	};
	struct npu_device_info info;
	struct file *f;
	unsigned int i;

	(void)state;
	f = open_ctx();
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct npu_mem_alloc a = rows[i].a;
		long ret = t_ioctl(f, NPU_IOCTL_MEM_ALLOC, &a);

		if (ret != rows[i].err)
			fail_msg("%s: got %ld, expected %ld", rows[i].what, ret, rows[i].err);
	}
	t_device_info(f, &info);
	assert_int_equal(info.hbm_free, HBM_BYTES);
	assert_int_equal(info.allocations, 0);
	t_close(f);
}

static void test_mem_alloc_policies_choose_page_size(void **state)
{
	static const struct {
		uint64_t size;
		uint32_t policy;
		uint32_t page_size;
		uint64_t mapped;
	} rows[] = {
		{ 1, NPU_POLICY_HUGE_FIRST, 4096, 4096 },
		{ T_MIB, NPU_POLICY_HUGE_FIRST, 4096, T_MIB },
		{ T_MIB + 1, NPU_POLICY_HUGE_FIRST, 2 * T_MIB, 2 * T_MIB },
		{ 5 * T_MIB, NPU_POLICY_HUGE_FIRST, 2 * T_MIB, 6 * T_MIB },
		{ 3 * T_MIB + 5, NPU_POLICY_NORMAL_ONLY, 4096, 3 * T_MIB + 4096 },
		{ 4096, NPU_POLICY_HUGE_ONLY, 2 * T_MIB, 2 * T_MIB },
		{ 1, NPU_POLICY_HUGE1G_ONLY, T_GIB, T_GIB },
	};
	struct npu_mem_alloc a[sizeof(rows) / sizeof(rows[0])];
	struct npu_device_info info;
	struct file *f;
	uint64_t used = 0;
	unsigned int i;

	(void)state;
	f = open_ctx();
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_int_equal(t_alloc(f, rows[i].size, rows[i].policy, 0, &a[i]), 0);
		assert_int_equal(a[i].page_size, rows[i].page_size);
		assert_int_equal(a[i].mapped_size, rows[i].mapped);
		assert_int_equal(a[i].va % rows[i].page_size, 0);
		assert_true(a[i].va >= T_VA_BASE && a[i].va + a[i].mapped_size <= T_VA_BASE + T_VA_SIZE);
		assert_int_not_equal(a[i].handle, 0);
		used += rows[i].mapped;
	}
	t_device_info(f, &info);
	assert_int_equal(info.hbm_free, HBM_BYTES - used);
	assert_int_equal(info.allocations, sizeof(rows) / sizeof(rows[0]));
	assert_int_equal(info.contexts, 1);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(t_free(f, a[i].va), 0);
	t_device_info(f, &info);
	assert_int_equal(info.hbm_free, HBM_BYTES);
	assert_int_equal(info.free[NPU_CLASS_HUGE1G], HBM_BYTES);
	assert_int_equal(info.allocations, 0);
	t_close(f);
}

static void test_huge_first_falls_back_to_normal_pages(void **state)
{
	struct npu_mem_alloc all, small, a;
	struct npu_device_info info;
	struct file *f;

	(void)state;
	f = open_ctx();
	/* Every 2 MiB block but one, then one frame breaks the last one. */
	assert_int_equal(t_alloc(f, HBM_BYTES - 2 * T_MIB, NPU_POLICY_HUGE_ONLY, 0, &all), 0);
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &small), 0);
	t_device_info(f, &info);
	assert_int_equal(info.free[NPU_CLASS_HUGE], 0);
	assert_int_equal(info.free[NPU_CLASS_NORMAL], 2 * T_MIB - 4096);
	assert_int_equal(t_alloc(f, 1536 * 1024, NPU_POLICY_HUGE_ONLY, 0, &a), -ENOMEM);
	assert_int_equal(t_alloc(f, 1536 * 1024, NPU_POLICY_HUGE_FIRST, 0, &a), 0);
	assert_int_equal(a.page_size, 4096);
	assert_int_equal(t_alloc(f, T_MIB, NPU_POLICY_NORMAL_ONLY, 0, &a), -ENOMEM);
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_HUGE1G_ONLY, 0, &a), -ENOMEM);
	t_close(f);	/* release frees all three */
}

static void test_mem_free_rejects_bad_arguments(void **state)
{
	struct npu_mem_alloc a;
	struct npu_mem_free fr;
	struct file *f;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_alloc(f, 8192, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	fr = (struct npu_mem_free){ .va = a.va, .rsvd = 1 };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_MEM_FREE, &fr), -EINVAL);
	assert_int_equal(t_free(f, a.va + 4096), -EINVAL);	/* inside, not the base */
	assert_int_equal(t_free(f, a.va + 8192), -ENOENT);
	assert_int_equal(t_free(f, 0), -ENOENT);
	assert_int_equal(t_free(f, ~0ULL), -ENOENT);
	assert_int_equal(t_free(f, a.va), 0);
	assert_int_equal(t_free(f, a.va), -ENOENT);		/* double free */
	t_close(f);
}

static void test_mem_query_reports_containing_mapping(void **state)
{
	struct npu_mem_alloc a;
	struct npu_mem_query q;
	struct file *f;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_alloc(f, 3 * T_MIB, NPU_POLICY_HUGE_ONLY, NPU_MEM_READONLY, &a), 0);
	memset(&q, 0, sizeof(q));
	q.va = a.va + 3 * T_MIB + 17;	/* in the rounded-up tail */
	assert_int_equal(t_ioctl(f, NPU_IOCTL_MEM_QUERY, &q), 0);
	assert_int_equal(q.kind, NPU_MAPPING_ALLOC);
	assert_int_equal(q.base, a.va);
	assert_int_equal(q.size, 4 * T_MIB);
	assert_int_equal(q.page_size, 2 * T_MIB);
	assert_int_equal(q.flags, NPU_MEM_READONLY);

	memset(&q, 0xff, sizeof(q));
	q.va = a.va + 4 * T_MIB;
	q.pad = 0;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_MEM_QUERY, &q), 0);
	assert_int_equal(q.kind, NPU_MAPPING_NONE);
	assert_int_equal(q.base, 0);
	assert_int_equal(q.size, 0);

	q.pad = 1;
	assert_int_equal(t_ioctl(f, NPU_IOCTL_MEM_QUERY, &q), -EINVAL);
	t_close(f);
}

static void test_mem_info_counts_this_context(void **state)
{
	struct npu_mem_alloc a, b;
	struct npu_mem_info mi;
	struct file *f, *g;

	(void)state;
	f = open_ctx();
	g = open_ctx_at(T_VA_BASE + T_VA_SIZE);	/* b.va is not an address of f */
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_alloc(g, 2 * T_MIB, NPU_POLICY_HUGE_ONLY, 0, &b), 0);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_MEM_INFO, &mi), 0);
	assert_int_equal(mi.ctx_bytes, 4096);
	assert_int_equal(mi.ctx_allocations, 1);
	assert_int_equal(mi.total[NPU_CLASS_NORMAL], HBM_BYTES);
	assert_int_equal(mi.free[NPU_CLASS_NORMAL], HBM_BYTES - 4096 - 2 * T_MIB);
	assert_int_equal(mi.free[NPU_CLASS_HUGE], HBM_BYTES - 4 * T_MIB);
	assert_int_equal(mi.free[NPU_CLASS_HUGE1G], HBM_BYTES - T_GIB);
	/* Contexts do not see each other's allocations. */
	assert_int_equal(t_free(f, b.va), -ENOENT);
	t_close(g);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_MEM_INFO, &mi), 0);
	assert_int_equal(mi.free[NPU_CLASS_NORMAL], HBM_BYTES - 4096);
	t_close(f);
}

#define RC(a, s, sq, cq) { .addr = (a), .size = (s), .sq_entries = (sq), .cq_entries = (cq) }

static void test_ring_create_rejects_bad_parameters(void **state)
{
	size_t bytes = 2 * 1024 * 1024;
	char *mem = t_map(bytes);
	uintptr_t addr = (uintptr_t)mem;
	const struct {
		const char *what;
		struct npu_ring_create c;
		long err;
	} rows[] = {
		{ "sq 0", RC(addr, bytes, 0, 8), -EINVAL },
		{ "cq 0", RC(addr, bytes, 8, 0), -EINVAL },
		{ "sq not power of 2", RC(addr, bytes, 3, 8), -EINVAL },
		{ "cq not power of 2", RC(addr, bytes, 8, 12), -EINVAL },
		{ "cq < sq", RC(addr, bytes, 16, 8), -EINVAL },
		{ "cq > max", RC(addr, ~0ULL - addr, 8, NPU_RING_MAX_ENTRIES * 2), -EINVAL },
		{ "sq > max", RC(addr, ~0ULL - addr, NPU_RING_MAX_ENTRIES * 2,
				 NPU_RING_MAX_ENTRIES * 2), -EINVAL },
		{ "addr 0", RC(0, bytes, 8, 8), -EINVAL },
		{ "addr not page aligned", RC(addr + 64, bytes, 8, 8), -EINVAL },
		{ "size too small", RC(addr, npu_ring_bytes(8, 8) - 1, 8, 8), -EINVAL },
		{ "wraps", RC(addr, ~0ULL, 8, 8), -EINVAL },
		{ "flags", { .addr = addr, .size = bytes, .sq_entries = 8, .cq_entries = 8,
			     .flags = 1u << 1 }, -EINVAL },
		{ "high flag", { .addr = addr, .size = bytes, .sq_entries = 8, .cq_entries = 8,
				 .flags = NPU_RING_CREATE_FUTEX | 1u << 31 }, -EINVAL },
	};
	struct npu_device_info info;
	struct file *f;
	unsigned int i;

	(void)state;
	f = open_ctx();
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct npu_ring_create c = rows[i].c;
		long ret = t_ioctl(f, NPU_IOCTL_RING_CREATE, &c);

		if (ret != rows[i].err)
			fail_msg("%s: got %ld, expected %ld", rows[i].what, ret, rows[i].err);
	}
	/* Memory that is not mapped cannot be pinned. */
	munmap(mem, bytes);
	{
		struct npu_ring_create c = { .addr = addr, .size = bytes, .sq_entries = 8,
					      .cq_entries = 8 };

		assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_CREATE, &c), -EFAULT);
	}
	t_device_info(f, &info);
	t_close(f);
}

static void test_ring_create_initialises_header(void **state)
{
	struct t_ring r;
	struct file *f;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 32), 0);
	assert_int_not_equal(r.id, 0);
	assert_int_equal(r.hdr->sq_head, 0);
	assert_int_equal(r.hdr->sq_tail, 0);
	assert_int_equal(r.hdr->cq_head, 0);
	assert_int_equal(r.hdr->cq_tail, 0);
	assert_int_equal(r.hdr->flags, NPU_RING_NEED_WAKEUP);
	assert_int_equal(r.hdr->sq_dropped, 0);
	assert_int_equal(r.hdr->cq_overflow, 0);
	assert_int_equal(r.hdr->sq_entries, 8);
	assert_int_equal(r.hdr->cq_entries, 32);
	assert_int_equal(r.hdr->sq_mask, 7);
	assert_int_equal(r.hdr->cq_mask, 31);
	assert_ptr_equal((char *)r.sqes, (char *)r.mem + NPU_RING_SQES_OFF);
	assert_ptr_equal((char *)r.cqes, (char *)r.mem + NPU_RING_SQES_OFF + 8 * 64);
	t_close(f);
	t_ring_unmap(&r);
}

static void test_ring_destroy_and_enter_reject_bad_arguments(void **state)
{
	struct npu_ring_destroy d;
	struct npu_ring_enter e;
	struct t_ring r;
	struct file *f;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 4, 8), 0);

	e = (struct npu_ring_enter){ .ring_id = r.id + 100 };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), -ENOENT);
	e = (struct npu_ring_enter){ .ring_id = r.id, .flags = 1u << 1 };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), -EINVAL);
	e = (struct npu_ring_enter){ .ring_id = r.id, .pad = 1 };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), -EINVAL);
	e = (struct npu_ring_enter){ .ring_id = r.id, .min_complete = 9,
				     .flags = NPU_ENTER_GETEVENTS };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), -EINVAL);
	/* Nothing in flight: GETEVENTS returns at once with what is there. */
	e = (struct npu_ring_enter){ .ring_id = r.id, .min_complete = 8,
				     .flags = NPU_ENTER_GETEVENTS, .timeout_ns = 1000 };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), 0);
	assert_int_equal(e.submitted, 0);

	d = (struct npu_ring_destroy){ .ring_id = r.id, .pad = 1 };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), -EINVAL);
	d = (struct npu_ring_destroy){ .ring_id = r.id + 1 };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), -ENOENT);
	d = (struct npu_ring_destroy){ .ring_id = r.id };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), 0);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_DESTROY, &d), -ENOENT);
	e = (struct npu_ring_enter){ .ring_id = r.id };
	assert_int_equal(t_ioctl(f, NPU_IOCTL_RING_ENTER, &e), -ENOENT);
	t_close(f);
	t_ring_unmap(&r);
}

static void fill(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 131 + seed + (i >> 12));
}

static void test_copy_all_directions_and_memset_round_trip(void **state)
{
	const size_t n = 5 * T_MIB + 321;	/* crosses 2 MiB chunks and extents */
	unsigned char *src = malloc(n), *dst = malloc(n), *exp = malloc(n);
	struct npu_mem_alloc huge, normal;
	struct npu_sqe s;
	struct t_ring r;
	struct file *f;

	(void)state;
	assert_non_null(src);
	assert_non_null(dst);
	assert_non_null(exp);
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 16), 0);
	assert_int_equal(t_alloc(f, 8 * T_MIB, NPU_POLICY_HUGE_ONLY, 0, &huge), 0);
	assert_int_equal(t_alloc(f, 8 * T_MIB, NPU_POLICY_NORMAL_ONLY, 0, &normal), 0);
	fill(src, n, 7);

	s = t_copy(NPU_DIR_H2D, huge.va + 4099, (uintptr_t)src, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	s = t_copy(NPU_DIR_D2D, normal.va + 17, huge.va + 4099, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	memset(dst, 0, n);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)dst, normal.va + 17, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	assert_memory_equal(dst, src, n);

	/* Host to host. */
	memset(dst, 0, n);
	s = t_copy(NPU_DIR_H2H, (uintptr_t)dst, (uintptr_t)src, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	assert_memory_equal(dst, src, n);

	/* Device memset in the middle of the copied data. */
	s = t_memset(NPU_DIR_H2D, normal.va + 17 + 1000, 0xab, 3 * T_MIB);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	memcpy(exp, src, n);
	memset(exp + 1000, 0xab, 3 * T_MIB);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)dst, normal.va + 17, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	assert_memory_equal(dst, exp, n);

	/* Host memset, zero and non-zero. */
	s = t_memset(NPU_DIR_H2H, (uintptr_t)dst, 0, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	memset(exp, 0, n);
	assert_memory_equal(dst, exp, n);
	s = t_memset(NPU_DIR_H2H, (uintptr_t)dst + 1, 0x3c, n - 2);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	memset(exp + 1, 0x3c, n - 2);
	assert_memory_equal(dst, exp, n);

	/* A NOP completes with 0. */
	s = (struct npu_sqe){ .opcode = NPU_OP_NOP, .user_data = 99 };
	assert_int_equal(t_ring_run(f, &r, &s), 0);

	t_close(f);
	t_ring_unmap(&r);
	free(src);
	free(dst);
	free(exp);
}

/*
 * Free every other one of 64 one-page allocations, so the next normal
 * allocation gets extents of one page (the others stay until f closes).
 */
static void punch_page_holes(struct file *f)
{
	struct npu_mem_alloc pieces[64];
	unsigned int i;

	for (i = 0; i < 64; i++)
		assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &pieces[i]), 0);
	for (i = 0; i < 64; i += 2)
		assert_int_equal(t_free(f, pieces[i].va), 0);
}

static void test_copy_through_fragmented_normal_and_1g_allocations(void **state)
{
	const size_t n = 3 * T_MIB;
	unsigned char *src = malloc(n), *dst = malloc(n);
	struct npu_mem_alloc frag, giant;
	struct npu_sqe s;
	struct t_ring r;
	struct file *f;
	unsigned int i;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 4, 4), 0);
	punch_page_holes(f);
	assert_int_equal(t_alloc(f, n, NPU_POLICY_NORMAL_ONLY, 0, &frag), 0);
	assert_int_equal(t_alloc(f, T_GIB, NPU_POLICY_HUGE1G_ONLY, 0, &giant), 0);
	fill(src, n, 3);
	s = t_copy(NPU_DIR_H2D, frag.va, (uintptr_t)src, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	/*
	 * Small reads all over it, backwards and across page (extent) edges:
	 * the engine's remembered extent must be checked, not trusted.
	 */
	for (i = 0; i < 512; i++) {
		uint64_t off = (n / 4096 - 1 - (i * 37) % (n / 4096)) * 4096 + 4096 - 50;

		off = off + 100 > n ? n - 100 : off;
		memset(dst, 0, 100);
		s = t_copy(NPU_DIR_D2H, (uintptr_t)dst, frag.va + off, 100);
		assert_int_equal(t_ring_run(f, &r, &s), 0);
		assert_memory_equal(dst, src + off, 100);
	}
	s = t_copy(NPU_DIR_D2D, giant.va + T_GIB - n, frag.va, n);	/* the last chunks */
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	memset(dst, 0, n);
	s = t_copy(NPU_DIR_D2H, (uintptr_t)dst, giant.va + T_GIB - n, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	assert_memory_equal(dst, src, n);
	t_close(f);
	t_ring_unmap(&r);
	free(src);
	free(dst);
}

/*
 * Push copies of @len bytes (the last one shorter) covering [0, n) from
 * @src to @dst, forwards or backwards, a full SQ at a time, and check that
 * every one completed.
 */
static void copy_tiles(struct file *f, struct t_ring *r, uint64_t dst, uint64_t src, size_t n,
		       size_t len, bool backwards)
{
	size_t tiles = (n + len - 1) / len, done = 0;
	struct npu_cqe c;

	while (done < tiles) {
		unsigned int i, k = (unsigned int)(tiles - done < r->sq_entries ? tiles - done
									: r->sq_entries);

		for (i = 0; i < k; i++) {
			size_t t = backwards ? tiles - 1 - (done + i) : done + i;
			size_t off = t * len, m = off + len > n ? n - off : len;
			struct npu_sqe s = t_copy(NPU_DIR_D2D, dst + off, src + off, m);

			s.user_data = done + i + 1;
			t_ring_push(r, &s);
		}
		assert_int_equal(t_ring_enter(f, r, k, k, NPU_ENTER_GETEVENTS, NULL), 0);
		for (i = 0; i < k; i++) {
			assert_true(t_ring_pop(r, &c));
			assert_int_equal(c.user_data, done + i + 1);
			assert_int_equal(c.res, 0);
		}
		done += k;
	}
}

/*
 * Streams of small copies within device memory, batch after batch, through
 * an allocation of many extents: the engine remembers the kernel-contiguous
 * run of each operand it found last and serves the next copies from it, so
 * the run must end where the extent (or backing chunk) ends, and a copy that
 * crosses the end must not be served from it. 96-byte tiles straddle every
 * page edge sooner or later; forwards and backwards.
 */
static void test_small_copies_stream_through_fragmented_extents(void **state)
{
	const size_t n = 256 * 1024;
	unsigned char *src = malloc(n), *back = malloc(n), *zero = calloc(1, n);
	struct npu_mem_alloc frag, dst;
	struct npu_sqe s;
	struct t_ring r;
	struct file *f;
	unsigned int pass;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 128, 128), 0);
	punch_page_holes(f);
	assert_int_equal(t_alloc(f, n, NPU_POLICY_NORMAL_ONLY, 0, &frag), 0);
	assert_int_equal(t_alloc(f, n, NPU_POLICY_NORMAL_ONLY, 0, &dst), 0);
	fill(src, n, 9);
	s = t_copy(NPU_DIR_H2D, frag.va, (uintptr_t)src, n);
	assert_int_equal(t_ring_run(f, &r, &s), 0);
	for (pass = 0; pass < 4; pass++) {
		s = t_copy(NPU_DIR_H2D, dst.va, (uintptr_t)zero, n);
		assert_int_equal(t_ring_run(f, &r, &s), 0);
		/* Tiles of 96 and 4000 bytes, forwards, then backwards. */
		copy_tiles(f, &r, dst.va, frag.va, n, pass & 1 ? 4000 : 96, pass >> 1);
		memset(back, 0, n);
		s = t_copy(NPU_DIR_D2H, (uintptr_t)back, dst.va, n);
		assert_int_equal(t_ring_run(f, &r, &s), 0);
		assert_memory_equal(back, src, n);
	}
	t_close(f);
	t_ring_unmap(&r);
	free(src);
	free(back);
	free(zero);
}

static void test_malformed_descriptor_fails_only_itself(void **state)
{
	unsigned char buf[8192], back[8192];
	struct npu_mem_alloc a, ro, other;
	struct t_ring r;
	struct file *f, *g;
	unsigned int i;

	(void)state;
	f = open_ctx();
	g = open_ctx();	/* same aperture numbers, different address space */
	assert_int_equal(t_alloc(f, 8192, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_alloc(f, 8192, NPU_POLICY_NORMAL_ONLY, NPU_MEM_READONLY, &ro), 0);
	/* g's allocation lies where f has nothing mapped. */
	assert_int_equal(t_alloc(g, 64 * 1024, NPU_POLICY_NORMAL_ONLY, 0, &other), 0);
	assert_int_equal(t_alloc(g, 4096, NPU_POLICY_NORMAL_ONLY, 0, &other), 0);
	assert_true(other.va >= a.va + 2 * 8192);
	assert_int_equal(t_ring_create(f, &r, 32, 32), 0);

	const uint64_t h = (uintptr_t)buf, va = a.va;
	const struct {
		const char *what;
		struct npu_sqe s;
		int32_t res;
	} rows[] = {
		{ "unknown opcode", { .opcode = NPU_OP_COUNT }, -EINVAL },
		{ "flags", { .opcode = NPU_OP_NOP, .flags = 1 }, -EINVAL },
		{ "rsvd0", { .opcode = NPU_OP_NOP, .rsvd0 = 1 }, -EINVAL },
		{ "rsvd1", { .opcode = NPU_OP_NOP, .rsvd1 = 1 }, -EINVAL },
		{ "rsvd2", { .opcode = NPU_OP_NOP, .rsvd2 = 1 }, -EINVAL },
		{ "nop with cond", { .opcode = NPU_OP_NOP, .cond = 1 }, -EINVAL },
		{ "nop with len", { .opcode = NPU_OP_NOP, .len = 1 }, -EINVAL },
		{ "copy len 0", t_copy(NPU_DIR_H2D, va, h, 0), -EINVAL },
		{ "copy bad dir", t_copy(NPU_DIR_COUNT, va, h, 16), -EINVAL },
		{ "copy with value", { .opcode = NPU_OP_COPY, .dst = va, .src = h, .len = 16,
				       .value = 1 }, -EINVAL },
		{ "h2d past the end", t_copy(NPU_DIR_H2D, va + 8000, h, 193), -EFAULT },
		{ "h2d unmapped", t_copy(NPU_DIR_H2D, T_VA_BASE + 40 * T_GIB, h, 16), -EFAULT },
		{ "h2d other context", t_copy(NPU_DIR_H2D, other.va, h, 16), -EFAULT },
		{ "h2d wraps", t_copy(NPU_DIR_H2D, ~0ULL - 8, h, 16), -EFAULT },
		{ "h2d bad host", t_copy(NPU_DIR_H2D, va, 8, 16), -EFAULT },
		{ "h2d host wraps", t_copy(NPU_DIR_H2D, va, ~0ULL - 4, 16), -EFAULT },
		{ "d2h bad host", t_copy(NPU_DIR_D2H, 8, va, 16), -EFAULT },
		{ "d2h host is a device va", t_copy(NPU_DIR_D2H, va, va, 16), -EFAULT },
		{ "d2d src unmapped", t_copy(NPU_DIR_D2D, va, va + 8192 * 8, 16), -EFAULT },
		{ "h2d readonly", t_copy(NPU_DIR_H2D, ro.va, h, 16), -EPERM },
		{ "d2d into readonly", t_copy(NPU_DIR_D2D, ro.va, va, 16), -EPERM },
		{ "memset readonly", t_memset(NPU_DIR_H2D, ro.va, 1, 16), -EPERM },
		{ "memset bad dir", t_memset(NPU_DIR_D2H, va, 1, 16), -EINVAL },
		{ "memset with src", { .opcode = NPU_OP_MEMSET, .dst = va, .src = h, .len = 16 },
		  -EINVAL },
		{ "memset value > 0xff", { .opcode = NPU_OP_MEMSET, .dst = va, .value = 0x100,
					   .len = 16 }, -EINVAL },
		{ "memset len 0", t_memset(NPU_DIR_H2D, va, 1, 0), -EINVAL },
		{ "memset host bad", t_memset(NPU_DIR_H2H, 8, 1, 16), -EFAULT },
		{ "h2h bad src", t_copy(NPU_DIR_H2H, h, 8, 16), -EFAULT },
	};
	const unsigned int nrows = sizeof(rows) / sizeof(rows[0]);

	/* One batch: good H2D, each bad row between good ones, good D2H. */
	fill(buf, sizeof(buf), 1);
	for (i = 0; i < nrows; i++) {
		struct npu_sqe good = t_copy(NPU_DIR_H2D, va, h, sizeof(buf));
		struct npu_sqe bad = rows[i].s;
		struct npu_cqe c1, c2;
		uint32_t submitted;

		good.user_data = 1000 + i;
		bad.user_data = 2000 + i;
		t_ring_push(&r, &good);
		t_ring_push(&r, &bad);
		assert_int_equal(t_ring_enter(f, &r, 2, 2, NPU_ENTER_GETEVENTS, &submitted), 0);
		assert_int_equal(submitted, 2);
		assert_true(t_ring_pop(&r, &c1));
		assert_true(t_ring_pop(&r, &c2));
		assert_int_equal(c1.user_data, 1000 + i);
		assert_int_equal(c1.res, 0);
		assert_int_equal(c2.user_data, 2000 + i);
		if (c2.res != rows[i].res)
			fail_msg("%s: res %d, expected %d", rows[i].what, c2.res, rows[i].res);
	}
	/* The good descriptors did their work; the read-only one is untouched. */
	{
		struct npu_sqe s = t_copy(NPU_DIR_D2H, (uintptr_t)back, va, sizeof(back));

		assert_int_equal(t_ring_run(f, &r, &s), 0);
		assert_memory_equal(back, buf, sizeof(buf));
		memset(back, 0x77, sizeof(back));
		s = t_copy(NPU_DIR_D2H, (uintptr_t)back, ro.va, 16);
		assert_int_equal(t_ring_run(f, &r, &s), 0);	/* reading is fine */
	}
	t_close(g);
	t_close(f);
	t_ring_unmap(&r);
}

static void test_cq_overflow_is_counted_and_flagged(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP };
	struct npu_cqe c;
	struct t_ring r;
	struct file *f;
	uint32_t submitted, i;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 4, 4), 0);
	for (i = 0; i < 4; i++) {
		nop.user_data = i;
		t_ring_push(&r, &nop);
	}
	/* The engines run asynchronously: wait for the four CQEs. */
	assert_int_equal(t_ring_enter(f, &r, 4, 4, NPU_ENTER_GETEVENTS, &submitted), 0);
	assert_int_equal(submitted, 4);
	assert_int_equal(r.hdr->cq_overflow, 0);
	/* The CQ is full: three more completions are lost. */
	for (i = 4; i < 7; i++) {
		nop.user_data = i;
		t_ring_push(&r, &nop);
	}
	assert_int_equal(t_ring_enter(f, &r, 8, 0, 0, &submitted), 0);
	assert_int_equal(submitted, 3);
	/* The CQ is full, so no CQE says when the engine is done. */
	assert_true(t_ring_wait_completed(&r, 7));
	assert_int_equal(r.hdr->sq_head, 7);
	assert_int_equal(r.hdr->cq_overflow, 3);
	assert_true(r.hdr->flags & NPU_RING_CQ_OVERFLOW);
	for (i = 0; i < 4; i++) {
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, i);
	}
	assert_false(t_ring_pop(&r, &c));
	/* Room again: completions flow. */
	nop.user_data = 42;
	assert_int_equal(t_ring_run(f, &r, &nop), 0);
	assert_int_equal(r.hdr->cq_overflow, 3);
	/*
	 * Laps with the CQ kept nearly full, one CQE reaped per new one: the
	 * driver reads cq_head again whenever the room it saw is used up, so
	 * none is lost and each lands in order.
	 */
	for (i = 0; i < 3; i++) {
		nop.user_data = 100 + i;
		t_ring_push(&r, &nop);
	}
	assert_int_equal(t_ring_enter(f, &r, 3, 3, NPU_ENTER_GETEVENTS, &submitted), 0);
	for (i = 0; i < 10; i++) {
		nop.user_data = 103 + i;
		t_ring_push(&r, &nop);
		assert_int_equal(t_ring_enter(f, &r, 1, 4, NPU_ENTER_GETEVENTS, &submitted), 0);
		assert_int_equal(r.hdr->cq_overflow, 3);
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, 100 + i);
	}
	for (i = 10; i < 13; i++) {
		assert_true(t_ring_pop(&r, &c));
		assert_int_equal(c.user_data, 100 + i);
	}
	assert_false(t_ring_pop(&r, &c));
	t_close(f);
	t_ring_unmap(&r);
}

static void test_enter_submits_at_most_what_is_published(void **state)
{
	struct npu_sqe nop = { .opcode = NPU_OP_NOP };
	struct t_ring r;
	struct file *f;
	uint32_t submitted;

	(void)state;
	f = open_ctx();
	assert_int_equal(t_ring_create(f, &r, 8, 8), 0);
	t_ring_push(&r, &nop);
	t_ring_push(&r, &nop);
	assert_int_equal(t_ring_enter(f, &r, 1, 0, 0, &submitted), 0);
	assert_int_equal(submitted, 1);
	assert_int_equal(t_ring_enter(f, &r, 100, 0, 0, &submitted), 0);
	assert_int_equal(submitted, 1);
	assert_int_equal(t_ring_enter(f, &r, 100, 0, 0, &submitted), 0);
	assert_int_equal(submitted, 0);
	/*
	 * A bogus tail far ahead is impossible for a correct producer: the
	 * ring fails with -EPROTO and runs none of the stale slots; only the
	 * failure's own CQE follows the NOPs.
	 */
	r.hdr->sq_tail += 1000;
	assert_int_equal(t_ring_enter(f, &r, ~0u, 8, NPU_ENTER_GETEVENTS, &submitted), -EPROTO);
	assert_true(r.hdr->flags & NPU_RING_FAILED);
	assert_true(r.hdr->sq_head <= 2);
	assert_int_equal(r.hdr->cq_tail, r.hdr->sq_head + 1);
	assert_int_equal(r.cqes[r.hdr->sq_head].res, -EPROTO);
	assert_int_equal(r.cqes[r.hdr->sq_head].flags, NPU_CQE_RING_FAILED);
	assert_int_equal(t_ring_enter(f, &r, 0, 0, 0, &submitted), -EPROTO);
	t_close(f);
	t_ring_unmap(&r);
}

struct stream_arg {
	struct file *f;
	unsigned int seed;
	int errors;
};

/* One stream: its own ring and buffer, round trips with data checks. */
static void *stream_main(void *p)
{
	struct stream_arg *arg = p;
	unsigned char src[65536], dst[65536];
	struct npu_mem_alloc a;
	struct t_ring r;
	unsigned int i;

	if (t_ring_create(arg->f, &r, 4, 4) ||
	    t_alloc(arg->f, sizeof(src), NPU_POLICY_NORMAL_ONLY, 0, &a)) {
		arg->errors++;
		return NULL;
	}
	for (i = 0; i < 200; i++) {
		struct npu_sqe s = t_copy(NPU_DIR_H2D, a.va, (uintptr_t)src, sizeof(src));
		int32_t res;

		fill(src, sizeof(src), arg->seed + i);
		memset(dst, 0, sizeof(dst));
		if (t_ring_try_run(arg->f, &r, &s, &res) || res) {
			arg->errors++;
			continue;
		}
		s = t_copy(NPU_DIR_D2H, (uintptr_t)dst, a.va, sizeof(dst));
		if (t_ring_try_run(arg->f, &r, &s, &res) || res || memcmp(src, dst, sizeof(src)))
			arg->errors++;
	}
	if (t_free(arg->f, a.va))
		arg->errors++;
	/*
	 * The engines poll a ring they ran. The kernel reads the ring through
	 * its own mapping of the pinned pages, but the mock's vmap() is the
	 * user address itself: drop the ring before unmapping it.
	 */
	{
		struct npu_ring_destroy d = { .ring_id = r.id };

		if (t_ioctl(arg->f, NPU_IOCTL_RING_DESTROY, &d))
			arg->errors++;
	}
	t_ring_unmap(&r);
	return NULL;
}

static void test_concurrent_streams_of_one_context_keep_their_data(void **state)
{
	enum { STREAMS = 4 };
	struct stream_arg args[STREAMS];
	pthread_t th[STREAMS];
	struct npu_mem_alloc churn;
	struct file *f;
	unsigned int i;

	(void)state;
	f = open_ctx();
	for (i = 0; i < STREAMS; i++) {
		args[i] = (struct stream_arg){ .f = f, .seed = i * 1000 };
		assert_int_equal(pthread_create(&th[i], NULL, stream_main, &args[i]), 0);
	}
	/* Allocations come and go meanwhile in the same address space. */
	for (i = 0; i < 200; i++) {
		assert_int_equal(t_alloc(f, 4096 * (1 + i % 7), NPU_POLICY_NORMAL_ONLY, 0, &churn), 0);
		assert_int_equal(t_free(f, churn.va), 0);
	}
	for (i = 0; i < STREAMS; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(args[i].errors, 0);
	}
	t_close(f);
}

static void test_release_frees_everything_the_file_owned(void **state)
{
	struct mock_counters before, after;
	struct npu_device_info info;
	struct npu_mem_alloc a;
	struct t_ring r1, r2;
	struct file *f, *watcher;
	unsigned char buf[4096];
	struct npu_sqe s;

	(void)state;
	watcher = open_ctx();
	/* Populate the backing chunks once: they live as long as the module. */
	assert_int_equal(t_alloc(watcher, 64 * T_MIB, NPU_POLICY_HUGE_ONLY, 0, &a), 0);
	assert_int_equal(t_free(watcher, a.va), 0);
	mock_counters_get(&before);

	f = open_ctx();
	assert_int_equal(t_alloc(f, 4096, NPU_POLICY_NORMAL_ONLY, 0, &a), 0);
	assert_int_equal(t_alloc(f, 16 * T_MIB, NPU_POLICY_HUGE_ONLY, 0, &a), 0);
	assert_int_equal(t_alloc(f, 3 * T_MIB, NPU_POLICY_HUGE_FIRST, NPU_MEM_P2P, &a), 0);
	assert_int_equal(t_ring_create(f, &r1, 8, 8), 0);
	assert_int_equal(t_ring_create(f, &r2, 64, 128), 0);
	s = t_copy(NPU_DIR_H2D, a.va, (uintptr_t)buf, sizeof(buf));
	memset(buf, 1, sizeof(buf));
	assert_int_equal(t_ring_run(f, &r1, &s), 0);
	t_device_info(watcher, &info);
	assert_int_equal(info.contexts, 2);
	assert_int_equal(info.allocations, 3);
	assert_true(info.hbm_free < HBM_BYTES);

	t_close(f);
	t_device_info(watcher, &info);
	assert_int_equal(info.contexts, 1);
	assert_int_equal(info.allocations, 0);
	assert_int_equal(info.hbm_free, HBM_BYTES);
	assert_int_equal(info.free[NPU_CLASS_HUGE1G], HBM_BYTES);
	mock_counters_get(&after);
	assert_int_equal(after.kmalloc, before.kmalloc);
	assert_int_equal(after.vmalloc, before.vmalloc);
	assert_int_equal(after.pinned_pages, before.pinned_pages);
	assert_int_equal(after.vmaps, before.vmaps);
	assert_int_equal(after.files, before.files);
	t_close(watcher);
	t_ring_unmap(&r1);
	t_ring_unmap(&r2);
}

static void test_default_parameters_give_one_16g_device(void **state)
{
	struct npu_version v;
	struct file *f;

	(void)state;
	mockdev_module_unload();
	assert_int_equal(mockdev_module_load(NULL), 0);
	assert_non_null(mockdev_misc_find("npu0"));
	assert_null(mockdev_misc_find("npu1"));
	assert_int_equal(t_open(&f), 0);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_GET_VERSION, &v), 0);
	assert_int_equal(v.hbm_size, 16ULL << 30);
	assert_int_equal(v.device_count, 1);
	t_close(f);
}

static void test_module_parameters_are_validated(void **state)
{
	static const char *const bad[] = { "devices=0", "devices=17", "hbm_mb=0",
					   "hbm_mb=4194304" };
	struct npu_version v;
	struct file *f;
	unsigned int i;

	(void)state;
	mockdev_module_unload();
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(mockdev_module_load(bad[i]), -EINVAL);
	assert_int_equal(mockdev_module_load("devices=3 hbm_mb=64"), 0);
	assert_non_null(mockdev_misc_find("npu2"));
	assert_int_equal(mockdev_file_open(mockdev_misc_find("npu2"), mockdev_task_self(), &f), 0);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_GET_VERSION, &v), 0);
	assert_int_equal(v.device_count, 3);
	assert_int_equal(v.device_index, 2);
	assert_int_equal(v.hbm_size, 64 * T_MIB);
	assert_int_equal(v.features & ~NPU_FEATURE_FUTEX_DOORBELL, NPU_FEATURE_RING | NPU_FEATURE_HUGE);
	assert_int_equal(v.page_order_mask, (1u << 0) | (1u << 9));
	t_close(f);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_get_version_needs_no_context),
		T(test_nop_echoes_cookie),
		T(test_bad_cmd_is_enotty),
		T(test_commands_before_ctx_setup_are_einval),
		T(test_ctx_setup_rejects_bad_aperture),
		T(test_mem_alloc_rejects_bad_arguments),
		T(test_mem_alloc_policies_choose_page_size),
		T(test_huge_first_falls_back_to_normal_pages),
		T(test_mem_free_rejects_bad_arguments),
		T(test_mem_query_reports_containing_mapping),
		T(test_mem_info_counts_this_context),
		T(test_ring_create_rejects_bad_parameters),
		T(test_ring_create_initialises_header),
		T(test_ring_destroy_and_enter_reject_bad_arguments),
		T(test_copy_all_directions_and_memset_round_trip),
		T(test_copy_through_fragmented_normal_and_1g_allocations),
		T(test_small_copies_stream_through_fragmented_extents),
		T(test_malformed_descriptor_fails_only_itself),
		T(test_cq_overflow_is_counted_and_flagged),
		T(test_enter_submits_at_most_what_is_published),
		T(test_concurrent_streams_of_one_context_keep_their_data),
		T(test_release_frees_everything_the_file_owned),
		T(test_default_parameters_give_one_16g_device),
		T(test_module_parameters_are_validated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
