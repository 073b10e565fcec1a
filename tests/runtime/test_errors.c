// SPDX-License-Identifier: MIT
/*
 * Every bad-input row of initialisation, devices, aclrtMalloc[WithCfg],
 * aclrtFree, aclrtMemcpy, aclrtMemset, aclrtGetMemInfo and
 * aclrtMemGetAddressRange: each row is {call, expected code}, and each failing call must leave
 * a message for aclGetRecentErrMsg (which reading clears). Rows marked
 * NO_CTX run in a fresh thread that never called aclrtSetDevice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt_test.h"

enum row_mode { CTX, NO_CTX };

/* Fixtures the rows refer to, set up once in group_setup. */
static void *g_dev;		/* exactly one 4 KiB page on device 0 */
static void *g_dev_spare;	/* freed by a NO_CTX row */
static void *g_freed;		/* a device address whose allocation was freed */
static char g_host[8192];
static void *g_out;
static size_t g_free, g_total;
static char g_bad_json[64], g_deep_json[64], g_missing[64];
static aclrtMallocAttribute g_attr_va_flag = { .attr = ACL_RT_MEM_ATTR_VA_FLAG };
static aclrtMallocAttribute g_attr_unknown = { .attr = (aclrtMallocAttrType)99 };
static aclrtMallocAttribute g_attr_bad_dev = {
	.attr = ACL_RT_MEM_ATTR_DEVICE_ID, .value = { .deviceId = 77 }
};
static aclrtMallocAttribute g_attr_ok[3] = {
	{ .attr = ACL_RT_MEM_ATTR_RSV },
	{ .attr = ACL_RT_MEM_ATTR_MODULE_ID, .value = { .moduleId = 33 } },
	{ .attr = ACL_RT_MEM_ATTR_DEVICE_ID, .value = { .deviceId = 0 } },
};
static aclrtMallocConfig g_cfg_null_attrs_1 = { .attrs = NULL, .numAttrs = 1 };
static aclrtMallocConfig g_cfg_null_attrs_0 = { .attrs = NULL, .numAttrs = 0 };
static aclrtMallocConfig g_cfg_va_flag = { .attrs = &g_attr_va_flag, .numAttrs = 1 };
static aclrtMallocConfig g_cfg_unknown = { .attrs = &g_attr_unknown, .numAttrs = 1 };
static aclrtMallocConfig g_cfg_bad_dev = { .attrs = &g_attr_bad_dev, .numAttrs = 1 };
static aclrtMallocConfig g_cfg_ok = { .attrs = g_attr_ok, .numAttrs = 3 };

#define HUGE_SIZE ((size_t)1 << 50)	/* 1 PiB: more than any device has */
#define CHAR_P(p, off) ((void *)((char *)(p) + (off)))

/* Calls that need a little set-up of their own. */
static aclError malloc_then_free(aclError (*m)(void **, size_t, aclrtMemMallocPolicy),
				 size_t size, aclrtMemMallocPolicy policy)
{
	void *p = NULL;
	aclError rc = m(&p, size, policy);

	if (rc == ACL_SUCCESS)
		rc = aclrtFree(p);
	return rc;
}

static aclError malloc_cfg_then_free(aclrtMallocConfig *cfg, aclrtMemMallocPolicy policy)
{
	void *p = NULL;
	aclError rc = aclrtMallocWithCfg(&p, 100, policy, cfg);

	if (rc == ACL_SUCCESS)
		rc = aclrtFree(p);
	return rc;
}

