// SPDX-License-Identifier: MIT
// Batch copies: aclrtMemcpyBatch[V2], aclrtMemcpyBatchAsync[V2].
#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::BatchCopy;
using npu::rt::Context;
using npu::rt::CopyRequest;
using npu::rt::CopyShape;
using npu::rt::Error;
using npu::rt::Loc;
using npu::rt::Operand;
using npu::rt::RunApi;
using npu::rt::Stream;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

constexpr size_t kMaxSyncBatch = 4096;  // DEVMM_MEMCPY_BATCH_MAX_COUNT

struct BatchArgs {
    void **dsts;
    size_t *destMaxs;
    void **srcs;
    size_t *sizes;
    size_t numBatches;
    aclrtMemcpyBatchAttr *attrs;
    size_t *attrsIndexes;
    size_t numAttrs;
    size_t *failIndex;  // may be null (V2)
};

// A validated copy of the batch.
struct Entry {
    size_t index;
    Operand dst, src;
};

Error Fail(const BatchArgs &a, size_t i, Error e) {
    if (a.failIndex != nullptr)
        *a.failIndex = i;
    return e;
}

const char *LocName(int32_t type) {
    switch (type) {
        case ACL_MEM_LOCATION_TYPE_HOST:
            return "HOST";
        case ACL_MEM_LOCATION_TYPE_DEVICE:
            return "DEVICE";
        case ACL_MEM_LOCATION_TYPE_UNREGISTERED:
            return "UNREGISTERED";
        case ACL_MEM_LOCATION_TYPE_MANAGED:
            return "MANAGED";
        case ACL_MEM_LOCATION_TYPE_HOST_NUMA:
            return "HOST_NUMA";
        default:
            return "unknown";
    }
}

// Where ptr (count bytes) lives, as the pointer attribute lookup sees it.
Error Locate(const void *ptr, size_t count, const char *role, size_t i, Operand *out) {
    NPU_RT_CHECK(ptr != nullptr, "%s of copy %zu is NULL", role, i);
    return npu::rt::ClassifyChecked(ptr, count, role, out);
}

// Whether the actual location matches the attribute's (UNREGISTERED counts
// as HOST, so does HOST_NUMA; DEVICE must name the pointer's device).
bool Matches(const Operand &op, const aclrtMemLocation &want) {
    const int32_t type = npu::rt::EnumValue(want.type);
    if (type == ACL_MEM_LOCATION_TYPE_DEVICE)
        return op.loc == Loc::kDevice && static_cast<uint32_t>(op.dev->user_id()) == want.id;
    if (type == ACL_MEM_LOCATION_TYPE_HOST || type == ACL_MEM_LOCATION_TYPE_HOST_NUMA)
        return op.loc != Loc::kDevice;
    return false;
}

// The checks of aclrtMemcpyBatch[Async], in upstream's order, up to the per-copy ones.
Error CheckArgs(const BatchArgs &a, bool async, bool *all_zero) {
    if (a.failIndex != nullptr)
        *a.failIndex = SIZE_MAX;
    NPU_ACL_CHECK(a.sizes != nullptr, "sizes is NULL");
    NPU_ACL_CHECK(a.numBatches != 0, "numBatches is 0");
    *all_zero = true;
    for (size_t i = 0; i < a.numBatches && *all_zero; ++i)
        *all_zero = a.sizes[i] == 0;
    if (*all_zero)
        return Error::Ok();
    NPU_ACL_CHECK(a.dsts != nullptr, "dsts is NULL");
    NPU_ACL_CHECK(a.destMaxs != nullptr, "destMaxs is NULL");
    NPU_ACL_CHECK(a.srcs != nullptr, "srcs is NULL");
    NPU_ACL_CHECK(a.attrs != nullptr, "attrs is NULL");
    NPU_ACL_CHECK(a.attrsIndexes != nullptr, "attrsIndexes is NULL");
    for (size_t i = 0; i < a.numBatches; ++i) {
        NPU_ACL_CHECK(a.destMaxs[i] >= a.sizes[i], "copy %zu: destMax %zu is smaller than size %zu",
                      i, a.destMaxs[i], a.sizes[i]);
    }
    // Only the attributes that can exist are read; numAttrs itself is
    // checked by the runtime layer below.
    const size_t n_attrs = a.numAttrs < a.numBatches ? a.numAttrs : a.numBatches;
    for (size_t k = 0; k < n_attrs; ++k) {
        for (size_t j = 0; j < sizeof(a.attrs[k].rsv); ++j) {
            NPU_ACL_CHECK(a.attrs[k].rsv[j] == 0, "attrs[%zu].rsv[%zu] is %u, not 0", k, j,
                          a.attrs[k].rsv[j]);
        }
    }
    (void)async;
    return Error::Ok();
}

