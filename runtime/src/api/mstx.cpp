// SPDX-License-Identifier: MIT
// MindStudio's tools extension (mstx/ms_tools_ext.h): marks and ranges in
// the default domain and in named ones, recorded as events of category
// "mstx" in the trace that a profiling session (acl/acl_prof.h) or
// NPU_TRACE writes, with a named domain's name as the event's
// args.domain. The calls return nothing to check, so a bad argument (NULL
// message, unknown or destroyed domain, unknown range id) is recorded for
// aclGetRecentErrMsg and otherwise ignored.
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "api/api_boundary.h"
#include "base/singleton.h"
#include "base/trace.h"
#include "mstx/ms_tools_ext.h"

using npu::rt::Error;
using npu::rt::RunApiBody;

// The handle type the header leaves opaque.
struct mstxDomainRegistration_st {
    std::string name;
};

namespace {

constexpr size_t kMaxMessage = 255;   // characters of a message kept
constexpr size_t kMaxDomains = 4096;  // live domains
constexpr size_t kMaxRanges = 65536;  // open ranges

struct OpenRange {
    std::string message;
    uint64_t t0;
    const mstxDomainRegistration_st *domain;  // nullptr: the default domain
};

struct MstxState {
    std::mutex mu; /* Protects: everything below */
    std::unordered_map<std::string, std::unique_ptr<mstxDomainRegistration_st>> domains;
    std::unordered_map<const mstxDomainRegistration_st *, std::string> live;  // handle -> name
    std::unordered_map<uint64_t, OpenRange> ranges;
    uint64_t next_range = 1;

    static MstxState &Get() { return npu::base::Singleton<MstxState>::Get(); }
};

// A live domain (s.mu held): nullptr and *name empty for the default one.
Error LiveDomain(const MstxState &s, mstxDomainHandle_t domain, std::string *name) {
    auto it = s.live.find(domain);
    if (it == s.live.end())
        return Error::Format(ACL_ERROR_INVALID_PARAM,
                             "domain %p is not a live domain of mstxDomainCreateA",
                             static_cast<const void *>(domain));
    *name = it->second;
    return Error::Ok();
}

void Mark(const char *api, mstxDomainHandle_t domain, bool named, const char *message,
          aclrtStream stream) {
    RunApiBody(api, [&] {
        NPU_ACL_CHECK(message != nullptr, "message is NULL");
        std::string name;
        if (named) {
            MstxState &s = MstxState::Get();
            std::lock_guard<std::mutex> lock(s.mu);
            NPU_RETURN_IF_ERROR(LiveDomain(s, domain, &name));
        }
        npu::base::trace::UserMark("mstx", std::string(message, ::strnlen(message, kMaxMessage)),
                                   stream, name);
        return Error::Ok();
    });
}

mstxRangeId Start(const char *api, mstxDomainHandle_t domain, bool named, const char *message) {
    mstxRangeId id = MSTX_INVALID_RANGE_ID;
    RunApiBody(api, [&] {
        NPU_ACL_CHECK(message != nullptr, "message is NULL");
        MstxState &s = MstxState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        std::string name;
        if (named)
            NPU_RETURN_IF_ERROR(LiveDomain(s, domain, &name));
        if (s.ranges.size() >= kMaxRanges)
            return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT, "%zu ranges are open already",
                                 kMaxRanges);
        id = s.next_range++;
        s.ranges.emplace(id, OpenRange{std::string(message, ::strnlen(message, kMaxMessage)),
                                       npu::base::trace::NowNs(), named ? domain : nullptr});
        return Error::Ok();
    });
    return id;
}

void End(const char *api, mstxDomainHandle_t domain, bool named, mstxRangeId id) {
    RunApiBody(api, [&] {
        OpenRange r;
        std::string name;
        {
            MstxState &s = MstxState::Get();
            std::lock_guard<std::mutex> lock(s.mu);
            if (named)
                NPU_RETURN_IF_ERROR(LiveDomain(s, domain, &name));
            auto it = s.ranges.find(id);
            NPU_ACL_CHECK(it != s.ranges.end() && it->second.domain == (named ? domain : nullptr),
                          "range %llu is not open in this domain",
                          static_cast<unsigned long long>(id));
            r = std::move(it->second);
            s.ranges.erase(it);
        }
        npu::base::trace::UserAsyncRange("mstx", r.message, id, r.t0, npu::base::trace::NowNs(),
                                         name);
        return Error::Ok();
    });
}

}  // namespace

void mstxMarkA(const char *message, aclrtStream stream) {
    Mark("mstxMarkA", nullptr, false, message, stream);
}

mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream) {
    (void)stream;  // the range is the host's: from this call to mstxRangeEnd
    return Start("mstxRangeStartA", nullptr, false, message);
}

void mstxRangeEnd(mstxRangeId id) {
    End("mstxRangeEnd", nullptr, false, id);
}

mstxDomainHandle_t mstxDomainCreateA(const char *name) {
    mstxDomainHandle_t handle = nullptr;
    RunApiBody("mstxDomainCreateA", [&] {
        NPU_ACL_CHECK(name != nullptr && name[0] != '\0', "name is NULL or empty");
        MstxState &s = MstxState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        auto it = s.domains.find(name);
        if (it != s.domains.end()) {
            handle = it->second.get();
            return Error::Ok();
        }
        if (s.domains.size() >= kMaxDomains)
            return Error::Format(ACL_ERROR_STORAGE_OVER_LIMIT, "%zu domains exist already",
                                 kMaxDomains);
        auto d = std::make_unique<mstxDomainRegistration_st>();
        d->name = name;
        handle = d.get();
        s.live.emplace(handle, d->name);
        s.domains.emplace(d->name, std::move(d));
        return Error::Ok();
    });
    return handle;
}

void mstxDomainDestroy(mstxDomainHandle_t domain) {
    RunApiBody("mstxDomainDestroy", [&] {
        std::unique_ptr<mstxDomainRegistration_st> gone;  // freed after the lock
        MstxState &s = MstxState::Get();
        std::lock_guard<std::mutex> lock(s.mu);
        std::string name;
        NPU_RETURN_IF_ERROR(LiveDomain(s, domain, &name));
        s.live.erase(domain);
        // Its open ranges end unrecorded.
        for (auto it = s.ranges.begin(); it != s.ranges.end();)
            it = it->second.domain == domain ? s.ranges.erase(it) : std::next(it);
        auto it = s.domains.find(name);
        gone = std::move(it->second);
        s.domains.erase(it);
        return Error::Ok();
    });
}

void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message, aclrtStream stream) {
    Mark("mstxDomainMarkA", domain, true, message, stream);
}

mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
                                  aclrtStream stream) {
    (void)stream;
    return Start("mstxDomainRangeStartA", domain, true, message);
}

void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id) {
    End("mstxDomainRangeEnd", domain, true, id);
}