static aclError free_twice(void)
{
	void *p = NULL;

	if (aclrtMalloc(&p, 64, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtFree(p) != ACL_SUCCESS)
		return -1;
	return aclrtFree(p);
}

/*
 * X(name, mode, expected, call): the error table.
 */
#define ERROR_ROWS(X)									\
	/* initialisation (the library is not initialised here) */			\
	X(finalize_when_not_initialised, CTX, ACL_ERROR_REPEAT_FINALIZE, aclFinalize())	\
	X(finalize_reference_when_not_initialised, CTX, ACL_ERROR_REPEAT_FINALIZE,	\
	  aclFinalizeReference(NULL))							\
	X(init_unreadable_file, CTX, ACL_ERROR_INVALID_FILE, aclInit(g_missing))	\
	X(init_invalid_json, CTX, ACL_ERROR_PARSE_FILE, aclInit(g_bad_json))		\
	X(init_json_nested_11_deep, CTX, ACL_ERROR_PARSE_FILE, aclInit(g_deep_json))	\
	/* devices */							\
	X(set_device_negative, CTX, ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(-1))	\
	X(set_device_99, CTX, ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(99))	\
	X(reset_device_99, CTX, ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(99))	\
	X(reset_device_force_99, CTX, ACL_ERROR_RT_INVALID_DEVICEID,			\
	  aclrtResetDeviceForce(99))							\
	X(get_device_null, CTX, ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL))		\
	X(get_device_null_no_ctx, NO_CTX, ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL))	\
	X(get_device_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,				\
	  aclrtGetDevice((int32_t *)&g_free))						\
	X(get_device_count_null, CTX, ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(NULL))	\
	X(get_device_count_no_ctx, NO_CTX, ACL_SUCCESS,					\
	  aclrtGetDeviceCount((uint32_t *)&g_free))					\
	/* aclrtMalloc and its variants */						\
	X(malloc_null_ptr, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMalloc(NULL, 16, ACL_MEM_MALLOC_HUGE_FIRST))				\
	X(malloc_null_ptr_size_0, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMalloc(NULL, 0, ACL_MEM_MALLOC_HUGE_FIRST))				\
	X(malloc_size_0, CTX, ACL_ERROR_INVALID_PARAM,					\
	  aclrtMalloc(&g_out, 0, ACL_MEM_MALLOC_HUGE_FIRST))				\
	X(malloc_size_overflows, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMalloc(&g_out, SIZE_MAX - 63, ACL_MEM_MALLOC_HUGE_FIRST))		\
	X(malloc_size_max, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMalloc(&g_out, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_size_0_no_ctx, NO_CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtMalloc(&g_out, 0, ACL_MEM_MALLOC_HUGE_FIRST))				\
	X(malloc_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,				\
	  aclrtMalloc(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST))				\
	X(malloc_out_of_memory, CTX, ACL_ERROR_RT_MEMORY_ALLOCATION,			\
	  aclrtMalloc(&g_out, HUGE_SIZE, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_huge_only_out_of_memory, CTX, ACL_ERROR_RT_MEMORY_ALLOCATION,		\
	  aclrtMalloc(&g_out, HUGE_SIZE, ACL_MEM_MALLOC_HUGE_ONLY))			\
	X(malloc_huge1g_only_out_of_memory, CTX, ACL_ERROR_RT_MEMORY_ALLOCATION,	\
	  aclrtMalloc(&g_out, HUGE_SIZE, ACL_MEM_MALLOC_HUGE1G_ONLY))			\
	X(malloc_or_policy_is_default, CTX, ACL_SUCCESS,				\
	  malloc_then_free(aclrtMalloc, 4096,						\
			   (aclrtMemMallocPolicy)(ACL_MEM_MALLOC_HUGE_FIRST |		\
						  ACL_MEM_TYPE_HIGH_BAND_WIDTH)))	\
	X(malloc_align32_null_ptr, CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtMallocAlign32(NULL, 16, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_align32_size_0, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMallocAlign32(&g_out, 0, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_align32_size_overflows, CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtMallocAlign32(&g_out, SIZE_MAX - 10, ACL_MEM_MALLOC_HUGE_FIRST))	\
	X(malloc_align32_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,			\
	  aclrtMallocAlign32(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_align32_out_of_memory, CTX, ACL_ERROR_RT_MEMORY_ALLOCATION,		\
	  aclrtMallocAlign32(&g_out, HUGE_SIZE, ACL_MEM_MALLOC_NORMAL_ONLY))		\
	X(malloc_cached_null_ptr, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMallocCached(NULL, 16, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_cached_size_0, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMallocCached(&g_out, 0, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_cached_size_overflows, CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtMallocCached(&g_out, SIZE_MAX - 1, ACL_MEM_MALLOC_HUGE_FIRST))		\
	X(malloc_cached_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,			\
	  aclrtMallocCached(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_cached_out_of_memory, CTX, ACL_ERROR_RT_MEMORY_ALLOCATION,		\
	  aclrtMallocCached(&g_out, HUGE_SIZE, ACL_MEM_MALLOC_HUGE_ONLY))		\
	/* aclrtMallocWithCfg */							\
	X(malloc_cfg_null_ptr, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMallocWithCfg(NULL, 16, ACL_MEM_MALLOC_HUGE_FIRST, NULL))		\
	X(malloc_cfg_attrs_null_num_1, CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_null_attrs_1))	\
	X(malloc_cfg_attrs_null_num_1_no_ctx, NO_CTX, ACL_ERROR_INVALID_PARAM,		\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_null_attrs_1))	\
	X(malloc_cfg_size_0, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMallocWithCfg(&g_out, 0, ACL_MEM_MALLOC_HUGE_FIRST, NULL))		\
	X(malloc_cfg_size_0_before_rt_attrs_check, CTX, ACL_ERROR_INVALID_PARAM,	\
	  aclrtMallocWithCfg(&g_out, 0, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_null_attrs_0))	\
	X(malloc_cfg_attrs_null_num_0, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_null_attrs_0))	\
	X(malloc_cfg_attrs_null_num_0_before_ctx, NO_CTX, ACL_ERROR_RT_PARAM_INVALID,	\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_null_attrs_0))	\
	X(malloc_cfg_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,				\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, NULL))		\
	X(malloc_cfg_ctx_before_attr_types, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,		\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_va_flag))	\
	X(malloc_cfg_va_flag_rejected, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_va_flag))	\
	X(malloc_cfg_unknown_attr_rejected, CTX, ACL_ERROR_RT_PARAM_INVALID,		\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_unknown))	\
	X(malloc_cfg_other_device_rejected, CTX, ACL_ERROR_RT_PARAM_INVALID,		\
	  aclrtMallocWithCfg(&g_out, 16, ACL_MEM_MALLOC_HUGE_FIRST, &g_cfg_bad_dev))	\
	X(malloc_cfg_rsv_module_device_accepted, CTX, ACL_SUCCESS,			\
	  malloc_cfg_then_free(&g_cfg_ok, ACL_MEM_MALLOC_HUGE_FIRST))			\
	X(malloc_cfg_or_policy_accepted, CTX, ACL_SUCCESS,				\
	  malloc_cfg_then_free(NULL, (aclrtMemMallocPolicy)(ACL_MEM_MALLOC_NORMAL_ONLY |	\
						      ACL_MEM_TYPE_LOW_BAND_WIDTH)))	\
	X(malloc_cfg_out_of_memory, CTX, ACL_ERROR_RT_MEMORY_ALLOCATION,		\
	  aclrtMallocWithCfg(&g_out, HUGE_SIZE, ACL_MEM_MALLOC_HUGE_FIRST, NULL))	\
	/* aclrtFree */								\
	X(free_null, CTX, ACL_ERROR_INVALID_PARAM, aclrtFree(NULL))			\
	X(free_host_pointer, CTX, ACL_ERROR_RT_PARAM_INVALID, aclrtFree(g_host))	\
	X(free_interior_pointer, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtFree(CHAR_P(g_dev, 64)))							\
	X(free_freed_pointer, CTX, ACL_ERROR_RT_PARAM_INVALID, aclrtFree(g_freed))	\
	X(free_twice, CTX, ACL_ERROR_RT_PARAM_INVALID, free_twice())			\
	X(free_works_without_ctx, NO_CTX, ACL_SUCCESS, aclrtFree(g_dev_spare))		\
	/* aclrtMemcpy */								\
	X(memcpy_count_0_short_circuits, CTX, ACL_SUCCESS,				\
	  aclrtMemcpy(NULL, 0, NULL, 0, (aclrtMemcpyKind)99))				\
	X(memcpy_count_0_short_circuits_no_ctx, NO_CTX, ACL_SUCCESS,			\
	  aclrtMemcpy(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE))			\
	X(memcpy_dst_null, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMemcpy(NULL, 16, g_host, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_src_null, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMemcpy(g_dev, 16, NULL, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_src_null_no_ctx, NO_CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtMemcpy(g_dev, 16, NULL, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_kind_inner_d2d, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMemcpy(g_dev, 16, g_host, 16, ACL_MEMCPY_INNER_DEVICE_TO_DEVICE))	\
	X(memcpy_kind_inter_d2d, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMemcpy(g_dev, 16, g_host, 16, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE))	\
	X(memcpy_kind_8, CTX, ACL_ERROR_INVALID_PARAM,					\
	  aclrtMemcpy(g_dev, 16, g_host, 16, (aclrtMemcpyKind)8))			\
	X(memcpy_kind_negative, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMemcpy(g_dev, 16, g_host, 16, (aclrtMemcpyKind)-1))			\
	X(memcpy_kind_before_dest_max, CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtMemcpy(g_dev, 0, g_host, 16, ACL_MEMCPY_INTER_DEVICE_TO_DEVICE))	\
	X(memcpy_dest_max_0, CTX, ACL_ERROR_RT_PARAM_INVALID,				\
	  aclrtMemcpy(g_dev, 0, g_host, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_count_over_dest_max, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtMemcpy(g_dev, 15, g_host, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_count_over_dest_max_before_ctx, NO_CTX, ACL_ERROR_RT_PARAM_INVALID,	\
	  aclrtMemcpy(g_dev, 15, g_host, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,				\
	  aclrtMemcpy(g_dev, 16, g_host, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_freed_device_address, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtMemcpy(g_freed, 16, g_host, 16, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_past_end_of_allocation, CTX, ACL_ERROR_RT_PARAM_INVALID,		\
	  aclrtMemcpy(g_dev, 8192, g_host, 8192, ACL_MEMCPY_HOST_TO_DEVICE))		\
	X(memcpy_src_past_end_of_allocation, CTX, ACL_ERROR_RT_PARAM_INVALID,		\
	  aclrtMemcpy(g_host, 8192, CHAR_P(g_dev, 4000), 200, ACL_MEMCPY_DEVICE_TO_HOST))	\
	/* aclrtMemset */								\
	X(memset_count_0_short_circuits, CTX, ACL_SUCCESS, aclrtMemset(NULL, 0, 0, 0))	\
	X(memset_count_0_short_circuits_no_ctx, NO_CTX, ACL_SUCCESS,			\
	  aclrtMemset(NULL, 0, 0, 0))							\
	X(memset_null, CTX, ACL_ERROR_INVALID_PARAM, aclrtMemset(NULL, 16, 0, 16))	\
	X(memset_null_no_ctx, NO_CTX, ACL_ERROR_INVALID_PARAM, aclrtMemset(NULL, 16, 0, 16))	\
	X(memset_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL, aclrtMemset(g_dev, 16, 0, 16))	\
	X(memset_ctx_before_count_check, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,		\
	  aclrtMemset(g_dev, 8, 0, 16))							\
	X(memset_count_over_max_count, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtMemset(g_dev, 8, 0, 16))							\
	X(memset_past_end_of_allocation, CTX, ACL_ERROR_RT_PARAM_INVALID,		\
	  aclrtMemset(CHAR_P(g_dev, 4090), 100, 0, 100))				\
	/* aclrtGetMemInfo */							\
	X(mem_info_free_null, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtGetMemInfo(ACL_HBM_MEM, NULL, &g_total))					\
	X(mem_info_total_null, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtGetMemInfo(ACL_HBM_MEM, &g_free, NULL))					\
	X(mem_info_null_before_attr, CTX, ACL_ERROR_INVALID_PARAM,			\
	  aclrtGetMemInfo((aclrtMemAttr)18, NULL, &g_total))				\
	X(mem_info_attr_18, CTX, ACL_ERROR_RT_INVALID_MEMORY_TYPE,			\
	  aclrtGetMemInfo((aclrtMemAttr)18, &g_free, &g_total))				\
	X(mem_info_attr_negative, CTX, ACL_ERROR_RT_INVALID_MEMORY_TYPE,		\
	  aclrtGetMemInfo((aclrtMemAttr)-1, &g_free, &g_total))				\
	X(mem_info_attr_before_ctx, NO_CTX, ACL_ERROR_RT_INVALID_MEMORY_TYPE,		\
	  aclrtGetMemInfo((aclrtMemAttr)18, &g_free, &g_total))				\
	X(mem_info_no_ctx, NO_CTX, ACL_ERROR_RT_CONTEXT_NULL,				\
	  aclrtGetMemInfo(ACL_HBM_MEM, &g_free, &g_total))				\
	/* aclrtMemGetAddressRange */						\
	X(address_range_null, CTX, ACL_ERROR_INVALID_PARAM,				\
	  aclrtMemGetAddressRange(NULL, &g_out, &g_total))				\
	X(address_range_host_pointer, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtMemGetAddressRange(g_host, &g_out, &g_total))				\
	X(address_range_freed_pointer, CTX, ACL_ERROR_RT_PARAM_INVALID,			\
	  aclrtMemGetAddressRange(g_freed, &g_out, &g_total))


#define DEFINE_ROW_FN(name, mode, expected, call) \
	static aclError row_##name(void) { return (call); }
ERROR_ROWS(DEFINE_ROW_FN)

struct error_row {
	const char *name;
	const char *call;
	enum row_mode mode;
	aclError expected;
	aclError (*fn)(void);
};

#define ROW_ENTRY(name, mode, expected, call) { #name, #call, mode, expected, row_##name },
static const struct error_row rows[] = { ERROR_ROWS(ROW_ENTRY) };

/* What a row observed, recorded in whichever thread ran it. */
struct row_result {
	const struct error_row *row;
	aclError rc;
	char msg[512];
	int had_msg;
	int msg_after_read;
};

static void run_row(struct row_result *r)
{
	const char *m;

	aclGetRecentErrMsg();	/* start from an empty store */
	r->rc = r->row->fn();
	m = aclGetRecentErrMsg();
	r->had_msg = m != NULL;
	snprintf(r->msg, sizeof(r->msg), "%s", m ? m : "");
	r->msg_after_read = aclGetRecentErrMsg() != NULL;
}

static void *run_row_thread(void *arg)
{
	run_row(arg);
	return NULL;
}

static void test_every_error_row_gives_the_spec_code_and_a_message(void **state)
{
	int failures = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct row_result r = { .row = &rows[i] };

		if (rows[i].mode == NO_CTX)
			rt_run_in_thread(run_row_thread, &r);
		else
			run_row(&r);

		if (r.rc != rows[i].expected) {
			print_error("row %s: %s = %d, expected %d (%s)\n", rows[i].name,
				    rows[i].call, r.rc, rows[i].expected, r.msg);
			failures++;
			continue;
		}
		if (rows[i].expected == ACL_SUCCESS) {
			if (r.had_msg) {
				print_error("row %s: success left a message: %s\n",
					    rows[i].name, r.msg);
				failures++;
			}
			continue;
		}
		/* The message names the API that failed and is cleared by reading. */
		char api[64];

		snprintf(api, sizeof(api), "%.*s", (int)strcspn(rows[i].call, "("),
			 rows[i].call);
		if (strncmp(api, "acl", 3) == 0 &&
		    (!r.had_msg || strstr(r.msg, api) == NULL)) {
			print_error("row %s: message \"%s\" does not name %s\n", rows[i].name,
				    r.msg, api);
			failures++;
		}
		if (!r.had_msg) {
			print_error("row %s: no message\n", rows[i].name);
			failures++;
		}
		if (r.msg_after_read) {
			print_error("row %s: reading did not clear the messages\n", rows[i].name);
			failures++;
		}
	}
	assert_int_equal(failures, 0);
}

static void test_messages_are_newest_first_and_cleared(void **state)
{
	const char *m;

	(void)state;
	assert_null(aclGetRecentErrMsg());
	assert_int_equal(aclrtMalloc(NULL, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtFree(NULL), ACL_ERROR_INVALID_PARAM);
	m = aclGetRecentErrMsg();
	assert_non_null(m);
	assert_true(strncmp(m, "aclrtFree: ", 11) == 0);
	const char *nl = strchr(m, '\n');

	assert_non_null(nl);
	assert_true(strncmp(nl + 1, "aclrtMalloc: ", 13) == 0);
	assert_non_null(strstr(nl + 1, "devPtr"));
	assert_null(strchr(nl + 1, '\n'));
	assert_null(aclGetRecentErrMsg());
}

static void *fail_once(void *arg)
{
	(void)arg;
	aclrtFree(NULL);
	return NULL;
}

static void test_messages_are_thread_local(void **state)
{
	(void)state;
	assert_null(aclGetRecentErrMsg());
	rt_run_in_thread(fail_once, NULL);
	assert_null(aclGetRecentErrMsg());
}

/* In a thread of its own: no runtime error yet, then its own (no asserts off the main thread). */
static void *last_error_in_thread(void *arg)
{
	aclError *seen = arg;

	seen[0] = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
	seen[1] = aclrtSynchronizeStream((aclrtStream)0x20);
	seen[2] = aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL);
	(void)aclGetRecentErrMsg();
	return NULL;
}

static void test_last_error_of_the_thread(void **state)
{
	aclError other[3] = { -1, -1, -1 };
	void *p = NULL;
	aclrtStream bad = (aclrtStream)0x10;

	(void)state;
	while (aclrtGetLastError(ACL_RT_THREAD_LEVEL) != ACL_SUCCESS)
		;
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	/* ACL-layer rejections are not recorded. */
	assert_int_equal(aclrtMalloc(NULL, 1, ACL_MEM_MALLOC_HUGE_FIRST), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	/* A runtime-layer code is, and stays through successful calls. */
	assert_int_equal(aclrtSynchronizeStream(bad), ACL_ERROR_RT_INVALID_HANDLE);
	ACL_OK(aclrtMalloc(&p, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtPeekAtLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_INVALID_HANDLE);
	/* The newest one wins; Get clears it. */
	assert_int_equal(aclrtFree((char *)p + 8), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
	/* Per thread. */
	assert_int_equal(aclrtFree((char *)p + 8), ACL_ERROR_RT_PARAM_INVALID);
	rt_run_in_thread(last_error_in_thread, other);
	assert_int_equal(other[0], ACL_SUCCESS);
	assert_int_equal(other[1], ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(other[2], ACL_ERROR_RT_INVALID_HANDLE);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
	/* Only the thread level exists. */
	assert_int_equal(aclrtGetLastError((aclrtLastErrLevel)1), ACL_ERROR_INVALID_PARAM);
	assert_int_equal(aclrtPeekAtLastError((aclrtLastErrLevel)-1), ACL_ERROR_INVALID_PARAM);
	ACL_OK(aclrtFree(p));
	(void)aclGetRecentErrMsg();
}

static void test_message_names_the_bad_value(void **state)
{
	(void)state;
	assert_int_equal(aclrtSetDevice(99), ACL_ERROR_RT_INVALID_DEVICEID);
	const char *m = aclGetRecentErrMsg();

	assert_non_null(m);
	assert_non_null(strstr(m, "aclrtSetDevice"));
	assert_non_null(strstr(m, "99"));
	assert_int_equal(aclrtMemcpy(g_dev, 10, g_host, 16, ACL_MEMCPY_HOST_TO_DEVICE),
			 ACL_ERROR_RT_PARAM_INVALID);
	m = aclGetRecentErrMsg();
	assert_non_null(m);
	assert_non_null(strstr(m, "16"));
	assert_non_null(strstr(m, "10"));
	size_t uce_count = 0;

	assert_int_equal(aclrtGetMemUceInfo(0, NULL, 0, &uce_count),
			 ACL_ERROR_RT_FEATURE_NOT_SUPPORT);
	assert_int_equal(uce_count, 0);
	m = aclGetRecentErrMsg();
	assert_non_null(m);
	assert_non_null(strstr(m, "aclrtGetMemUceInfo: outside an emulated memory device: "));
}

static void write_file(char *path, size_t len, const char *tag, const char *content)
{
	snprintf(path, len, "/tmp/npu-test-errors-%d-%s.json", (int)getpid(), tag);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(content, f);
	fclose(f);
}

/* aclInit with malformed JSON: ACL_ERROR_PARSE_FILE, whatever is wrong. */
static void test_init_rejects_malformed_json(void **state)
{
	static const char *const bad[] = {
		"{\"a\": \"b}",			/* unterminated string */
		"{} x",				/* text after the value */
		"{\"a\": \"\\q\"}",		/* bad escape */
		"{\"a\" 1}",			/* missing colon */
		"{\"a\": [1, 2}",			/* mismatched bracket */
		"{\"a\": nope}",			/* bare word */
		"{\"a\": 1,}",			/* trailing comma */
		"{1: 2}",			/* key is not a string */
		"[[[[[[[[[[[]]]]]]]]]]]",	/* 11 levels */
	};
	char path[64];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file(path, sizeof(path), "malformed", bad[i]);
		aclError rc = aclInit(path);

		if (rc != ACL_ERROR_PARSE_FILE)
			fail_msg("aclInit(%s) = %d, expected %d", bad[i], rc, ACL_ERROR_PARSE_FILE);
		assert_non_null(aclGetRecentErrMsg());
		unlink(path);
	}
	/* Nothing was initialised by the failures. */
	assert_int_equal(aclFinalize(), ACL_ERROR_REPEAT_FINALIZE);
	aclGetRecentErrMsg();
}

static int group_setup(void **state)
{
	(void)state;
	write_file(g_bad_json, sizeof(g_bad_json), "bad", "{\"dump\": {\"path\": \"x\",}");
	write_file(g_deep_json, sizeof(g_deep_json), "deep",
		   "{\"a\":[[[[[[[[[[1]]]]]]]]]]}");	/* 11 levels */
	snprintf(g_missing, sizeof(g_missing), "/tmp/npu-test-errors-%d-missing.json",
		 (int)getpid());
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	/* Align32 adds no pad, so the allocation is exactly one page. */
	if (aclrtMallocAlign32(&g_dev, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtMalloc(&g_dev_spare, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtMalloc(&g_freed, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS ||
	    aclrtFree(g_freed) != ACL_SUCCESS)
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	unlink(g_bad_json);
	unlink(g_deep_json);
	aclrtFree(g_dev);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_error_row_gives_the_spec_code_and_a_message),
		cmocka_unit_test(test_messages_are_newest_first_and_cleared),
		cmocka_unit_test(test_messages_are_thread_local),
		cmocka_unit_test(test_last_error_of_the_thread),
		cmocka_unit_test(test_message_names_the_bad_value),
		cmocka_unit_test(test_init_rejects_malformed_json),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
