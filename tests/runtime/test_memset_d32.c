// SPDX-License-Identifier: MIT
/*
 * aclrtMemsetD32 and aclrtMemsetD32Async: every word of the range holds the
 * pattern and not one byte past it changes, for sizes around the staged
 * seed and large ones, for device and pinned host memory, in stream order
 * and truly asynchronously; and every bad-input row with its exact code.
 */
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define BUF (8u << 20)		/* bytes of each buffer */
#define SENT 0xEEu		/* what the bytes around a fill hold */

static void *g_dev;		/* device buffer of BUF bytes */
static uint8_t *g_host;		/* readback, BUF bytes */
static void *g_word;		/* device word the held streams wait on */

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_word, 4096, ACL_MEM_MALLOC_NORMAL_ONLY) != ACL_SUCCESS)
		return -1;
	g_host = malloc(BUF);
	return g_host != NULL && aclrtMalloc(&g_dev, BUF, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS
		       ? 0
		       : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_dev);
	aclrtFree(g_word);
	free(g_host);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void sentinel_device(void)
{
	ACL_OK(aclrtMemset(g_dev, BUF, SENT, BUF));
}

static void read_device(void)
{
	ACL_OK(aclrtMemcpy(g_host, BUF, g_dev, BUF, ACL_MEMCPY_DEVICE_TO_HOST));
}

/* buf holds SENT in [0, off), n words of value from off, SENT after, up to len. */
static void check_fill(const uint8_t *buf, size_t len, size_t off, uint32_t value, size_t n)
{
	size_t i = rt_first_not(buf, off, SENT);

	if (i != off)
		fail_msg("byte %zu before the fill changed to 0x%02x", i, buf[i]);
	for (size_t w = 0; w < n; w++) {
		uint32_t got;

		memcpy(&got, buf + off + 4 * w, 4);
		if (got != value)
			fail_msg("word %zu of %zu is 0x%08x, not 0x%08x", w, n, got, value);
	}
	i = rt_first_not(buf + off + 4 * n, len - off - 4 * n, SENT);
	if (i != len - off - 4 * n)
		fail_msg("byte %zu after the fill changed to 0x%02x", off + 4 * n + i,
			 buf[off + 4 * n + i]);
}

/* Word counts around the 4 KiB staged seed, odd and large ones, at odd word offsets. */
static void test_sync_fills_exactly_n_words(void **state)
{
	static const size_t counts[] = { 1, 3, 1023, 1024, 1025, 4096 + 7, 300001, (BUF - 64) / 4 };
	static const size_t offs[] = { 0, 4, 60 };

	(void)state;
	for (size_t c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		size_t off = offs[c % 3];
		uint32_t value = 0x11223344u + (uint32_t)c;

		sentinel_device();
		ACL_OK(aclrtMemsetD32((char *)g_dev + off, BUF - off, value, counts[c]));
		read_device();
		check_fill(g_host, BUF, off, value, counts[c]);
	}
}

/* A word of four equal bytes takes the byte-fill path: same result. */
static void test_sync_uniform_word(void **state)
{
	(void)state;
	sentinel_device();
	ACL_OK(aclrtMemsetD32((char *)g_dev + 8, 4 * 5000, 0xABABABABu, 5000));
	read_device();
	check_fill(g_host, BUF, 8, 0xABABABABu, 5000);
	sentinel_device();
	ACL_OK(aclrtMemsetD32(g_dev, BUF, 0, 77));
	read_device();
	check_fill(g_host, BUF, 0, 0, 77);
}

/* Exactly memSize == 4 * N is enough. */
static void test_memsize_exactly_four_n(void **state)
{
	(void)state;
	sentinel_device();
	ACL_OK(aclrtMemsetD32(g_dev, 4 * 10, 0xCAFEBABEu, 10));
	read_device();
	check_fill(g_host, BUF, 0, 0xCAFEBABEu, 10);
}

/* Async fills run in stream order between a copy in and a copy out. */
static void test_async_in_stream_order(void **state)
{
	aclrtStream s;
	void *pinned;
	const size_t n = 100003;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtMallocHost(&pinned, BUF));
	memset(pinned, SENT, BUF);
	ACL_OK(aclrtMemcpyAsync(g_dev, BUF, pinned, BUF, ACL_MEMCPY_HOST_TO_DEVICE, s));
	ACL_OK(aclrtMemsetD32Async((char *)g_dev + 12, BUF - 12, 0x89ABCDEFu, n, s));
	ACL_OK(aclrtMemsetD32Async((char *)g_dev + 12, 8, 0x01020304u, 2, s));
	ACL_OK(aclrtMemcpyAsync(pinned, BUF, g_dev, BUF, ACL_MEMCPY_DEVICE_TO_HOST, s));
	ACL_OK(aclrtSynchronizeStream(s));
	/* The second fill overwrote the first two words of the first. */
	check_fill((uint8_t *)pinned + 12 + 8, BUF - 20, 0, 0x89ABCDEFu, n - 2);
	check_fill((uint8_t *)pinned, 20, 12, 0x01020304u, 2);
	ACL_OK(aclrtFreeHost(pinned));
	ACL_OK(aclrtDestroyStream(s));
}

