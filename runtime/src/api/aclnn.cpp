// SPDX-License-Identifier: MIT
// A minimal CANN operator API (aclnn/acl_meta.h, aclnnop/aclnn_add.h,
// aclnnop/aclnn_mul.h) over the device's copy engine: the device runs no
// kernels, but it reduces (NPU_OP_REDUCE, dst[i] = op(dst[i], src[i])).
// aclnnAdd and aclnnMul are out = self (a D2D copy on the stream, left out
// when out is self), then out = out + other or out * other, a reduction on
// the same stream; both queued, neither waited for. The README's operators
// section lists what is refused: everything that would need more than
// those two descriptors (broadcasting, strides, mixed types, alpha != 1).
//
// Every handle (tensor, scalar, executor) is looked up in a table before
// use, so that a destroyed or foreign one is refused rather than
// dereferenced; the tables are capped. An executor copies what it runs out
// of the tensors (addresses and sizes), so the tensors may be destroyed
// before it runs; it is removed from its table when it runs (single use).
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "api/api_boundary.h"
#include "api/prof_subscribe.h"
#include "api/reduce_internal.h"
#include "api/stream_args.h"
#include "base/log.h"
#include "base/singleton.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/dump.h"
#include "core/model_ri.h"
#include "core/stream.h"
#include "npu/npu_uapi.h"

using npu::rt::Error;
using npu::rt::RunApi;

// The handle types the header leaves opaque.
struct aclTensor {
    std::vector<int64_t> view;
    std::vector<int64_t> strides;
    std::vector<int64_t> storage;
    int64_t offset;
    int32_t dtype;
    int32_t format;
    void *data;
};

struct aclScalar {
    int32_t dtype;
    alignas(8) unsigned char bytes[8];
};

struct aclOpExecutor {
    uint32_t op;    // NPU_REDUCE_SUM (aclnnAdd) or NPU_REDUCE_PROD (aclnnMul)
    int32_t dtype;  // NPU_REDUCE_*
    void *out;
    const void *self;
    const void *other;
    uint64_t bytes;  // of each operand; 0: nothing to run
    // aclnnAdd with alpha other than 1: the workspace's bytes (alpha * other
    // is made there first) and the 32-bit word it is filled with (alpha in
    // the element type, repeated); 0: no workspace.
    uint64_t ws_bytes;
    uint32_t alpha_word;
    // What a dump (core/dump.h) says of the tensors: their aclDataType,
    // aclFormat and shape (the same for all three).
    int32_t acl_dtype;
    int32_t format;
    std::vector<int64_t> shape;
};

namespace {

constexpr uint64_t kMaxDims = 8;            // upstream's limit on a tensor's dimensions
constexpr size_t kMaxHandles = 1u << 18;    // each of: tensors, scalars, executors
constexpr uint64_t kMaxBytes = 4ULL << 30;  // the most one reduction covers (aclrtReduceAsync's)

struct AclnnState {
    // A leaf: nothing is called while it is held.
    std::mutex mu; /* Protects: the three tables */
    std::unordered_map<const void *, std::unique_ptr<aclTensor>> tensors;
    std::unordered_map<const void *, std::unique_ptr<aclScalar>> scalars;
    std::unordered_map<const void *, std::unique_ptr<aclOpExecutor>> executors;

