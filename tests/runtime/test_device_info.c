// SPDX-License-Identifier: MIT
/*
 * Device information: aclrtGetDeviceInfo, aclGetDeviceCapability,
 * aclrtGetDeviceCapability, aclrtQueryDeviceStatus,
 * aclrtGetDeviceUtilizationRate, aclrtCheckArchCompatibility,
 * aclrtDeviceGetUuid, aclrtDeviceGetPCIBusId / aclrtDeviceGetByPCIBusId,
 * aclrtGetDevicesTopo, the six device-id mappings (also under
 * ASCEND_RT_VISIBLE_DEVICES, in a fresh process), aclrtDevicePeerAccessStatus,
 * aclrtSetTsDevice, the atomic-capability queries, aclrtGetErrorVerbose and
 * aclrtRepairError: the values, and every bad-input row with its exact code
 * and a message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rt_test.h"

static const char *g_self;	/* argv[0], for the re-executed children */

static void test_device_info_values(void **state)
{
	const uint32_t n = rt_device_count();
	size_t free_b = 0, total_b = 0;
	int64_t v;

	(void)state;
	for (uint32_t d = 0; d < n; d++) {
		int32_t phys = -1;

		v = -1;
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_AICORE_CORE_NUM, &v));
		assert_int_equal(v, 24);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_CUBE_CORE_NUM, &v));
		assert_int_equal(v, 24);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_VECTOR_CORE_NUM, &v));
		assert_int_equal(v, 48);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_AICPU_CORE_NUM, &v));
		assert_int_equal(v, 6);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_L2_CACHE_SIZE, &v));
		assert_int_equal(v, 192 << 20);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_NPU_ARCH, &v));
		assert_int_equal(v, 2201);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_IS_VIRTUAL, &v));
		assert_int_equal(v, 0);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_HD_CONNECT_TYPE, &v));
		assert_int_equal(v, ACL_HOST_DEVICE_CONNECT_TYPE_PCIE);
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_DEVICE_FORM_FACTOR, &v));
		assert_int_equal(v, ACL_DEVICE_FORM_FACTOR_PCIE_CARD);
		ACL_OK(aclrtGetPhyDevIdByUserDevId((int32_t)d, &phys));
		ACL_OK(aclrtGetDeviceInfo(d, ACL_DEV_ATTR_PHY_CHIP_ID, &v));
		assert_int_equal(v, phys);
	}
	/* Without a set device, and then equal to the memory of aclrtGetMemInfo. */
	v = -1;
	ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_b, &total_b));
	assert_true(total_b > 0);
	assert_int_equal(v, (int64_t)total_b);
	v = -1;
	ACL_OK(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v));
	assert_int_equal(v, (int64_t)total_b);
	ACL_OK(aclrtResetDevice(0));
}

