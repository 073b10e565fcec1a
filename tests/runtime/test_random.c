// SPDX-License-Identifier: MIT
/*
 * aclrtRandomNumAsync: every data type and distribution upstream's example
 * uses, each number inside its distribution's bounds (uniform in
 * [min, max), truncated normal within two deviations of the mean, the
 * normal's sample mean near its mean, the dropout bitmask's share of ones
 * near 1 - ratio); the same seed and counter give the same numbers, the
 * counter in device memory advances by the count so that the next task
 * gives new ones, a parameter held in device memory (isAddr 1) reads it;
 * the work is in stream order; bad inputs get upstream's codes.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt_test.h"

#define NUM 4096

static void *g_out, *g_ctr;
static aclrtStream g_stream;

static int group_setup(void **state)
{
	(void)state;
	if (aclrtSetDevice(0) != ACL_SUCCESS || aclrtCreateStream(&g_stream) != ACL_SUCCESS)
		return -1;
	if (aclrtMalloc(&g_out, NUM * 8, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
		return -1;
	return aclrtMalloc(&g_ctr, 16, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	aclrtFree(g_out);
	aclrtFree(g_ctr);
	aclrtDestroyStream(g_stream);
	return aclrtResetDevice(0) == ACL_SUCCESS ? 0 : -1;
}

static void para(aclrtRandomParaInfo *p, const void *v, uint8_t size)
{
	memset(p, 0, sizeof(*p));
	memcpy(p->valueOrAddr, v, size);
	p->size = size;
}

static aclrtRandomNumTaskInfo task(aclDataType type, aclrtRandomNumFuncType func, const void *p0,
				   const void *p1, uint8_t psize, uint64_t seed, uint64_t num)
{
	aclrtRandomNumTaskInfo t;

	memset(&t, 0, sizeof(t));
	t.dataType = type;
	t.randomNumFuncParaInfo.funcType = func;
	t.randomResultAddr = g_out;
	t.randomCounterAddr = g_ctr;
	if (func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
		para(&t.randomNumFuncParaInfo.paramInfo.dropoutBitmaskInfo.dropoutRation, p0, psize);
	} else {
		para(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.min, p0, psize);
		para(&t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max, p1, psize);
	}
	para(&t.randomSeed, &seed, 8);
	para(&t.randomNum, &num, 8);
	return t;
}

static void reset_counter(void)
{
	ACL_OK(aclrtMemset(g_ctr, 16, 0, 16));
}

/* Runs t on g_stream and copies size bytes of the result to out. */
static void gen(const aclrtRandomNumTaskInfo *t, void *out, size_t size)
{
	ACL_OK(aclrtRandomNumAsync(t, g_stream, NULL));
	ACL_OK(aclrtSynchronizeStream(g_stream));
	ACL_OK(aclrtMemcpy(out, size, g_out, size, ACL_MEMCPY_DEVICE_TO_HOST));
}

static float half_to_float(uint16_t h)
{
	const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	const float v = e == 0 ? ldexpf((float)m, -24) : ldexpf((float)(m | 0x400), e - 25);

	return (h & 0x8000) ? -v : v;
}

static float bf16_to_float(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;

	memcpy(&f, &bits, 4);
	return f;
}

static void test_uniform_bounds_every_type(void **state)
{
	static uint8_t out[NUM * 8];

	(void)state;
	{
		const float lo = -2.5f, hi = 7.0f;
		aclrtRandomNumTaskInfo t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
						&lo, &hi, 4, 1, NUM);
		double sum = 0;

		reset_counter();
		gen(&t, out, NUM * 4);
		for (int i = 0; i < NUM; i++) {
			const float v = ((float *)out)[i];

			assert_true(v >= lo && v < hi);
			sum += v;
		}
		assert_true(fabs(sum / NUM - 2.25) < 0.3);
	}
	{
		const uint16_t lo = 0x3C00, hi = 0x4000; /* fp16 1.0, 2.0 */
		aclrtRandomNumTaskInfo t = task(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
						&lo, &hi, 2, 2, NUM);

		gen(&t, out, NUM * 2);
		for (int i = 0; i < NUM; i++) {
			const float v = half_to_float(((uint16_t *)out)[i]);

			assert_true(v >= 1.0f && v < 2.0f);
		}
	}
	{
		const uint16_t lo = 0xC000, hi = 0x4000; /* bf16 -2.0, 2.0 */
		aclrtRandomNumTaskInfo t = task(ACL_BF16, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
						&lo, &hi, 2, 3, NUM);

		gen(&t, out, NUM * 2);
		for (int i = 0; i < NUM; i++) {
			const float v = bf16_to_float(((uint16_t *)out)[i]);

			assert_true(v >= -2.0f && v < 2.0f);
		}
	}
	{
		const int32_t lo = 1, hi = 100;
		aclrtRandomNumTaskInfo t = task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
						&lo, &hi, 4, 4, NUM);
		int seen_lo = 0, seen_hi = 0;

		gen(&t, out, NUM * 4);
		for (int i = 0; i < NUM; i++) {
			const int32_t v = ((int32_t *)out)[i];

			assert_true(v >= lo && v < hi);
			seen_lo |= v == lo;
			seen_hi |= v == hi - 1;
		}
		assert_true(seen_lo && seen_hi);
	}
	{
		const int64_t lo = -5000000000LL, hi = -4999999990LL;
		aclrtRandomNumTaskInfo t = task(ACL_INT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
						&lo, &hi, 8, 5, NUM);

		gen(&t, out, NUM * 8);
		for (int i = 0; i < NUM; i++)
			assert_true(((int64_t *)out)[i] >= lo && ((int64_t *)out)[i] < hi);
	}
	{
		const uint32_t lo = 4000000000U, hi = 4000000003U;
		aclrtRandomNumTaskInfo t = task(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
						&lo, &hi, 4, 6, NUM);

		gen(&t, out, NUM * 4);
		for (int i = 0; i < NUM; i++)
			assert_true(((uint32_t *)out)[i] >= lo && ((uint32_t *)out)[i] < hi);
	}
	{
		const uint64_t lo = 1ULL << 63, hi = (1ULL << 63) + 1000;
		aclrtRandomNumTaskInfo t = task(ACL_UINT64, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS,
						&lo, &hi, 8, 7, NUM);

		gen(&t, out, NUM * 8);
		for (int i = 0; i < NUM; i++)
			assert_true(((uint64_t *)out)[i] >= lo && ((uint64_t *)out)[i] < hi);
	}
}

