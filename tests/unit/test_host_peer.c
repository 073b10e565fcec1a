// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host memory registration (npu_host.c) and peer links (npu_peer.c) on the
 * mock kernel: every rejection with its errno, the pin budget, the engine
 * contract (npu_host_get/put, npu_peer_get_ctx/put_ctx), a remote client's
 * memfd (the npud path), another process's context, a peer closing while
 * linked, and the pinned-page counters back to zero after close.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "npu_test_util.h"

#include "npu_ctx.h"
#include "npu_dev.h"
#include "npu_drv.h"
#include "npu_host.h"
#include "npu_mem.h"
#include "npu_peer.h"

#define PAGE		4096UL
#define PIN_MB		4	/* host_pin_mb: the pin budget of each device */

static long live_before_load;
static struct mock_counters before;

static int setup(void **state)
{
	(void)state;
	mock_fail_reset();
	live_before_load = mock_live_objects();
	mock_counters_get(&before);
	return mockdev_module_load("devices=2 hbm_mb=256 host_pin_mb=4");
}

static int teardown(void **state)
{
	struct mock_counters now;

	(void)state;
	mockdev_module_unload();
	mock_counters_get(&now);
	assert_int_equal(now.pinned_pages, before.pinned_pages);
	assert_int_equal(now.vmaps, before.vmaps);
	assert_int_equal(mock_live_objects(), live_before_load);
	return 0;
}

static struct miscdevice *misc(unsigned int i)
{
	char name[16];
	struct miscdevice *m;

	snprintf(name, sizeof(name), "npu%u", i);
	m = mockdev_misc_find(name);
	assert_non_null(m);
	return m;
}

/* A set-up context on device dev with the dev-th test aperture; its id in *id. */
static struct file *open_dev(unsigned int dev, uint32_t *id)
{
	struct npu_ctx_setup s = { .va_base = T_VA_BASE + dev * T_VA_SIZE, .va_size = T_VA_SIZE };
	struct file *f;

	assert_int_equal(mockdev_file_open(misc(dev), mockdev_task_self(), &f), 0);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_CTX_SETUP, &s), 0);
	if (id)
		*id = s.ctx_id;
	return f;
}

static struct npu_ctx *ctx_of(struct file *f)
{
	return f->private_data;
}

static long reg(struct file *f, void *addr, uint64_t size, int fd, uint64_t off)
{
	struct npu_host_register r = {
		.addr = (uintptr_t)addr, .size = size, .fd = fd, .fd_off = off,
	};

	return t_ioctl(f, NPU_IOCTL_HOST_REGISTER, &r);
}

static long unreg(struct file *f, void *addr)
{
	struct npu_host_unregister u = { .addr = (uintptr_t)addr };

	return t_ioctl(f, NPU_IOCTL_HOST_UNREGISTER, &u);
}

static long peer(struct file *f, unsigned int cmd, uint32_t dev, uint32_t ctx)
{
	struct npu_peer p = { .peer_device = dev, .peer_ctx = ctx };

	return t_ioctl(f, cmd, &p);
}

static long pinned_now(void)
{
	struct mock_counters c;

	mock_counters_get(&c);
	return c.pinned_pages - before.pinned_pages;
}

static long dev_pinned(unsigned int dev)
{
	return (long)atomic64_read(&npu_dev_get(dev)->nr_pinned_pages);
}

static void *anon(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	assert_true(p != MAP_FAILED);
	return p;
}

static void test_register_unregister(void **state)
{
	struct file *f = open_dev(0, NULL);
	char *p = anon(16 * PAGE);

	(void)state;
	assert_int_equal(reg(f, p, 8 * PAGE, -1, 0), 0);
	assert_int_equal(pinned_now(), 8);
	assert_int_equal(dev_pinned(0), 8);
	/* Duplicate and overlapping ranges, from either side. */
	assert_int_equal(reg(f, p, 8 * PAGE, -1, 0), -EEXIST);
	assert_int_equal(reg(f, p + 4 * PAGE, 8 * PAGE, -1, 0), -EEXIST);
	assert_int_equal(reg(f, p + 7 * PAGE, PAGE, -1, 0), -EEXIST);
	assert_int_equal(pinned_now(), 8);
	/* Adjacent is fine. */
	assert_int_equal(reg(f, p + 8 * PAGE, 8 * PAGE, -1, 0), 0);
	assert_int_equal(pinned_now(), 16);
	/* Only a base unregisters. */
	assert_int_equal(unreg(f, p + PAGE), -ENOENT);
	assert_int_equal(unreg(f, p + 32 * PAGE), -ENOENT);
	assert_int_equal(unreg(f, p), 0);
	assert_int_equal(unreg(f, p), -ENOENT);
	assert_int_equal(pinned_now(), 8);
	assert_int_equal(dev_pinned(0), 8);
	/* Close drops the rest. */
	t_close(f);
	assert_int_equal(pinned_now(), 0);
	assert_int_equal(dev_pinned(0), 0);
	munmap(p, 16 * PAGE);
}

