// SPDX-License-Identifier: MIT
// Managed (unified) memory: aclrtMemAllocManaged, aclrtMemManagedAdvise,
// aclrtMemManagedPrefetchAsync, aclrtMemManagedPrefetchBatchAsync and
// aclrtMemManagedGetAttr[s]. The host and the device share one copy of the
// bytes (core/managed_memory.h), so placement hints and prefetches have
// nothing to move: they are checked and recorded, and the attributes report
// what was recorded. aclrtFree frees managed memory (api/memory.cpp).
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/device_manager.h"
#include "core/managed_memory.h"
#include "core/stream.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::ManagedLocation;
using npu::rt::ManagedMemory;
using npu::rt::RangeAdvice;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// A location a range can be placed at or accessed from: a device by its
// user id, or the host.
Error CheckLocation(const aclrtMemManagedLocation &location, const char *role) {
    const int32_t type = npu::rt::EnumValue(location.type);
    NPU_ACL_CHECK(
        type >= ACL_MEM_LOCATIONTYPE_DEVICE && type <= ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT,
        "%s.type %d is not a location type (ACL_MEM_LOCATIONTYPE_DEVICE .. "
        "_HOST_NUMA_CURRENT)",
        role, type);
    if (type == ACL_MEM_LOCATIONTYPE_DEVICE) {
        uint32_t phys = 0;
        Error e = npu::rt::DeviceManager::Get().ToPhysical(location.id, &phys);
        if (!e.ok()) {
            return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID, "%s.id %d is not a device id", role,
                                 location.id);
        }
    }
    return Error::Ok();
}

// [ptr, ptr + size) must lie in one managed allocation.
Error CheckManagedRange(const void *ptr, uint64_t size) {
    NPU_RT_CHECK(
        size <= SIZE_MAX && ManagedMemory::Get().Lookup(ptr, static_cast<size_t>(size), nullptr),
        "%p + %" PRIu64 " bytes is not inside one aclrtMemAllocManaged allocation", ptr, size);
    return Error::Ok();
}

// The id matters for a device and a NUMA node only, so two host locations
// with different ids are the same location.
ManagedLocation ToManaged(const aclrtMemManagedLocation &location) {
    const int32_t type = npu::rt::EnumValue(location.type);
    const bool has_id =
        type == ACL_MEM_LOCATIONTYPE_DEVICE || type == ACL_MEM_LOCATIONTYPE_HOST_NUMA;
    return {type, has_id ? location.id : 0};
}

// The value CUDA's cudaMemRangeGetAttribute gives a location as one int:
// the device id, -1 for the host, -2 for none.
constexpr int32_t kHostId = -1;
constexpr int32_t kNoId = -2;
int32_t LegacyId(const ManagedLocation &l) {
    if (l.type == ACL_MEM_LOCATIONTYPE_DEVICE)
        return l.id;
    return l.type == ACL_MEM_LOCATIONTYPE_INVALID ? kNoId : kHostId;
}
// The id reported beside a location type: the device or NUMA node, -1 for
// a host location with no node, -2 for none.
int32_t LocationId(const ManagedLocation &l) {
    if (l.type == ACL_MEM_LOCATIONTYPE_DEVICE || l.type == ACL_MEM_LOCATIONTYPE_HOST_NUMA)
        return l.id;
    return LegacyId(l);
}

// The location every record names, or none when they differ.
ManagedLocation Common(const std::vector<RangeAdvice> &records,
                       ManagedLocation RangeAdvice::*where) {
    const ManagedLocation first = records.front().*where;
    for (const RangeAdvice &r : records) {
        if (!(r.*where == first))
            return {};
    }
    return first;
}

int32_t TypeOf(const ManagedLocation &l) {
    return l.type;
}

// The six location attributes: which location, reported as what.
struct LocationAttribute {
    int32_t attribute;
    ManagedLocation RangeAdvice::*where;
    int32_t (*as)(const ManagedLocation &);
};
const LocationAttribute kLocationAttributes[] = {
    {ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, &RangeAdvice::preferred, LegacyId},
    {ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, &RangeAdvice::preferred, TypeOf},
    {ACL_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, &RangeAdvice::preferred, LocationId},
    {ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, &RangeAdvice::last_prefetch, LegacyId},
    {ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, &RangeAdvice::last_prefetch, TypeOf},
    {ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, &RangeAdvice::last_prefetch, LocationId},
};