    static AclnnState &Get() { return npu::base::Singleton<AclnnState>::Get(); }
};

Error NullPtr(const char *name) {
    return Error::Format(ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", name);
}

#define NPU_NN_CHECK(cond, ...)                                                    \
    do {                                                                           \
        if (!(cond))                                                               \
            return ::npu::rt::Error::Format(ACLNN_ERR_PARAM_INVALID, __VA_ARGS__); \
    } while (0)

// What an operator needs of a tensor, copied under AclnnState::mu.
struct TensorView {
    std::vector<int64_t> view;
    uint64_t numel = 0;
    uint64_t bytes = 0;
    int32_t dtype = 0;
    int32_t format = 0;
    char *addr = nullptr;
};

// The contiguous row-major layouts: ND and the plain image layouts, whose
// elements lie in order of their dimensions as ND's do.
bool PlainFormat(int32_t format) {
    return format == ACL_FORMAT_ND || format == ACL_FORMAT_NCHW || format == ACL_FORMAT_NHWC ||
           format == ACL_FORMAT_NCDHW || format == ACL_FORMAT_NDHWC;
}

// Looks up a live tensor, checks that it is a contiguous view inside its
// storage, and copies what the operator needs.
Error ReadTensor(const char *name, const aclTensor *t, TensorView *out) {
    AclnnState &s = AclnnState::Get();
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.tensors.find(t);
    NPU_NN_CHECK(it != s.tensors.end(), "%s %p is not a live tensor of aclCreateTensor", name,
                 static_cast<const void *>(t));
    const aclTensor &x = *it->second;
    NPU_NN_CHECK(PlainFormat(x.format),
                 "%s has format %d: only ACL_FORMAT_ND (and NCHW, NHWC, NCDHW, NDHWC, laid out "
                 "as ND) is supported here",
                 name, x.format);
    // Contiguous: each stride is the product of the dimensions after it
    // (a dimension of size 1 may have any stride, as it is never stepped).
    uint64_t numel = 1;
    for (size_t i = x.view.size(); i-- > 0;) {
        NPU_NN_CHECK(x.view[i] == 1 || x.strides[i] == static_cast<int64_t>(numel),
                     "%s is not contiguous (dimension %zu has stride %" PRId64 ", %" PRIu64
                     " expected): non-contiguous tensors are not supported here",
                     name, i, x.strides[i], numel);
        NPU_NN_CHECK(!__builtin_mul_overflow(numel, static_cast<uint64_t>(x.view[i]), &numel),
                     "%s has more elements than 2^64", name);
    }
    uint64_t storage = 1;
    for (int64_t d : x.storage)
        NPU_NN_CHECK(!__builtin_mul_overflow(storage, static_cast<uint64_t>(d), &storage),
                     "%s's storage has more elements than 2^64", name);
    const uint64_t size = aclDataTypeSize(static_cast<aclDataType>(x.dtype));
    uint64_t end = 0, bytes = 0;
    if (numel != 0) {
        NPU_NN_CHECK(
            !__builtin_add_overflow(static_cast<uint64_t>(x.offset), numel, &end) && end <= storage,
            "%s's view (offset %" PRId64 ", %" PRIu64
            " elements) does not lie inside its storage of %" PRIu64 " elements",
            name, x.offset, numel, storage);
        NPU_NN_CHECK(!__builtin_mul_overflow(numel, size, &bytes) && bytes <= kMaxBytes,
                     "%s holds more than the 4 GiB one operation covers here", name);
        if (x.data == nullptr)
            return Error::Format(ACLNN_ERR_PARAM_NULLPTR, "%s's data is NULL", name);
        // The address arithmetic is done on integers and must not wrap:
        // the addresses are the caller's and are checked when the work is
        // queued; here they only need to be numbers the checks can compare.
        uint64_t end_bytes = 0, last = 0;
        NPU_NN_CHECK(
            !__builtin_mul_overflow(end, size, &end_bytes) &&
                !__builtin_add_overflow(reinterpret_cast<uintptr_t>(x.data), end_bytes, &last),
            "%s's view runs past the end of the address space", name);
    }
    out->view = x.view;
    out->numel = numel;
    out->bytes = bytes;
    out->dtype = x.dtype;
    out->format = x.format;
    out->addr = numel == 0 ? nullptr
                           : reinterpret_cast<char *>(reinterpret_cast<uintptr_t>(x.data) +
                                                      static_cast<uint64_t>(x.offset) * size);
    return Error::Ok();
}

bool Overlap(const TensorView &a, const TensorView &b) {
    if (a.bytes == 0 || b.bytes == 0)
        return false;
    const uintptr_t a0 = reinterpret_cast<uintptr_t>(a.addr);
    const uintptr_t b0 = reinterpret_cast<uintptr_t>(b.addr);
    return a0 < b0 + b.bytes && b0 < a0 + a.bytes;
}

// Whether two shapes broadcast (for the message only: broadcasting itself
// is refused).
bool Broadcastable(const std::vector<int64_t> &a, const std::vector<int64_t> &b) {
    for (size_t i = 0; i < a.size() && i < b.size(); i++) {
        const int64_t x = a[a.size() - 1 - i], y = b[b.size() - 1 - i];
        if (x != y && x != 1 && y != 1)
            return false;
    }
    return true;
}

std::string ShapeText(const std::vector<int64_t> &v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); i++)
        s += (i ? "," : "") + std::to_string(v[i]);
    return s + "]";
}