static void test_normal_and_truncated(void **state)
{
	static float f[NUM];
	static uint16_t h[NUM];
	const float mean = 3.0f, sd = 2.0f;
	double sum = 0, sq = 0;
	aclrtRandomNumTaskInfo t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &mean,
					&sd, 4, 0, NUM);
	int outside = 0;

	(void)state;
	reset_counter();
	gen(&t, f, sizeof(f));
	for (int i = 0; i < NUM; i++) {
		sum += f[i];
		sq += (f[i] - mean) * (f[i] - mean);
		outside += fabsf(f[i] - mean) > 2 * sd;
	}
	assert_true(fabs(sum / NUM - mean) < 0.15);
	assert_true(fabs(sqrt(sq / NUM) - sd) < 0.15);
	assert_true(outside > 0); /* about 4.6% */

	/* Truncated, BF16 mean 1 stddev 2 (upstream's example): within [-3, 5]. */
	{
		const uint16_t m = 0x3F80, s = 0x4000;

		t = task(ACL_BF16, ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS, &m, &s, 2, 0,
			 NUM);
		gen(&t, h, sizeof(h));
		for (int i = 0; i < NUM; i++) {
			const float v = bf16_to_float(h[i]);

			assert_true(v >= -3.0f && v <= 5.0f);
		}
	}
	/* FP16 normal, mean 0 stddev 1. */
	{
		const uint16_t m = 0x0000, s = 0x3C00;

		t = task(ACL_FLOAT16, ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS, &m, &s, 2, 9, NUM);
		gen(&t, h, sizeof(h));
		sum = 0;
		for (int i = 0; i < NUM; i++)
			sum += half_to_float(h[i]);
		assert_true(fabs(sum / NUM) < 0.1);
	}
}

static void test_dropout_bitmask(void **state)
{
	static uint8_t bits[NUM / 8];
	const float ratio = 0.4f;
	aclrtRandomNumTaskInfo t = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK,
					&ratio, NULL, 4, 0, NUM);
	int ones = 0;

	(void)state;
	/* The bytes past the mask stay as they were. */
	ACL_OK(aclrtMemset(g_out, NUM, 0xAB, NUM));
	reset_counter();
	gen(&t, bits, sizeof(bits));
	for (size_t i = 0; i < sizeof(bits); i++)
		ones += __builtin_popcount(bits[i]);
	assert_true(fabs((double)ones / NUM - 0.6) < 0.04);
	{
		uint8_t after = 0;

		ACL_OK(aclrtMemcpy(&after, 1, (char *)g_out + NUM / 8, 1, ACL_MEMCPY_DEVICE_TO_HOST));
		assert_int_equal(after, 0xAB);
	}
}

