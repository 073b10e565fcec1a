// SPDX-License-Identifier: MIT
/*
 * Data buffers: a host object describing (data, size) that does
 * not own the memory, its getters and setters, and the bad-input rows (NULL
 * buffers). No device is involved.
 */
#include <stdint.h>
#include <string.h>

#include "rt_test.h"

/* aclGetDataBufferSize is deprecated, as upstream's; its behaviour is still tested here. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void test_create_describes_data_and_size(void **state)
{
	char bytes[100];
	aclDataBuffer *buf;

	(void)state;
	buf = aclCreateDataBuffer(bytes, sizeof(bytes));
	assert_non_null(buf);
	assert_ptr_equal(aclGetDataBufferAddr(buf), bytes);
	assert_int_equal(aclGetDataBufferSizeV2(buf), sizeof(bytes));
	assert_int_equal(aclGetDataBufferSize(buf), sizeof(bytes));
	ACL_OK(aclDestroyDataBuffer(buf));
	/* Destroying the buffer did not touch the memory it described. */
	memset(bytes, 0x5a, sizeof(bytes));
	assert_null(aclGetRecentErrMsg());
}

static void test_create_never_validates(void **state)
{
	static const struct {
		void *data;
		size_t size;
	} pairs[] = {
		{ NULL, 0 },			/* the documented empty buffer */
		{ NULL, 4096 },			/* upstream does not enforce size 0 */
		{ (void *)0x1000, 0 },
		{ (void *)-1, SIZE_MAX },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		aclDataBuffer *buf = aclCreateDataBuffer(pairs[i].data, pairs[i].size);

		assert_non_null(buf);
		assert_ptr_equal(aclGetDataBufferAddr(buf), pairs[i].data);
		assert_int_equal(aclGetDataBufferSizeV2(buf), pairs[i].size);
		ACL_OK(aclDestroyDataBuffer(buf));
	}
	assert_null(aclGetRecentErrMsg());
}

static void test_update_replaces_both_fields(void **state)
{
	char a[16], b[32];
	aclDataBuffer *buf = aclCreateDataBuffer(a, sizeof(a));

	(void)state;
	assert_non_null(buf);
	ACL_OK(aclUpdateDataBuffer(buf, b, sizeof(b)));
	assert_ptr_equal(aclGetDataBufferAddr(buf), b);
	assert_int_equal(aclGetDataBufferSizeV2(buf), sizeof(b));
	ACL_OK(aclUpdateDataBuffer(buf, NULL, 0));
	assert_null(aclGetDataBufferAddr(buf));
	assert_int_equal(aclGetDataBufferSizeV2(buf), 0);
	ACL_OK(aclDestroyDataBuffer(buf));
}

static void test_deprecated_size_is_truncated_to_32_bits(void **state)
{
	const size_t size = ((size_t)1 << 32) + 7;
	aclDataBuffer *buf = aclCreateDataBuffer(NULL, size);

	(void)state;
	assert_non_null(buf);
	assert_int_equal(aclGetDataBufferSizeV2(buf), size);
	assert_int_equal(aclGetDataBufferSize(buf), 7);
	ACL_OK(aclUpdateDataBuffer(buf, NULL, UINT32_MAX));
	assert_int_equal(aclGetDataBufferSize(buf), UINT32_MAX);
	ACL_OK(aclDestroyDataBuffer(buf));
}

/* The bad-input rows: a NULL buffer. */
static int64_t destroy_null(void) { return aclDestroyDataBuffer(NULL); }
static int64_t update_null(void) { return aclUpdateDataBuffer(NULL, (void *)0x1000, 8); }
static int64_t addr_null(void) { return (int64_t)(intptr_t)aclGetDataBufferAddr(NULL); }
static int64_t size_v2_null(void) { return (int64_t)aclGetDataBufferSizeV2(NULL); }
static int64_t size_null(void) { return (int64_t)aclGetDataBufferSize(NULL); }

static const struct {
	const char *api;
	int64_t (*call)(void);
	int64_t expected;
} null_rows[] = {
	{ "aclDestroyDataBuffer", destroy_null, ACL_ERROR_INVALID_PARAM },
	{ "aclUpdateDataBuffer", update_null, ACL_ERROR_INVALID_PARAM },
	{ "aclGetDataBufferAddr", addr_null, 0 },		/* NULL */
	{ "aclGetDataBufferSizeV2", size_v2_null, 0 },
	{ "aclGetDataBufferSize", size_null, 0 },
};

static void test_null_buffer_rows(void **state)
{
	(void)state;
	while (aclrtGetLastError(ACL_RT_THREAD_LEVEL) != ACL_SUCCESS)
		;
	for (size_t i = 0; i < sizeof(null_rows) / sizeof(null_rows[0]); i++) {
		const char *m;

		(void)aclGetRecentErrMsg();
		assert_int_equal(null_rows[i].call(), null_rows[i].expected);
		/* A message that names the API and the argument. */
		m = aclGetRecentErrMsg();
		assert_non_null(m);
		assert_non_null(strstr(m, null_rows[i].api));
		assert_non_null(strstr(m, "dataBuffer is NULL"));
	}
	/* ACL-layer rejections: not the thread's last (runtime-layer) error. */
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_describes_data_and_size),
		cmocka_unit_test(test_create_never_validates),
		cmocka_unit_test(test_update_replaces_both_fields),
		cmocka_unit_test(test_deprecated_size_is_truncated_to_32_bits),
		cmocka_unit_test(test_null_buffer_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
