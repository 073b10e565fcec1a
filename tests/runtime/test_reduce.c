// SPDX-License-Identifier: MIT
/*
 * aclrtReduceAsync: upstream's sample (a float sum of a buffer into its
 * copy), each reduction kind and element type with the values read back,
 * work queued on a stream behind a copy and ahead of the next, a
 * reduction from another device's memory, and the bad inputs with their
 * codes, in upstream's check order, and their messages.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

static void *g_dst, *g_src;
static aclrtStream g_stream;

#define BUF 4096

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_dst, BUF, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_src, BUF, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_dst);
	aclrtFree(g_src);
	aclrtDestroyStream(g_stream);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

/* Puts d and s (n bytes each) on the device, reduces, and reads dst back into out. */
static void reduce(const void *d, const void *s, size_t n, aclrtReduceKind kind, aclDataType type,
		   void *out)
{
	ACL_OK(aclrtMemcpy(g_dst, BUF, d, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemcpy(g_src, BUF, s, n, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtReduceAsync(g_dst, g_src, n, kind, type, g_stream, NULL));
	ACL_OK(aclrtSynchronizeStream(g_stream));
	ACL_OK(aclrtMemcpy(out, n, g_dst, n, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* Upstream's sample: {1, 2, 3, 4} summed into a copy of itself. */
static void test_upstream_sample(void **state)
{
	const float in[4] = { 1.0f, 2.0f, 3.0f, 4.0f };
	float out[4];

	(void)state;
	reduce(in, in, sizeof(in), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT, out);
	for (int i = 0; i < 4; i++)
		assert_true(out[i] == 2.0f * in[i]);
}

static uint16_t h_bits(_Float16 h)
{
	uint16_t b;

	memcpy(&b, &h, sizeof(b));
	return b;
}

static void test_kinds_and_types(void **state)
{
	const float fd[3] = { 1.5f, -7.0f, NAN }, fs[3] = { -2.0f, 3.0f, 1.0f };
	const _Float16 hd[3] = { 0.1f16, 2.0f16, -1.0f16 }, hs[3] = { 0.2f16, 1.0f16, -3.0f16 };
	const uint16_t bd[2] = { 0x3f80, 0xc000 }, bs[2] = { 0x4000, 0xbf80 }; /* 1, -2; 2, -1 */
	const int8_t cd[3] = { 100, -100, 3 }, cs[3] = { 100, -100, -4 };
	const int16_t sd[2] = { 32767, -5 }, ss[2] = { 1, 9 };
	const int32_t id[2] = { -40, 12 }, is[2] = { 2, 12 };
	float fo[3];
	_Float16 ho[3];
	uint16_t bo[2];
	int8_t co[3];
	int16_t so[2];
	int32_t io[2];

	(void)state;
	reduce(fd, fs, sizeof(fd), ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_FLOAT, fo);
	assert_true(fo[0] == 1.5f && fo[1] == 3.0f && isnan(fo[2]));
	reduce(fd, fs, sizeof(fd), ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_FLOAT, fo);
	assert_true(fo[0] == -2.0f && fo[1] == -7.0f && isnan(fo[2]));
	reduce(hd, hs, sizeof(hd), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_FLOAT16, ho);
	for (int i = 0; i < 3; i++)
		assert_int_equal(h_bits(ho[i]), h_bits((_Float16)((float)hd[i] + (float)hs[i])));
	reduce(bd, bs, sizeof(bd), ACL_RT_MEMCPY_SDMA_AUTOMATIC_MAX, ACL_BF16, bo);
	assert_int_equal(bo[0], 0x4000);
	assert_int_equal(bo[1], 0xbf80);
	reduce(cd, cs, sizeof(cd), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT8, co);
	assert_int_equal(co[0], -56); /* 200 wraps */
	assert_int_equal(co[1], 56);
	assert_int_equal(co[2], -1);
	reduce(sd, ss, sizeof(sd), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT16, so);
	assert_int_equal(so[0], -32768);
	assert_int_equal(so[1], 4);
	reduce(id, is, sizeof(id), ACL_RT_MEMCPY_SDMA_AUTOMATIC_MIN, ACL_INT32, io);
	assert_int_equal(io[0], -40);
	assert_int_equal(io[1], 12);
}

/*
 * Stream order: a fill, the reduction, and a copy of its result queued
 * back to back on one stream, with one synchronisation at the end; then
 * on the default stream.
 */
static void test_stream_order(void **state)
{
	int32_t ones[64], out[64];

	(void)state;
	for (int i = 0; i < 64; i++)
		ones[i] = 1;
	ACL_OK(aclrtMemcpy(g_src, BUF, ones, sizeof(ones), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtMemsetAsync(g_dst, BUF, 0, sizeof(ones), g_stream));
	for (int k = 0; k < 5; k++)
		ACL_OK(aclrtReduceAsync(g_dst, g_src, sizeof(ones), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
					ACL_INT32, g_stream, NULL));
	ACL_OK(aclrtMemcpyAsync((char *)g_dst + 1024, BUF - 1024, g_dst, sizeof(ones),
				ACL_MEMCPY_DEVICE_TO_DEVICE, g_stream));
	ACL_OK(aclrtSynchronizeStream(g_stream));
	ACL_OK(aclrtMemcpy(out, sizeof(out), (char *)g_dst + 1024, sizeof(out),
			   ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < 64; i++)
		assert_int_equal(out[i], 5);
	ACL_OK(aclrtReduceAsync(g_dst, g_src, sizeof(ones), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM,
				ACL_INT32, NULL, NULL));
	ACL_OK(aclrtSynchronizeStream(NULL));
	ACL_OK(aclrtMemcpy(out, sizeof(out), g_dst, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < 64; i++)
		assert_int_equal(out[i], 6);
}

/* The source on device 1, with peer access enabled. */
static void test_peer_source(void **state)
{
	int32_t v[16], out[16];
	int32_t can = 0;
	void *peer = NULL;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
	if (!can)
		skip();
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc(&peer, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
	for (int i = 0; i < 16; i++)
		v[i] = i;
	ACL_OK(aclrtMemcpy(peer, 4096, v, sizeof(v), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtSetDevice(0));
	ACL_OK(aclrtDeviceEnablePeerAccess(1, 0));
	ACL_OK(aclrtMemcpy(g_dst, BUF, v, sizeof(v), ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtReduceAsync(g_dst, peer, sizeof(v), ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM, ACL_INT32,
				g_stream, NULL));
	ACL_OK(aclrtSynchronizeStream(g_stream));
	ACL_OK(aclrtMemcpy(out, sizeof(out), g_dst, sizeof(out), ACL_MEMCPY_DEVICE_TO_HOST));
	for (int i = 0; i < 16; i++)
		assert_int_equal(out[i], 2 * i);
	ACL_OK(aclrtDeviceDisablePeerAccess(1));
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtFree(peer));
	ACL_OK(aclrtSetDevice(0));
}

static void test_bad_inputs(void **state)
{
	char host[64];
	void *d = g_dst, *s = g_src;
	const aclrtReduceKind sum = ACL_RT_MEMCPY_SDMA_AUTOMATIC_SUM;
	const struct {
		const char *what;
		void *dst;
		const void *src;
		uint64_t count;
		int kind;
		int type;
		void *reserve;
		aclError code;
		const char *says;
	} rows[] = {
		{ "dst NULL", NULL, s, 16, sum, ACL_FLOAT, NULL, ACL_ERROR_INVALID_PARAM, "dst is NULL" },
		{ "src NULL", d, NULL, 16, sum, ACL_FLOAT, NULL, ACL_ERROR_INVALID_PARAM, "src is NULL" },
		{ "reserve set", d, s, 16, sum, ACL_FLOAT, host, ACL_ERROR_INVALID_PARAM, "reserve" },
		{ "ACL_DOUBLE", d, s, 16, sum, ACL_DOUBLE, NULL, ACL_ERROR_INVALID_PARAM, "type 11" },
		{ "NULL before a bad kind", NULL, s, 16, 9, ACL_FLOAT, NULL, ACL_ERROR_INVALID_PARAM,
		  "dst is NULL" },
		{ "count 0", d, s, 0, sum, ACL_FLOAT, NULL, ACL_ERROR_RT_PARAM_INVALID, "count is 0" },
		{ "kind 9", d, s, 16, 9, ACL_FLOAT, NULL, ACL_ERROR_RT_PARAM_INVALID, "kind 9" },
		{ "kind 14", d, s, 16, 14, ACL_FLOAT, NULL, ACL_ERROR_RT_PARAM_INVALID, "kind 14" },
		{ "a sum above 4 GiB", d, s, (4ULL << 30) + 4, sum, ACL_FLOAT, NULL,
		  ACL_ERROR_RT_PARAM_INVALID, "4 GiB" },
		{ "EQUAL", d, s, 16, ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL, ACL_FLOAT, NULL,
		  ACL_ERROR_RT_FEATURE_NOT_SUPPORT, "EQUAL" },
		{ "ACL_UINT8", d, s, 16, sum, ACL_UINT8, NULL, ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
		  "type 4" },
		{ "part of an element", d, s, 6, sum, ACL_FLOAT, NULL, ACL_ERROR_RT_PARAM_INVALID,
		  "4-byte elements" },
		{ "unaligned src", d, (char *)s + 2, 16, sum, ACL_FLOAT, NULL,
		  ACL_ERROR_RT_PARAM_INVALID, "aligned" },
		{ "host src", d, host, 16, sum, ACL_FLOAT, NULL, ACL_ERROR_RT_PARAM_INVALID, "src" },
		{ "past the end", d, s, 8ULL << 20, sum, ACL_FLOAT, NULL, ACL_ERROR_RT_PARAM_INVALID,
		  "dst" },
	};

	(void)state;
	(void)aclGetRecentErrMsg();
	for (unsigned int i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		aclError rc = aclrtReduceAsync(rows[i].dst, rows[i].src, rows[i].count,
					       (aclrtReduceKind)rows[i].kind,
					       (aclDataType)rows[i].type, g_stream, rows[i].reserve);
		const char *m = aclGetRecentErrMsg();

		if (rc != rows[i].code)
			fail_msg("%s: %d, expected %d (%s)", rows[i].what, rc, rows[i].code,
				 m ? m : "no message");
		if (!m || !strstr(m, "aclrtReduceAsync") || !strstr(m, rows[i].says))
			fail_msg("%s: message \"%s\" does not say \"%s\"", rows[i].what,
				 m ? m : "", rows[i].says);
	}
	/* None of them queued anything: the stream is clean. */
	ACL_OK(aclrtSynchronizeStream(g_stream));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upstream_sample),
		cmocka_unit_test(test_kinds_and_types),
		cmocka_unit_test(test_stream_order),
		cmocka_unit_test(test_peer_source),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
