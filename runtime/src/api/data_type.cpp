// SPDX-License-Identifier: MIT
// Data types: aclDataTypeSize, and the IEEE binary16 conversions
// aclFloatToFloat16 / aclFloat16ToFloat with upstream's choices (saturation
// to +-65504 instead of Inf, exponent 31 decoded as an ordinary exponent).
// Pure functions: they neither fail nor record anything.
#include <bit>
#include <cmath>
#include <cstdint>

#include "acl/acl.h"
#include "api/api_boundary.h"

size_t aclDataTypeSize(aclDataType dataType) {
    switch (npu::rt::EnumValue(dataType)) {
        case ACL_STRING:
        case ACL_DT_UNDEFINED:
            return 0;
        // Sub-byte types count as one byte, as upstream.
        case ACL_UINT1:
        case ACL_INT4:
        case ACL_BOOL:
        case ACL_INT8:
        case ACL_UINT8:
        case ACL_HIFLOAT8:
        case ACL_FLOAT8_E5M2:
        case ACL_FLOAT8_E4M3FN:
        case ACL_FLOAT8_E8M0:
            return 1;
        case ACL_FLOAT16:
        case ACL_INT16:
        case ACL_UINT16:
        case ACL_BF16:
            return 2;
        case ACL_FLOAT:
        case ACL_INT32:
        case ACL_UINT32:
        case ACL_COMPLEX32:
            return 4;
        case ACL_COMPLEX128:
            return 16;
        // ACL_INT64, ACL_UINT64, ACL_DOUBLE, ACL_COMPLEX64 and, by upstream's
        // default branch, the 6- and 4-bit floats and any value not in the enum.
        default:
            return 8;
    }
}

namespace {

constexpr uint16_t kHalfSign = 0x8000;
constexpr uint16_t kHalfMax = 0x7BFF;  // 65504, the largest finite half

// bits >> shift rounded to nearest, ties to even (shift in 1..31).
uint32_t ShiftRoundEven(uint32_t bits, int shift) {
    const uint32_t kept = bits >> shift;
    const uint32_t rest = bits & ((1u << shift) - 1);
    const uint32_t half = 1u << (shift - 1);
    return kept + (rest > half || (rest == half && (kept & 1) != 0) ? 1 : 0);
}

}  // namespace

aclFloat16 aclFloatToFloat16(float value) {
    const uint32_t bits = std::bit_cast<uint32_t>(value);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & kHalfSign);
    const int exponent = static_cast<int>((bits >> 23) & 0xFF);  // biased by 127
    const uint32_t mantissa = bits & 0x7FFFFF;

    if (exponent == 0xFF)  // Inf and NaN saturate
        return sign | kHalfMax;
    const int e = exponent - 127;  // value = 1.mantissa * 2^e for normal floats
    if (e > 15)
        return sign | kHalfMax;
    if (e >= -14) {
        // A normal half: exponent e + 15 above the 23 mantissa bits, rounded
        // to 10 of them. Rounding up may carry into the exponent, which is
        // right, and past 30, which saturates.
        const uint32_t half = ShiftRoundEven(static_cast<uint32_t>(e + 15) << 23 | mantissa, 13);
        return sign | (half >= 0x7C00 ? kHalfMax : static_cast<uint16_t>(half));
    }
    // Below 2^-14: a subnormal half m * 2^-24 with m = significand * 2^(e+1)
    // rounded to even, which gives 0 up to 2^-25 inclusive and 2^-24 just
    // above it. m may round up to 0x400, the smallest normal half. Float
    // subnormals and anything below 2^-25 are zero.
    if (exponent == 0 || e < -25)
        return sign;
    const uint32_t significand = mantissa | 0x800000;
    return sign | static_cast<uint16_t>(ShiftRoundEven(significand, -e - 1));
}

float aclFloat16ToFloat(aclFloat16 value) {
    const int exponent = (value >> 10) & 0x1F;
    const int mantissa = value & 0x3FF;
    // Exact: the results are small integers scaled by powers of two. Exponent
    // 31 is not special (upstream): 0x7C00 is 65536, 0x7E00 is 98304.
    const float magnitude = exponent == 0
                                ? std::ldexp(static_cast<float>(mantissa), -24)
                                : std::ldexp(static_cast<float>(1024 + mantissa), exponent - 25);
    return (value & kHalfSign) != 0 ? -magnitude : magnitude;
}