Error CheckAttrIndexes(const BatchArgs &a, bool async) {
    NPU_RT_CHECK(a.numAttrs != 0, "numAttrs is 0");
    NPU_RT_CHECK(a.numAttrs <= a.numBatches, "numAttrs %zu is larger than numBatches %zu",
                 a.numAttrs, a.numBatches);
    if (!async) {
        NPU_RT_CHECK(a.numBatches <= kMaxSyncBatch, "numBatches %zu is over the limit %zu",
                     a.numBatches, kMaxSyncBatch);
    }
    NPU_RT_CHECK(a.attrsIndexes[0] == 0, "attrsIndexes[0] is %zu, not 0", a.attrsIndexes[0]);
    for (size_t k = 1; k < a.numAttrs; ++k) {
        NPU_RT_CHECK(a.attrsIndexes[k] > a.attrsIndexes[k - 1] && a.attrsIndexes[k] < a.numBatches,
                     "attrsIndexes[%zu] = %zu is not increasing or not below numBatches %zu", k,
                     a.attrsIndexes[k], a.numBatches);
    }
    return Error::Ok();
}

// Validates copy i against attribute k; fills *e.
Error CheckEntry(const BatchArgs &a, size_t i, size_t k, bool async, Entry *e) {
    e->index = i;
    if (async) {
        NPU_RT_CHECK(a.sizes[i] != 0, "copy %zu has size 0", i);
        NPU_RT_CHECK(a.sizes[i] <= a.destMaxs[i], "copy %zu: size %zu is larger than destMax %zu",
                     i, a.sizes[i], a.destMaxs[i]);
        NPU_RT_CHECK(a.dsts[i] != nullptr && a.srcs[i] != nullptr, "copy %zu has a NULL pointer",
                     i);
    }
    NPU_RETURN_IF_ERROR(Locate(a.dsts[i], a.sizes[i], "dst", i, &e->dst));
    NPU_RETURN_IF_ERROR(Locate(a.srcs[i], a.sizes[i], "src", i, &e->src));
    const aclrtMemcpyBatchAttr &attr = a.attrs[k];
    NPU_RT_CHECK(Matches(e->dst, attr.dstLoc),
                 "copy %zu: dst %p does not live where attrs[%zu].dstLoc says (%s %u)", i,
                 a.dsts[i], k, LocName(npu::rt::EnumValue(attr.dstLoc.type)), attr.dstLoc.id);
    NPU_RT_CHECK(Matches(e->src, attr.srcLoc),
                 "copy %zu: src %p does not live where attrs[%zu].srcLoc says (%s %u)", i,
                 a.srcs[i], k, LocName(npu::rt::EnumValue(attr.srcLoc.type)), attr.srcLoc.id);
    NPU_RT_CHECK((e->dst.loc == Loc::kDevice) != (e->src.loc == Loc::kDevice),
                 "copy %zu: dst and src are on the same side (only H2D or D2H)", i);
    return Error::Ok();
}

// Attribute k covering copy i (k only moves forward).
size_t AttrFor(const BatchArgs &a, size_t i, size_t k) {
    while (k + 1 < a.numAttrs && a.attrsIndexes[k + 1] <= i)
        ++k;
    return k;
}