static void test_device_info_bad_inputs(void **state)
{
	const uint32_t n = rt_device_count();
	int64_t v = 77;

	(void)state;
	EXPECT_FAIL(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, NULL),
		    ACL_ERROR_INVALID_PARAM);
	/* A bad id is 107000 here, not 107001. */
	EXPECT_FAIL(aclrtGetDeviceInfo(n, ACL_DEV_ATTR_AICORE_CORE_NUM, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetDeviceInfo(UINT32_MAX, ACL_DEV_ATTR_AICORE_CORE_NUM, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetDeviceInfo(0, (aclrtDevAttr)0, &v), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetDeviceInfo(0, (aclrtDevAttr)9999, &v), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetDeviceInfo(0, (aclrtDevAttr)-1, &v), ACL_ERROR_RT_PARAM_INVALID);
	/* Known attributes the emulated SoC has no answer for. */
	EXPECT_FAIL(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_WARP_SIZE, &v),
		    ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	EXPECT_FAIL(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_SUPER_POD_ID, &v),
		    ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(v, 77);
	/* Runtime-layer failures are the thread's last error, ACL-layer ones are not. */
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	EXPECT_FAIL(aclrtGetDeviceInfo(0, ACL_DEV_ATTR_AICORE_CORE_NUM, NULL),
		    ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), 0);
	EXPECT_FAIL(aclrtGetDeviceInfo(n, ACL_DEV_ATTR_AICORE_CORE_NUM, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
}

static void test_acl_get_device_capability(void **state)
{
	const uint32_t n = rt_device_count();
	int64_t v = 0;

	(void)state;
	ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, &v));
	assert_int_equal(v, 24);
	ACL_OK(aclGetDeviceCapability(n - 1, ACL_DEVICE_INFO_VECTOR_CORE_NUM, &v));
	assert_int_equal(v, 48);
	ACL_OK(aclGetDeviceCapability(0, ACL_DEVICE_INFO_L2_SIZE, &v));
	assert_int_equal(v, 192 << 20);
	v = 77;
	EXPECT_FAIL(aclGetDeviceCapability(0, ACL_DEVICE_INFO_AI_CORE_NUM, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclGetDeviceCapability(n, ACL_DEVICE_INFO_AI_CORE_NUM, &v),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclGetDeviceCapability(0, ACL_DEVICE_INFO_UNDEFINED, &v),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclGetDeviceCapability(0, (aclDeviceInfo)3, &v), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(v, 77);
}

static void test_rt_get_device_capability(void **state)
{
	int32_t v = 7;

	(void)state;
	ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV, &v));
	assert_int_equal(v, ACL_DEV_FEATURE_NOT_SUPPORT);
	v = 7;
	ACL_OK(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v));
	assert_int_equal(v, ACL_DEV_FEATURE_NOT_SUPPORT);
	v = 7;
	EXPECT_FAIL(aclrtGetDeviceCapability(0, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, NULL),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)2, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetDeviceCapability(0, (aclrtDevFeatureType)-1, &v),
		    ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtGetDeviceCapability(-1, ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtGetDeviceCapability((int32_t)rt_device_count(),
					     ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV, &v),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(v, 7);
}

