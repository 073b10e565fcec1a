// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * NPU_OP_REDUCE's arithmetic (CANN's aclrtReduceAsync): a copy that
 * combines each element of the source with the one it lands on.
 *
 * Floating-point elements are added, multiplied and compared with the FPU. In the
 * kernel that needs kernel_fpu_begin()/kernel_fpu_end() around the use
 * (kernel_neon_begin()/_end() on arm64), and this file alone is compiled
 * with the FPU allowed (Kbuild). Because the
 * compiler may then use vector registers anywhere in this file, every
 * function of it runs inside that bracket, integer types included: the
 * engine (npu_engine.c, compiled without) opens it.
 *
 * binary16 and bfloat16 are widened to binary32 exactly, combined, and
 * rounded back to nearest even; the conversions are integer code.
 */
#include "npu_reduce.h"

#ifdef CONFIG_ARM64
#include <asm/neon.h>
#define npu_fpu_begin() kernel_neon_begin()
#define npu_fpu_end() kernel_neon_end()
#else
#include <asm/fpu/api.h>
#define npu_fpu_begin() kernel_fpu_begin()
#define npu_fpu_end() kernel_fpu_end()
#endif

void npu_reduce_fpu_begin(void)
{
	npu_fpu_begin();
}

void npu_reduce_fpu_end(void)
{
	npu_fpu_end();
}

static float npu_bits_f32(u32 b)
{
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

static u32 npu_f32_bits(float f)
{
	u32 b;

	memcpy(&b, &f, sizeof(b));
	return b;
}

/* binary16 to binary32: exact. */
static u32 npu_f16_widen(u16 h)
{
	u32 sign = (u32)(h & 0x8000) << 16;
	u32 exp = (h >> 10) & 0x1f;
	u32 man = h & 0x3ff;

	if (exp == 0x1f)
		return sign | 0x7f800000 | (man << 13);
	if (exp)
		return sign | ((exp + 112) << 23) | (man << 13);
	if (!man)
		return sign;
	/* A subnormal: normalise it (at most 10 shifts). */
	exp = 113;
	do {
		man <<= 1;
		exp--;
	} while (!(man & 0x400));
	return sign | (exp << 23) | ((man & 0x3ff) << 13);
}

/* @kept plus one when the dropped bits @rem (of @shift bits) round it up. */
static u32 npu_round_even(u32 kept, u32 rem, unsigned int shift)
{
	u32 halfway = 1U << (shift - 1);

	return kept + (rem > halfway || (rem == halfway && (kept & 1)));
}

/* binary32 to binary16, to nearest even; NaN stays a (quiet) NaN. */
static u16 npu_f16_narrow(u32 f)
{
	u32 sign = (f >> 16) & 0x8000;
	u32 exp = (f >> 23) & 0xff;
	u32 man = f & 0x7fffff;
	int e = (int)exp - 127 + 15;
	unsigned int shift;

	if (exp == 0xff)
		return sign | 0x7c00 | (man ? 0x200 | (man >> 13) : 0);
	if (e >= 0x1f)
		return sign | 0x7c00;
	if (e <= 0) {
		/* Below half the smallest subnormal, 2^-25: zero. */
		if (e < -10)
			return sign;
		man |= 0x800000;
		shift = 14 - e;
		/* Rounding up into 0x400 gives the smallest normal: right. */
		return sign | npu_round_even(man >> shift, man & ((1U << shift) - 1), shift);
	}
	/* A carry out of the mantissa steps the exponent, up to infinity. */
	return sign | npu_round_even(((u32)e << 10) | (man >> 13), man & 0x1fff, 13);
}

/* binary32 to bfloat16, to nearest even; NaN stays a (quiet) NaN. */
static u16 npu_bf16_narrow(u32 f)
{
	if ((f & 0x7f800000) == 0x7f800000 && (f & 0x7fffff))
		return (f >> 16) | 0x40;
	return npu_round_even(f >> 16, f & 0xffff, 16);
}

static float npu_reduce_f(float d, float s, u32 op)
{
	switch (op) {
	case NPU_REDUCE_SUM:
		return d + s;
	case NPU_REDUCE_MAX:
		/* A NaN on either side wins: d != d is d's NaN test. */
		return (s > d || s != s) ? s : d;
	case NPU_REDUCE_PROD:
		return d * s;
	default:
		return (s < d || s != s) ? s : d;
	}
}

static s32 npu_reduce_i(s32 d, s32 s, u32 op)
{
	switch (op) {
	case NPU_REDUCE_SUM:
		/* Wraps: the sum is taken unsigned and truncated by the caller. */
		return (s32)((u32)d + (u32)s);
	case NPU_REDUCE_PROD:
		/* Wraps like the sum: the low bits are those of the signed product. */
		return (s32)((u32)d * (u32)s);
	case NPU_REDUCE_MAX:
		return s > d ? s : d;
	default:
		return s < d ? s : d;
	}
}

/*
 * Not instrumented for coverage: the arithmetic's comparisons say nothing
 * about the driver's paths, and traced they made a fuzzed reduction of a
 * few MiB take seconds.
 */
void __no_sanitize_coverage npu_reduce_piece(void *dst, const void *src, size_t len, u32 op,
					     u32 type)
{
	size_t i;

	switch (type) {
	case NPU_REDUCE_F32: {
		u32 *d = dst;
		const u32 *s = src;

		for (i = 0; i < len / 4; i++)
			d[i] = npu_f32_bits(npu_reduce_f(npu_bits_f32(d[i]), npu_bits_f32(s[i]), op));
		break;
	}
	case NPU_REDUCE_F16: {
		u16 *d = dst;
		const u16 *s = src;

		for (i = 0; i < len / 2; i++)
			d[i] = npu_f16_narrow(npu_f32_bits(npu_reduce_f(npu_bits_f32(npu_f16_widen(d[i])),
									npu_bits_f32(npu_f16_widen(s[i])),
									op)));
		break;
	}
	case NPU_REDUCE_BF16: {
		u16 *d = dst;
		const u16 *s = src;

		for (i = 0; i < len / 2; i++)
			d[i] = npu_bf16_narrow(npu_f32_bits(npu_reduce_f(npu_bits_f32((u32)d[i] << 16),
									 npu_bits_f32((u32)s[i] << 16),
									 op)));
		break;
	}
	case NPU_REDUCE_S8: {
		s8 *d = dst;
		const s8 *s = src;

		for (i = 0; i < len; i++)
			d[i] = (s8)npu_reduce_i(d[i], s[i], op);
		break;
	}
	case NPU_REDUCE_S16: {
		s16 *d = dst;
		const s16 *s = src;

		for (i = 0; i < len / 2; i++)
			d[i] = (s16)npu_reduce_i(d[i], s[i], op);
		break;
	}
	case NPU_REDUCE_S32: {
		s32 *d = dst;
		const s32 *s = src;

		for (i = 0; i < len / 4; i++)
			d[i] = npu_reduce_i(d[i], s[i], op);
		break;
	}
	}
}
