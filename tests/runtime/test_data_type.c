// SPDX-License-Identifier: MIT
/*
 * Data types: aclDataTypeSize of every type, and the binary16
 * conversions against known bit patterns: exact values, subnormals, ties
 * rounded to even, upstream's saturation (no Inf or NaN out of
 * aclFloatToFloat16) and its ordinary decoding of exponent 31.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "rt_test.h"

static uint32_t float_bits(float f)
{
	uint32_t u;

	memcpy(&u, &f, sizeof(u));
	return u;
}

static float bits_float(uint32_t u)
{
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

static void test_data_type_size_of_every_type(void **state)
{
	static const struct {
		int type;
		size_t size;
	} rows[] = {
		{ ACL_DT_UNDEFINED, 0 }, { ACL_STRING, 0 },
		{ ACL_UINT1, 1 }, { ACL_INT4, 1 }, { ACL_BOOL, 1 }, { ACL_INT8, 1 },
		{ ACL_UINT8, 1 }, { ACL_HIFLOAT8, 1 }, { ACL_FLOAT8_E5M2, 1 },
		{ ACL_FLOAT8_E4M3FN, 1 }, { ACL_FLOAT8_E8M0, 1 },
		{ ACL_FLOAT16, 2 }, { ACL_INT16, 2 }, { ACL_UINT16, 2 }, { ACL_BF16, 2 },
		{ ACL_FLOAT, 4 }, { ACL_INT32, 4 }, { ACL_UINT32, 4 }, { ACL_COMPLEX32, 4 },
		{ ACL_INT64, 8 }, { ACL_UINT64, 8 }, { ACL_DOUBLE, 8 }, { ACL_COMPLEX64, 8 },
		{ ACL_COMPLEX128, 16 },
		/* Upstream's default branch: 8 for the rest, in the enum or not. */
		{ ACL_FLOAT6_E3M2, 8 }, { ACL_FLOAT6_E2M3, 8 }, { ACL_FLOAT4_E2M1, 8 },
		{ ACL_FLOAT4_E1M2, 8 }, { 5, 8 }, { 14, 8 }, { 42, 8 }, { -2, 8 }, { 1000, 8 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		size_t got = aclDataTypeSize((aclDataType)rows[i].type);

		if (got != rows[i].size)
			fail_msg("aclDataTypeSize(%d) = %zu, expected %zu", rows[i].type, got,
				 rows[i].size);
	}
	assert_null(aclGetRecentErrMsg());
}

static void test_half_to_float_known_values(void **state)
{
	static const struct {
		uint16_t half;
		float value;
	} rows[] = {
		{ 0x0000, 0.0f },
		{ 0x3C00, 1.0f },
		{ 0xBC00, -1.0f },
		{ 0x4000, 2.0f },
		{ 0xC100, -2.5f },
		{ 0x3555, 0.333251953125f },
		{ 0x7BFF, 65504.0f },			/* largest finite */
		{ 0xFBFF, -65504.0f },
		{ 0x0400, 0x1p-14f },			/* smallest normal */
		{ 0x03FF, 0x3FFp-24f },			/* largest subnormal */
		{ 0x0001, 0x1p-24f },			/* smallest subnormal */
		{ 0x8001, -0x1p-24f },
		{ 0x0200, 0x1p-15f },
		/* Exponent 31 is an ordinary exponent (upstream): no Inf, no NaN. */
		{ 0x7C00, 65536.0f },
		{ 0xFC00, -65536.0f },
		{ 0x7E00, 98304.0f },
		{ 0x7FFF, 131008.0f },
		{ 0xFC01, -65600.0f },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		float got = aclFloat16ToFloat(rows[i].half);

		if (float_bits(got) != float_bits(rows[i].value))
			fail_msg("aclFloat16ToFloat(0x%04x) = %a, expected %a", rows[i].half,
				 (double)got, (double)rows[i].value);
	}
	/* The sign of zero survives. */
	assert_true(signbit(aclFloat16ToFloat(0x8000)));
	assert_true(aclFloat16ToFloat(0x8000) == 0.0f);
}