static void test_register_bad_args(void **state)
{
	struct file *f = open_dev(0, NULL);
	char *p = anon(4 * PAGE);
	struct npu_host_register r = { .addr = (uintptr_t)p, .size = PAGE, .fd = -1, .flags = 1 };
	struct npu_host_unregister u = { .addr = (uintptr_t)p, .rsvd = 1 };

	(void)state;
	assert_int_equal(reg(f, p, 0, -1, 0), -EINVAL);
	assert_int_equal(reg(f, p + 1, PAGE, -1, 0), -EINVAL);
	assert_int_equal(reg(f, p, PAGE + 1, -1, 0), -EINVAL);
	assert_int_equal(reg(f, (void *)(uintptr_t)(~0UL & ~(PAGE - 1)), 2 * PAGE, -1, 0), -EINVAL);
	assert_int_equal(reg(f, p, PAGE, -2, 0), -EINVAL);
	assert_int_equal(reg(f, p, PAGE, -1, PAGE), -EINVAL);
	assert_int_equal(reg(f, p, PAGE, 3, 1), -EINVAL);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_HOST_REGISTER, &r), -EINVAL);
	assert_int_equal(t_ioctl(f, NPU_IOCTL_HOST_UNREGISTER, &u), -EINVAL);
	/* Not mapped (the device aperture is PROT_NONE) or not writable. */
	assert_int_equal(reg(f, (void *)(uintptr_t)T_VA_BASE, PAGE, -1, 0), -EFAULT);
	assert_int_equal(mprotect(p, PAGE, PROT_READ), 0);
	assert_int_equal(reg(f, p, 2 * PAGE, -1, 0), -EFAULT);
	assert_int_equal(pinned_now(), 0);
	assert_int_equal(dev_pinned(0), 0);
	/* A failed pin frees what it took. */
	mock_fail_pin_nth(1);
	assert_int_equal(reg(f, p + PAGE, PAGE, -1, 0), -EFAULT);
	mock_fail_reset();
	mock_fail_alloc_nth(1);
	assert_int_equal(reg(f, p + PAGE, PAGE, -1, 0), -ENOMEM);
	mock_fail_reset();
	assert_int_equal(pinned_now(), 0);
	assert_int_equal(dev_pinned(0), 0);
	t_close(f);
	munmap(p, 4 * PAGE);
}

static void test_pin_budget(void **state)
{
	const uint64_t budget = (uint64_t)PIN_MB << 20;
	struct file *a = open_dev(0, NULL), *b = open_dev(0, NULL), *c = open_dev(1, NULL);
	char *p = anon(budget + 2 * PAGE);

	(void)state;
	assert_int_equal(reg(a, p, budget + PAGE, -1, 0), -ENOMEM);
	assert_int_equal(dev_pinned(0), 0);
	assert_int_equal(reg(a, p, budget - PAGE, -1, 0), 0);
	/* The budget is per device: another context of device 0 shares it... */
	assert_int_equal(reg(b, p + budget, 2 * PAGE, -1, 0), -ENOMEM);
	assert_int_equal(reg(b, p + budget, PAGE, -1, 0), 0);
	assert_int_equal(reg(a, p + budget + PAGE, PAGE, -1, 0), -ENOMEM);
	/* ...device 1 has its own. */
	assert_int_equal(reg(c, p, budget, -1, 0), 0);
	assert_int_equal(dev_pinned(0), (long)(budget / PAGE));
	assert_int_equal(dev_pinned(1), (long)(budget / PAGE));
	/* Unregistering gives it back. */
	assert_int_equal(unreg(a, p), 0);
	assert_int_equal(reg(b, p, 2 * PAGE, -1, 0), 0);
	t_close(a);
	t_close(b);
	t_close(c);
	assert_int_equal(dev_pinned(0), 0);
	assert_int_equal(dev_pinned(1), 0);
	assert_int_equal(pinned_now(), 0);
	munmap(p, budget + 2 * PAGE);
}

