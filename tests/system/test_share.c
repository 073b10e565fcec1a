// SPDX-License-Identifier: MIT
/*
 * Sharing device memory between processes on the FUSE device: IPC keys
 * with and without whitelists, close orders, shareable handles of VMM
 * memory, bad inputs, and processes killed while sharing.
 *
 * Every test forks its actors before any of them touches the runtime (an
 * inherited device file would be the parent's driver context); the parent
 * only coordinates them and watches the driver through a raw open.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "acl/acl.h"

#include "npu_sys_acl.h"

#define IDLE_TIMEOUT_MS	5000
#define MiB		(1u << 20)

struct share_state {
	int fd;			/* raw observer file */
	uint32_t base_contexts;
};

/* Pipes between the two actors of a test. */
struct chan {
	int rd, wr;
};

static void chan_send(struct chan *c, const void *buf, size_t n)
{
	CK(write(c->wr, buf, n) == (ssize_t)n);
}

static void chan_recv(struct chan *c, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = read(c->rd, (char *)buf + got, n - got);

		CK(r > 0);
		got += (size_t)r;
	}
}

typedef void (*actor_fn)(struct chan *c);

/* Run a and b in two children connected by pipes; both must exit 0. */
static void run_pair(actor_fn a, actor_fn b)
{
	int ab[2], ba[2];
	pid_t pa, pb;
	int st;

	assert_int_equal(pipe(ab), 0);
	assert_int_equal(pipe(ba), 0);
	pa = fork();
	assert_true(pa >= 0);
	if (pa == 0) {
		struct chan c = { ba[0], ab[1] };

		a(&c);
		_exit(0);
	}
	pb = fork();
	assert_true(pb >= 0);
	if (pb == 0) {
		struct chan c = { ab[0], ba[1] };

		b(&c);
		_exit(0);
	}
	close(ab[0]);
	close(ab[1]);
	close(ba[0]);
	close(ba[1]);
	assert_int_equal(waitpid(pa, &st, 0), pa);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_int_equal(waitpid(pb, &st, 0), pb);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static int check_fill(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 31 + seed))
			return 0;
	return 1;
}