Error CheckAttribute(int32_t attribute, const char *role) {
    NPU_ACL_CHECK(attribute >= ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY &&
                      attribute <= ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID,
                  "%s %d is not one of ACL_MEM_RANGE_ATTRIBUTE_* (1..8)", role, attribute);
    return Error::Ok();
}

// The buffer for one attribute: ACCESSED_BY takes an array of int32_t, the
// others one.
Error CheckData(int32_t attribute, const void *data, size_t dataSize, const char *role) {
    NPU_ACL_CHECK(data != nullptr, "%s is NULL", role);
    if (attribute == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
        NPU_ACL_CHECK(dataSize != 0 && dataSize % sizeof(int32_t) == 0,
                      "%s size %zu is not a non-zero multiple of 4 (one int32_t per location)",
                      role, dataSize);
    } else {
        NPU_ACL_CHECK(dataSize == sizeof(int32_t), "%s size %zu is not 4 (one int32_t)", role,
                      dataSize);
    }
    return Error::Ok();
}

// One attribute of a range whose advice records are given, into data
// (checked by CheckData).
void WriteAttribute(int32_t attribute, const std::vector<RangeAdvice> &records, void *data,
                    size_t dataSize) {
    if (attribute == ACL_MEM_RANGE_ATTRIBUTE_ACCESSED_BY) {
        // The locations every record has, in ascending id order; -2 after.
        std::vector<int32_t> ids;
        for (const ManagedLocation &l : records.front().accessed_by) {
            const bool everywhere =
                std::all_of(records.begin(), records.end(), [&](const RangeAdvice &r) {
                    return std::find(r.accessed_by.begin(), r.accessed_by.end(), l) !=
                           r.accessed_by.end();
                });
            if (everywhere)
                ids.push_back(LegacyId(l));
        }
        std::sort(ids.begin(), ids.end());
        ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
        auto *out = static_cast<int32_t *>(data);
        const size_t n = dataSize / sizeof(int32_t);
        for (size_t i = 0; i < n; ++i)
            out[i] = i < ids.size() ? ids[i] : kNoId;
        return;
    }
    int32_t value = 0;
    if (attribute == ACL_MEM_RANGE_ATTRIBUTE_READ_MOSTLY) {
        value = std::all_of(records.begin(), records.end(),
                            [](const RangeAdvice &r) { return r.read_mostly; });
    }
    for (const LocationAttribute &a : kLocationAttributes) {
        if (a.attribute == attribute)
            value = a.as(Common(records, a.where));
    }
    std::memcpy(data, &value, sizeof(value));
}

Error RecordPrefetch(const void *ptr, size_t size, const aclrtMemManagedLocation &location) {
    const ManagedLocation where = ToManaged(location);
    return ManagedMemory::Get().Advise(ptr, size, [&](RangeAdvice &r) { r.last_prefetch = where; });
}

}  // namespace

aclError aclrtMemAllocManaged(void **ptr, uint64_t size, uint32_t flag) {
    return RunApi("aclrtMemAllocManaged", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %" PRIu64 ")", size);
        NPU_ACL_CHECK(flag == ACL_RT_MEM_ATTACH_GLOBAL,
                      "flag 0x%x is not ACL_RT_MEM_ATTACH_GLOBAL (1)", flag);
        NPU_RT_CHECK(size != 0, "size is 0");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return ManagedMemory::Get().Allocate(ctx->user_device_id(), size, ptr);
    });
}