static void test_host_get_put(void **state)
{
	struct file *f = open_dev(0, NULL);
	struct npu_host_reg *r = NULL, *r2 = NULL;
	char *p = anon(8 * PAGE);
	char *k;

	(void)state;
	memset(p, 0x3c, 8 * PAGE);
	assert_int_equal(reg(f, p + 2 * PAGE, 4 * PAGE, -1, 0), 0);
	k = npu_host_get(ctx_of(f), (uintptr_t)p + 3 * PAGE + 5, 100, &r);
	assert_non_null(k);
	assert_non_null(r);
	assert_int_equal((unsigned char)k[0], 0x3c);
	k[1] = 0x77;	/* the kernel mapping is the same memory */
	assert_int_equal(p[3 * PAGE + 6], 0x77);
	/* Outside, or crossing either end: no mapping. */
	assert_null(npu_host_get(ctx_of(f), (uintptr_t)p + PAGE, 16, &r2));
	assert_null(r2);
	assert_null(npu_host_get(ctx_of(f), (uintptr_t)p + 6 * PAGE - 8, 16, &r2));
	assert_null(npu_host_get(ctx_of(f), (uintptr_t)p + 2 * PAGE - 8, 16, &r2));
	assert_null(npu_host_get(ctx_of(f), (uintptr_t)p + 2 * PAGE, 0, &r2));
	assert_non_null(npu_host_get(ctx_of(f), (uintptr_t)p + 2 * PAGE, 4 * PAGE, &r2));
	npu_host_put(r2);
	/* Unregister while an engine holds it: pinned until the put. */
	assert_int_equal(unreg(f, p + 2 * PAGE), 0);
	assert_int_equal(pinned_now(), 4);
	assert_null(npu_host_get(ctx_of(f), (uintptr_t)p + 3 * PAGE, 16, &r2));
	npu_host_put(r);
	assert_int_equal(pinned_now(), 0);
	assert_int_equal(dev_pinned(0), 0);
	t_close(f);
	munmap(p, 8 * PAGE);
}

static void test_memfd_register(void **state)
{
	struct file *f = open_dev(0, NULL);
	int fd = memfd_create("t", MFD_CLOEXEC);
	struct npu_host_reg *r;
	char *p, *k;

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 8 * PAGE), 0);
	p = mmap(NULL, 8 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	assert_int_equal(reg(f, p + 4 * PAGE, 4 * PAGE, fd, 4 * PAGE), 0);
	assert_int_equal(reg(f, p, 4 * PAGE, fd, 0), 0);
	p[5 * PAGE] = 0x11;
	k = npu_host_get(ctx_of(f), (uintptr_t)p + 5 * PAGE, PAGE, &r);
	assert_non_null(k);
	assert_int_equal(k[0], 0x11);
	npu_host_put(r);
	assert_int_equal(pinned_now(), 8);
	t_close(f);
	assert_int_equal(pinned_now(), 0);
	munmap(p, 8 * PAGE);
	close(fd);
}

static void test_remote_memfd_register(void **state)
{
	int fd = memfd_create("t", MFD_ALLOW_SEALING);
	int ufd = memfd_create("unsealed", 0);
	struct npu_ctx_setup s = { .va_base = T_VA_BASE, .va_size = T_VA_SIZE };
	struct npu_host_register r = { 0 };
	struct npu_host_reg *hr;
	struct t_child c;
	struct file *f;
	char *p, *up, *anon_p, *k;

	(void)state;
	assert_true(fd >= 0 && ufd >= 0);
	assert_int_equal(ftruncate(fd, 4 * PAGE), 0);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(ftruncate(ufd, 4 * PAGE), 0);
	p = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p != MAP_FAILED);
	up = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, ufd, 0);
	assert_true(up != MAP_FAILED);
	anon_p = anon(4 * PAGE);
	t_child_start(&c);	/* inherits the mappings at the same addresses */
	assert_int_equal(mockdev_file_open(misc(0), c.task, &f), 0);
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_CTX_SETUP, &s), 0);

	/* A memfd the client could truncate under the daemon is refused. */
	r.addr = (uintptr_t)up;
	r.size = 4 * PAGE;
	r.fd = ufd;
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_HOST_REGISTER, &r), -EINVAL);
	assert_int_equal(pinned_now(), 0);

	r.addr = (uintptr_t)p;
	r.size = 4 * PAGE;
	r.fd = fd;
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_HOST_REGISTER, &r), 0);
	assert_int_equal(pinned_now(), 4);
	/* The daemon's mapping of the client's memfd: the same pages. */
	p[2 * PAGE + 3] = 0x5e;
	k = npu_host_get(ctx_of(f), (uintptr_t)p + 2 * PAGE, PAGE, &hr);
	assert_non_null(k);
	assert_ptr_not_equal(k, p + 2 * PAGE);
	assert_int_equal(k[3], 0x5e);
	k[4] = 0x6f;
	assert_int_equal(p[2 * PAGE + 4], 0x6f);
	npu_host_put(hr);
	/* Anonymous memory of another process cannot be pinned by the daemon. */
	r.addr = (uintptr_t)anon_p;
	r.fd = -1;
	assert_int_equal(t_child_ioctl(&c, f, NPU_IOCTL_HOST_REGISTER, &r), -EFAULT);
	assert_int_equal(pinned_now(), 4);

	assert_int_equal(mockdev_file_release(f, c.task), 0);
	assert_int_equal(pinned_now(), 0);
	t_child_stop(&c);
	munmap(p, 4 * PAGE);
	munmap(up, 4 * PAGE);
	munmap(anon_p, 4 * PAGE);
	close(fd);
	close(ufd);
}