Error SyncBatch(const BatchArgs &a) {
    bool all_zero = false;
    NPU_RETURN_IF_ERROR(CheckArgs(a, false, &all_zero));
    if (all_zero)
        return Error::Ok();
    NPU_RETURN_IF_ERROR(CheckAttrIndexes(a, false));
    std::vector<Entry> entries;
    entries.reserve(a.numBatches);
    size_t k = 0;
    for (size_t i = 0; i < a.numBatches; ++i) {
        if (a.sizes[i] == 0)
            continue;
        k = AttrFor(a, i, k);
        Entry e;
        Error err = CheckEntry(a, i, k, false, &e);
        if (!err.ok())
            return Fail(a, i, err);
        entries.push_back(std::move(e));
    }
    // All valid: the copies of each device in one synchronous run.
    std::vector<BatchCopy> copies;
    copies.reserve(entries.size());
    for (const Entry &e : entries)
        copies.push_back({a.dsts[e.index], a.srcs[e.index], a.sizes[e.index], &e.dst, &e.src});
    return npu::rt::CopyBatchNow(copies.data(), copies.size());
}

Error AsyncBatch(const BatchArgs &a, aclrtStream stream) {
    bool all_zero = false;
    NPU_RETURN_IF_ERROR(CheckArgs(a, true, &all_zero));
    if (all_zero)
        return Error::Ok();
    std::shared_ptr<Context> ctx = ThreadState::CurrentContext();
    StreamRef ref;
    NPU_RETURN_IF_ERROR(npu::rt::PinStream(stream, &ref));
    NPU_RETURN_IF_ERROR(CheckAttrIndexes(a, true));
    if (!ctx)
        return npu::rt::NoContextError();
    NPU_RETURN_IF_ERROR(npu::rt::UseStream(*ctx, &ref));
    Stream &s = *ref.get();
    bool checked_context = false;
    size_t k = 0;
    // Validated and issued one at a time: copies before a failing one are
    // already queued (or done) when the error returns.
    for (size_t i = 0; i < a.numBatches; ++i) {
        k = AttrFor(a, i, k);
        Entry e;
        Error err = CheckEntry(a, i, k, true, &e);
        if (!err.ok())
            return Fail(a, i, err);
        if (!checked_context) {
            NPU_RETURN_IF_ERROR(npu::rt::CheckStreamContext(ref, *ctx));
            checked_context = true;
        }
        CopyRequest req;
        req.dst = a.dsts[i];
        req.src = a.srcs[i];
        req.shape = CopyShape{a.sizes[i], 1, a.sizes[i], a.sizes[i]};
        req.d = std::move(e.dst);
        req.s = std::move(e.src);
        req.wait = req.d.loc == Loc::kUnregistered || req.s.loc == Loc::kUnregistered;
        NPU_RETURN_IF_ERROR(npu::rt::PlanAndExecute(&s, ctx.get(), req));
    }
    return Error::Ok();
}

}  // namespace

aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                          size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                          size_t numAttrs, size_t *failIndex) {
    return RunApi("aclrtMemcpyBatch", [&] {
        NPU_ACL_CHECK(failIndex != nullptr, "failIndex is NULL");
        return SyncBatch(
            {dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex});
    });
}

aclError aclrtMemcpyBatchV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                            size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                            size_t numAttrs) {
    return RunApi("aclrtMemcpyBatchV2", [&] {
        return SyncBatch(
            {dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, nullptr});
    });
}

aclError aclrtMemcpyBatchAsync(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                               size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes,
                               size_t numAttrs, size_t *failIndex, aclrtStream stream) {
    return RunApi("aclrtMemcpyBatchAsync", [&] {
        NPU_ACL_CHECK(failIndex != nullptr, "failIndex is NULL");
        return AsyncBatch(
            {dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, failIndex},
            stream);
    });
}

aclError aclrtMemcpyBatchAsyncV2(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes,
                                 size_t numBatches, aclrtMemcpyBatchAttr *attrs,
                                 size_t *attrsIndexes, size_t numAttrs, aclrtStream stream) {
    return RunApi("aclrtMemcpyBatchAsyncV2", [&] {
        return AsyncBatch(
            {dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs, nullptr},
            stream);
    });
}
