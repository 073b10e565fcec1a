// SPDX-License-Identifier: MIT
// aclrtRandomNumAsync: upstream's built-in random-number task, which fills
// device memory with numbers of a distribution (dropout bitmask, uniform,
// normal, truncated normal) from Philox4x32-10 keyed by the seed, at the
// 128-bit counter the task keeps in device memory (randomCounterAddr, 16
// bytes). Here the host generates them: the call waits for the stream's
// earlier work (so that it reads the counter as the device would), makes
// the numbers, and queues their copy to randomResultAddr and the advanced
// counter on the stream, so that later work on it sees both. Element i
// takes the Philox block at counter + i; the counter advances by num. The
// same seed and counter give the same numbers.
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/stream.h"

using npu::rt::Error;
using npu::rt::RunApi;

namespace {

constexpr uint64_t kMaxNum = 1ULL << 28;  // numbers one task may make (host memory bound)

// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3").
struct Block {
    uint32_t w[4];
};

Block Philox(const uint32_t ctr_in[4], uint64_t seed) {
    uint32_t c[4] = {ctr_in[0], ctr_in[1], ctr_in[2], ctr_in[3]};
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; r++) {
        const uint64_t p0 = 0xD2511F53ULL * c[0];
        const uint64_t p1 = 0xCD9E8D57ULL * c[2];
        const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0;
        const uint32_t n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = static_cast<uint32_t>(p1);
        c[2] = n2;
        c[3] = static_cast<uint32_t>(p0);
        k0 += 0x9E3779B9U;
        k1 += 0xBB67AE85U;
    }
    return Block{{c[0], c[1], c[2], c[3]}};
}

// The 128-bit counter (four little-endian words) plus n.
void CounterAdd(const uint32_t base[4], uint64_t n, uint32_t out[4]) {
    uint64_t carry = n;
    for (int i = 0; i < 4; i++) {
        const uint64_t v = static_cast<uint64_t>(base[i]) + (carry & 0xFFFFFFFFULL);
        out[i] = static_cast<uint32_t>(v);
        carry = (carry >> 32) + (v >> 32);
    }
}

// A uniform double in [0, 1) from 53 bits, and in (0, 1) for logarithms.
double Unit53(uint32_t hi, uint32_t lo) {
    return static_cast<double>(((static_cast<uint64_t>(hi) << 32) | lo) >> 11) * 0x1.0p-53;
}
double OpenUnit(uint32_t x) {
    return (static_cast<double>(x) + 0.5) * 0x1.0p-32;
}