// alpha's value as a double, for its check against 1.
Error ScalarValue(const aclScalar *alpha, double *out) {
    AclnnState &s = AclnnState::Get();
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = s.scalars.find(alpha);
    NPU_NN_CHECK(it != s.scalars.end(), "alpha %p is not a live scalar of aclCreateScalar",
                 static_cast<const void *>(alpha));
    const aclScalar &a = *it->second;
    const unsigned char *p = a.bytes;
    auto get = [p](auto v) {
        std::memcpy(&v, p, sizeof(v));
        return static_cast<double>(v);
    };
    switch (a.dtype) {
        case ACL_FLOAT:
            *out = get(float{});
            break;
        case ACL_DOUBLE:
            *out = get(double{});
            break;
        case ACL_FLOAT16: {
            uint16_t h;
            std::memcpy(&h, p, sizeof(h));
            *out = aclFloat16ToFloat(h);
            break;
        }
        case ACL_BF16: {
            uint16_t h;
            std::memcpy(&h, p, sizeof(h));
            const uint32_t w = static_cast<uint32_t>(h) << 16;
            float f;
            std::memcpy(&f, &w, sizeof(f));
            *out = f;
            break;
        }
        case ACL_INT8:
            *out = get(int8_t{});
            break;
        case ACL_UINT8:
        case ACL_BOOL:
            *out = get(uint8_t{});
            break;
        case ACL_INT16:
            *out = get(int16_t{});
            break;
        case ACL_UINT16:
            *out = get(uint16_t{});
            break;
        case ACL_INT32:
            *out = get(int32_t{});
            break;
        case ACL_UINT32:
            *out = get(uint32_t{});
            break;
        case ACL_INT64:
            *out = get(int64_t{});
            break;
        case ACL_UINT64:
            *out = get(uint64_t{});
            break;
        default:
            return Error::Format(ACLNN_ERR_PARAM_INVALID,
                                 "alpha has data type %d, which is not a number type", a.dtype);
    }
    return Error::Ok();
}

// The 32-bit word that fills a workspace with alpha in the element type
// dtype (NPU_REDUCE_*): floats rounded to nearest (binary16 as
// aclFloatToFloat16 does), integers only when alpha is one of the type.
Error AlphaWord(double v, int32_t dtype, uint32_t *word) {
    const auto integer = [v](double lo, double hi) {
        return std::trunc(v) == v && v >= lo && v <= hi;
    };
    switch (dtype) {
        case NPU_REDUCE_F32: {
            const float f = static_cast<float>(v);
            std::memcpy(word, &f, sizeof(f));
            return Error::Ok();
        }
        case NPU_REDUCE_F16: {
            const uint32_t h = aclFloatToFloat16(static_cast<float>(v));
            *word = h | h << 16;
            return Error::Ok();
        }
        case NPU_REDUCE_BF16: {
            const float f = static_cast<float>(v);
            uint32_t u;
            std::memcpy(&u, &f, sizeof(u));
            const uint32_t h = std::isnan(f) ? 0x7fc0u : (u + 0x7fffu + ((u >> 16) & 1)) >> 16;
            *word = h | h << 16;
            return Error::Ok();
        }
        case NPU_REDUCE_S8:
            NPU_NN_CHECK(integer(-128, 127), "alpha %g is not a value of self's type ACL_INT8", v);
            *word = static_cast<uint8_t>(static_cast<int8_t>(v)) * 0x01010101u;
            return Error::Ok();
        case NPU_REDUCE_S16: {
            NPU_NN_CHECK(integer(-32768, 32767), "alpha %g is not a value of self's type ACL_INT16",
                         v);
            const uint32_t h = static_cast<uint16_t>(static_cast<int16_t>(v));
            *word = h | h << 16;
            return Error::Ok();
        }
        default:
            NPU_NN_CHECK(integer(-2147483648.0, 2147483647.0),
                         "alpha %g is not a value of self's type ACL_INT32", v);
            *word = static_cast<uint32_t>(static_cast<int32_t>(v));
            return Error::Ok();
    }
}