static void test_peer_enable_disable(void **state)
{
	uint32_t id0, id1, id1b;
	struct file *f0 = open_dev(0, &id0), *f1 = open_dev(1, &id1);
	struct file *f1b, *raw;
	struct npu_peer bad = { .peer_device = 1, .peer_ctx = 0 };

	(void)state;
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_DISABLE, 1, id1), -ENOENT);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1), 0);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1), -EEXIST);
	/* One direction only: device 1 has no link to device 0. */
	assert_int_equal(peer(f1, NPU_IOCTL_PEER_DISABLE, 0, id0), -ENOENT);
	assert_int_equal(peer(f1, NPU_IOCTL_PEER_ENABLE, 0, id0), 0);
	/* Own device, no such device or context. */
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 0, id0), -EINVAL);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_DISABLE, 0, id0), -EINVAL);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 2, id1), -ENOENT);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1 + 100), -ENOENT);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, 0x80000000u), -ENOENT);
	/* Reserved fields. */
	bad.peer_ctx = id1;
	bad.flags = 1;
	assert_int_equal(t_ioctl(f0, NPU_IOCTL_PEER_ENABLE, &bad), -EINVAL);
	bad.flags = 0;
	bad.pad = 1;
	assert_int_equal(t_ioctl(f0, NPU_IOCTL_PEER_DISABLE, &bad), -EINVAL);
	/* A context without an address space cannot be a peer. */
	assert_int_equal(mockdev_file_open(misc(1), mockdev_task_self(), &raw), 0);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, ctx_of(raw)->id), -ENOENT);
	t_close(raw);
	/* Two contexts on the peer device are two links. */
	f1b = open_dev(1, &id1b);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1b), 0);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_DISABLE, 1, id1), 0);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_DISABLE, 1, id1), -ENOENT);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1), 0);
	t_close(f1b);
	/* The closed peer's link went with it. */
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_DISABLE, 1, id1b), -ENOENT);
	t_close(f0);
	t_close(f1);
}

static void test_peer_other_process(void **state)
{
	uint32_t id0;
	struct file *f0 = open_dev(0, &id0), *fc;
	struct npu_ctx_setup s = { .va_base = T_VA_BASE + T_VA_SIZE, .va_size = T_VA_SIZE };
	struct npu_peer p = { .peer_device = 0, .peer_ctx = id0 };
	struct t_child c;

	(void)state;
	t_child_start(&c);
	assert_int_equal(mockdev_file_open(misc(1), c.task, &fc), 0);
	assert_int_equal(t_child_ioctl(&c, fc, NPU_IOCTL_CTX_SETUP, &s), 0);
	/* Neither direction: the contexts belong to different TGIDs. */
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, s.ctx_id), -EPERM);
	assert_int_equal(t_child_ioctl(&c, fc, NPU_IOCTL_PEER_ENABLE, &p), -EPERM);
	assert_int_equal(mockdev_file_release(fc, c.task), 0);
	t_child_stop(&c);
	t_close(f0);
}