float HalfToFloat(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    const uint32_t exp = (h >> 10) & 0x1F, man = h & 0x3FF;
    if (exp == 0)
        return (sign ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(man), -24);
    if (exp == 31) {
        uint32_t bits = sign | 0x7F800000U | (man << 13);
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    uint32_t bits = sign | ((exp + 112) << 23) | (man << 13);
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t FloatToHalf(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
    const int32_t exp = static_cast<int32_t>((x >> 23) & 0xFF) - 127 + 15;
    uint32_t man = x & 0x7FFFFF;
    if (((x >> 23) & 0xFF) == 0xFF)
        return static_cast<uint16_t>(sign | 0x7C00 | (man ? 0x200 : 0));
    if (exp >= 31)
        return static_cast<uint16_t>(sign | 0x7C00);
    if (exp <= 0) {
        if (exp < -10)
            return sign;
        man |= 0x800000;
        const int shift = 14 - exp;
        uint32_t h = man >> shift;
        const uint32_t rest = man & ((1U << shift) - 1), half = 1U << (shift - 1);
        if (rest > half || (rest == half && (h & 1)))
            h++;
        return static_cast<uint16_t>(sign | h);
    }
    uint32_t h = (static_cast<uint32_t>(exp) << 10) | (man >> 13);
    const uint32_t rest = man & 0x1FFF;
    if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
        h++;  // may carry into the exponent, up to infinity: correct rounding
    return static_cast<uint16_t>(sign | h);
}

float Bf16ToFloat(uint16_t b) {
    const uint32_t bits = static_cast<uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

uint16_t FloatToBf16(float f) {
    uint32_t x;
    std::memcpy(&x, &f, 4);
    if ((x & 0x7FFFFFFF) > 0x7F800000)
        return static_cast<uint16_t>((x >> 16) | 0x40);
    x += 0x7FFF + ((x >> 16) & 1);
    return static_cast<uint16_t>(x >> 16);
}

size_t TypeSize(int32_t t) {
    switch (t) {
        case ACL_INT32:
        case ACL_UINT32:
        case ACL_FLOAT:
            return 4;
        case ACL_INT64:
        case ACL_UINT64:
            return 8;
        case ACL_FLOAT16:
        case ACL_BF16:
            return 2;
        default:
            return 0;
    }
}

bool IsFloat(int32_t t) {
    return t == ACL_FLOAT || t == ACL_FLOAT16 || t == ACL_BF16;
}

// A parameter's value (isAddr 0) in the task's data type, as a double or
// (integer types) a 64-bit integer.
double FloatParam(const aclrtRandomParaInfo &p, int32_t t) {
    uint8_t b[8];
    std::memcpy(b, p.valueOrAddr, 8);
    if (t == ACL_FLOAT) {
        float f;
        std::memcpy(&f, b, 4);
        return f;
    }
    uint16_t h;
    std::memcpy(&h, b, 2);
    return t == ACL_FLOAT16 ? HalfToFloat(h) : Bf16ToFloat(h);
}

int64_t IntParam(const aclrtRandomParaInfo &p, int32_t t) {
    switch (t) {
        case ACL_INT32: {
            int32_t v;
            std::memcpy(&v, p.valueOrAddr, 4);
            return v;
        }
        case ACL_UINT32: {
            uint32_t v;
            std::memcpy(&v, p.valueOrAddr, 4);
            return v;
        }
        default: {
            int64_t v;
            std::memcpy(&v, p.valueOrAddr, 8);
            return v;
        }
    }
}

uint64_t U64Param(const aclrtRandomParaInfo &p) {
    uint64_t v = 0;
    std::memcpy(&v, p.valueOrAddr, p.size < 8 ? p.size : 8);
    return v;
}

// upstream's check of one parameter: isAddr 0 or 1, size 1..max (8 for an
// address).
Error CheckParam(const aclrtRandomParaInfo &p, const char *name, size_t data_size) {
    NPU_RT_CHECK(p.isAddr == 0 || p.isAddr == 1, "%s.isAddr %u is not 0 or 1", name, p.isAddr);
    const size_t max = p.isAddr == 1 ? sizeof(uint64_t) : data_size;
    NPU_RT_CHECK(p.size != 0 && p.size <= max, "%s.size %u is not in [1, %zu]", name, p.size, max);
    return Error::Ok();
}

// A parameter held in device memory (isAddr 1) read now, into a value one.
Error Resolve(const npu::rt::Context &ctx, const aclrtRandomParaInfo &in, const char *name,
              aclrtRandomParaInfo *out) {
    *out = in;
    if (in.isAddr == 0)
        return Error::Ok();
    void *addr = nullptr;
    std::memcpy(&addr, in.valueOrAddr, sizeof(addr));
    std::memset(out->valueOrAddr, 0, sizeof(out->valueOrAddr));
    npu::rt::Operand o;
    Error e = npu::rt::ClassifyDeviceChecked(addr, 8, name, &o);
    if (!e.ok())
        return e;
    NPU_RETURN_IF_ERROR(npu::rt::CopyNow(ctx, out->valueOrAddr, addr, 8));
    out->isAddr = 0;
    out->size = 8;
    return Error::Ok();
}

// Writes a float-typed value v as element i of out.
void PutFloat(std::vector<uint8_t> *out, uint64_t i, int32_t t, double v) {
    if (t == ACL_FLOAT) {
        const float f = static_cast<float>(v);
        std::memcpy(out->data() + i * 4, &f, 4);
        return;
    }
    const uint16_t h =
        t == ACL_FLOAT16 ? FloatToHalf(static_cast<float>(v)) : FloatToBf16(static_cast<float>(v));
    std::memcpy(out->data() + i * 2, &h, 2);
}

// Standard normal from block words (Box-Muller); truncated: |z| <= 2, the
// block redrawn (the counter's top word moved by the attempt) until so.
double Normal(const uint32_t ctr[4], uint64_t seed, bool truncated) {
    uint32_t c[4] = {ctr[0], ctr[1], ctr[2], ctr[3]};
    for (uint32_t attempt = 0;; attempt++) {
        c[3] = ctr[3] + attempt;
        const Block b = Philox(c, seed);
        const double r = std::sqrt(-2.0 * std::log(OpenUnit(b.w[0])));
        const double a = 2.0 * M_PI * OpenUnit(b.w[1]);
        const double z0 = r * std::cos(a), z1 = r * std::sin(a);
        if (!truncated || std::fabs(z0) <= 2.0)
            return z0;
        if (std::fabs(z1) <= 2.0)
            return z1;
    }
}

struct Task {
    int32_t type;
    int32_t func;
    uint64_t seed;
    uint64_t num;
    aclrtRandomParaInfo p0, p1;  // ratio | min, max | mean, stddev
};

// The numbers of a task from counter ctr: the bytes for randomResultAddr.
std::vector<uint8_t> Generate(const Task &t, const uint32_t ctr[4]) {
    std::vector<uint8_t> out;
    uint32_t c[4];
    if (t.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK) {
        // Bit i (LSB first in each byte) is 1, keep, with probability 1 - ratio.
        const double keep = 1.0 - FloatParam(t.p0, t.type);
        out.assign((t.num + 7) / 8, 0);
        for (uint64_t i = 0; i < t.num; i++) {
            CounterAdd(ctr, i, c);
            const Block b = Philox(c, t.seed);
            if (Unit53(b.w[0], b.w[1]) < keep)
                out[i / 8] = static_cast<uint8_t>(out[i / 8] | (1U << (i % 8)));
        }
        return out;
    }
    const size_t size = TypeSize(t.type);
    out.assign(t.num * size, 0);
    for (uint64_t i = 0; i < t.num; i++) {
        CounterAdd(ctr, i, c);
        if (t.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS) {
            const Block b = Philox(c, t.seed);
            if (IsFloat(t.type)) {
                // [min, max); a value that rounds up to max in a narrow type is min.
                const double lo = FloatParam(t.p0, t.type), hi = FloatParam(t.p1, t.type);
                double v = lo + (hi - lo) * Unit53(b.w[0], b.w[1]);
                PutFloat(&out, i, t.type, v);
                if (hi > lo) {
                    double back = t.type == ACL_FLOAT ? static_cast<float>(v)
                                  : t.type == ACL_FLOAT16
                                      ? HalfToFloat(FloatToHalf(static_cast<float>(v)))
                                      : Bf16ToFloat(FloatToBf16(static_cast<float>(v)));
                    if (back >= hi)
                        PutFloat(&out, i, t.type, lo);
                }
                continue;
            }
            // Integers: [min, max); min when max <= min.
            const uint64_t r = (static_cast<uint64_t>(b.w[0]) << 32) | b.w[1];
            if (t.type == ACL_UINT32 || t.type == ACL_UINT64) {
                const uint64_t lo = static_cast<uint64_t>(IntParam(t.p0, t.type));
                const uint64_t hi = static_cast<uint64_t>(IntParam(t.p1, t.type));
                const uint64_t v = hi > lo ? lo + r % (hi - lo) : lo;
                std::memcpy(out.data() + i * size, &v, size);  // little-endian: low bytes
            } else {
                const int64_t lo = IntParam(t.p0, t.type), hi = IntParam(t.p1, t.type);
                const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
                const int64_t v =
                    hi > lo ? static_cast<int64_t>(static_cast<uint64_t>(lo) + r % span) : lo;
                if (size == 4) {
                    const int32_t v32 = static_cast<int32_t>(v);
                    std::memcpy(out.data() + i * 4, &v32, 4);
                } else {
                    std::memcpy(out.data() + i * 8, &v, 8);
                }
            }
            continue;
        }
        const bool truncated = t.func == ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS;
        const double mean = FloatParam(t.p0, t.type), stddev = FloatParam(t.p1, t.type);
        PutFloat(&out, i, t.type, mean + stddev * Normal(c, t.seed, truncated));
    }
    return out;
}

// upstream's checks of the task in upstream's order (acl's data type, then
// the runtime's: the type for the function, the addresses, seed and
// count, the function's parameters).
Error CheckTask(const aclrtRandomNumTaskInfo *info, Task *t) {
    NPU_ACL_CHECK(info != nullptr, "taskInfo is NULL");
    t->type = npu::rt::EnumValue(info->dataType);
    NPU_ACL_CHECK(TypeSize(t->type) != 0,
                  "taskInfo->dataType %d is not supported (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, "
                  "ACL_INT32, ACL_INT64, ACL_UINT32, ACL_UINT64)",
                  t->type);
    t->func = npu::rt::EnumValue(info->randomNumFuncParaInfo.funcType);
    NPU_RT_CHECK(t->func >= ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK &&
                     t->func <= ACL_RT_RANDOM_NUM_FUNC_TYPE_TRUNCATED_NORMAL_DIS,
                 "funcType %d is not an aclrtRandomNumFuncType", t->func);
    NPU_RT_CHECK(t->func == ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS || IsFloat(t->type),
                 "dataType %d is not ACL_BF16, ACL_FLOAT16 or ACL_FLOAT, which funcType %d needs",
                 t->type, t->func);
    NPU_RT_CHECK(info->randomCounterAddr != nullptr, "randomCounterAddr is NULL");
    NPU_RT_CHECK(info->randomResultAddr != nullptr, "randomResultAddr is NULL");
    NPU_RETURN_IF_ERROR(CheckParam(info->randomSeed, "randomSeed", sizeof(uint64_t)));
    NPU_RETURN_IF_ERROR(CheckParam(info->randomNum, "randomNum", sizeof(uint64_t)));
    const size_t size = TypeSize(t->type);
    const auto &p = info->randomNumFuncParaInfo.paramInfo;
    switch (t->func) {
        case ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK:
            NPU_RETURN_IF_ERROR(
                CheckParam(p.dropoutBitmaskInfo.dropoutRation, "dropoutRation", size));
            t->p0 = p.dropoutBitmaskInfo.dropoutRation;
            break;
        case ACL_RT_RANDOM_NUM_FUNC_TYPE_UNIFORM_DIS:
            NPU_RETURN_IF_ERROR(CheckParam(p.uniformDisInfo.min, "min", size));
            NPU_RETURN_IF_ERROR(CheckParam(p.uniformDisInfo.max, "max", size));
            t->p0 = p.uniformDisInfo.min;
            t->p1 = p.uniformDisInfo.max;
            break;
        default:
            NPU_RETURN_IF_ERROR(CheckParam(p.normalDisInfo.mean, "mean", size));
            NPU_RETURN_IF_ERROR(CheckParam(p.normalDisInfo.stddev, "stddev", size));
            t->p0 = p.normalDisInfo.mean;
            t->p1 = p.normalDisInfo.stddev;
            break;
    }
    return Error::Ok();
}

}  // namespace

aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo *taskInfo, const aclrtStream stream,
                             void *reserve) {
    (void)reserve;
    return RunApi("aclrtRandomNumAsync", [&] {
        Task t{};
        NPU_RETURN_IF_ERROR(CheckTask(taskInfo, &t));
        std::shared_ptr<npu::rt::Context> ctx;
        npu::rt::StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        // The stream's earlier work first: it may have written the counter
        // or a parameter held in device memory.
        NPU_RETURN_IF_ERROR(ref->Synchronize());
        aclrtRandomParaInfo seed, num;
        NPU_RETURN_IF_ERROR(Resolve(*ctx, taskInfo->randomSeed, "randomSeed", &seed));
        NPU_RETURN_IF_ERROR(Resolve(*ctx, taskInfo->randomNum, "randomNum", &num));
        NPU_RETURN_IF_ERROR(Resolve(*ctx, t.p0, "parameter", &t.p0));
        if (t.func != ACL_RT_RANDOM_NUM_FUNC_TYPE_DROPOUT_BITMASK)
            NPU_RETURN_IF_ERROR(Resolve(*ctx, t.p1, "parameter", &t.p1));
        t.seed = U64Param(seed);
        t.num = U64Param(num);
        NPU_RT_CHECK(t.num <= kMaxNum, "randomNum %llu is above %llu",
                     static_cast<unsigned long long>(t.num),
                     static_cast<unsigned long long>(kMaxNum));
        if (t.num == 0)
            return Error::Ok();
        npu::rt::Operand o;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(taskInfo->randomCounterAddr, 16,
                                                           "randomCounterAddr", &o));
        uint32_t ctr[4];
        NPU_RETURN_IF_ERROR(npu::rt::CopyNow(*ctx, ctr, taskInfo->randomCounterAddr, sizeof(ctr)));
        const std::vector<uint8_t> bytes = Generate(t, ctr);
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(taskInfo->randomResultAddr, bytes.size(),
                                                           "randomResultAddr", &o));
        uint32_t next[4];
        CounterAdd(ctr, t.num, next);
        NPU_RETURN_IF_ERROR(npu::rt::MemcpyAsync(ref, taskInfo->randomResultAddr, bytes.data(),
                                                 bytes.size(), ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE));
        return npu::rt::MemcpyAsync(ref, taskInfo->randomCounterAddr, next, sizeof(next),
                                    ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE);
    });
}