/* The default stream (NULL) works too. */
static void test_async_default_stream(void **state)
{
	(void)state;
	sentinel_device();
	ACL_OK(aclrtMemsetD32Async(g_dev, BUF, 0x7F00FF01u, 2049, NULL));
	ACL_OK(aclrtSynchronizeStream(NULL));
	read_device();
	check_fill(g_host, BUF, 0, 0x7F00FF01u, 2049);
}

/* Behind a ValueWait the fill stays queued: the call did not run it. */
static void test_async_is_queued_not_run(void **state)
{
	aclrtStream s;
	uint64_t v = 0;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	sentinel_device();
	ACL_OK(aclrtMemcpy(g_word, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtValueWait(g_word, 1, ACL_STREAM_WAIT_VALUE_EQ, s));
	ACL_OK(aclrtMemsetD32Async(g_dev, BUF, 0x12345678u, 50000, s));
	read_device();	/* synchronous copies do not wait for streams */
	assert_int_equal(rt_first_not(g_host, BUF, SENT), BUF);
	v = 1;
	ACL_OK(aclrtMemcpy(g_word, 8, &v, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	ACL_OK(aclrtSynchronizeStream(s));
	read_device();
	check_fill(g_host, BUF, 0, 0x12345678u, 50000);
	ACL_OK(aclrtDestroyStream(s));
}

/* Pinned host memory (aclrtMallocHost) and registered host memory. */
static void test_host_memory(void **state)
{
	void *pinned;
	uint8_t *reg = NULL;
	aclrtStream s;
	void *dev_alias;

	(void)state;
	ACL_OK(aclrtMallocHost(&pinned, 1 << 20));
	memset(pinned, SENT, 1 << 20);
	ACL_OK(aclrtMemsetD32((char *)pinned + 4, (1 << 20) - 4, 0xDEADBEEFu, 3000));
	check_fill(pinned, 1 << 20, 4, 0xDEADBEEFu, 3000);
	ACL_OK(aclrtCreateStream(&s));
	memset(pinned, SENT, 1 << 20);
	ACL_OK(aclrtMemsetD32Async(pinned, 1 << 20, 0x0BADF00Du, 5000, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_fill(pinned, 1 << 20, 0, 0x0BADF00Du, 5000);
	ACL_OK(aclrtFreeHost(pinned));

	assert_int_equal(posix_memalign((void **)&reg, 4096, 1 << 16), 0);
	memset(reg, SENT, 1 << 16);
	ACL_OK(aclrtHostRegister(reg, 1 << 16, ACL_HOST_REGISTER_MAPPED, &dev_alias));
	ACL_OK(aclrtMemsetD32Async(reg + 16, (1 << 16) - 16, 0xA1B2C3D4u, 4000, s));
	ACL_OK(aclrtSynchronizeStream(s));
	check_fill(reg, 1 << 16, 16, 0xA1B2C3D4u, 4000);
	ACL_OK(aclrtHostUnregister(reg));
	free(reg);
	ACL_OK(aclrtDestroyStream(s));
}

static void assert_last_error_clear(void)
{
	/* ACL-layer rejections are not the thread's last error. */
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_SUCCESS);
}

/* The ACL-layer rows: 100000, in upstream's order, for both calls. */
static void test_acl_layer_rows(void **state)
{
	char *unreg = malloc(64);
	char *dev = g_dev;

	(void)state;
	assert_non_null(unreg);
	(void)aclrtGetLastError(ACL_RT_THREAD_LEVEL);
	/* N == 0 first: even a NULL pointer is fine. */
	ACL_OK(aclrtMemsetD32(NULL, 0, 1, 0));
	ACL_OK(aclrtMemsetD32Async(NULL, 0, 1, 0, NULL));
	for (int async = 0; async < 2; async++) {
		const struct {
			void *ptr;
			size_t mem_size, n;
			const char *msg;
		} rows[] = {
			{ NULL, 64, 1, "ptr is NULL" },
			{ dev + 2, 64, 1, "not 4-byte aligned" },
			{ dev, 15, 4, "smaller than 4 * N" },
			{ dev, SIZE_MAX, SIZE_MAX / 2, "smaller than 4 * N" },
			{ unreg, 64, 4, "neither device memory nor ACL host memory" },
		};
		for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			aclError rc = async ? aclrtMemsetD32Async(rows[i].ptr, rows[i].mem_size, 5,
								  rows[i].n, NULL)
					    : aclrtMemsetD32(rows[i].ptr, rows[i].mem_size, 5,
							     rows[i].n);
			const char *m;

			if (rc != ACL_ERROR_INVALID_PARAM)
				fail_msg("row %zu (async %d): %d, expected 100000", i, async, rc);
			m = aclGetRecentErrMsg();
			assert_non_null(m);
			if (strstr(m, rows[i].msg) == NULL ||
			    strstr(m, async ? "aclrtMemsetD32Async" : "aclrtMemsetD32") == NULL)
				fail_msg("row %zu: message \"%s\"", i, m);
			assert_last_error_clear();
		}
	}
	free(unreg);
}

/* Device addresses with nothing mapped, and ranges past the allocation: 107000. */
static void test_runtime_rows(void **state)
{
	void *freed;
	void *pinned;
	void *base;
	size_t size;
	char *end;

	(void)state;
	ACL_OK(aclrtMalloc(&freed, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtFree(freed));
	assert_int_equal(aclrtMemsetD32(freed, 4096, 0x01020304u, 4), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtGetLastError(ACL_RT_THREAD_LEVEL), ACL_ERROR_RT_PARAM_INVALID);
	/* memSize claims more than the allocation (as mapped) has. */
	ACL_OK(aclrtMemGetAddressRange(g_dev, &base, &size));
	end = (char *)base + size;
	ACL_OK(aclrtMemsetD32(end - 16, 64, 0x01020304u, 4));
	assert_int_equal(aclrtMemsetD32(end - 8, 64, 0x01020304u, 4), ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemsetD32Async(end - 8, 64, 0x01020304u, 4, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtMallocHost(&pinned, 4096));
	assert_int_equal(aclrtMemsetD32((char *)pinned + 4096 - 4, 64, 0x01020304u, 2),
			 ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtFreeHost(pinned));
}

/* A destroyed stream handle is 107017; nothing is written. */
static void test_destroyed_stream(void **state)
{
	aclrtStream s;

	(void)state;
	ACL_OK(aclrtCreateStream(&s));
	ACL_OK(aclrtDestroyStream(s));
	sentinel_device();
	assert_int_equal(aclrtMemsetD32Async(g_dev, BUF, 0x01020304u, 4, s),
			 ACL_ERROR_RT_INVALID_HANDLE);
	read_device();
	assert_int_equal(rt_first_not(g_host, BUF, SENT), BUF);
}

static void *no_context_thread(void *arg)
{
	aclError *rc = arg;

	rc[0] = aclrtMemsetD32(g_dev, BUF, 0x01020304u, 4);
	rc[1] = aclrtMemsetD32Async(g_dev, BUF, 0x01020304u, 4, NULL);
	return NULL;
}

static void test_no_context(void **state)
{
	aclError rc[2];

	(void)state;
	rt_run_in_thread(no_context_thread, rc);
	assert_int_equal(rc[0], ACL_ERROR_RT_CONTEXT_NULL);
	assert_int_equal(rc[1], ACL_ERROR_RT_CONTEXT_NULL);
}

/* Memory of another device than the stream's: 107000, nothing written. */
static void test_other_device_memory(void **state)
{
	void *dev1;

	(void)state;
	if (rt_device_count() < 2)
		skip();
	ACL_OK(aclrtSetDevice(1));
	ACL_OK(aclrtMalloc(&dev1, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	ACL_OK(aclrtSetDevice(0));
	assert_int_equal(aclrtMemsetD32Async(dev1, 4096, 0x01020304u, 4, NULL),
			 ACL_ERROR_RT_PARAM_INVALID);
	assert_int_equal(aclrtMemsetD32(dev1, 4096, 0x01020304u, 4), ACL_ERROR_RT_PARAM_INVALID);
	ACL_OK(aclrtFree(dev1));
	ACL_OK(aclrtResetDevice(1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sync_fills_exactly_n_words),
		cmocka_unit_test(test_sync_uniform_word),
		cmocka_unit_test(test_memsize_exactly_four_n),
		cmocka_unit_test(test_async_in_stream_order),
		cmocka_unit_test(test_async_default_stream),
		cmocka_unit_test(test_async_is_queued_not_run),
		cmocka_unit_test(test_host_memory),
		cmocka_unit_test(test_acl_layer_rows),
		cmocka_unit_test(test_runtime_rows),
		cmocka_unit_test(test_destroyed_stream),
		cmocka_unit_test(test_no_context),
		cmocka_unit_test(test_other_device_memory),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