/* Write a pattern to device memory and read it back through dev. */
static void dev_put(void *dev, size_t n, unsigned seed)
{
	unsigned char *h = malloc(n);

	CK(h != NULL);
	fill(h, n, seed);
	CK_CODE(aclrtMemcpy(dev, n, h, n, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
	free(h);
}

static int dev_check(void *dev, size_t n, unsigned seed)
{
	unsigned char *h = malloc(n);
	int ok;

	CK(h != NULL);
	CK_CODE(aclrtMemcpy(h, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST), ACL_SUCCESS);
	ok = check_fill(h, n, seed);
	free(h);
	return ok;
}

/* ---- IPC, whitelist on: exporter a, importer b ---------------------- */

#define IPC_SIZE	(3 * MiB + 123)

static void ipc_exporter(struct chan *c)
{
	char key[65];
	int32_t pid;
	void *p;

	sys_actor_init();
	CK_CODE(aclrtMalloc(&p, IPC_SIZE, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
	dev_put(p, IPC_SIZE, 7);
	CK_CODE(aclrtIpcMemGetExportKey(p, IPC_SIZE, key, sizeof(key), 0), ACL_SUCCESS);
	CK(strlen(key) == 64);
	chan_recv(c, &pid, sizeof(pid));
	chan_send(c, key, sizeof(key));			/* 1: before whitelisting */
	chan_recv(c, &pid, sizeof(pid));		/* b was refused */
	CK_CODE(aclrtIpcMemSetImportPid(key, &pid, 1), ACL_SUCCESS);
	chan_send(c, "w", 1);
	chan_recv(c, &pid, sizeof(pid));		/* b imported and wrote seed 9 */
	CK(dev_check(p, IPC_SIZE, 9));
	chan_send(c, "d", 1);
	chan_recv(c, &pid, sizeof(pid));		/* b closed */
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);
	CK_CODE(aclrtFree(p), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void ipc_importer(struct chan *c)
{
	char key[65], w;
	int32_t pid;
	void *q;

	sys_actor_init();
	CK_CODE(aclrtDeviceGetBareTgid(&pid), ACL_SUCCESS);
	CK(pid == getpid());
	chan_send(c, &pid, sizeof(pid));
	chan_recv(c, key, sizeof(key));
	CK_CODE(aclrtIpcMemImportByKey(&q, key, 0), ACL_ERROR_RT_NO_PERMISSION);
	CK(aclGetRecentErrMsg() != NULL);
	chan_send(c, &pid, sizeof(pid));
	chan_recv(c, &w, 1);
	CK_CODE(aclrtIpcMemImportByKey(&q, key, 0), ACL_SUCCESS);
	CK(dev_check(q, IPC_SIZE, 7));
	dev_put(q, IPC_SIZE, 9);
	chan_send(c, &pid, sizeof(pid));
	chan_recv(c, &w, 1);
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);
	/* Closed: the pointer is gone; aclrtFree of it is a harmless error. */
	CK_CODE(aclrtFree(q), ACL_ERROR_RT_PARAM_INVALID);
	chan_send(c, &pid, sizeof(pid));
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void test_ipc_whitelist_denies_then_allows(void **state)
{
	(void)state;
	run_pair(ipc_exporter, ipc_importer);
}

static void test_ipc_both_directions(void **state)
{
	(void)state;
	run_pair(ipc_importer, ipc_exporter);
}

/* ---- no whitelist; exporter closes and frees while importer reads --- */

static void open_exporter(struct chan *c)
{
	char key[65], w;
	void *p;

	sys_actor_init();
	CK_CODE(aclrtMalloc(&p, 8 * MiB, ACL_MEM_MALLOC_HUGE_ONLY), ACL_SUCCESS);
	dev_put(p, 8 * MiB, 3);
	CK_CODE(aclrtIpcMemGetExportKey(p, 8 * MiB, key, sizeof(key),
					ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION),
		ACL_SUCCESS);
	{
		int32_t me = getpid();
		/* No whitelist: setting one is not permitted. */
		CK_CODE(aclrtIpcMemSetImportPid(key, &me, 1), ACL_ERROR_RT_NO_PERMISSION);
	}
	chan_send(c, key, sizeof(key));
	chan_recv(c, &w, 1);			/* imported */
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);	/* destroys the key */
	CK_CODE(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtFree(p), ACL_SUCCESS);
	chan_send(c, "f", 1);
	chan_recv(c, &w, 1);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void open_importer(struct chan *c)
{
	char key[65], w;
	void *q, *q2;

	sys_actor_init();
	chan_recv(c, key, sizeof(key));
	CK_CODE(aclrtIpcMemImportByKey(&q, key, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS),
		ACL_SUCCESS);
	CK_CODE(aclrtIpcMemImportByKey(&q2, key, 0), ACL_SUCCESS);
	CK(q != q2);
	chan_send(c, "i", 1);
	chan_recv(c, &w, 1);			/* key destroyed, allocation freed */
	/* Existing imports stay readable and writable. */
	CK(dev_check(q, 8 * MiB, 3));
	dev_put(q2, 8 * MiB, 4);
	CK(dev_check(q, 8 * MiB, 4));
	{
		void *q3;

		CK_CODE(aclrtIpcMemImportByKey(&q3, key, 0), ACL_ERROR_RT_PARAM_INVALID);
	}
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);	/* the oldest: q */
	CK(dev_check(q2, 8 * MiB, 4));
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);	/* q2 */
	/* Nothing imported any more and not the exporter. */
	CK_CODE(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
	chan_send(c, "c", 1);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void test_ipc_exporter_frees_while_importer_reads(void **state)
{
	(void)state;
	run_pair(open_exporter, open_importer);
}

/* ---- wrong, guessed keys and security through raw ioctls ------------ */

static void guess_exporter(struct chan *c)
{
	char key[65], w;
	uint64_t share;
	void *p;
	aclrtDrvMemHandle h;
	aclrtPhysicalMemProp prop = { 0 };

	sys_actor_init();
	CK_CODE(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	CK_CODE(aclrtIpcMemGetExportKey(p, 4096, key, sizeof(key), 0), ACL_SUCCESS);
	prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop.memAttr = ACL_HBM_MEM_HUGE;
	prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = SYS_DEVICE;
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_SUCCESS);
	CK_CODE(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &share),
		ACL_SUCCESS);
	chan_send(c, key, sizeof(key));
	chan_send(c, &share, sizeof(share));
	chan_send(c, &p, sizeof(p));
	chan_recv(c, &w, 1);
	/* The other process could not destroy the key: still ours to close. */
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(h), ACL_SUCCESS);
	CK_CODE(aclrtFree(p), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void guess_attacker(struct chan *c)
{
	char key[65], bad[65];
	uint64_t share;
	void *p, *q;
	int32_t me = getpid();
	aclrtDrvMemHandle h;

	sys_actor_init();
	chan_recv(c, key, sizeof(key));
	chan_recv(c, &share, sizeof(share));
	chan_recv(c, &p, sizeof(p));
	/* A key differing in one character, all zeros, too short, not hex. */
	memcpy(bad, key, sizeof(bad));
	bad[63] = bad[63] == '0' ? '1' : '0';
	CK_CODE(aclrtIpcMemImportByKey(&q, bad, 0), ACL_ERROR_RT_PARAM_INVALID);
	memset(bad, '0', 64);
	bad[64] = 0;
	CK_CODE(aclrtIpcMemImportByKey(&q, bad, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemImportByKey(&q, "abc", 0), ACL_ERROR_RT_PARAM_INVALID);
	memset(bad, 'z', 64);
	CK_CODE(aclrtIpcMemImportByKey(&q, bad, 0), ACL_ERROR_RT_PARAM_INVALID);
	/* The real key, but not whitelisted; nor may we whitelist ourselves. */
	CK_CODE(aclrtIpcMemImportByKey(&q, key, 0), ACL_ERROR_RT_NO_PERMISSION);
	CK_CODE(aclrtIpcMemSetImportPid(key, &me, 1), ACL_ERROR_RT_NO_PERMISSION);
	/* Nor destroy it (we neither imported nor exported it). */
	CK_CODE(aclrtIpcMemClose(key), ACL_ERROR_RT_PARAM_INVALID);
	/* Shareable handle: not whitelisted, wrong value, no self-whitelist. */
	CK_CODE(aclrtMemImportFromShareableHandle(share, SYS_DEVICE, &h),
		ACL_ERROR_RT_NO_PERMISSION);
	CK_CODE(aclrtMemImportFromShareableHandle(share ^ 1, SYS_DEVICE, &h),
		ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemSetPidToShareableHandle(share, &me, 1), ACL_ERROR_RT_NO_PERMISSION);
	/* The exporter's VA means nothing in this process. */
	CK_CODE(aclrtIpcMemGetExportKey(p, 4096, bad, sizeof(bad), 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtFree(p), ACL_ERROR_RT_PARAM_INVALID);
	{
		/* Raw ioctls naming the other context's VA and handle ids. */
		int fd = sys_open();
		struct npu_ctx_setup cs = { .va_base = 1ULL << 40, .va_size = 1ULL << 30 };
		struct npu_ipc_export ie = { .va = (uint64_t)(uintptr_t)p, .size = 4096 };
		struct npu_phys_free pf = { .handle = 1 };
		struct npu_mem_free mf = { .va = (uint64_t)(uintptr_t)p };
		struct npu_ipc_destroy id;

		CK(fd >= 0);
		CK(sys_ioctl(fd, NPU_IOCTL_CTX_SETUP, &cs) == 0);
		CK(sys_ioctl(fd, NPU_IOCTL_IPC_EXPORT, &ie) == -EINVAL);
		CK(sys_ioctl(fd, NPU_IOCTL_PHYS_FREE, &pf) == -ENOENT);
		CK(sys_ioctl(fd, NPU_IOCTL_MEM_FREE, &mf) == -ENOENT);
		memcpy(id.key, key, 64);
		CK(sys_ioctl(fd, NPU_IOCTL_IPC_DESTROY, &id) == -ENOENT);
		close(fd);
	}
	chan_send(c, "d", 1);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void test_wrong_keys_and_foreign_objects_are_refused(void **state)
{
	(void)state;
	run_pair(guess_exporter, guess_attacker);
}

/* ---- VMM: two handles back to back, shared through a handle --------- */

static void phys_prop(aclrtPhysicalMemProp *prop, aclrtMemAttr attr)
{
	memset(prop, 0, sizeof(*prop));
	prop->handleType = ACL_MEM_HANDLE_TYPE_NONE;
	prop->allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
	prop->memAttr = attr;
	prop->location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	prop->location.id = SYS_DEVICE;
}

static void vmm_owner(struct chan *c)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h[2];
	aclrtMemAccessDesc desc = { 0 };
	uint64_t share[2];
	size_t gran;
	int32_t pid;
	void *va;
	char w;

	sys_actor_init();
	phys_prop(&prop, ACL_MEM_NORMAL);
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &gran),
		ACL_SUCCESS);
	CK(gran == 2 * MiB);
	CK_CODE(aclrtMallocPhysical(&h[0], 2 * gran, &prop, 0), ACL_SUCCESS);
	phys_prop(&prop, ACL_MEM_HUGE);
	CK_CODE(aclrtMallocPhysical(&h[1], 2 * gran, &prop, 0), ACL_SUCCESS);
	CK_CODE(aclrtReserveMemAddress(&va, 4 * gran, 0, NULL, 0), ACL_SUCCESS);
	CK_CODE(aclrtMapMem(va, 2 * gran, 0, h[0], 0), ACL_SUCCESS);
	CK_CODE(aclrtMapMem((char *)va + 2 * gran, 2 * gran, 0, h[1], 0), ACL_SUCCESS);
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	desc.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
	desc.location.id = SYS_DEVICE;
	CK_CODE(aclrtMemSetAccess(va, 2 * gran, &desc, 1), ACL_SUCCESS);
	/* One copy spans both physical handles. */
	dev_put(va, 4 * gran, 11);
	CK(dev_check((char *)va + gran, 2 * gran, 11 + (unsigned)(gran * 31)));
	CK_CODE(aclrtMemExportToShareableHandle(h[0], ACL_MEM_HANDLE_TYPE_NONE, 0, &share[0]),
		ACL_SUCCESS);
	CK_CODE(aclrtMemExportToShareableHandle(h[0], ACL_MEM_HANDLE_TYPE_NONE, 0, &share[1]),
		ACL_ERROR_RT_PARAM_INVALID);
	{
		aclrtMemFabricHandle fab;

		CK_CODE(aclrtMemExportToShareableHandleV2(h[1], 1, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC,
							  &fab),
			ACL_SUCCESS);
		chan_recv(c, &pid, sizeof(pid));
		CK_CODE(aclrtMemSetPidToShareableHandle(share[0], &pid, 1), ACL_SUCCESS);
		chan_send(c, &share[0], sizeof(share[0]));
		chan_send(c, &fab, sizeof(fab));
	}
	chan_recv(c, &w, 1);	/* imported and mapped; wrote seed 12 */
	CK(dev_check(va, 4 * gran, 12));
	/* Free everything: the importer's mappings keep the frames. */
	CK_CODE(aclrtUnmapMem(va), ACL_SUCCESS);
	CK_CODE(aclrtUnmapMem((char *)va + 2 * gran), ACL_SUCCESS);
	CK_CODE(aclrtReleaseMemAddress(va), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(h[0]), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(h[1]), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(h[1]), ACL_ERROR_RT_INVALID_HANDLE);
	chan_send(c, "f", 1);
	chan_recv(c, &w, 1);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void vmm_user(struct chan *c)
{
	aclrtMemFabricHandle fab;
	aclrtDrvMemHandle h[2];
	aclrtPhysicalMemProp prop;
	uint64_t share;
	int32_t pid;
	void *va;
	char w;

	sys_actor_init();
	CK_CODE(aclrtDeviceGetBareTgid(&pid), ACL_SUCCESS);
	chan_send(c, &pid, sizeof(pid));
	chan_recv(c, &share, sizeof(share));
	chan_recv(c, &fab, sizeof(fab));
	CK_CODE(aclrtMemImportFromShareableHandle(share, SYS_DEVICE, &h[0]), ACL_SUCCESS);
	CK_CODE(aclrtMemImportFromShareableHandleV2(&fab, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &h[1]),
		ACL_SUCCESS);
	CK_CODE(aclrtMemGetAllocationPropertiesFromHandle(h[1], &prop), ACL_SUCCESS);
	CK(prop.memAttr == ACL_HBM_MEM_HUGE && prop.location.id == SYS_DEVICE);
	CK_CODE(aclrtReserveMemAddress(&va, 8 * MiB, 0, NULL, 0), ACL_SUCCESS);
	CK_CODE(aclrtMapMem(va, 4 * MiB, 0, h[0], 0), ACL_SUCCESS);
	CK_CODE(aclrtMapMem((char *)va + 4 * MiB, 4 * MiB, 0, h[1], 0), ACL_SUCCESS);
	CK(dev_check(va, 8 * MiB, 11));
	dev_put(va, 8 * MiB, 12);
	chan_send(c, "m", 1);
	chan_recv(c, &w, 1);	/* the owner freed all of it */
	CK(dev_check(va, 8 * MiB, 12));
	CK_CODE(aclrtUnmapMem(va), ACL_SUCCESS);
	CK_CODE(aclrtUnmapMem((char *)va + 4 * MiB), ACL_SUCCESS);
	CK_CODE(aclrtReleaseMemAddress(va), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(h[0]), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(h[1]), ACL_SUCCESS);
	chan_send(c, "u", 1);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void test_vmm_mapping_shared_through_handles(void **state)
{
	(void)state;
	run_pair(vmm_owner, vmm_user);
}

/* ---- SIGKILL at random points --------------------------------------- */

static void kill_loop_exporter(struct chan *c)
{
	char key[65];

	sys_actor_init();
	for (unsigned i = 0;; i++) {
		void *p;

		CK_CODE(aclrtMalloc(&p, 2 * MiB + i % 7 * 4096, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
		dev_put(p, 4096, i);
		CK_CODE(aclrtIpcMemGetExportKey(p, 4096, key, sizeof(key),
						ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION),
			ACL_SUCCESS);
		if (i == 0)
			chan_send(c, key, sizeof(key));	/* the survivor keeps this one */
		if (i > 0) {
			CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);
			CK_CODE(aclrtFree(p), ACL_SUCCESS);
		}
	}
}

static void kill_loop_vmm(struct chan *c)
{
	aclrtPhysicalMemProp prop;
	char key[65], w;
	void *q;

	sys_actor_init();
	chan_recv(c, key, sizeof(key));
	CK_CODE(aclrtIpcMemImportByKey(&q, key, 0), ACL_SUCCESS);
	phys_prop(&prop, ACL_MEM_HUGE);
	chan_send(c, "i", 1);
	for (unsigned i = 0;; i++) {
		aclrtDrvMemHandle h;
		void *va;

		CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_SUCCESS);
		CK_CODE(aclrtReserveMemAddress(&va, 2 * MiB, 0, NULL, 0), ACL_SUCCESS);
		CK_CODE(aclrtMapMem(va, 2 * MiB, 0, h, 0), ACL_SUCCESS);
		CK_CODE(aclrtMemcpy(va, 4096, q, 4096, ACL_MEMCPY_DEVICE_TO_DEVICE), ACL_SUCCESS);
		CK(dev_check(va, 4096, 0));
		CK_CODE(aclrtUnmapMem(va), ACL_SUCCESS);
		CK_CODE(aclrtReleaseMemAddress(va), ACL_SUCCESS);
		CK_CODE(aclrtFreePhysical(h), ACL_SUCCESS);
		(void)w;
	}
}

static pid_t spawn(actor_fn fn, int rd, int wr)
{
	pid_t p = fork();

	if (p == 0) {
		struct chan c = { rd, wr };

		fn(&c);
		_exit(0);
	}
	return p;
}

static void test_sigkill_while_sharing_leaks_nothing(void **state)
{
	struct share_state *st = *state;
	struct npu_device_info info;

	srand((unsigned)time(NULL));
	for (int round = 0; round < 6; round++) {
		int ab[2], ba[2], status;
		pid_t pa, pb;
		char w;

		assert_int_equal(pipe(ab), 0);
		assert_int_equal(pipe(ba), 0);
		pa = spawn(kill_loop_exporter, ba[0], ab[1]);
		pb = spawn(kill_loop_vmm, ab[0], ba[1]);
		assert_true(pa > 0 && pb > 0);
		/* Wait until the importer has its import, then let both run. */
		assert_int_equal(read(ba[0], &w, 1), 1);
		sys_sleep_ms(5 + rand() % 60);
		/* Kill one first at random; the other keeps running a while. */
		if (round & 1) {
			kill(pa, SIGKILL);
			sys_sleep_ms(rand() % 30);
			kill(pb, SIGKILL);
		} else {
			kill(pb, SIGKILL);
			sys_sleep_ms(rand() % 30);
			kill(pa, SIGKILL);
		}
		assert_int_equal(waitpid(pa, &status, 0), pa);
		assert_true(WIFSIGNALED(status));
		assert_int_equal(waitpid(pb, &status, 0), pb);
		assert_true(WIFSIGNALED(status));
		close(ab[0]);
		close(ab[1]);
		close(ba[0]);
		close(ba[1]);
		assert_int_equal(sys_wait_idle(st->fd, st->base_contexts, IDLE_TIMEOUT_MS, &info), 0);
	}
}

/* ---- bad inputs (single process) ------------------------------------ */

static void bad_inputs(struct chan *c)
{
	aclrtPhysicalMemProp prop;
	aclrtDrvMemHandle h, h2;
	aclrtMemLocation loc = { SYS_DEVICE, ACL_MEM_LOCATION_TYPE_DEVICE };
	aclrtMemAccessDesc desc = { 0 };
	uint64_t flag, share;
	size_t gran;
	char key[65];
	void *va, *p, *q;
	int32_t pid = 1;

	(void)c;
	/* Before any device: tgid works, handles cannot be made. */
	CK_CODE(aclrtDeviceGetBareTgid(NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemImportByKey(&q, "x", 0), ACL_ERROR_RT_CONTEXT_NULL);
	CK_CODE(aclrtIpcMemGetExportKey((void *)1, 1, key, 65, 0), ACL_ERROR_RT_CONTEXT_NULL);
	sys_actor_init();

	/* aclrtMemGetAllocationGranularity */
	phys_prop(&prop, ACL_HBM_MEM_HUGE1G);
	CK_CODE(aclrtMemGetAllocationGranularity(NULL, 0, &gran), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, 0, NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, 0, &gran), ACL_SUCCESS);
	CK(gran == 1u << 30);
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, (aclrtMemGranularityOptions)7, &gran),
		ACL_ERROR_RT_PARAM_INVALID);
	phys_prop(&prop, ACL_DDR_MEM_HUGE);
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, 0, &gran), ACL_ERROR_INVALID_PARAM);
	phys_prop(&prop, ACL_HBM_MEM);
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, 0, &gran), ACL_ERROR_INVALID_PARAM);
	phys_prop(&prop, (aclrtMemAttr)18);
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, 0, &gran), ACL_ERROR_INVALID_PARAM);
	phys_prop(&prop, ACL_MEM_HUGE);
	prop.location.id = 99;
	CK_CODE(aclrtMemGetAllocationGranularity(&prop, 0, &gran), ACL_ERROR_RT_INVALID_DEVICEID);

	/* aclrtMallocPhysical, in check order */
	phys_prop(&prop, ACL_MEM_HUGE);
	CK_CODE(aclrtMallocPhysical(NULL, 2 * MiB, &prop, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, NULL, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMallocPhysical(&h, 0, &prop, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 1), ACL_ERROR_INVALID_PARAM);
	prop.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_ERROR_INVALID_PARAM);
	phys_prop(&prop, ACL_MEM_HUGE);
	prop.allocationType = (aclrtMemAllocationType)1;
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_ERROR_INVALID_PARAM);
	phys_prop(&prop, ACL_MEM_HUGE);
	prop.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_ERROR_INVALID_PARAM);
	phys_prop(&prop, ACL_DDR_MEM_NORMAL);
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_ERROR_INVALID_PARAM);
	phys_prop(&prop, ACL_MEM_HUGE);
	prop.location.id = 99;
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	phys_prop(&prop, ACL_MEM_HUGE);
	CK_CODE(aclrtMallocPhysical(&h, 3 * MiB, &prop, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMallocPhysical(&h, 1ULL << 42, &prop, 0), ACL_ERROR_RT_MEMORY_ALLOCATION);
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_SUCCESS);
	CK_CODE(aclrtFreePhysical(NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtFreePhysical((aclrtDrvMemHandle)&prop), ACL_ERROR_RT_INVALID_HANDLE);

	/* reserve, map, unmap, release */
	CK_CODE(aclrtReserveMemAddress(NULL, 2 * MiB, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtReserveMemAddress(&va, 0, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtReserveMemAddress(&va, 2 * MiB, 0, NULL, 2), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtReserveMemAddress(&va, 4 * MiB, 0, NULL, 1), ACL_SUCCESS);
	CK_CODE(aclrtReserveMemAddress(&q, 4 * MiB, 0, (char *)va + 2 * MiB, 0),
		ACL_ERROR_RT_PARAM_INVALID);	/* misaligned */
	CK_CODE(aclrtReserveMemAddress(&q, 4 * MiB, 0, va, 0), ACL_ERROR_RT_PARAM_INVALID); /* in use */
	CK_CODE(aclrtMapMem(NULL, 2 * MiB, 0, h, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMapMem(va, 2 * MiB, 0, NULL, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMapMem(va, 0, 0, h, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMapMem(va, 2 * MiB, 0, h, 1), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMapMem(va, 2 * MiB, 4096, h, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMapMem(va, 4 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);	/* size */
	CK_CODE(aclrtMapMem((char *)va + 4096, 2 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMapMem((char *)va + 4 * MiB, 2 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemMapNoAccess((char *)va + 2 * MiB, 2 * MiB, 0, h, 0), ACL_SUCCESS);
	CK_CODE(aclrtMapMem((char *)va + 2 * MiB, 2 * MiB, 0, h, 0), ACL_ERROR_RT_PARAM_INVALID);
	/* No access yet: a copy is refused; GetAccess says none. */
	loc.id = SYS_DEVICE;
	CK_CODE(aclrtMemGetAccess((char *)va + 2 * MiB, &loc, &flag), ACL_SUCCESS);
	CK(flag == ACL_RT_MEM_ACCESS_FLAGS_NONE);
	CK(aclrtMemset((char *)va + 2 * MiB, 16, 1, 16) != ACL_SUCCESS);
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READ;
	desc.location = loc;
	CK_CODE(aclrtMemSetAccess(NULL, 2 * MiB, &desc, 1), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemSetAccess((char *)va + 2 * MiB, 2 * MiB, NULL, 1), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemSetAccess((char *)va + 2 * MiB, 2 * MiB, &desc, 1), ACL_ERROR_RT_PARAM_INVALID);
	desc.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
	CK_CODE(aclrtMemSetAccess((char *)va + 2 * MiB, 4 * MiB, &desc, 1), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemSetAccess((char *)va + 2 * MiB, 2 * MiB, &desc, 1), ACL_SUCCESS);
	CK_CODE(aclrtMemGetAccess((char *)va + 3 * MiB, &loc, &flag), ACL_SUCCESS);
	CK(flag == ACL_RT_MEM_ACCESS_FLAGS_READWRITE);
	CK_CODE(aclrtMemGetAccess(NULL, &loc, &flag), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemset((char *)va + 2 * MiB, 16, 1, 16), ACL_SUCCESS);
	/* Retain and properties */
	CK_CODE(aclrtMemRetainAllocationHandle(NULL, &h2), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemRetainAllocationHandle(va, &h2), ACL_ERROR_RT_PARAM_INVALID); /* unmapped */
	CK_CODE(aclrtMemRetainAllocationHandle((char *)va + 3 * MiB, &h2), ACL_SUCCESS);
	CK(h2 == h);
	CK_CODE(aclrtMemGetAllocationPropertiesFromHandle(h, NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemGetAllocationPropertiesFromHandle(h, &prop), ACL_SUCCESS);
	CK(prop.memAttr == ACL_HBM_MEM_HUGE && prop.handleType == ACL_MEM_HANDLE_TYPE_NONE);
	CK_CODE(aclrtFreePhysical(h2), ACL_SUCCESS);	/* the retain */
	CK_CODE(aclrtFreePhysical(h), ACL_SUCCESS);	/* mapped: frames stay */
	CK_CODE(aclrtFreePhysical(h), ACL_ERROR_RT_INVALID_HANDLE);
	CK_CODE(aclrtMemset((char *)va + 2 * MiB, 16, 2, 16), ACL_SUCCESS);
	CK_CODE(aclrtReleaseMemAddress(va), ACL_ERROR_RT_PARAM_INVALID);	/* still mapped */
	CK_CODE(aclrtUnmapMem(NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtUnmapMem((char *)va + 3 * MiB), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtUnmapMem((char *)va + 2 * MiB), ACL_SUCCESS);
	CK_CODE(aclrtReleaseMemAddress(NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtReleaseMemAddress((char *)va + 2 * MiB), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtFree(va), ACL_ERROR_RT_PARAM_INVALID);	/* not aclrtMalloc memory */
	CK_CODE(aclrtReleaseMemAddress(va), ACL_SUCCESS);

	/* shareable handles */
	CK_CODE(aclrtMemExportToShareableHandle(NULL, 0, 0, &share), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, &share),
		ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemExportToShareableHandle(h, 0, 0, NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemExportToShareableHandle(h, 0, 2, &share), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemSetPidToShareableHandle(1, NULL, 1), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemSetPidToShareableHandle(1, &pid, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemSetPidToShareableHandle(1, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemImportFromShareableHandle(1, SYS_DEVICE, NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemImportFromShareableHandle(1, 99, &h), ACL_ERROR_RT_INVALID_DEVICEID);
	CK_CODE(aclrtMemImportFromShareableHandle(1, 0, &h), ACL_ERROR_RT_CONTEXT_NULL);
	CK_CODE(aclrtMemImportFromShareableHandle(1, SYS_DEVICE, &h), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemExportToShareableHandleV2(NULL, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &share),
		ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemImportFromShareableHandleV2(&share, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 1, &h),
		ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtMemImportFromShareableHandleV2(&share, (aclrtMemSharedHandleType)3, 0, &h),
		ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemSetPidToShareableHandleV2(&share, (aclrtMemSharedHandleType)0, &pid, 1),
		ACL_ERROR_RT_PARAM_INVALID);
	/* Same process may not import its own handle. */
	phys_prop(&prop, ACL_MEM_NORMAL);
	CK_CODE(aclrtMallocPhysical(&h, 2 * MiB, &prop, 0), ACL_SUCCESS);
	CK_CODE(aclrtMemExportToShareableHandleV2(h, 2, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &share),
		ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemExportToShareableHandleV2(h, 1, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &share),
		ACL_SUCCESS);
	CK_CODE(aclrtMemImportFromShareableHandle(share, SYS_DEVICE, &h2), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtMemSetPidToShareableHandle(share, &pid, 1), ACL_ERROR_RT_NO_PERMISSION);
	CK_CODE(aclrtFreePhysical(h), ACL_SUCCESS);
	CK_CODE(aclrtMemSetPidToShareableHandle(share, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);

	/* IPC memory */
	CK_CODE(aclrtMalloc(&p, 64 * 1024, ACL_MEM_MALLOC_NORMAL_ONLY), ACL_SUCCESS);
	CK_CODE(aclrtIpcMemGetExportKey(NULL, 1, key, 65, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemGetExportKey(p, 1, NULL, 65, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemGetExportKey(p, 0, key, 65, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemGetExportKey(p, 1, key, 0, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemGetExportKey(p, 1, key, 65, 2), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemGetExportKey(p, 1, key, 64, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemGetExportKey((char *)p + 4096, 1, key, 65, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemGetExportKey(p, 1u << 20, key, 65, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemGetExportKey(&pid, 4, key, 65, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemGetExportKey(p, 64 * 1024, key, 65, 0), ACL_SUCCESS);
	CK_CODE(aclrtIpcMemSetImportPid(NULL, &pid, 1), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemSetImportPid(key, NULL, 1), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemSetImportPid(key, &pid, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemSetImportPid(key, &pid, (size_t)1 << 31), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemSetImportPid(key, &pid, 1), ACL_SUCCESS);
	CK_CODE(aclrtIpcMemImportByKey(NULL, key, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemImportByKey(&q, NULL, 0), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemImportByKey(&q, key, 2), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemClose(NULL), ACL_ERROR_INVALID_PARAM);
	CK_CODE(aclrtIpcMemSetAttr(NULL, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemSetAttr(key, (aclrtIpcMemAttrType)1, 0), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 4), ACL_ERROR_RT_PARAM_INVALID);
	CK_CODE(aclrtIpcMemSetAttr(key, ACL_RT_IPC_MEM_ATTR_ACCESS_LINK, 2),
		ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED);
	CK_CODE(aclrtIpcMemClose(key), ACL_SUCCESS);
	CK_CODE(aclrtFree(p), ACL_SUCCESS);
	CK_CODE(aclrtResetDevice(SYS_DEVICE), ACL_SUCCESS);
}

static void idle_actor(struct chan *c)
{
	(void)c;
}

static void test_bad_inputs_get_the_spec_codes(void **state)
{
	(void)state;
	run_pair(bad_inputs, idle_actor);
}

static int setup(void **state)
{
	static struct share_state st;
	struct npu_device_info info;

	st.fd = sys_open();
	if (st.fd < 0)
		return -1;
	if (sys_info(st.fd, &info))
		return -1;
	st.base_contexts = info.contexts;
	*state = &st;
	return 0;
}

static int check_idle(void **state)
{
	struct share_state *st = *state;
	struct npu_device_info info;

	assert_int_equal(sys_wait_idle(st->fd, st->base_contexts, IDLE_TIMEOUT_MS, &info), 0);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_ipc_whitelist_denies_then_allows, check_idle),
		cmocka_unit_test_teardown(test_ipc_both_directions, check_idle),
		cmocka_unit_test_teardown(test_ipc_exporter_frees_while_importer_reads, check_idle),
		cmocka_unit_test_teardown(test_wrong_keys_and_foreign_objects_are_refused, check_idle),
		cmocka_unit_test_teardown(test_vmm_mapping_shared_through_handles, check_idle),
		cmocka_unit_test_teardown(test_bad_inputs_get_the_spec_codes, check_idle),
		cmocka_unit_test_teardown(test_sigkill_while_sharing_leaks_nothing, check_idle),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