static void test_peer_close_while_linked(void **state)
{
	uint32_t id0, id1;
	struct file *f0 = open_dev(0, &id0), *f1 = open_dev(1, &id1);
	uint64_t va1 = T_VA_BASE + T_VA_SIZE;
	struct npu_mem_alloc m;
	struct npu_mem_range range;
	struct npu_ctx *held, *c1 = ctx_of(f1);

	(void)state;
	assert_int_equal(t_alloc(f1, 2 * T_MIB, NPU_POLICY_HUGE_FIRST, 0, &m), 0);
	/* Not linked yet: the engine finds no peer. */
	assert_null(npu_peer_get_ctx(ctx_of(f0), m.va, 4096));
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1), 0);
	held = npu_peer_get_ctx(ctx_of(f0), m.va, 4096);
	assert_ptr_equal(held, c1);
	npu_peer_put_ctx(held);
	/* Only inside the peer's aperture. */
	assert_null(npu_peer_get_ctx(ctx_of(f0), va1 - 8, 16));
	assert_null(npu_peer_get_ctx(ctx_of(f0), va1 + T_VA_SIZE - 8, 16));
	assert_null(npu_peer_get_ctx(ctx_of(f0), T_VA_BASE, 16));
	assert_null(npu_peer_get_ctx(ctx_of(f0), m.va, 0));

	/* An engine holds the peer while its file closes. */
	held = npu_peer_get_ctx(ctx_of(f0), m.va, 4096);
	assert_ptr_equal(held, c1);
	assert_int_equal(npu_mem_range_get(held, m.va, 4096, false, &range), 0);
	npu_mem_range_put(&range);
	t_close(f1);
	/* The link is gone; the held context is empty but still valid. */
	assert_null(npu_peer_get_ctx(ctx_of(f0), m.va, 4096));
	assert_int_equal(npu_mem_range_get(held, m.va, 4096, false, &range), -EFAULT);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_DISABLE, 1, id1), -ENOENT);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1), -ENOENT);
	/* An empty shell: it no longer counts as a context. */
	assert_int_equal(atomic_read(&npu_dev_get(1)->nr_contexts), 0);
	npu_peer_put_ctx(held);

	/* The owner closing first drops its links too. */
	f1 = open_dev(1, &id1);
	assert_int_equal(peer(f1, NPU_IOCTL_PEER_ENABLE, 0, id0), 0);
	assert_int_equal(peer(f0, NPU_IOCTL_PEER_ENABLE, 1, id1), 0);
	t_close(f0);
	assert_int_equal(atomic_read(&npu_dev_get(0)->nr_contexts), 0);
	assert_true(list_empty(&ctx_of(f1)->peers));
	assert_true(list_empty(&ctx_of(f1)->peer_of));
	t_close(f1);
}

static long phys_alloc(struct file *f, uint64_t size, uint32_t page_class, uint32_t flags,
		       uint32_t *handle)
{
	struct npu_phys_alloc a = { .size = size, .page_class = page_class, .flags = flags };
	long ret = t_ioctl(f, NPU_IOCTL_PHYS_ALLOC, &a);

	*handle = a.handle;
	return ret;
}

static long phys_peer(struct file *f, uint32_t dev, uint32_t ctx, uint32_t handle,
		      uint32_t *out)
{
	struct npu_phys_peer p = { .peer_device = dev, .peer_ctx = ctx, .peer_handle = handle };
	long ret = t_ioctl(f, NPU_IOCTL_PHYS_PEER, &p);

	*out = p.handle;
	return ret;
}

static long phys_free(struct file *f, uint32_t handle)
{
	struct npu_phys_free pf = { .handle = handle };

	return t_ioctl(f, NPU_IOCTL_PHYS_FREE, &pf);
}