static void test_query_device_status(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	aclrtDeviceStatus st = (aclrtDeviceStatus)7;

	(void)state;
	for (int32_t d = 0; d < n; d++) {
		st = (aclrtDeviceStatus)7;
		ACL_OK(aclrtQueryDeviceStatus(d, &st));
		assert_int_equal(st, ACL_RT_DEVICE_STATUS_NORMAL);
	}
	st = (aclrtDeviceStatus)7;
	EXPECT_FAIL(aclrtQueryDeviceStatus(0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtQueryDeviceStatus(-1, &st), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtQueryDeviceStatus(n, &st), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(st, 7);
}

/* Copies make the engines busy; an idle private device is not. */
static void test_utilization_follows_the_engines(void **state)
{
	enum { kBytes = 64 << 20 };
	aclrtUtilizationInfo u = { 0 };
	const char *backend = getenv("NPU_DEVICE");
	int busy = 0;
	void *a = NULL, *b = NULL;

	(void)state;
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtMalloc(&a, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMalloc(&b, kBytes, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtGetDeviceUtilizationRate(0, &u)); /* starts a window */
	/* A window of copies only: some share of it is busy. */
	for (int i = 0; i < 8 && !busy; i++) {
		for (int j = 0; j < 4; j++)
			ACL_OK(aclrtMemcpy(b, kBytes, a, kBytes, ACL_MEMCPY_DEVICE_TO_DEVICE));
		ACL_OK(aclrtGetDeviceUtilizationRate(0, &u));
		busy = u.cubeUtilization > 0;
	}
	assert_true(busy);
	assert_in_range(u.cubeUtilization, 1, 100);
	/* Idle: on the private in-process device nobody else copies. */
	if (backend && !strcmp(backend, "inproc")) {
		usleep(300 * 1000);
		ACL_OK(aclrtGetDeviceUtilizationRate(0, &u));
		assert_int_equal(u.cubeUtilization, 0);
	}
	ACL_OK(aclrtFree(a));
	ACL_OK(aclrtFree(b));
	ACL_OK(aclrtResetDevice(0));
}

static void test_utilization_rate(void **state)
{
	aclrtUtilizationInfo u;

	(void)state;
	/* A bad id: -1 everywhere, and the call still succeeds (upstream's). */
	const int32_t ids[] = { -1, 1000 };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		memset(&u, 0x37, sizeof(u));
		u.utilizationExtend = NULL;
		ACL_OK(aclrtGetDeviceUtilizationRate(ids[i], &u));
		assert_int_equal(u.cubeUtilization, -1);
		assert_int_equal(u.vectorUtilization, -1);
		assert_int_equal(u.aicpuUtilization, -1);
		assert_int_equal(u.memoryUtilization, -1);
	}
	/* Device 0: the copy engines' busy share, as cube and vector. */
	memset(&u, 0x37, sizeof(u));
	u.utilizationExtend = NULL;
	ACL_OK(aclrtGetDeviceUtilizationRate(0, &u));
	assert_in_range(u.cubeUtilization, 0, 100);
	assert_int_equal(u.vectorUtilization, u.cubeUtilization);
	assert_int_equal(u.aicpuUtilization, -1);
	assert_int_equal(u.memoryUtilization, -1);
	EXPECT_FAIL(aclrtGetDeviceUtilizationRate(0, NULL), ACL_ERROR_INVALID_PARAM);
	memset(&u, 0x37, sizeof(u));
	u.utilizationExtend = (aclrtUtilizationExtendInfo *)&u;
	EXPECT_FAIL(aclrtGetDeviceUtilizationRate(0, &u), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(u.cubeUtilization, 0x37373737);
}

static void test_check_arch_compatibility(void **state)
{
	int32_t c = 7;

	(void)state;
	if (getenv("NPU_SOC_NAME") != NULL)
		skip();	/* the answers below are for the default Ascend910B2 */
	ACL_OK(aclrtCheckArchCompatibility("Ascend910B2", &c));
	assert_int_equal(c, 1);
	c = 7;
	ACL_OK(aclrtCheckArchCompatibility("Ascend910B4", &c));
	assert_int_equal(c, 1);
	c = 7;
	ACL_OK(aclrtCheckArchCompatibility("Ascend910_9391", &c));
	assert_int_equal(c, 1);
	ACL_OK(aclrtCheckArchCompatibility("Ascend310P3", &c));
	assert_int_equal(c, 0);
	c = 1;
	ACL_OK(aclrtCheckArchCompatibility("Ascend950PR_950z", &c));
	assert_int_equal(c, 0);
	c = 7;
	/* No ACL-layer checks: every row is the runtime's 107000. */
	EXPECT_FAIL(aclrtCheckArchCompatibility(NULL, &c), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtCheckArchCompatibility("Ascend910B2", NULL), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtCheckArchCompatibility("", &c), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtCheckArchCompatibility("Pentium4", &c), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(c, 7);
}

static void test_uuid(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	aclrtUuid a, b;

	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0xff, sizeof(b));
	ACL_OK(aclrtDeviceGetUuid(0, &a));
	ACL_OK(aclrtDeviceGetUuid(0, &b));
	assert_memory_equal(a.bytes, b.bytes, sizeof(a.bytes));
	if (n >= 2) {
		ACL_OK(aclrtDeviceGetUuid(1, &b));
		assert_memory_not_equal(a.bytes, b.bytes, sizeof(a.bytes));
	}
	memset(&b, 0x5a, sizeof(b));
	EXPECT_FAIL(aclrtDeviceGetUuid(0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetUuid(-1, &b), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDeviceGetUuid(n, &b), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal((uint8_t)b.bytes[0], 0x5a);
}

static void test_pci_bus_id_round_trip(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	char id[64], id2[64];
	int32_t dev = -1;

	(void)state;
	for (int32_t d = 0; d < n; d++) {
		int32_t phys = -1;
		char want[32];

		memset(id, 'x', sizeof(id));
		ACL_OK(aclrtDeviceGetPCIBusId(d, id, (int32_t)sizeof(id)));
		ACL_OK(aclrtGetPhyDevIdByUserDevId(d, &phys));
		snprintf(want, sizeof(want), "0000:%02x:00.0", phys + 1);
		assert_string_equal(id, want);
		dev = -1;
		ACL_OK(aclrtDeviceGetByPCIBusId(id, &dev));
		assert_int_equal(dev, d);
	}
	/* Exactly big enough: 12 characters and the NUL. */
	ACL_OK(aclrtDeviceGetPCIBusId(0, id2, 13));
	assert_int_equal(strlen(id2), 12);
	/* Upper case, and without the domain. */
	dev = -1;
	ACL_OK(aclrtDeviceGetByPCIBusId(id2 + 5, &dev));
	assert_int_equal(dev, 0);
	for (char *p = id2; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'f' ? *p - 'a' + 'A' : *p);
	dev = -1;
	ACL_OK(aclrtDeviceGetByPCIBusId(id2, &dev));
	assert_int_equal(dev, 0);
}

static void test_pci_bus_id_bad_inputs(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	char id[16];
	int32_t dev = 77;
	static const char *const bad[] = {
		"", "0000:01:00", "0000:01:00.0x", "0000:01:01.0",
		"0000:01:00.1", "0000:00:00.0", "zz:00.0", "0000-01:00.0", "1:00.0",
		"00000:01:00.0", "0000:01:00.0 ",
	};

	(void)state;
	memset(id, 'x', sizeof(id));
	EXPECT_FAIL(aclrtDeviceGetPCIBusId(0, NULL, 16), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetPCIBusId(0, id, 12), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetPCIBusId(0, id, 0), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetPCIBusId(0, id, -1), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetPCIBusId(-1, id, 16), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDeviceGetPCIBusId(n, id, 16), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(id[0], 'x');

	EXPECT_FAIL(aclrtDeviceGetByPCIBusId(NULL, &dev), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetByPCIBusId("0000:01:00.0", NULL), ACL_ERROR_INVALID_PARAM);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (aclrtDeviceGetByPCIBusId(bad[i], &dev) != ACL_ERROR_INVALID_PARAM)
			fail_msg("bus id \"%s\" was not rejected", bad[i]);
		assert_non_null(aclGetRecentErrMsg());
	}
	/* Well formed, but no visible device sits there. */
	EXPECT_FAIL(aclrtDeviceGetByPCIBusId("0000:ff:00.0", &dev), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDeviceGetByPCIBusId("0001:01:00.0", &dev), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDeviceGetByPCIBusId("ffff:ff:00.0", &dev), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(dev, 77);
}

static void test_devices_topo(void **state)
{
	const uint32_t n = rt_device_count();
	uint64_t v = 77;

	(void)state;
	EXPECT_FAIL(aclrtGetDevicesTopo(0, 0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtGetDevicesTopo(0, n, &v), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtGetDevicesTopo(UINT32_MAX, 0, &v), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtGetDevicesTopo(0, 0, &v), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(v, 77);
	if (n < 2)
		skip();
	ACL_OK(aclrtGetDevicesTopo(0, 1, &v));
	assert_int_equal(v, ACL_RT_DEVS_TOPOLOGY_PIX);
	v = 77;
	ACL_OK(aclrtGetDevicesTopo(1, 0, &v));
	assert_int_equal(v, ACL_RT_DEVS_TOPOLOGY_PIX);
}

/* The mappings of every visible device agree with each other; expected_phys
 * (may be NULL: identity) is the physical id of each user id. */
static void check_id_mappings(const int32_t *expected_phys)
{
	const int32_t n = (int32_t)rt_device_count();

	for (int32_t u = 0; u < n; u++) {
		int32_t want = expected_phys ? expected_phys[u] : u;
		int32_t logic = -1, phys = -1, back = -1;

		ACL_OK(aclrtGetPhyDevIdByUserDevId(u, &phys));
		assert_int_equal(phys, want);
		ACL_OK(aclrtGetLogicDevIdByUserDevId(u, &logic));
		assert_int_equal(logic, want);	/* no containers: logical == physical */
		ACL_OK(aclrtGetUserDevIdByLogicDevId(logic, &back));
		assert_int_equal(back, u);
		back = -1;
		ACL_OK(aclrtGetUserDevIdByPhyDevId(phys, &back));
		assert_int_equal(back, u);
		back = -1;
		ACL_OK(aclrtGetLogicDevIdByPhyDevId(phys, &back));
		assert_int_equal(back, logic);
		/* Upstream's quirk: the "logical" input is taken as a user id. */
		back = -1;
		ACL_OK(aclrtGetPhyDevIdByLogicDevId(u, &back));
		assert_int_equal(back, want);
	}
}

static void test_id_mappings(void **state)
{
	(void)state;
	if (getenv("ASCEND_RT_VISIBLE_DEVICES") != NULL)
		skip();
	check_id_mappings(NULL);
}

static void test_id_mappings_bad_inputs(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	int32_t v = 77;
	aclError (*const fns[])(const int32_t, int32_t *const) = {
		aclrtGetLogicDevIdByUserDevId, aclrtGetUserDevIdByLogicDevId,
		aclrtGetLogicDevIdByPhyDevId,  aclrtGetPhyDevIdByLogicDevId,
		aclrtGetUserDevIdByPhyDevId,   aclrtGetPhyDevIdByUserDevId,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		EXPECT_FAIL(fns[i](0, NULL), ACL_ERROR_INVALID_PARAM);
		EXPECT_FAIL(fns[i](-1, &v), ACL_ERROR_RT_INVALID_DEVICEID);
		EXPECT_FAIL(fns[i](INT32_MIN, &v), ACL_ERROR_RT_INVALID_DEVICEID);
		EXPECT_FAIL(fns[i](1000, &v), ACL_ERROR_RT_INVALID_DEVICEID);
		(void)n;
	}
	assert_int_equal(v, 77);
}

/* In a process started with ASCEND_RT_VISIBLE_DEVICES=<visible>. */
static int visible_child(const char *visible)
{
	int32_t v = -1;
	char id[16];

	if (strcmp(visible, "1") == 0) {
		/* Physical 1 is user 0; physical 0 is not visible. */
		if (aclrtGetPhyDevIdByUserDevId(0, &v) != ACL_SUCCESS || v != 1)
			return 10;
		if (aclrtGetUserDevIdByPhyDevId(1, &v) != ACL_SUCCESS || v != 0)
			return 11;
		if (aclrtGetUserDevIdByPhyDevId(0, &v) != ACL_ERROR_RT_INVALID_DEVICEID)
			return 12;
		if (aclrtGetLogicDevIdByPhyDevId(0, &v) != ACL_ERROR_RT_INVALID_DEVICEID)
			return 13;
		if (aclrtGetPhyDevIdByUserDevId(1, &v) != ACL_ERROR_RT_INVALID_DEVICEID)
			return 14;
		if (aclrtDeviceGetPCIBusId(0, id, sizeof(id)) != ACL_SUCCESS ||
		    strcmp(id, "0000:02:00.0") != 0)
			return 15;
		if (aclrtDeviceGetByPCIBusId("0000:01:00.0", &v) != ACL_ERROR_RT_INVALID_DEVICEID)
			return 16;
		return 0;
	}
	/* "1,0": user 0 is physical 1, user 1 is physical 0. */
	const int32_t phys[] = { 1, 0 };
	if (rt_device_count() != 2)
		return 20;
	check_id_mappings(phys);
	if (aclrtDeviceGetByPCIBusId("0000:01:00.0", &v) != ACL_SUCCESS || v != 1)
		return 21;
	return 0;
}

static int run_child(const char *visible)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		setenv("ASCEND_RT_VISIBLE_DEVICES", visible, 1);
		execl(g_self, g_self, "--visible-child", visible, (char *)NULL);
		_exit(127);
	}
	int status = 0;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void test_id_mappings_under_visible_devices(void **state)
{
	(void)state;
	if (rt_device_count() < 2)
		skip();
	assert_int_equal(run_child("1"), 0);
	assert_int_equal(run_child("1,0"), 0);
}

static void test_peer_access_status(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	int32_t st = 77;

	(void)state;
	EXPECT_FAIL(aclrtDevicePeerAccessStatus(0, 1, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDevicePeerAccessStatus(-1, 0, &st), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDevicePeerAccessStatus(0, n, &st), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDevicePeerAccessStatus(0, 0, &st), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(st, 77);
	if (n < 2)
		skip();
	ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	assert_int_equal(st, 0);
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	st = 77;
	ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	assert_int_equal(st, 1);
	/* One direction only. */
	st = 77;
	ACL_OK(aclrtDevicePeerAccessStatus(1, 0, &st));
	assert_int_equal(st, 0);
	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	st = 77;
	ACL_OK(aclrtDevicePeerAccessStatus(0, 1, &st));
	assert_int_equal(st, 0);
	ACL_OK(aclrtResetDevice(0));
}

static void test_set_ts_device(void **state)
{
	(void)state;
	ACL_OK(aclrtSetTsDevice(ACL_TS_ID_AIVECTOR));
	ACL_OK(aclrtSetTsDevice(ACL_TS_ID_AICORE));
	EXPECT_FAIL(aclrtSetTsDevice(ACL_TS_ID_RESERVED), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtSetTsDevice((aclrtTsId)-1), ACL_ERROR_INVALID_PARAM);
}

static void test_atomic_capabilities(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	const aclrtAtomicOperation ops[] = {
		ACL_RT_ATOMIC_OPERATION_INTEGER_ADD, ACL_RT_ATOMIC_OPERATION_CAS,
		ACL_RT_ATOMIC_OPERATION_FLOAT_MAX, ACL_RT_ATOMIC_OPERATION_DMA_ADD,
	};
	const aclrtAtomicOperation bad_ops[] = { ACL_RT_ATOMIC_OPERATION_INTEGER_ADD,
						 (aclrtAtomicOperation)13 };
	uint32_t caps[4];

	(void)state;
	memset(caps, 0xff, sizeof(caps));
	ACL_OK(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 4, 0));
	for (int i = 0; i < 4; i++)
		assert_int_equal(caps[i], 0);
	memset(caps, 0xff, sizeof(caps));
	ACL_OK(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 3, 0, n - 1));
	for (int i = 0; i < 3; i++)
		assert_int_equal(caps[i], 0);
	assert_int_equal(caps[3], UINT32_MAX);	/* only count words written */

	memset(caps, 0xff, sizeof(caps));
	EXPECT_FAIL(aclrtDeviceGetHostAtomicCapabilities(NULL, ops, 1, 0),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetHostAtomicCapabilities(caps, NULL, 1, 0),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 0, 0),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetHostAtomicCapabilities(caps, bad_ops, 2, 0),
		    ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtDeviceGetHostAtomicCapabilities(caps, ops, 1, n),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 1, -1, 0),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDeviceGetP2PAtomicCapabilities(caps, ops, 1, 0, n),
		    ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtDeviceGetP2PAtomicCapabilities(caps, bad_ops, 2, 0, 0),
		    ACL_ERROR_INVALID_PARAM);
	assert_int_equal(caps[0], UINT32_MAX);
}

static void test_error_verbose_and_repair(void **state)
{
	const int32_t n = (int32_t)rt_device_count();
	aclrtErrorInfo info;
	const char *msg;

	(void)state;
	memset(&info, 0xab, sizeof(info));
	ACL_OK(aclrtGetErrorVerbose(0, &info));
	assert_int_equal(info.errorType, ACL_RT_NO_ERROR);
	assert_int_equal(info.hasDetail, 0);
	assert_int_equal(info.tryRepair, 0);
	EXPECT_FAIL(aclrtGetErrorVerbose(0, NULL), ACL_ERROR_INVALID_PARAM);
	memset(&info, 0xab, sizeof(info));
	EXPECT_FAIL(aclrtGetErrorVerbose(-1, &info), ACL_ERROR_RT_INVALID_DEVICEID);
	EXPECT_FAIL(aclrtGetErrorVerbose(n, &info), ACL_ERROR_RT_INVALID_DEVICEID);
	assert_int_equal(info.hasDetail, 0xab);

	memset(&info, 0, sizeof(info));
	assert_int_equal(aclrtRepairError(0, &info), ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	msg = aclGetRecentErrMsg();
	assert_non_null(msg);
	assert_non_null(strstr(msg, "aclrtRepairError"));
	assert_non_null(strstr(msg, "no hardware fault"));
	EXPECT_FAIL(aclrtRepairError(0, NULL), ACL_ERROR_INVALID_PARAM);
	EXPECT_FAIL(aclrtRepairError(n, &info), ACL_ERROR_RT_INVALID_DEVICEID);
}

/* Queries from many threads at once, none with a device set. */
static void *query_thread(void *arg)
{
	const uint32_t n = *(const uint32_t *)arg;

	for (int i = 0; i < 200; i++) {
		uint32_t d = (uint32_t)i % n;
		int64_t v = 0;
		int32_t phys = -1, user = -1;
		char id[16];

		if (aclrtGetDeviceInfo(d, ACL_DEV_ATTR_TOTAL_GLOBAL_MEM_SIZE, &v) != ACL_SUCCESS ||
		    v <= 0)
			return (void *)1;
		if (aclrtGetPhyDevIdByUserDevId((int32_t)d, &phys) != ACL_SUCCESS ||
		    aclrtGetUserDevIdByPhyDevId(phys, &user) != ACL_SUCCESS || user != (int32_t)d)
			return (void *)2;
		if (aclrtDeviceGetPCIBusId((int32_t)d, id, sizeof(id)) != ACL_SUCCESS ||
		    aclrtDeviceGetByPCIBusId(id, &user) != ACL_SUCCESS || user != (int32_t)d)
			return (void *)3;
	}
	return NULL;
}

static void test_concurrent_queries(void **state)
{
	uint32_t n = rt_device_count();
	pthread_t t[4];

	(void)state;
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_create(&t[i], NULL, query_thread, &n), 0);
	for (int i = 0; i < 4; i++) {
		void *rc = (void *)-1;

		assert_int_equal(pthread_join(t[i], &rc), 0);
		assert_null(rc);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_info_values),
		cmocka_unit_test(test_device_info_bad_inputs),
		cmocka_unit_test(test_acl_get_device_capability),
		cmocka_unit_test(test_rt_get_device_capability),
		cmocka_unit_test(test_query_device_status),
		cmocka_unit_test(test_utilization_rate),
		cmocka_unit_test(test_utilization_follows_the_engines),
		cmocka_unit_test(test_check_arch_compatibility),
		cmocka_unit_test(test_uuid),
		cmocka_unit_test(test_pci_bus_id_round_trip),
		cmocka_unit_test(test_pci_bus_id_bad_inputs),
		cmocka_unit_test(test_devices_topo),
		cmocka_unit_test(test_id_mappings),
		cmocka_unit_test(test_id_mappings_bad_inputs),
		cmocka_unit_test(test_id_mappings_under_visible_devices),
		cmocka_unit_test(test_peer_access_status),
		cmocka_unit_test(test_set_ts_device),
		cmocka_unit_test(test_atomic_capabilities),
		cmocka_unit_test(test_error_verbose_and_repair),
		cmocka_unit_test(test_concurrent_queries),
	};

	if (argc == 3 && strcmp(argv[1], "--visible-child") == 0)
		return visible_child(argv[2]);
	g_self = argv[0];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