// The checks of both operators' first call, then the executor.
Error MakeExecutor(uint32_t op, const aclTensor *self, const aclTensor *other,
                   const aclScalar *alpha, bool has_alpha, aclTensor *out, uint64_t *workspace_size,
                   aclOpExecutor **executor) {
    if (self == nullptr)
        return NullPtr("self");
    if (other == nullptr)
        return NullPtr("other");
    if (has_alpha && alpha == nullptr)
        return NullPtr("alpha");
    if (out == nullptr)
        return NullPtr("out");
    if (workspace_size == nullptr)
        return NullPtr("workspaceSize");
    if (executor == nullptr)
        return NullPtr("executor");
    TensorView a, b, o;
    NPU_RETURN_IF_ERROR(ReadTensor("self", self, &a));
    NPU_RETURN_IF_ERROR(ReadTensor("other", other, &b));
    NPU_RETURN_IF_ERROR(ReadTensor("out", out, &o));
    const int32_t dtype = npu::rt::ReduceElementType(a.dtype);
    NPU_NN_CHECK(dtype >= 0,
                 "self has data type %d: only ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_INT8, "
                 "ACL_INT16 and ACL_INT32 are supported here (the types the device reduces)",
                 a.dtype);
    NPU_NN_CHECK(b.dtype == a.dtype && o.dtype == a.dtype,
                 "self, other and out have data types %d, %d and %d: mixed data types are not "
                 "supported here",
                 a.dtype, b.dtype, o.dtype);
    if (a.view != b.view) {
        NPU_NN_CHECK(Broadcastable(a.view, b.view),
                     "the shapes of self %s and other %s do not broadcast",
                     ShapeText(a.view).c_str(), ShapeText(b.view).c_str());
        return Error::Format(ACLNN_ERR_PARAM_INVALID,
                             "self %s and other %s differ: broadcasting is not supported here",
                             ShapeText(a.view).c_str(), ShapeText(b.view).c_str());
    }
    NPU_NN_CHECK(o.view == a.view, "out has shape %s, self and other %s", ShapeText(o.view).c_str(),
                 ShapeText(a.view).c_str());
    uint32_t alpha_word = 0;
    bool scaled = false;
    if (has_alpha) {
        double v = 0;
        NPU_RETURN_IF_ERROR(ScalarValue(alpha, &v));
        scaled = v != 1.0;
        if (scaled)
            NPU_RETURN_IF_ERROR(AlphaWord(v, dtype, &alpha_word));
    }
    NPU_NN_CHECK(!Overlap(o, b),
                 "out and other overlap: other would be overwritten before it is read");
    NPU_NN_CHECK(o.addr == a.addr || !Overlap(o, a),
                 "out and self overlap without being the same memory");
    auto ex = std::make_unique<aclOpExecutor>();
    ex->op = op;
    ex->dtype = dtype;
    ex->out = o.addr;
    ex->self = a.addr;
    ex->other = b.addr;
    ex->bytes = o.bytes;
    ex->ws_bytes = scaled ? (o.bytes + 3) / 4 * 4 : 0;
    ex->alpha_word = alpha_word;
    ex->acl_dtype = a.dtype;
    ex->format = o.format;
    ex->shape = o.view;
    AclnnState &s = AclnnState::Get();
    std::lock_guard<std::mutex> lock(s.mu);
    if (s.executors.size() >= kMaxHandles)
        return Error::Format(ACLNN_ERR_INNER_CREATE_EXECUTOR,
                             "%zu executors are waiting to run already", kMaxHandles);
    *executor = ex.get();
    *workspace_size = ex->ws_bytes;
    s.executors.emplace(ex.get(), std::move(ex));
    return Error::Ok();
}