static void test_same_seed_and_counter_same_numbers(void **state)
{
	static uint32_t a[NUM], b[NUM], c[NUM], d[NUM];
	const uint32_t lo = 0, hi = 0xFFFFFFFFU;
	aclrtRandomNumTaskInfo t = task(ACL_UINT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo,
					&hi, 4, 42, NUM);
	uint32_t ctr[4];

	(void)state;
	reset_counter();
	gen(&t, a, sizeof(a));
	/* The counter advanced by the count: the next task gives other numbers. */
	ACL_OK(aclrtMemcpy(ctr, 16, g_ctr, 16, ACL_MEMCPY_DEVICE_TO_HOST));
	assert_int_equal(ctr[0], NUM);
	assert_int_equal(ctr[1] | ctr[2] | ctr[3], 0);
	gen(&t, b, sizeof(b));
	assert_memory_not_equal(a, b, sizeof(a));
	/* Back to counter 0: the same numbers; block i+NUM is the second run's i. */
	reset_counter();
	gen(&t, c, sizeof(c));
	assert_memory_equal(a, c, sizeof(a));
	/* Another seed: other numbers. */
	reset_counter();
	{
		const uint64_t seed = 43;

		memcpy(t.randomSeed.valueOrAddr, &seed, 8);
	}
	gen(&t, d, sizeof(d));
	assert_memory_not_equal(a, d, sizeof(a));
	/* Counter NUM with seed 42: the second run's numbers. */
	{
		const uint64_t seed = 42;
		const uint32_t at[4] = { NUM, 0, 0, 0 };

		memcpy(t.randomSeed.valueOrAddr, &seed, 8);
		ACL_OK(aclrtMemcpy(g_ctr, 16, at, 16, ACL_MEMCPY_HOST_TO_DEVICE));
		gen(&t, c, sizeof(c));
		assert_memory_equal(b, c, sizeof(b));
	}
}

static void test_stream_order_and_device_parameters(void **state)
{
	static int32_t out[NUM];
	const int32_t lo = 10, hi = 20;
	void *num_dev = NULL;
	const uint64_t num = 100;
	aclrtRandomNumTaskInfo t = task(ACL_INT32, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo, &hi,
					4, 5, NUM);

	(void)state;
	/* The counter reset queued on the stream before the task is what it reads. */
	ACL_OK(aclrtMemsetAsync(g_ctr, 16, 0, 16, g_stream));
	ACL_OK(aclrtMemsetAsync(g_out, NUM * 4, 0, NUM * 4, g_stream));
	/* randomNum from device memory: 100 numbers, the rest left at 0. */
	ACL_OK(aclrtMalloc(&num_dev, 8, ACL_MEM_MALLOC_HUGE_FIRST));
	ACL_OK(aclrtMemcpy(num_dev, 8, &num, 8, ACL_MEMCPY_HOST_TO_DEVICE));
	memset(&t.randomNum, 0, sizeof(t.randomNum));
	t.randomNum.isAddr = 1;
	t.randomNum.size = 8;
	memcpy(t.randomNum.valueOrAddr, &num_dev, sizeof(num_dev));
	gen(&t, out, sizeof(out));
	for (int i = 0; i < NUM; i++) {
		if (i < 100)
			assert_true(out[i] >= lo && out[i] < hi);
		else
			assert_int_equal(out[i], 0);
	}
	ACL_OK(aclrtFree(num_dev));
}

static void test_bad_inputs(void **state)
{
	const float lo = 0, hi = 1;
	aclrtRandomNumTaskInfo good = task(ACL_FLOAT, ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS, &lo,
					   &hi, 4, 0, 16), t;
	int x = 0;

	(void)state;
	EXPECT_FAIL(aclrtRandomNumAsync(NULL, g_stream, NULL), ACL_ERROR_INVALID_PARAM);
	t = good;
	t.dataType = ACL_INT8;
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_INVALID_PARAM);
	t = good;
	t.dataType = ACL_INT32; /* normal needs a float type */
	t.randomNumFuncParaInfo.funcType = ACL_RT_RANDOM_NUM_FUNC_TYPE_NORMAL_DIS;
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	t.randomNumFuncParaInfo.funcType = (aclrtRandomNumFuncType)7;
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	t.randomCounterAddr = NULL;
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	t.randomResultAddr = NULL;
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	t.randomSeed.isAddr = 2;
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	t.randomNum.size = 0;
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	t.randomNumFuncParaInfo.paramInfo.uniformDisInfo.max.size = 8; /* above float's 4 */
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	t.randomCounterAddr = &x; /* host memory */
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	t = good;
	{
		const uint64_t too_many = NUM * 8; /* past the end of g_out */

		memcpy(t.randomNum.valueOrAddr, &too_many, 8);
	}
	EXPECT_FAIL(aclrtRandomNumAsync(&t, g_stream, NULL), ACL_ERROR_RT_PARAM_INVALID);
	EXPECT_FAIL(aclrtRandomNumAsync(&good, (aclrtStream)&x, NULL), ACL_ERROR_RT_INVALID_HANDLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uniform_bounds_every_type),
		cmocka_unit_test(test_normal_and_truncated),
		cmocka_unit_test(test_dropout_bitmask),
		cmocka_unit_test(test_same_seed_and_counter_same_numbers),
		cmocka_unit_test(test_stream_order_and_device_parameters),
		cmocka_unit_test(test_bad_inputs),
	};

	return cmocka_run_group_tests_name("random", tests, group_setup, group_teardown);
}