static void test_float_to_half_known_values(void **state)
{
	static const struct {
		float value;
		uint16_t half;
	} rows[] = {
		{ 0.0f, 0x0000 },
		{ -0.0f, 0x8000 },
		{ 1.0f, 0x3C00 },
		{ -2.0f, 0xC000 },
		{ 0.1f, 0x2E66 },
		{ 65504.0f, 0x7BFF },
		{ 0x1p-14f, 0x0400 },
		{ 0x3FFp-24f, 0x03FF },
		{ 0x1p-24f, 0x0001 },
		{ -0x1p-24f, 0x8001 },
		/* Ties to even among normals. */
		{ 1.0f + 0x1p-11f, 0x3C00 },		/* between 0x3C00 and 0x3C01 */
		{ 1.0f + 0x3p-11f, 0x3C02 },		/* between 0x3C01 and 0x3C02 */
		{ 1.0f + 0x1p-11f + 0x1p-20f, 0x3C01 },	/* just above the tie */
		{ 2049.0f, 0x6800 },			/* between 2048 and 2050 */
		{ 2051.0f, 0x6802 },			/* between 2050 and 2052 */
		{ -2051.0f, 0xE802 },
		/* Rounding carries into the exponent. */
		{ 2.0f - 0x1p-12f, 0x4000 },
		{ 2.0f - 0x1p-11f, 0x4000 },		/* tie: 0x3FFF is odd */
		/* Ties to even among subnormals, and into the smallest normal. */
		{ 0x3p-25f, 0x0002 },			/* 1.5 * 2^-24 */
		{ 0x5p-25f, 0x0002 },			/* 2.5 * 2^-24 */
		{ 0x7p-25f, 0x0004 },			/* 3.5 * 2^-24 */
		{ 0x7FFp-25f, 0x0400 },			/* 1023.5 * 2^-24 */
		/* Up to 2^-25 inclusive: zero; strictly above: 2^-24. */
		{ 0x1p-25f, 0x0000 },
		{ -0x1p-25f, 0x8000 },
		{ 0x1.000002p-25f, 0x0001 },
		{ 0x1.fffffep-25f, 0x0001 },
		{ 0x1p-26f, 0x0000 },
		{ 1e-30f, 0x0000 },
		{ -1e-30f, 0x8000 },
		{ 0x1p-149f, 0x0000 },			/* float subnormal */
		/* Saturation: beyond 65504 after rounding, Inf and NaN give +-65504. */
		{ 65519.0f, 0x7BFF },			/* rounds down to 65504 */
		{ 65520.0f, 0x7BFF },			/* would round to 65536 */
		{ 65536.0f, 0x7BFF },
		{ 1e6f, 0x7BFF },
		{ -1e6f, 0xFBFF },
		{ 3.4e38f, 0x7BFF },
		{ INFINITY, 0x7BFF },
		{ -INFINITY, 0xFBFF },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint16_t got = aclFloatToFloat16(rows[i].value);

		if (got != rows[i].half)
			fail_msg("aclFloatToFloat16(%a) = 0x%04x, expected 0x%04x",
				 (double)rows[i].value, got, rows[i].half);
	}
}

static void test_nan_saturates_with_its_sign(void **state)
{
	(void)state;
	assert_int_equal(aclFloatToFloat16(bits_float(0x7FC00000)), 0x7BFF);	/* quiet NaN */
	assert_int_equal(aclFloatToFloat16(bits_float(0x7F800001)), 0x7BFF);	/* signalling */
	assert_int_equal(aclFloatToFloat16(bits_float(0xFFC00000)), 0xFBFF);	/* sign set */
	assert_int_equal(aclFloatToFloat16(bits_float(0xFFFFFFFF)), 0xFBFF);
}

/* Every half but exponent 31 converts to a float and back to itself. */
static void test_every_finite_half_round_trips(void **state)
{
	(void)state;
	for (uint32_t h = 0; h <= 0xFFFF; h++) {
		if ((h & 0x7C00) == 0x7C00)
			continue;
		uint16_t back = aclFloatToFloat16(aclFloat16ToFloat((aclFloat16)h));

		if (back != h)
			fail_msg("0x%04x -> %a -> 0x%04x", h, (double)aclFloat16ToFloat((aclFloat16)h),
				 back);
	}
}

/*
 * Against the compiler's IEEE conversion (round to nearest even) over a
 * spread of float bit patterns, wherever IEEE gives a finite half: the
 * results must be identical.
 */
static void test_matches_ieee_rounding(void **state)
{
	(void)state;
#ifdef __FLT16_MAX__
	size_t checked = 0;

	for (uint64_t u = 0; u <= UINT32_MAX; u += 4093) {
		float f = bits_float((uint32_t)u);

		if (isnan(f) || fabsf(f) >= 65520.0f)
			continue;
		_Float16 ieee = (_Float16)f;
		uint16_t want;

		memcpy(&want, &ieee, sizeof(want));
		if (aclFloatToFloat16(f) != want)
			fail_msg("aclFloatToFloat16(%a) = 0x%04x, IEEE 0x%04x", (double)f,
				 aclFloatToFloat16(f), want);
		checked++;
	}
	assert_true(checked > 500000);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_data_type_size_of_every_type),
		cmocka_unit_test(test_half_to_float_known_values),
		cmocka_unit_test(test_float_to_half_known_values),
		cmocka_unit_test(test_nan_saturates_with_its_sign),
		cmocka_unit_test(test_every_finite_half_round_trips),
		cmocka_unit_test(test_matches_ieee_rounding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