// A runtime failure inside an operator: ACLNN_ERR_RUNTIME_ERROR, with the
// runtime's code in the message.
Error RuntimeError(const Error &e) {
    return Error::Format(ACLNN_ERR_RUNTIME_ERROR, "%s (runtime error %d)", e.message().c_str(),
                         e.code());
}

// Checks that p, with bytes bytes, lies in one live allocation of the
// stream's device.
Error OnDevice(const npu::rt::StreamRef &ref, const void *p, uint64_t bytes, const char *role) {
    npu::rt::Operand o;
    NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(p, bytes, role, &o));
    if (o.dev != &ref->session()) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%s %p is memory of device %d, the stream runs on device %d", role, p,
                             o.dev->user_id(), ref->session().user_id());
    }
    return Error::Ok();
}

Error QueueOn(const aclOpExecutor &ex, void *ws, npu::rt::StreamRef &ref, npu::rt::Context *ctx);

Error QueueOps(const aclOpExecutor &ex, void *ws, aclrtStream stream) {
    std::shared_ptr<npu::rt::Context> ctx;
    npu::rt::StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
    NPU_RETURN_IF_ERROR(npu::rt::CheckReduceDriver(ref));
    if ((ex.op == NPU_REDUCE_PROD || ex.ws_bytes != 0) && !ref->session().has_reduce_prod()) {
        return Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                             "the driver of device %d predates products (NPU_REDUCE_PROD, ABI "
                             "1.10): load the module of this release",
                             ref->session().user_id());
    }
    // Everything is checked before anything is queued, so that a refusal
    // leaves out as it was.
    NPU_RETURN_IF_ERROR(OnDevice(ref, ex.out, ex.bytes, "out"));
    NPU_RETURN_IF_ERROR(OnDevice(ref, ex.self, ex.bytes, "self"));
    NPU_RETURN_IF_ERROR(OnDevice(ref, ex.other, ex.bytes, "other"));
    if (ex.ws_bytes != 0) {
        npu::rt::Operand w;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(ws, ex.ws_bytes, "workspace", &w));
        NPU_RETURN_IF_ERROR(OnDevice(ref, ws, ex.ws_bytes, "workspace"));
    }
    // In a capture (aclmdlRICaptureBegin) the operator is recorded with
    // its executor's copy, and each replay queues the same work.
    bool recorded = false;
    NPU_RETURN_IF_ERROR(npu::rt::RecordTask(
        *ref.get(), npu::rt::TaskKind::kKernel,
        [&] {
            return npu::rt::TaskText("%s of %" PRIu64 " bytes: out %p, self %p, other %p",
                                     ex.op == NPU_REDUCE_SUM ? "aclnnAdd" : "aclnnMul", ex.bytes,
                                     ex.out, ex.self, ex.other);
        },
        [ex, ws](npu::rt::StreamRef &r, npu::rt::Context *c) { return QueueOn(ex, ws, r, c); },
        &recorded));
    if (recorded)
        return Error::Ok();
    return QueueOn(ex, ws, ref, ctx.get());
}

