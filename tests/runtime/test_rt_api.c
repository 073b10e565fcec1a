/* SPDX-License-Identifier: MIT */
/*
 * CANN's runtime API (runtime/rt.h, the rt* functions that libruntime.so and
 * libascendcl.so export): each function's behaviour, checked against its
 * aclrt* counterpart and by data read back, and its bad inputs with their
 * exact codes. Also acl/ops/acl_dvpp.h (acldvppMalloc, acldvppFree).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"
#include "acl/ops/acl_dvpp.h"
#include "runtime/rt.h"

#define KiB ((size_t)1024)
#define MiB (1024 * KiB)

/* The driver's module and info types (ascend_hal.h) rtGetDeviceInfo takes. */
enum { MOD_SYSTEM = 0, MOD_AICPU = 1, MOD_AICORE = 4, MOD_VECTOR = 7 };
enum { INFO_CORE_NUM = 3, INFO_PHY_CHIP_ID = 18, INFO_PHY_DIE_ID = 19, INFO_SDID = 26,
       INFO_SERVER_ID = 27, INFO_SUPER_POD_ID = 29 };

static void expect_message(const char *needle)
{
	const char *m = aclGetRecentErrMsg();

	if (m == NULL || strstr(m, needle) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", m ? m : "(none)", needle);
}

static void test_memory(void **state)
{
	const size_t n = 2 * MiB + 123;
	uint8_t *src = malloc(n), *dst = malloc(n);
	void *d = NULL, *h = NULL;
	size_t free0 = 0, total = 0, afree = 0, atotal = 0;

	(void)state;
	assert_non_null(src);
	assert_non_null(dst);
	/* Memory info is aclrtGetMemInfo's HBM figure. */
	assert_int_equal(rtMemGetInfo(&free0, &total), RT_ERROR_NONE);
	ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &afree, &atotal));
	assert_int_equal(total, atotal);
	assert_true(free0 <= total && free0 > 0);

	/* Device memory of each kind and policy, written and read back. */
	const rtMemType_t types[] = {
		RT_MEMORY_DEFAULT, RT_MEMORY_HBM, RT_MEMORY_HBM | RT_MEMORY_POLICY_HUGE_PAGE_ONLY,
		RT_MEMORY_DDR | RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY,
		RT_MEMORY_P2P_HBM | RT_MEMORY_POLICY_HUGE_PAGE_FIRST_P2P,
	};
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		rt_fill_pattern(src, n, (uint32_t)i + 1);
		memset(dst, 0, n);
		assert_int_equal(rtMalloc(&d, n, types[i], 0), RT_ERROR_NONE);
		assert_int_equal(rtMemcpy(d, n, src, n, RT_MEMCPY_HOST_TO_DEVICE), RT_ERROR_NONE);
		assert_int_equal(rtMemcpy(dst, n, d, n, RT_MEMCPY_DEVICE_TO_HOST), RT_ERROR_NONE);
		assert_memory_equal(dst, src, n);
		assert_int_equal(rtMemset(d, n, 0xa5, n), RT_ERROR_NONE);
		assert_int_equal(rtMemcpy(dst, n, d, n, RT_MEMCPY_DEFAULT), RT_ERROR_NONE);
		assert_int_equal(rt_first_not(dst, n, 0xa5), n);
		assert_int_equal(rtFree(d), RT_ERROR_NONE);
	}
	/* Host memory. */
	assert_int_equal(rtMallocHost(&h, n, 7), RT_ERROR_NONE);
	memset(h, 0x3c, n);
	assert_int_equal(rtMalloc(&d, n, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	assert_int_equal(rtMemcpy(d, n, h, n, RT_MEMCPY_DEFAULT), RT_ERROR_NONE);
	assert_int_equal(rtMemcpy(dst, n, d, n, RT_MEMCPY_DEVICE_TO_HOST), RT_ERROR_NONE);
	assert_int_equal(rt_first_not(dst, n, 0x3c), n);
	assert_int_equal(rtFreeHost(h), RT_ERROR_NONE);
	assert_int_equal(rtFree(d), RT_ERROR_NONE);

	/* Bad inputs: the rt layer's own checks (107000), then the twin's. */
	assert_int_equal(rtMalloc(NULL, n, RT_MEMORY_HBM, 0), ACL_ERROR_RT_PARAM_INVALID);
	expect_message("rtMalloc: devPtr is NULL");
	assert_int_equal(rtMalloc(&d, n, RT_MEMORY_HOST, 0), ACL_ERROR_RT_PARAM_INVALID);
	expect_message("rtMallocHost");
	assert_int_equal(rtMalloc(&d, n, 0x7, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtMalloc(&d, n,
				  RT_MEMORY_HBM | RT_MEMORY_POLICY_HUGE_PAGE_ONLY |
					  RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY,
				  0),
			 ACL_ERROR_RT_PARAM_INVALID);
	expect_message("more than one RT_MEMORY_POLICY");
	assert_int_equal(rtMalloc(&d, 0, RT_MEMORY_HBM, 0), aclrtMalloc(&d, 0, 0));
	assert_int_equal(rtFree(NULL), aclrtFree(NULL));
	assert_int_not_equal(rtFree(NULL), RT_ERROR_NONE);
	assert_int_equal(rtMallocHost(NULL, n, 0), aclrtMallocHost(NULL, n));
	assert_int_not_equal(rtMallocHost(NULL, n, 0), RT_ERROR_NONE);
	assert_int_equal(rtFreeHost(NULL), aclrtFreeHost(NULL));
	assert_int_equal(rtMemGetInfo(NULL, &total), aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total));
	assert_int_not_equal(rtMemGetInfo(NULL, &total), RT_ERROR_NONE);
	assert_int_equal(rtMalloc(&d, 4096, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	assert_int_equal(rtMemset(d, 4096, 256, 16), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtMemset(d, 16, 1, 32), aclrtMemset(d, 16, 1, 32));
	assert_int_not_equal(rtMemset(d, 16, 1, 32), RT_ERROR_NONE);
	assert_int_equal(rtFree(d), RT_ERROR_NONE);
	/* Freed: the twin's code for a pointer it does not know. */
	assert_int_equal(rtFree(d), aclrtFree(d));
	assert_int_not_equal(rtFree(d), RT_ERROR_NONE);
	/* Every byte allocated here was given back. */
	assert_int_equal(rtMemGetInfo(&afree, &total), RT_ERROR_NONE);
	free(src);
	free(dst);
}

static void test_memcpy_kinds_and_async(void **state)
{
	const size_t n = 256 * KiB;
	uint8_t *src = malloc(n), *dst = malloc(n);
	void *a = NULL, *b = NULL;
	rtStream_t s = NULL;

	(void)state;
	rt_fill_pattern(src, n, 77);
	assert_int_equal(rtMalloc(&a, n, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	assert_int_equal(rtMalloc(&b, n, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	assert_int_equal(rtStreamCreate(&s, 0), RT_ERROR_NONE);
	assert_int_equal(rtMemcpyAsync(a, n, src, n, RT_MEMCPY_HOST_TO_DEVICE, s), RT_ERROR_NONE);
	assert_int_equal(rtMemcpyAsync(b, n, a, n, RT_MEMCPY_DEVICE_TO_DEVICE, s), RT_ERROR_NONE);
	assert_int_equal(rtStreamSynchronize(s), RT_ERROR_NONE);
	assert_int_equal(rtMemcpy(dst, n, b, n, RT_MEMCPY_DEVICE_TO_HOST), RT_ERROR_NONE);
	assert_memory_equal(dst, src, n);
	/* Host to host. */
	memset(dst, 0, n);
	assert_int_equal(rtMemcpy(dst, n, src, n, RT_MEMCPY_HOST_TO_HOST), RT_ERROR_NONE);
	assert_memory_equal(dst, src, n);
	/* Without a kind check: a wrong kind still copies by the addresses. */
	memset(dst, 0, n);
	assert_int_equal(rtMemcpyAsyncWithoutCheckKind(dst, n, b, n, RT_MEMCPY_HOST_TO_DEVICE, s),
			 RT_ERROR_NONE);
	assert_int_equal(rtStreamSynchronize(s), RT_ERROR_NONE);
	assert_memory_equal(dst, src, n);
	/* ... and the checked copy treats a wrong kind as aclrtMemcpy does. */
	assert_int_equal(rtMemcpy(dst, n, b, n, RT_MEMCPY_HOST_TO_DEVICE),
			 aclrtMemcpy(dst, n, b, n, ACL_MEMCPY_HOST_TO_DEVICE));

	/* Kinds that are other operations, and values that are no kind. */
	assert_int_equal(rtMemcpy(b, n, a, n, RT_MEMCPY_MANAGED), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	expect_message("not a plain copy");
	assert_int_equal(rtMemcpy(b, n, a, n, RT_MEMCPY_ADDR_DEVICE_TO_DEVICE),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(rtMemcpyAsync(b, n, a, n, RT_MEMCPY_HOST_TO_DEVICE_EX, s),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(rtMemcpy(b, n, a, n, RT_MEMCPY_RESERVED), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtMemcpy(b, n, a, n, (rtMemcpyKind_t)-1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtMemcpyAsyncWithoutCheckKind(b, n, a, n, (rtMemcpyKind_t)42, s),
			 ACL_ERROR_RT_PARAM_INVALID);
	/* The twin's checks: NULL, destMax too small. */
	assert_int_equal(rtMemcpy(NULL, n, a, n, RT_MEMCPY_DEVICE_TO_DEVICE),
			 aclrtMemcpy(NULL, n, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
	assert_int_not_equal(rtMemcpy(NULL, n, a, n, RT_MEMCPY_DEVICE_TO_DEVICE), RT_ERROR_NONE);
	assert_int_equal(rtMemcpyAsync(b, n / 2, a, n, RT_MEMCPY_DEVICE_TO_DEVICE, s),
			 aclrtMemcpyAsync(b, n / 2, a, n, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
	assert_int_not_equal(rtMemcpyAsync(b, n / 2, a, n, RT_MEMCPY_DEVICE_TO_DEVICE, s),
			     RT_ERROR_NONE);
	assert_int_equal(rtStreamDestroy(s), RT_ERROR_NONE);
	assert_int_equal(rtFree(a), RT_ERROR_NONE);
	assert_int_equal(rtFree(b), RT_ERROR_NONE);
	free(src);
	free(dst);
}

static void test_ipc_names(void **state)
{
	const size_t n = 3 * MiB;
	uint8_t *src = malloc(n), *dst = malloc(n);
	char name[65], small[16];
	void *p = NULL, *q = NULL;
	uint32_t tgid = 0;
	int32_t atgid = 0;

	(void)state;
	rt_fill_pattern(src, n, 9);
	assert_int_equal(rtDeviceGetBareTgid(&tgid), RT_ERROR_NONE);
	ACL_OK(aclrtDeviceGetBareTgid(&atgid));
	assert_int_equal(tgid, (uint32_t)atgid);
	assert_int_equal(rtMalloc(&p, n, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	assert_int_equal(rtMemcpy(p, n, src, n, RT_MEMCPY_HOST_TO_DEVICE), RT_ERROR_NONE);
	assert_int_equal(rtIpcSetMemoryName(p, n, name, sizeof(name)), RT_ERROR_NONE);
	assert_int_equal(strlen(name), 64);
	/* Not whitelisted yet: the open fails; then this process is. */
	assert_int_not_equal(rtIpcOpenMemory(&q, name), RT_ERROR_NONE);
	int32_t pid = (int32_t)tgid;
	assert_int_equal(rtSetIpcMemPid(name, &pid, 1), RT_ERROR_NONE);
	assert_int_equal(rtSetIpcMemorySuperPodPid(name, 5, &pid, 1), RT_ERROR_NONE);
	assert_int_equal(rtIpcOpenMemory(&q, name), RT_ERROR_NONE);
	assert_ptr_not_equal(p, q);
	assert_int_equal(rtMemcpy(dst, n, q, n, RT_MEMCPY_DEVICE_TO_HOST), RT_ERROR_NONE);
	assert_memory_equal(dst, src, n);
	/* Writes through the import land in the exported memory. */
	assert_int_equal(rtMemset(q, n, 0x5a, 4096), RT_ERROR_NONE);
	assert_int_equal(rtMemcpy(dst, 4096, p, 4096, RT_MEMCPY_DEVICE_TO_HOST), RT_ERROR_NONE);
	assert_int_equal(rt_first_not(dst, 4096, 0x5a), 4096);
	/* A second open maps it again; each address closes on its own. */
	void *q2 = NULL;

	assert_int_equal(rtIpcOpenMemory(&q2, name), RT_ERROR_NONE);
	assert_int_equal(rtIpcCloseMemory(q2), RT_ERROR_NONE);
	assert_int_equal(rtMemcpy(dst, n, q, n, RT_MEMCPY_DEVICE_TO_HOST), RT_ERROR_NONE);
	assert_int_equal(rtIpcCloseMemory(q), RT_ERROR_NONE);
	assert_int_equal(rtIpcCloseMemory(q), ACL_ERROR_RT_PARAM_INVALID);
	expect_message("not an address");
	assert_int_equal(rtIpcDestroyMemoryName(name), RT_ERROR_NONE);
	assert_int_not_equal(rtIpcOpenMemory(&q, name), RT_ERROR_NONE);
	assert_int_equal(rtIpcDestroyMemoryName(name), ACL_ERROR_RT_PARAM_INVALID);

	/* Bad inputs. */
	assert_int_equal(rtIpcSetMemoryName(NULL, n, name, sizeof(name)), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtIpcSetMemoryName(p, n, NULL, sizeof(name)), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtIpcSetMemoryName(p, n, small, sizeof(small)),
			 aclrtIpcMemGetExportKey(p, n, small, sizeof(small), 0));
	assert_int_not_equal(rtIpcSetMemoryName(p, n, small, sizeof(small)), RT_ERROR_NONE);
	assert_int_equal(rtSetIpcMemPid(NULL, &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtSetIpcMemPid(name, NULL, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtSetIpcMemPid(name, &pid, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtSetIpcMemorySuperPodPid(name, 0, &pid, -1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtSetIpcMemPid("short", &pid, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtIpcDestroyMemoryName(NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtIpcDestroyMemoryName("short"), ACL_ERROR_RT_PARAM_INVALID);
	expect_message("not a name");
	assert_int_equal(rtIpcOpenMemory(NULL, name), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtIpcOpenMemory(&q, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtIpcCloseMemory(NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtIpcCloseMemory(p), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetDeviceCount(NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtDeviceGetBareTgid(NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtFree(p), RT_ERROR_NONE);
	free(src);
	free(dst);
}

static void *get_device_thread(void *p)
{
	int32_t *rc = p, dev = -1;

	rc[0] = rtGetDevice(&dev);
	return NULL;
}

static const char *g_self;
#define IPC_CHILD_SIZE (2 * MiB)

/* Child: waits for the parent's go, opens the name, checks the parent's
 * bytes, overwrites the first page and closes. */
static int child_ipc(const char *name, int fd)
{
	static uint8_t want[IPC_CHILD_SIZE], got[IPC_CHILD_SIZE];
	void *q = NULL;
	char go;

	if (rtSetDevice(0) != RT_ERROR_NONE)
		return 10;
	if (read(fd, &go, 1) != 1)
		return 11;
	if (rtIpcOpenMemory(&q, name) != RT_ERROR_NONE) {
		fprintf(stderr, "open: %s\n", aclGetRecentErrMsg());
		return 12;
	}
	rt_fill_pattern(want, sizeof(want), 42);
	if (rtMemcpy(got, sizeof(got), q, sizeof(got), RT_MEMCPY_DEVICE_TO_HOST) != RT_ERROR_NONE ||
	    memcmp(got, want, sizeof(got)) != 0)
		return 13;
	if (rtMemset(q, 4096, 0x77, 4096) != RT_ERROR_NONE)
		return 14;
	if (rtIpcCloseMemory(q) != RT_ERROR_NONE)
		return 15;
	return rtDeviceReset(0) == RT_ERROR_NONE ? 0 : 16;
}

/* Another process opens the name once whitelisted (on a device processes
 * share: not the in-process one). */
static void test_ipc_names_between_processes(void **state)
{
	static uint8_t src[IPC_CHILD_SIZE], page[4096];
	const char *backend = getenv("NPU_DEVICE");
	char name[65], fdtext[16];
	void *p = NULL;
	int fds[2], status = 0;

	(void)state;
	if (backend != NULL && !strcmp(backend, "inproc"))
		skip();
	rt_fill_pattern(src, sizeof(src), 42);
	assert_int_equal(rtMalloc(&p, sizeof(src), RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	assert_int_equal(rtMemcpy(p, sizeof(src), src, sizeof(src), RT_MEMCPY_HOST_TO_DEVICE),
			 RT_ERROR_NONE);
	assert_int_equal(rtIpcSetMemoryName(p, sizeof(src), name, sizeof(name)), RT_ERROR_NONE);
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[1]);
		snprintf(fdtext, sizeof(fdtext), "%d", fds[0]);
		execl(g_self, g_self, "--child-ipc", name, fdtext, (char *)NULL);
		_exit(127);
	}
	close(fds[0]);
	int32_t child = (int32_t)pid;

	assert_int_equal(rtSetIpcMemPid(name, &child, 1), RT_ERROR_NONE);
	assert_int_equal(write(fds[1], "g", 1), 1);
	close(fds[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* The child's write is in the exported memory. */
	assert_int_equal(rtMemcpy(page, sizeof(page), p, sizeof(page), RT_MEMCPY_DEVICE_TO_HOST),
			 RT_ERROR_NONE);
	assert_int_equal(rt_first_not(page, sizeof(page), 0x77), sizeof(page));
	assert_int_equal(rtIpcDestroyMemoryName(name), RT_ERROR_NONE);
	assert_int_equal(rtFree(p), RT_ERROR_NONE);
}

static void test_devices_and_ids(void **state)
{
	int32_t cnt = 0, dev = -1, logic = -1, user = -1;
	uint32_t acnt = 0, phy = 99;

	(void)state;
	assert_int_equal(rtGetDeviceCount(&cnt), RT_ERROR_NONE);
	ACL_OK(aclrtGetDeviceCount(&acnt));
	assert_int_equal(cnt, (int32_t)acnt);
	assert_true(cnt >= 1);
	assert_int_equal(rtSetDevice(0), RT_ERROR_NONE);
	assert_int_equal(rtGetDevice(&dev), RT_ERROR_NONE);
	assert_int_equal(dev, 0);
	for (int32_t i = 0; i < cnt; i++) {
		int32_t aphy = -1, alogic = -1;

		assert_int_equal(rtGetLogicDevIdByUserDevId(i, &logic), RT_ERROR_NONE);
		ACL_OK(aclrtGetLogicDevIdByUserDevId(i, &alogic));
		assert_int_equal(logic, alogic);
		assert_int_equal(rtGetUserDevIdByLogicDevId(logic, &user), RT_ERROR_NONE);
		assert_int_equal(user, i);
		assert_int_equal(rtGetDevicePhyIdByIndex((uint32_t)i, &phy), RT_ERROR_NONE);
		ACL_OK(aclrtGetPhyDevIdByLogicDevId(i, &aphy));
		assert_int_equal(phy, (uint32_t)aphy);
	}
	/* Bad ids get the twin's code; NULL outputs 107000. */
	assert_int_equal(rtSetDevice(cnt + 7), aclrtSetDevice(cnt + 7));
	assert_int_not_equal(rtSetDevice(cnt + 7), RT_ERROR_NONE);
	assert_int_equal(rtGetDevice(NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetLogicDevIdByUserDevId(0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetLogicDevIdByUserDevId(cnt, &logic), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(rtGetLogicDevIdByUserDevId(-1, &logic), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(rtGetUserDevIdByLogicDevId(0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetDevicePhyIdByIndex(0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetDevicePhyIdByIndex((uint32_t)cnt, &phy), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(rtGetDevicePhyIdByIndex(0x80000000u, &phy), ACL_ERROR_RT_INVALID_DEVICEID);
	/* The reset that matches this test's set; device 0 stays set by the
	 * group's setup. */
	assert_int_equal(rtDeviceReset(0), RT_ERROR_NONE);
	assert_int_equal(rtGetDevice(&dev), RT_ERROR_NONE);
	assert_int_equal(dev, 0);
	assert_int_equal(rtDeviceReset(cnt + 7), aclrtResetDevice(cnt + 7));
	assert_int_not_equal(rtDeviceReset(cnt + 7), RT_ERROR_NONE);
	/* With no device set on a thread: the twin's 107002. */
	{
		int32_t rc[1];

		rt_run_in_thread(get_device_thread, rc);
		assert_int_equal(rc[0], ACL_ERROR_RT_CONTEXT_NULL);
	}
}

static void test_device_info(void **state)
{
	int64_t v = -1, a = -1;

	(void)state;
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, INFO_PHY_CHIP_ID, &v), RT_ERROR_NONE);
	ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_PHY_CHIP_ID, &a));
	assert_int_equal(v, a);
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, INFO_PHY_DIE_ID, &v), RT_ERROR_NONE);
	assert_int_equal(v, 0);
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, INFO_CORE_NUM, &v), RT_ERROR_NONE);
	assert_int_equal(v, 1);
	assert_int_equal(rtGetDeviceInfo(0, MOD_AICORE, INFO_CORE_NUM, &v), RT_ERROR_NONE);
	ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, &a));
	assert_int_equal(v, a);
	assert_int_equal(rtGetDeviceInfo(0, MOD_AICPU, INFO_CORE_NUM, &v), RT_ERROR_NONE);
	ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICPU_CORE_NUM, &a));
	assert_int_equal(v, a);
	assert_int_equal(rtGetDeviceInfo(0, MOD_VECTOR, INFO_CORE_NUM, &v), RT_ERROR_NONE);
	ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_VECTOR_CORE_NUM, &a));
	assert_int_equal(v, a);
	/* Super-pod ids: the device is in none, as aclrtGetDeviceInfo says. */
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, INFO_SDID, &v),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	expect_message("super");
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, INFO_SERVER_ID, &v),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, INFO_SUPER_POD_ID, &v),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	/* Pairs this device does not know; bad arguments. */
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, 99, &v), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(rtGetDeviceInfo(0, 15, INFO_CORE_NUM, &v),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(rtGetDeviceInfo(0, -1, INFO_CORE_NUM, &v), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, -3, &v), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetDeviceInfo(0, MOD_SYSTEM, INFO_PHY_CHIP_ID, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetDeviceInfo(1000, MOD_SYSTEM, INFO_PHY_CHIP_ID, &v),
			 aclrtGetDeviceInfo(1000, ACL_DEV_ATTR_PHY_CHIP_ID, &a));
	assert_int_not_equal(rtGetDeviceInfo(1000, MOD_SYSTEM, INFO_PHY_CHIP_ID, &v),
			     RT_ERROR_NONE);
}

static void test_p2p(void **state)
{
	int32_t cnt = 0, can = -1;
	uint32_t phy1 = 0, status = 9;

	(void)state;
	assert_int_equal(rtGetDeviceCount(&cnt), RT_ERROR_NONE);
	/* Bad inputs need no second device. */
	assert_int_equal(rtEnableP2P(0, 0, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtEnableP2P(0, 0x80000000u, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(rtEnableP2P((uint32_t)cnt, 0, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(rtDisableP2P(0, (uint32_t)cnt + 3), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(rtGetP2PStatus(0, 0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtDeviceCanAccessPeer(NULL, 0, 1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtDeviceCanAccessPeer(&can, 0x80000000u, 0), ACL_ERROR_RT_INVALID_DEVICEID);
	{
		uint32_t phy0 = 0;

		assert_int_equal(rtGetDevicePhyIdByIndex(0, &phy0), RT_ERROR_NONE);
		assert_int_equal(rtEnableP2P(0, phy0, 0), ACL_ERROR_RT_PARAM_INVALID);
		expect_message("same device");
	}
	if (cnt < 2) {
		print_message("one device: the two-device half is skipped\n");
		return;
	}
	assert_int_equal(rtDeviceCanAccessPeer(&can, 0, 1), RT_ERROR_NONE);
	assert_int_equal(can, 1);
	assert_int_equal(rtGetDevicePhyIdByIndex(1, &phy1), RT_ERROR_NONE);
	assert_int_equal(rtGetP2PStatus(0, phy1, &status), RT_ERROR_NONE);
	assert_int_equal(status, 0);
	assert_int_equal(rtEnableP2P(0, phy1, 0), RT_ERROR_NONE);
	assert_int_equal(rtGetP2PStatus(0, phy1, &status), RT_ERROR_NONE);
	assert_int_equal(status, 1);
	/* The same state as aclrtDeviceEnablePeerAccess's (from the current
	 * device, 0): disabled through the acl call, the status says so. */
	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	assert_int_equal(rtGetP2PStatus(0, phy1, &status), RT_ERROR_NONE);
	assert_int_equal(status, 0);
	assert_int_equal(rtEnableP2P(0, phy1, 0), RT_ERROR_NONE);
	/* A copy device 0's stream makes from device 1's memory. */
	{
		void *remote = NULL, *local = NULL;
		uint8_t buf[4096];

		ACL_OK(aclrtSetDevice(1));
		assert_int_equal(rtMalloc(&remote, sizeof(buf), RT_MEMORY_HBM, 0), RT_ERROR_NONE);
		assert_int_equal(rtMemset(remote, sizeof(buf), 0x42, sizeof(buf)), RT_ERROR_NONE);
		ACL_OK(aclrtSetDevice(0));
		assert_int_equal(rtMalloc(&local, sizeof(buf), RT_MEMORY_HBM, 0), RT_ERROR_NONE);
		assert_int_equal(rtMemcpy(local, sizeof(buf), remote, sizeof(buf),
					  RT_MEMCPY_DEVICE_TO_DEVICE),
				 RT_ERROR_NONE);
		assert_int_equal(rtMemcpy(buf, sizeof(buf), local, sizeof(buf),
					  RT_MEMCPY_DEVICE_TO_HOST),
				 RT_ERROR_NONE);
		assert_int_equal(rt_first_not(buf, sizeof(buf), 0x42), sizeof(buf));
		assert_int_equal(rtFree(local), RT_ERROR_NONE);
		ACL_OK(aclrtSetDevice(1));
		assert_int_equal(rtFree(remote), RT_ERROR_NONE);
		ACL_OK(aclrtResetDevice(1));
		ACL_OK(aclrtSetDevice(0));
	}
	assert_int_equal(rtDisableP2P(0, phy1), RT_ERROR_NONE);
	assert_int_equal(rtGetP2PStatus(0, phy1, &status), RT_ERROR_NONE);
	assert_int_equal(status, 0);
}

static void test_streams_and_task_ids(void **state)
{
	rtStream_t s = NULL, dead = NULL;
	uint32_t sq = 0, cq = 0, lcq = 0, task = 0, sid = 0, atask = 0;
	int32_t id = -1;
	void *d = NULL;

	(void)state;
	assert_int_equal(rtStreamCreate(&s, 3), RT_ERROR_NONE);
	ACL_OK(aclrtStreamGetPriority(s, &sq));
	assert_int_equal(sq, 3);
	ACL_OK(aclrtStreamGetId(s, &id));
	assert_int_equal(rtStreamGetSqid(s, &sq), RT_ERROR_NONE);
	assert_int_equal(sq, (uint32_t)id);
	assert_int_equal(rtStreamGetCqid(s, &cq, &lcq), RT_ERROR_NONE);
	assert_int_equal(cq, (uint32_t)id);
	assert_int_equal(lcq, (uint32_t)id);
	/* NULL: the default stream. */
	ACL_OK(aclrtStreamGetId(NULL, &id));
	assert_int_equal(rtStreamGetSqid(NULL, &sq), RT_ERROR_NONE);
	assert_int_equal(sq, (uint32_t)id);
	/* The last task of this thread and its stream. */
	assert_int_equal(rtMalloc(&d, 4096, RT_MEMORY_HBM, 0), RT_ERROR_NONE);
	ACL_OK(aclrtMemsetAsync(d, 4096, 1, 4096, s));
	ACL_OK(aclrtMemsetAsync(d, 4096, 2, 4096, s));
	assert_int_equal(rtGetTaskIdAndStreamID(&task, &sid), RT_ERROR_NONE);
	ACL_OK(aclrtGetThreadLastTaskId(&atask));
	ACL_OK(aclrtStreamGetId(s, &id));
	assert_int_equal(task, atask);
	assert_true(task >= 2);
	assert_int_equal(sid, (uint32_t)id);
	assert_int_equal(rtStreamSynchronize(s), RT_ERROR_NONE);
	assert_int_equal(rtFree(d), RT_ERROR_NONE);

	/* Bad inputs. */
	assert_int_equal(rtStreamCreate(NULL, 0), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtStreamCreate(&dead, -1), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtStreamCreate(&dead, 100), aclrtCreateStreamWithConfig(&dead, 100, 0));
	assert_int_equal(rtStreamGetSqid(s, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtStreamGetCqid(s, NULL, &lcq), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtStreamGetCqid(s, &cq, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetTaskIdAndStreamID(NULL, &sid), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtGetTaskIdAndStreamID(&task, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtStreamCreate(&dead, 0), RT_ERROR_NONE);
	assert_int_equal(rtStreamDestroy(dead), RT_ERROR_NONE);
	assert_int_equal(rtStreamGetSqid(dead, &sq), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(rtStreamGetCqid(dead, &cq, &lcq), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(rtStreamSynchronize(dead), aclrtSynchronizeStream(dead));
	assert_int_equal(rtStreamDestroy(dead), aclrtDestroyStream(dead));
	assert_int_not_equal(rtStreamDestroy(dead), RT_ERROR_NONE);
	assert_int_equal(rtStreamDestroy(s), RT_ERROR_NONE);
}

static void test_notifies(void **state)
{
	rtNotify_t n = NULL, m = NULL;
	uint64_t off = 1, off2 = 1;
	uint32_t id = 0, id2 = 0;

	(void)state;
	assert_int_equal(rtNotifyCreate(0, &n), RT_ERROR_NONE);
	assert_int_equal(rtNotifyCreate(0, &m), RT_ERROR_NONE);
	assert_int_equal(rtNotifyGetAddrOffset(n, &off), RT_ERROR_NONE);
	assert_int_equal(rtNotifyGetAddrOffset(m, &off2), RT_ERROR_NONE);
	ACL_OK(aclrtGetNotifyId(n, &id));
	ACL_OK(aclrtGetNotifyId(m, &id2));
	assert_int_equal(off, (uint64_t)id * 8);
	assert_int_equal(off2, (uint64_t)id2 * 8);
	assert_int_not_equal(off, off2);
	/* A notify of rtNotifyCreate is a notify of the acl calls. */
	ACL_OK(aclrtRecordNotify(n, NULL));
	ACL_OK(aclrtWaitAndResetNotify(n, NULL, 0));
	ACL_OK(aclrtSynchronizeStream(NULL));

	assert_int_equal(rtNotifyCreate(0, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtNotifyCreate(1, &m), ACL_ERROR_RT_INVALID_DEVICEID);
	expect_message("not the current context's device");
	assert_int_equal(rtNotifyGetAddrOffset(NULL, &off), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtNotifyGetAddrOffset(n, NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtNotifyDestroy(NULL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(rtNotifyDestroy(n), RT_ERROR_NONE);
	assert_int_equal(rtNotifyDestroy(m), RT_ERROR_NONE);
	assert_int_equal(rtNotifyGetAddrOffset(n, &off), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(rtNotifyDestroy(n), ACL_ERROR_RT_INVALID_HANDLE);
}

static void test_dvpp_memory(void **state)
{
	const size_t n = 1000 * 1000 * 3 / 2;
	uint8_t *src = malloc(n), *dst = malloc(n);
	void *p = NULL, *z = NULL;
	aclrtPtrAttributes attr;

	(void)state;
	rt_fill_pattern(src, n, 31);
	ACL_OK(acldvppMalloc(&p, n));
	assert_int_equal((uintptr_t)p % 128, 0);
	/* Upstream's rounding: a multiple of 32, and 32 more. */
	ACL_OK(aclrtPointerGetAttributes(p, &attr));
	ACL_OK(aclrtMemcpy(p, n, src, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(dst, n, p, n, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_memory_equal(dst, src, n);
	/* The 32 extra bytes are there to write. */
	ACL_OK(aclrtMemset(p, (n + 63) / 32 * 32, 0, (n + 63) / 32 * 32));
	/* Size 0 is 32 bytes. */
	ACL_OK(acldvppMalloc(&z, 0));
	ACL_OK(aclrtMemset(z, 32, 7, 32));
	ACL_OK(acldvppFree(z));
	ACL_OK(acldvppFree(p));
	/* Bad inputs. */
	assert_int_equal(acldvppMalloc(NULL, n), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(acldvppMalloc(&p, SIZE_MAX), ACL_ERROR_INVALID_PARAM);
	expect_message("overflows");
	assert_int_equal(acldvppMalloc(&p, SIZE_MAX - 40), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(acldvppFree(NULL), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(acldvppFree(p), aclrtFree(p));
	assert_int_not_equal(acldvppFree(p), ACL_SUCCESS);
	free(src);
	free(dst);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_memcpy_kinds_and_async),
		cmocka_unit_test(test_ipc_names),
		cmocka_unit_test(test_ipc_names_between_processes),
		cmocka_unit_test(test_devices_and_ids),
		cmocka_unit_test(test_device_info),
		cmocka_unit_test(test_p2p),
		cmocka_unit_test(test_streams_and_task_ids),
		cmocka_unit_test(test_notifies),
		cmocka_unit_test(test_dvpp_memory),
	};

	g_self = argv[0];
	if (argc == 4 && !strcmp(argv[1], "--child-ipc"))
		return child_ipc(argv[2], atoi(argv[3]));
	return cmocka_run_group_tests(tests, rt_setup_device0, rt_teardown_device0);
}