aclError aclrtMemManagedAdvise(const void *const ptr, uint64_t size,
                               aclrtMemManagedAdviseType advise, aclrtMemManagedLocation location) {
    return RunApi("aclrtMemManagedAdvise", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %" PRIu64 ")", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        const int32_t a = npu::rt::EnumValue(advise);
        NPU_ACL_CHECK(a >= ACL_MEM_ADVISE_SET_READ_MOSTLY && a <= ACL_MEM_ADVISE_UNSET_ACCESSED_BY,
                      "advise %d is not one of ACL_MEM_ADVISE_* (0..5)", a);
        // Read-mostly and unsetting the preferred location name no location.
        if (a != ACL_MEM_ADVISE_SET_READ_MOSTLY && a != ACL_MEM_ADVISE_UNSET_READ_MOSTLY &&
            a != ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION)
            NPU_RETURN_IF_ERROR(CheckLocation(location, "location"));
        NPU_RETURN_IF_ERROR(CheckManagedRange(ptr, size));
        const ManagedLocation where = ToManaged(location);
        return ManagedMemory::Get().Advise(ptr, size, [&](RangeAdvice &r) {
            switch (a) {
                case ACL_MEM_ADVISE_SET_READ_MOSTLY:
                    r.read_mostly = true;
                    break;
                case ACL_MEM_ADVISE_UNSET_READ_MOSTLY:
                    r.read_mostly = false;
                    break;
                case ACL_MEM_ADVISE_SET_PREFERRED_LOCATION:
                    r.preferred = where;
                    break;
                case ACL_MEM_ADVISE_UNSET_PREFERRED_LOCATION:
                    r.preferred = {};
                    break;
                case ACL_MEM_ADVISE_SET_ACCESSED_BY: {
                    auto at = std::lower_bound(
                        r.accessed_by.begin(), r.accessed_by.end(), where,
                        [](const ManagedLocation &x, const ManagedLocation &y) {
                            return x.type != y.type ? x.type < y.type : x.id < y.id;
                        });
                    if (at == r.accessed_by.end() || !(*at == where))
                        r.accessed_by.insert(at, where);
                    break;
                }
                default:  // ACL_MEM_ADVISE_UNSET_ACCESSED_BY
                    std::erase(r.accessed_by, where);
                    break;
            }
        });
    });
}

aclError aclrtMemManagedPrefetchAsync(const void *ptr, size_t size,
                                      aclrtMemManagedLocation location, uint32_t flags,
                                      aclrtStream stream) {
    return RunApi("aclrtMemManagedPrefetchAsync", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %zu)", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        NPU_ACL_CHECK(flags == 0, "flags 0x%x is reserved and must be 0", flags);
        NPU_RETURN_IF_ERROR(CheckLocation(location, "location"));
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        // Nothing to migrate: queuing nothing keeps the stream's order.
        NPU_RETURN_IF_ERROR(CheckManagedRange(ptr, size));
        return RecordPrefetch(ptr, size, location);
    });
}

// prefetchLocs[i] is where the ranges from prefetchLocIdxs[i] up to the
// next index go: the indices start at 0 and increase, each below count.
aclError aclrtMemManagedPrefetchBatchAsync(const void **ptrs, size_t *sizes, size_t count,
                                           aclrtMemManagedLocation *prefetchLocs,
                                           size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                           uint64_t flags, aclrtStream stream) {
    return RunApi("aclrtMemManagedPrefetchBatchAsync", [&] {
        NPU_ACL_CHECK(ptrs != nullptr, "ptrs is NULL (count %zu)", count);
        NPU_ACL_CHECK(sizes != nullptr, "sizes is NULL (count %zu)", count);
        NPU_ACL_CHECK(count != 0, "count is 0");
        NPU_ACL_CHECK(prefetchLocs != nullptr, "prefetchLocs is NULL");
        NPU_ACL_CHECK(prefetchLocIdxs != nullptr, "prefetchLocIdxs is NULL");
        NPU_ACL_CHECK(numPrefetchLocs != 0 && numPrefetchLocs <= count,
                      "numPrefetchLocs %zu is not in 1..count (%zu)", numPrefetchLocs, count);
        NPU_ACL_CHECK(flags == 0, "flags 0x%" PRIx64 " is reserved and must be 0", flags);
        for (size_t i = 0; i < numPrefetchLocs; ++i) {
            NPU_ACL_CHECK(
                i == 0 ? prefetchLocIdxs[0] == 0
                       : prefetchLocIdxs[i] > prefetchLocIdxs[i - 1] && prefetchLocIdxs[i] < count,
                "prefetchLocIdxs[%zu] = %zu: the indices must start at 0, increase "
                "and stay below count (%zu)",
                i, prefetchLocIdxs[i], count);
            char role[40];
            std::snprintf(role, sizeof(role), "prefetchLocs[%zu]", i);
            NPU_RETURN_IF_ERROR(CheckLocation(prefetchLocs[i], role));
        }
        for (size_t i = 0; i < count; ++i) {
            NPU_ACL_CHECK(ptrs[i] != nullptr, "ptrs[%zu] is NULL", i);
            NPU_ACL_CHECK(sizes[i] != 0, "sizes[%zu] is 0", i);
        }
        std::shared_ptr<Context> ctx;
        StreamRef ref;
        NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &ref));
        for (size_t i = 0; i < count; ++i)
            NPU_RETURN_IF_ERROR(CheckManagedRange(ptrs[i], sizes[i]));
        size_t loc = 0;
        for (size_t i = 0; i < count; ++i) {
            if (loc + 1 < numPrefetchLocs && i == prefetchLocIdxs[loc + 1])
                ++loc;
            NPU_RETURN_IF_ERROR(RecordPrefetch(ptrs[i], sizes[i], prefetchLocs[loc]));
        }
        return Error::Ok();
    });
}