// The operator's work, queued on ref's stream (checked by QueueOps).
Error QueueOn(const aclOpExecutor &ex, void *ws, npu::rt::StreamRef &ref, npu::rt::Context *ctx) {
    const void *addend = ex.other;
    if (ex.ws_bytes != 0) {
        // alpha * other into the workspace: filled with alpha, times other.
        npu::rt::CopyRequest fill;
        NPU_RETURN_IF_ERROR(npu::rt::ClassifyDeviceChecked(ws, ex.ws_bytes, "workspace", &fill.d));
        fill.op = npu::rt::CopyOp::kFill32;
        fill.dst = ws;
        fill.value = ex.alpha_word;
        fill.shape.width = ex.ws_bytes / 4;
        NPU_RETURN_IF_ERROR(npu::rt::PlanAndExecute(ref.get(), ctx, fill));
        NPU_RETURN_IF_ERROR(
            npu::rt::QueueReduce(ref, ctx, ws, ex.other, ex.bytes, NPU_REDUCE_PROD, ex.dtype));
        addend = ws;
    }
    if (ex.out != ex.self) {
        NPU_RETURN_IF_ERROR(npu::rt::MemcpyAsyncIn(ref, *ctx, ex.out, ex.self, ex.bytes,
                                                   ACL_MEMCPY_DEVICE_TO_DEVICE));
    }
    return npu::rt::QueueReduce(ref, ctx, ex.out, addend, ex.bytes, ex.op, ex.dtype);
}

// QueueOps while a dump is on (core/dump.h) or a model of the device is
// subscribed (api/prof_subscribe.h): the operator runs in stream order as
// always, but the call waits for the stream before it (to read the inputs
// as the operator sees them, and to time it) and after it (to read the
// outputs, and for its end), then writes the dump and the subscription
// record. A dump that cannot be written (or a callback that refuses it) is
// logged as an error; the operator itself succeeded.
Error RunObserved(const aclOpExecutor &ex, void *ws, aclrtStream stream,
                  const npu::rt::dump::Plan &plan) {
    std::shared_ptr<npu::rt::Context> ctx;
    npu::rt::StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
    npu::rt::dump::OpRun run;
    const bool add = ex.op == NPU_REDUCE_SUM;
    run.op_type = add ? "Add" : "Mul";
    run.op_name = add ? "aclnnAdd" : "aclnnMul";
    run.device_id = ref->session().user_id();
    run.stream_id = ref->id();
    auto tensor = [&](const char *type, const void *addr) -> Error {
        npu::rt::dump::Tensor t{type, ex.acl_dtype, ex.format, ex.shape, ex.shape, 0, {}};
        t.data.resize(ex.bytes);
        NPU_RETURN_IF_ERROR(npu::rt::CopyNow(*ctx, t.data.data(), addr, ex.bytes));
        run.tensors.push_back(std::move(t));
        return Error::Ok();
    };
    const bool timed = npu::rt::prof::Subscribed(run.device_id);
    if (plan.inputs || timed)
        NPU_RETURN_IF_ERROR(ref->Synchronize());
    if (plan.inputs) {
        NPU_RETURN_IF_ERROR(tensor("input", ex.self));
        NPU_RETURN_IF_ERROR(tensor("input", ex.other));
    }
    const uint64_t start = npu::rt::prof::NowUs();
    NPU_RETURN_IF_ERROR(QueueOps(ex, ws, stream));
    if (plan.outputs || timed)
        NPU_RETURN_IF_ERROR(ref->Synchronize());
    if (timed)
        npu::rt::prof::ReportOp(run.device_id, run.op_type, run.op_name, start,
                                npu::rt::prof::NowUs());
    if (plan.outputs)
        NPU_RETURN_IF_ERROR(tensor("output", ex.out));
    if (!plan.any())
        return Error::Ok();
    run.args = {{"self", reinterpret_cast<uintptr_t>(ex.self)},
                {"other", reinterpret_cast<uintptr_t>(ex.other)},
                {"out", reinterpret_cast<uintptr_t>(ex.out)},
                {"workspace", reinterpret_cast<uintptr_t>(ws)}};
    const Error w = npu::rt::dump::DumpState::Get().WriteOperator(run, plan);
    if (!w.ok())
        npu::base::Log(npu::base::LogLevel::kError, "%s: dump not written: %s", run.op_name,
                       w.message().c_str());
    return Error::Ok();
}