/* A handle of one device for another device's memory, only within a process. */
static void test_phys_peer(void **state)
{
	uint32_t id0, id1, h1, hp, bad;
	struct file *f0 = open_dev(0, &id0), *f1 = open_dev(1, &id1), *fc;
	struct npu_ctx_setup s = { .va_base = T_VA_BASE + T_VA_SIZE, .va_size = T_VA_SIZE };
	struct npu_phys_info pi = { 0 };
	struct npu_phys_peer pp = { 0 };
	struct t_child c;

	(void)state;
	assert_int_equal(phys_alloc(f1, 2 * T_MIB, NPU_CLASS_HUGE, 0, &h1), 0);
	assert_int_equal(phys_peer(f0, 1, id1, h1, &hp), 0);
	pi.handle = hp;
	assert_int_equal(t_ioctl(f0, NPU_IOCTL_PHYS_INFO, &pi), 0);
	assert_int_equal(pi.device, 1);
	assert_int_equal(pi.size, 2 * T_MIB);
	assert_int_equal(pi.imported, 0);
	assert_int_equal(pi.refs, 1);
	/* Its own device, a handle or context that does not exist. */
	assert_int_equal(phys_peer(f0, 0, id0, h1, &bad), -EINVAL);
	assert_int_equal(phys_peer(f0, 1, id1, h1 + 100, &bad), -ENOENT);
	assert_int_equal(phys_peer(f0, 1, id1 + 100, h1, &bad), -ENOENT);
	assert_int_equal(phys_peer(f0, 7, id1, h1, &bad), -ENOENT);
	assert_int_equal(phys_peer(f0, 1, 0x80000000u, h1, &bad), -ENOENT);
	/* Another process can name the context and the handle, and gets nothing. */
	t_child_start(&c);
	assert_int_equal(mockdev_file_open(misc(0), c.task, &fc), 0);
	s.va_base = T_VA_BASE;
	assert_int_equal(t_child_ioctl(&c, fc, NPU_IOCTL_CTX_SETUP, &s), 0);
	pp.peer_device = 1;
	pp.peer_ctx = id1;
	pp.peer_handle = h1;
	assert_int_equal(t_child_ioctl(&c, fc, NPU_IOCTL_PHYS_PEER, &pp), -EPERM);
	assert_int_equal(mockdev_file_release(fc, c.task), 0);
	t_child_stop(&c);
	/* The memory outlives the device's file while the peer handle holds it. */
	t_close(f1);
	assert_int_equal(t_ioctl(f0, NPU_IOCTL_PHYS_INFO, &pi), 0);
	assert_int_equal(pi.device, 1);
	assert_int_equal(atomic64_read(&npu_dev_get(1)->nr_allocations), 1);
	assert_int_equal(phys_free(f0, hp), 0);
	assert_int_equal(atomic64_read(&npu_dev_get(1)->nr_allocations), 0);
	t_close(f0);
}

/* Physical host memory: charged to the device's pin budget, and given back. */
static void test_phys_host(void **state)
{
	struct file *f0 = open_dev(0, NULL);
	struct npu_phys_info pi = { 0 };
	uint32_t h, h2;

	(void)state;
	assert_int_equal(phys_alloc(f0, 4 * T_MIB, NPU_CLASS_NORMAL, NPU_MEM_HOST | NPU_MEM_P2P,
				    &h), 0);
	pi.handle = h;
	assert_int_equal(t_ioctl(f0, NPU_IOCTL_PHYS_INFO, &pi), 0);
	assert_int_equal(pi.flags, NPU_MEM_HOST | NPU_MEM_P2P);
	assert_int_equal(pi.page_class, NPU_CLASS_NORMAL);
	assert_int_equal(dev_pinned(0), 4 * T_MIB / PAGE);
	/* host_pin_mb=4: the budget is used up, for registrations too. */
	assert_int_equal(phys_alloc(f0, 2 * T_MIB, NPU_CLASS_HUGE, NPU_MEM_HOST, &h2), -ENOMEM);
	{
		void *buf = anon(PAGE);

		assert_int_equal(reg(f0, buf, PAGE, -1, 0), -ENOMEM);
		munmap(buf, PAGE);
	}
	/* Unknown flags and sizes beyond any budget are refused. */
	assert_int_equal(phys_alloc(f0, 2 * T_MIB, NPU_CLASS_HUGE, 1U << 7, &h2), -EINVAL);
	assert_int_equal(phys_alloc(f0, 512 * T_MIB, NPU_CLASS_HUGE, NPU_MEM_HOST, &h2), -ENOMEM);
	assert_int_equal(phys_free(f0, h), 0);
	assert_int_equal(dev_pinned(0), 0);
	assert_int_equal(phys_alloc(f0, 2 * T_MIB, NPU_CLASS_HUGE, NPU_MEM_HOST, &h2), 0);
	/* Closing the file gives back what it still holds (the teardown counts). */
	t_close(f0);
	assert_int_equal(dev_pinned(0), 0);
}

#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_register_unregister),
		T(test_register_bad_args),
		T(test_pin_budget),
		T(test_host_get_put),
		T(test_memfd_register),
		T(test_remote_memfd_register),
		T(test_peer_enable_disable),
		T(test_peer_other_process),
		T(test_phys_peer),
		T(test_phys_host),
		T(test_peer_close_while_linked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
