// SPDX-License-Identifier: MIT
/*
 * The declared APIs this runtime does not implement, all outside an
 * emulated memory device: they do no work, leave their outputs alone,
 * record a message for aclGetRecentErrMsg saying why, set the thread's last
 * error and return ACL_ERROR_RT_FEATURE_NOT_SUPPORT, or the neutral value of
 * their return type. One row per group of the table of unsupported.cpp.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rt_test.h"

#define SENTINEL ((void *)0x5a5a5a5a)

static void *g_out;		/* the output parameter of the row's call */

static int64_t launch_kernel(void)
{
	return aclrtLaunchKernel(SENTINEL, 1, NULL, 0, NULL);
}

static int64_t binary_load_from_file(void)
{
	return aclrtBinaryLoadFromFile("k.o", NULL, &g_out);
}

static int64_t get_symbol_address(void)
{
	return aclrtGetSymbolAddress(SENTINEL, &g_out);
}

static int64_t model_ri_abort(void)
{
	return aclmdlRIAbort(NULL);
}

static int64_t switch_stream(void)
{
	return aclrtSwitchStream(NULL, ACL_RT_EQUAL, NULL, ACL_RT_SWITCH_INT32, NULL, NULL, NULL);
}

static int64_t model_ri_task_disable(void)
{
	return aclmdlRITaskDisable(NULL);
}

static int64_t get_device_sat_mode(void)
{
	return aclrtGetDeviceSatMode((aclrtFloatOverflowMode *)&g_out);
}

static int64_t prof_trace(void)
{
	return aclrtProfTrace(&g_out, 8, NULL);
}

static int64_t alloc_buf(void)
{
	return aclrtAllocBuf(&g_out, 64);
}

static int64_t cnt_notify_create(void)
{
	return aclrtCntNotifyCreate(&g_out, 0);
}

static int64_t get_mem_uce_info(void)
{
	return aclrtGetMemUceInfo(0, NULL, 0, (size_t *)&g_out);
}

static int64_t create_binary(void)
{
	return (int64_t)(intptr_t)aclrtCreateBinary("x", 1);
}

static int64_t create_group_info(void)
{
	return (int64_t)(intptr_t)aclrtCreateGroupInfo();
}

static int64_t ipc_mem_import_pid_inter_server(void)
{
	aclrtServerPid pids = { 0 };

	return aclrtIpcMemImportPidInterServer((const char *)&g_out, &pids, 1);
}

static int64_t cmo_async_with_barrier(void)
{
	return aclrtCmoAsyncWithBarrier(SENTINEL, 64, ACL_RT_CMO_TYPE_PREFETCH, 0, NULL);
}

static const char kOutside[] = "outside an emulated memory device: ";

static const struct {
	const char *api;
	int64_t (*call)(void);
	int64_t expected;
	const char *message;		/* what the message says after "<api>: " */
} rows[] = {
	{ "aclrtLaunchKernel", launch_kernel, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtBinaryLoadFromFile", binary_load_from_file, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
	  kOutside },
	{ "aclrtGetSymbolAddress", get_symbol_address, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclmdlRIAbort", model_ri_abort, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtSwitchStream", switch_stream, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclmdlRITaskDisable", model_ri_task_disable, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
	  kOutside },
	{ "aclrtGetDeviceSatMode", get_device_sat_mode, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtProfTrace", prof_trace, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtAllocBuf", alloc_buf, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtCntNotifyCreate", cnt_notify_create, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtGetMemUceInfo", get_mem_uce_info, ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtCreateBinary", create_binary, 0 /* NULL */, kOutside },
	{ "aclrtCreateGroupInfo", create_group_info, 0 /* NULL */, kOutside },
	{ "aclrtIpcMemImportPidInterServer", ipc_mem_import_pid_inter_server,
	  ACL_ERROR_RT_FEATURE_NOT_SUPPORT, kOutside },
	{ "aclrtCmoAsyncWithBarrier", cmo_async_with_barrier, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
	  kOutside },
};

static void test_unsupported_rows(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char want[128];
		const char *m;
		int64_t rc;

		(void)aclGetRecentErrMsg();
		while (aclrtGetLastError(ACL_RT_THREAD_LEVEL) != ACL_SUCCESS)
			;
		g_out = SENTINEL;
		rc = rows[i].call();
		if (rc != rows[i].expected)
			fail_msg("%s returned %lld, expected %lld", rows[i].api, (long long)rc,
				 (long long)rows[i].expected);
		/* No work: the output parameter is untouched. */
		assert_ptr_equal(g_out, SENTINEL);
		/* The message names the API and says which kind of unsupported it is. */
		m = aclGetRecentErrMsg();
		assert_non_null(m);
		snprintf(want, sizeof(want), "%s: %s", rows[i].api, rows[i].message);
		if (strstr(m, want) == NULL)
			fail_msg("message \"%s\" does not contain \"%s\"", m, want);
		assert_non_null(strstr(m, "(error 207000)"));
		/* The thread's last error, also for the calls that return no code. */
		assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL),
				 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	}
}

static void test_outside_messages_say_why(void **state)
{
	const char *m;

	(void)state;
	assert_int_equal(aclrtLaunchKernel(SENTINEL, 1, NULL, 0, NULL),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	m = aclGetRecentErrMsg();
	assert_non_null(m);
	assert_string_equal(m, "aclrtLaunchKernel: outside an emulated memory device: kernels need "
			       "an AI Core instruction set (error 207000)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unsupported_rows),
		cmocka_unit_test(test_outside_messages_say_why),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