// The second call of both operators: takes the executor out of its table
// (it runs once), then queues its work.
Error RunExecutor(const char *api, uint32_t op, void *ws, uint64_t ws_size, aclOpExecutor *executor,
                  aclrtStream stream) {
    if (executor == nullptr)
        return NullPtr("executor");
    std::unique_ptr<aclOpExecutor> ex;
    {
        AclnnState &s = AclnnState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        auto it = s.executors.find(executor);
        NPU_NN_CHECK(it != s.executors.end(),
                     "executor %p is not a live executor (executors run once)",
                     static_cast<const void *>(executor));
        const aclOpExecutor &x = *it->second;
        NPU_NN_CHECK(x.op == op, "executor %p was not made by %sGetWorkspaceSize",
                     static_cast<const void *>(executor), api);
        if (x.ws_bytes != 0) {
            if (ws == nullptr)
                return NullPtr("workspace");
            NPU_NN_CHECK(ws_size >= x.ws_bytes,
                         "workspaceSize %" PRIu64 " is below the %" PRIu64
                         " bytes %sGetWorkspaceSize asked for",
                         ws_size, x.ws_bytes, api);
            NPU_NN_CHECK(reinterpret_cast<uintptr_t>(ws) % 4 == 0,
                         "workspace %p is not 4-byte aligned", ws);
            const uintptr_t w0 = reinterpret_cast<uintptr_t>(ws), w1 = w0 + x.ws_bytes;
            for (const void *p : {static_cast<const void *>(x.out), x.self, x.other}) {
                const uintptr_t p0 = reinterpret_cast<uintptr_t>(p);
                NPU_NN_CHECK(w1 <= p0 || p0 + x.bytes <= w0,
                             "the workspace overlaps a tensor of the operation");
            }
        }
        ex = std::move(it->second);
        s.executors.erase(it);
    }
    if (ex->bytes == 0)
        return Error::Ok();
    const npu::rt::dump::Plan plan = npu::rt::dump::DumpState::Get().Current();
    Error e = plan.any() || npu::rt::prof::Subscribed(-1) ? RunObserved(*ex, ws, stream, plan)
                                                          : QueueOps(*ex, ws, stream);
    return e.ok() ? e : RuntimeError(e);
}