// CUDA's cudaMemRangeGetAttribute, for the ACL attributes: READ_MOSTLY
// and the location ones take one int32_t (a location as an id: a device,
// -1 for the host, -2 for none or not the same over the whole range; the
// _TYPE forms an aclrtMemManagedLocationType, INVALID for none); ACCESSED_BY
// takes an array of int32_t, filled with the ids set for the whole range in
// ascending order and then -2.
aclError aclrtMemManagedGetAttr(aclrtMemManagedRangeAttribute attribute, const void *ptr,
                                size_t size, void *data, size_t dataSize) {
    return RunApi("aclrtMemManagedGetAttr", [&] {
        const int32_t attr = npu::rt::EnumValue(attribute);
        NPU_RETURN_IF_ERROR(CheckAttribute(attr, "attribute"));
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %zu)", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        NPU_RETURN_IF_ERROR(CheckData(attr, data, dataSize, "data"));
        std::vector<RangeAdvice> records;
        NPU_RETURN_IF_ERROR(ManagedMemory::Get().Advice(ptr, size, &records));
        WriteAttribute(attr, records, data, dataSize);
        return Error::Ok();
    });
}

// Every attribute and buffer is checked before any is written.
aclError aclrtMemManagedGetAttrs(aclrtMemManagedRangeAttribute *attributes, size_t numAttributes,
                                 const void *ptr, size_t size, void **data, size_t *dataSizes) {
    return RunApi("aclrtMemManagedGetAttrs", [&] {
        NPU_ACL_CHECK(attributes != nullptr, "attributes is NULL");
        NPU_ACL_CHECK(numAttributes != 0, "numAttributes is 0");
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL (size %zu)", size);
        NPU_ACL_CHECK(size != 0, "size is 0 (ptr %p)", ptr);
        NPU_ACL_CHECK(data != nullptr, "data is NULL");
        NPU_ACL_CHECK(dataSizes != nullptr, "dataSizes is NULL");
        for (size_t i = 0; i < numAttributes; ++i) {
            char role[40];
            std::snprintf(role, sizeof(role), "attributes[%zu]", i);
            const int32_t attr = npu::rt::EnumValue(attributes[i]);
            NPU_RETURN_IF_ERROR(CheckAttribute(attr, role));
            std::snprintf(role, sizeof(role), "data[%zu]", i);
            NPU_RETURN_IF_ERROR(CheckData(attr, data[i], dataSizes[i], role));
        }
        std::vector<RangeAdvice> records;
        NPU_RETURN_IF_ERROR(ManagedMemory::Get().Advice(ptr, size, &records));
        for (size_t i = 0; i < numAttributes; ++i)
            WriteAttribute(npu::rt::EnumValue(attributes[i]), records, data[i], dataSizes[i]);
        return Error::Ok();
    });
}