template <typename T, typename Map>
Error Destroy(Map AclnnState::*table, const T *handle, const char *what, const char *maker) {
    if (handle == nullptr)
        return Error::Ok();
    std::unique_ptr<T> gone;  // freed after the lock is released
    AclnnState &s = AclnnState::Get();
    std::lock_guard<std::mutex> lock(s.mu);
    auto it = (s.*table).find(handle);
    NPU_NN_CHECK(it != (s.*table).end(), "%p is not a live %s of %s",
                 static_cast<const void *>(handle), what, maker);
    gone = std::move(it->second);
    (s.*table).erase(it);
    return Error::Ok();
}

}  // namespace

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                           const int64_t *stride, int64_t offset, aclFormat format,
                           const int64_t *storageDims, uint64_t storageDimsNum, void *tensorData) {
    aclTensor *made = nullptr;
    RunApi("aclCreateTensor", [&] {
        NPU_NN_CHECK(viewDimsNum <= kMaxDims && storageDimsNum <= kMaxDims,
                     "%" PRIu64 " view and %" PRIu64 " storage dimensions: at most %" PRIu64,
                     viewDimsNum, storageDimsNum, kMaxDims);
        if (viewDimsNum != 0 && viewDims == nullptr)
            return NullPtr("viewDims");
        if (viewDimsNum != 0 && stride == nullptr)
            return NullPtr("stride");
        if (storageDimsNum != 0 && storageDims == nullptr)
            return NullPtr("storageDims");
        const int32_t dtype = npu::rt::EnumValue(dataType);
        NPU_NN_CHECK(dtype >= 0 && aclDataTypeSize(static_cast<aclDataType>(dtype)) != 0,
                     "dataType %d is not a data type with an element size", dtype);
        NPU_NN_CHECK(offset >= 0, "offset %" PRId64 " is negative", offset);
        auto t = std::make_unique<aclTensor>();
        t->view.assign(viewDims, viewDims + viewDimsNum);
        t->strides.assign(stride, stride + viewDimsNum);
        t->storage.assign(storageDims, storageDims + storageDimsNum);
        for (int64_t d : t->view)
            NPU_NN_CHECK(d >= 0, "viewDims has a negative dimension %" PRId64, d);
        for (int64_t d : t->storage)
            NPU_NN_CHECK(d >= 0, "storageDims has a negative dimension %" PRId64, d);
        t->offset = offset;
        t->dtype = dtype;
        t->format = npu::rt::EnumValue(format);
        t->data = tensorData;
        AclnnState &s = AclnnState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.tensors.size() >= kMaxHandles)
            return Error::Format(ACLNN_ERR_INNER, "%zu tensors exist already", kMaxHandles);
        made = t.get();
        s.tensors.emplace(made, std::move(t));
        return Error::Ok();
    });
    return made;
}

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    aclScalar *made = nullptr;
    RunApi("aclCreateScalar", [&] {
        if (value == nullptr)
            return NullPtr("value");
        const int32_t dtype = npu::rt::EnumValue(dataType);
        const size_t size =
            dtype >= 0 ? aclDataTypeSize(static_cast<aclDataType>(dtype)) : size_t{0};
        NPU_NN_CHECK(size != 0 && size <= sizeof(aclScalar::bytes),
                     "dataType %d is not a scalar type of at most 8 bytes", dtype);
        auto a = std::make_unique<aclScalar>();
        a->dtype = dtype;
        std::memset(a->bytes, 0, sizeof(a->bytes));
        std::memcpy(a->bytes, value, size);
        AclnnState &s = AclnnState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        if (s.scalars.size() >= kMaxHandles)
            return Error::Format(ACLNN_ERR_INNER, "%zu scalars exist already", kMaxHandles);
        made = a.get();
        s.scalars.emplace(made, std::move(a));
        return Error::Ok();
    });
    return made;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    return RunApi("aclDestroyTensor", [&] {
        return Destroy(&AclnnState::tensors, tensor, "tensor", "aclCreateTensor");
    });
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    return RunApi("aclDestroyScalar", [&] {
        return Destroy(&AclnnState::scalars, scalar, "scalar", "aclCreateScalar");
    });
}

aclnnStatus aclnnAddGetWorkspaceSize(const aclTensor *self, const aclTensor *other,
                                     const aclScalar *alpha, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    return RunApi("aclnnAddGetWorkspaceSize", [&] {
        return MakeExecutor(NPU_REDUCE_SUM, self, other, alpha, true, out, workspaceSize, executor);
    });
}

aclnnStatus aclnnAdd(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream) {
    return RunApi("aclnnAdd", [&] {
        return RunExecutor("aclnnAdd", NPU_REDUCE_SUM, workspace, workspaceSize, executor, stream);
    });
}

aclnnStatus aclnnMulGetWorkspaceSize(const aclTensor *self, const aclTensor *other, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    return RunApi("aclnnMulGetWorkspaceSize", [&] {
        return MakeExecutor(NPU_REDUCE_PROD, self, other, nullptr, false, out, workspaceSize,
                            executor);
    });
}

aclnnStatus aclnnMul(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,
                     aclrtStream stream) {
    return RunApi("aclnnMul", [&] {
        return RunExecutor("aclnnMul", NPU_REDUCE_PROD, workspace, workspaceSize, executor, stream);
    });
}
