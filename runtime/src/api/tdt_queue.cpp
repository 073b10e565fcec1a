// SPDX-License-Identifier: MIT
// CANN's shared queues (acl/acl_tdt_queue.h): queue attributes, queues,
// acltdtEnqueueData/acltdtDequeueData, and routes between queues. A queue
// belongs to this process and to the device that was current when it was
// created: an enqueue copies the data into device memory of that device
// (core/tdt_payload.h), a dequeue copies it back. A bound route moves the
// elements of its source queue into its destination queue while the
// destination has room: at once when bound, after every enqueue to the
// source and after every dequeue from the destination. Routes that would
// close a cycle are refused, so that forwarding ends.
//
// As on upstream's host side, the mbuf functions (acltdtAllocBuf and the
// acltdtBuf family, acltdtEnqueue, acltdtDequeue) and the grants to other
// processes (acltdtGrantQueue, acltdtAttachQueue) are
// ACL_ERROR_FEATURE_UNSUPPORTED.
//
// Queue ids are looked up in a table, the other handles (attributes,
// routes, route lists, query infos) too, so that a foreign, stale or
// destroyed one is refused rather than dereferenced; every table is capped.
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_tdt_queue.h"
#include "api/api_boundary.h"
#include "base/singleton.h"
#include "core/tdt_payload.h"
#include "core/thread_state.h"

using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::TdtPayload;

constexpr size_t kQueueNameLen = 128;  // with its NUL (RT_MQ_MAX_NAME_LEN)

struct tagMemQueueAttr {
    char name[kQueueNameLen];
    uint32_t depth;
};

struct acltdtQueueRoute {
    uint32_t src;
    uint32_t dst;
    int32_t status;  // ACL_TDT_QUEUE_ROUTE_*
};

struct acltdtQueueRouteList {
    std::vector<acltdtQueueRoute> routes;
};

struct acltdtQueueRouteQueryInfo {
    int32_t mode;  // acltdtQueueRouteQueryMode
    uint32_t src;
    uint32_t dst;
    bool mode_set;
    bool src_set;
    bool dst_set;
};

namespace {

constexpr uint32_t kDefaultDepth = 8;  // upstream's default depth
constexpr uint32_t kMinDepth = 2;      // and its smallest
constexpr uint32_t kMaxDepth = 8192;   // elements of one queue
constexpr size_t kMaxQueues = 4096;
constexpr size_t kMaxRoutes = 1024;      // bound routes of the process
constexpr size_t kMaxListRoutes = 4096;  // routes of one route list
constexpr size_t kMaxUserData = 96;      // bytes of user data kept with an element
constexpr size_t kMaxHandles = 65536;    // each of: attrs, routes, lists, query infos

struct QElement {
    TdtPayload payload;
    uint8_t user[kMaxUserData];
    size_t user_size;
};

struct Queue {
    uint32_t id = 0;
    int32_t device = 0;
    std::string name;
    uint32_t depth = 0;
    std::deque<QElement> fifo;  // under TdtQueueState::mu
    bool destroyed = false;     // under TdtQueueState::mu
    std::condition_variable not_full;
    std::condition_variable not_empty;
};

struct TdtQueueState {
    // A leaf: payloads are copied outside it.
    std::mutex mu; /* Protects: the tables and routes below, every Queue's fifo and flag */
    std::map<uint32_t, std::shared_ptr<Queue>> queues;
    uint32_t next_id = 0;
    std::vector<acltdtQueueRoute> routes;  // bound, in binding order (status BIND)
    std::unordered_set<const void *> attrs, route_handles, lists, infos;

    static TdtQueueState &Get() { return npu::base::Singleton<TdtQueueState>::Get(); }
};

using Table = std::unordered_set<const void *>;

template <typename T>
T *NewHandle(const char *api, Table TdtQueueState::*t, const char *what) {
    T *result = nullptr;
    RunApi(api, [&] {
        auto h = std::make_unique<T>();
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK((s.*t).size() < kMaxHandles, "this process has %zu %s already", kMaxHandles,
                      what);
        (s.*t).insert(h.get());
        result = h.release();
        return Error::Ok();
    });
    return result;
}

template <typename T>
aclError DeleteHandle(const char *api, Table TdtQueueState::*t, const T *h, const char *what,
                      const char *maker) {
    return RunApi(api, [&] {
        NPU_ACL_CHECK(h != nullptr, "%s is NULL", what);
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_ACL_CHECK((s.*t).count(h) != 0, "%s %p is not live (%s)", what,
                      static_cast<const void *>(h), maker);
        (s.*t).erase(h);
        delete h;
        return Error::Ok();
    });
}

// Refuses a NULL or dead handle h of table. Caller holds s.mu, so that h
// cannot be destroyed while the call reads it.
#define NPU_TDT_CHECK_LIVE(table, h, what, maker)                            \
    do {                                                                     \
        NPU_ACL_CHECK((h) != nullptr, "%s is NULL", what);                   \
        NPU_ACL_CHECK(s.table.count(h) != 0, "%s %p is not live (%s)", what, \
                      static_cast<const void *>(h), maker);                  \
    } while (0)

// Copies src_len bytes into dst (dst_len bytes), as upstream's parameter
// copies: a destination too small is refused.
Error CopyParam(const void *src, size_t src_len, void *dst, size_t dst_len, size_t *ret_len) {
    NPU_ACL_CHECK(src_len <= dst_len, "%zu bytes do not fit in the %zu of the destination", src_len,
                  dst_len);
    std::memcpy(dst, src, src_len);
    if (ret_len != nullptr)
        *ret_len = src_len;
    return Error::Ok();
}

// Moves elements along the bound routes while a destination has room. The
// routes form no cycle, so every move takes an element one step further
// along a path of at most kMaxRoutes routes, and the loop ends. Caller
// holds mu.
void ForwardLocked(TdtQueueState &s) {
    bool moved = true;
    while (moved) {
        moved = false;
        for (const auto &r : s.routes) {
            auto si = s.queues.find(r.src);
            auto di = s.queues.find(r.dst);
            if (si == s.queues.end() || di == s.queues.end())
                continue;
            Queue &src = *si->second;
            Queue &dst = *di->second;
            while (!src.fifo.empty() && dst.fifo.size() < dst.depth) {
                dst.fifo.push_back(std::move(src.fifo.front()));
                src.fifo.pop_front();
                moved = true;
                src.not_full.notify_one();
                dst.not_empty.notify_one();
            }
        }
    }
}

// Whether to is reachable from from along the bound routes: a walk over
// an index of the routes by source, O(routes). Caller holds mu.
bool ReachableLocked(const TdtQueueState &s, uint32_t from, uint32_t to) {
    std::unordered_multimap<uint32_t, uint32_t> next;
    for (const auto &r : s.routes)
        next.emplace(r.src, r.dst);
    std::vector<uint32_t> pending{from};
    std::unordered_set<uint32_t> seen{from};
    while (!pending.empty()) {
        const uint32_t q = pending.back();
        pending.pop_back();
        if (q == to)
            return true;
        auto [lo, hi] = next.equal_range(q);
        for (auto it = lo; it != hi; ++it)
            if (seen.insert(it->second).second)
                pending.push_back(it->second);
    }
    return false;
}

Error FindQueue(uint32_t qid, std::shared_ptr<Queue> *out) {
    auto &s = TdtQueueState::Get();
    std::lock_guard<std::mutex> lk(s.mu);
    auto it = s.queues.find(qid);
    NPU_RT_CHECK(it != s.queues.end(), "queue %u does not exist (acltdtCreateQueue)", qid);
    *out = it->second;
    return Error::Ok();
}

Error Unsupported(const char *what) {
    return Error::Format(ACL_ERROR_FEATURE_UNSUPPORTED,
                         "%s: queues here belong to one process and carry data copied by "
                         "acltdtEnqueueData and acltdtDequeueData",
                         what);
}

}  // namespace

acltdtQueueAttr *acltdtCreateQueueAttr(void) {
    acltdtQueueAttr *attr = NewHandle<acltdtQueueAttr>("acltdtCreateQueueAttr",
                                                       &TdtQueueState::attrs, "queue attributes");
    if (attr != nullptr) {
        std::memset(attr->name, 0, sizeof(attr->name));
        attr->depth = kDefaultDepth;
    }
    return attr;
}

aclError acltdtDestroyQueueAttr(const acltdtQueueAttr *attr) {
    return DeleteHandle("acltdtDestroyQueueAttr", &TdtQueueState::attrs, attr, "attr",
                        "acltdtCreateQueueAttr");
}

aclError acltdtSetQueueAttr(acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
                            const void *param) {
    return RunApi("acltdtSetQueueAttr", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(attrs, attr, "attr", "acltdtCreateQueueAttr");
        NPU_ACL_CHECK(param != nullptr, "param is NULL");
        switch (npu::rt::EnumValue(type)) {
            case ACL_TDT_QUEUE_NAME_PTR: {
                const char *name = nullptr;
                NPU_RETURN_IF_ERROR(CopyParam(param, len, &name, sizeof(name), nullptr));
                NPU_ACL_CHECK(name != nullptr, "the name pointer in param is NULL");
                const size_t n = strnlen(name, kQueueNameLen);
                NPU_ACL_CHECK(n + 1 <= kQueueNameLen, "the name is longer than %zu characters",
                              kQueueNameLen - 1);
                std::memset(attr->name, 0, sizeof(attr->name));
                std::memcpy(attr->name, name, n);
                return Error::Ok();
            }
            case ACL_TDT_QUEUE_DEPTH_UINT32:
                return CopyParam(param, len, &attr->depth, sizeof(attr->depth), nullptr);
            default:
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "type %d is not ACL_TDT_QUEUE_NAME_PTR or "
                                     "ACL_TDT_QUEUE_DEPTH_UINT32",
                                     npu::rt::EnumValue(type));
        }
    });
}

aclError acltdtGetQueueAttr(const acltdtQueueAttr *attr, acltdtQueueAttrType type, size_t len,
                            size_t *paramRetSize, void *param) {
    return RunApi("acltdtGetQueueAttr", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(attrs, attr, "attr", "acltdtCreateQueueAttr");
        NPU_ACL_CHECK(param != nullptr, "param is NULL");
        NPU_ACL_CHECK(paramRetSize != nullptr, "paramRetSize is NULL");
        switch (npu::rt::EnumValue(type)) {
            case ACL_TDT_QUEUE_NAME_PTR: {
                const char *name = attr->name;
                return CopyParam(&name, sizeof(name), param, len, paramRetSize);
            }
            case ACL_TDT_QUEUE_DEPTH_UINT32:
                return CopyParam(&attr->depth, sizeof(attr->depth), param, len, paramRetSize);
            default:
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "type %d is not ACL_TDT_QUEUE_NAME_PTR or "
                                     "ACL_TDT_QUEUE_DEPTH_UINT32",
                                     npu::rt::EnumValue(type));
        }
    });
}

aclError acltdtCreateQueue(const acltdtQueueAttr *attr, uint32_t *qid) {
    return RunApi("acltdtCreateQueue", [&] {
        NPU_ACL_CHECK(attr != nullptr, "attr is NULL");
        NPU_ACL_CHECK(qid != nullptr, "qid is NULL");
        std::shared_ptr<npu::rt::Context> ctx;
        NPU_RETURN_IF_ERROR(npu::rt::ThreadState::RequireContext(&ctx));
        auto q = std::make_shared<Queue>();
        q->device = ctx->user_device_id();
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(attrs, attr, "attr", "acltdtCreateQueueAttr");
        q->name.assign(attr->name, strnlen(attr->name, kQueueNameLen - 1));
        q->depth = attr->depth;
        NPU_ACL_CHECK(q->depth >= kMinDepth && q->depth <= kMaxDepth,
                      "depth %u is outside [%u, %u]", q->depth, kMinDepth, kMaxDepth);
        NPU_ACL_CHECK(s.queues.size() < kMaxQueues, "this process has %zu queues already",
                      kMaxQueues);
        if (!q->name.empty()) {
            for (const auto &kv : s.queues)
                NPU_ACL_CHECK(kv.second->name != q->name, "queue %u is named \"%s\" already",
                              kv.first, q->name.c_str());
        }
        // The next free id; the table is below kMaxQueues, so one is found
        // within kMaxQueues + 1 tries.
        while (s.queues.count(s.next_id) != 0)
            ++s.next_id;
        q->id = s.next_id++;
        if (q->name.empty())
            q->name = "queue_" + std::to_string(q->id);
        s.queues.emplace(q->id, q);
        *qid = q->id;
        return Error::Ok();
    });
}

aclError acltdtDestroyQueue(uint32_t qid) {
    return RunApi("acltdtDestroyQueue", [&] {
        auto &s = TdtQueueState::Get();
        std::deque<QElement> left;
        {
            std::lock_guard<std::mutex> lk(s.mu);
            auto it = s.queues.find(qid);
            NPU_RT_CHECK(it != s.queues.end(), "queue %u does not exist (acltdtCreateQueue)", qid);
            for (const auto &r : s.routes)
                if (r.src == qid || r.dst == qid)
                    return Error::Format(ACL_ERROR_FAILURE,
                                         "queue %u is in the bound route %u -> %u: unbind it "
                                         "first (acltdtUnbindQueueRoutes)",
                                         qid, r.src, r.dst);
            auto q = it->second;
            s.queues.erase(it);
            q->destroyed = true;
            left.swap(q->fifo);
            q->not_full.notify_all();
            q->not_empty.notify_all();
        }
        for (auto &e : left)
            npu::rt::TdtReleasePayload(&e.payload);
        return Error::Ok();
    });
}

aclError acltdtEnqueueData(uint32_t qid, const void *data, size_t dataSize, const void *userData,
                           size_t userDataSize, int32_t timeout, uint32_t rsv) {
    return RunApi("acltdtEnqueueData", [&] {
        (void)rsv;  // reserved
        NPU_ACL_CHECK(data != nullptr, "data is NULL (queue %u)", qid);
        NPU_ACL_CHECK(dataSize != 0, "dataSize is 0 (queue %u)", qid);
        NPU_ACL_CHECK(userData != nullptr || userDataSize == 0,
                      "userData is NULL but userDataSize is %zu", userDataSize);
        NPU_ACL_CHECK(userDataSize <= kMaxUserData, "userDataSize %zu is larger than %zu",
                      userDataSize, kMaxUserData);
        NPU_ACL_CHECK(timeout >= -1, "timeout %d is not -1 (forever), 0 or a number of ms",
                      timeout);
        std::shared_ptr<Queue> q;
        NPU_RETURN_IF_ERROR(FindQueue(qid, &q));
        QElement e{};
        if (userDataSize != 0)
            std::memcpy(e.user, userData, userDataSize);
        e.user_size = userDataSize;
        NPU_RETURN_IF_ERROR(npu::rt::TdtStorePayload(q->device, data, dataSize, &e.payload));
        auto &s = TdtQueueState::Get();
        std::unique_lock<std::mutex> lk(s.mu);
        const bool room = npu::rt::TdtWait(
            q->not_full, lk, timeout, [&] { return q->destroyed || q->fifo.size() < q->depth; });
        Error err;
        if (q->destroyed)
            err = Error::Format(ACL_ERROR_FAILURE, "queue %u was destroyed", qid);
        else if (!room)
            err = Error::Format(ACL_ERROR_RT_QUEUE_FULL, "queue %u is full (%u) after %d ms", qid,
                                q->depth, timeout);
        if (!err.ok()) {
            lk.unlock();
            npu::rt::TdtReleasePayload(&e.payload);
            return err;
        }
        q->fifo.push_back(std::move(e));
        q->not_empty.notify_one();
        ForwardLocked(s);
        return Error::Ok();
    });
}

aclError acltdtDequeueData(uint32_t qid, void *data, size_t dataSize, size_t *retDataSize,
                           void *userData, size_t userDataSize, int32_t timeout) {
    return RunApi("acltdtDequeueData", [&] {
        NPU_ACL_CHECK(data != nullptr, "data is NULL (queue %u)", qid);
        NPU_ACL_CHECK(retDataSize != nullptr, "retDataSize is NULL (queue %u)", qid);
        NPU_ACL_CHECK(dataSize != 0, "dataSize is 0 (queue %u)", qid);
        NPU_ACL_CHECK(userData != nullptr || userDataSize == 0,
                      "userData is NULL but userDataSize is %zu", userDataSize);
        NPU_ACL_CHECK(timeout >= -1, "timeout %d is not -1 (forever), 0 or a number of ms",
                      timeout);
        std::shared_ptr<Queue> q;
        NPU_RETURN_IF_ERROR(FindQueue(qid, &q));
        auto &s = TdtQueueState::Get();
        QElement e;
        {
            std::unique_lock<std::mutex> lk(s.mu);
            const bool got = npu::rt::TdtWait(q->not_empty, lk, timeout,
                                              [&] { return q->destroyed || !q->fifo.empty(); });
            if (q->destroyed)
                return Error::Format(ACL_ERROR_FAILURE, "queue %u was destroyed", qid);
            if (!got)
                return Error::Format(ACL_ERROR_RT_QUEUE_EMPTY, "queue %u is empty after %d ms", qid,
                                     timeout);
            *retDataSize = q->fifo.front().payload.size;
            // Too small a buffer leaves the element where it is: the
            // program can retry with *retDataSize bytes.
            NPU_RT_CHECK(q->fifo.front().payload.size <= dataSize,
                         "dataSize %zu is smaller than the element's %zu bytes", dataSize,
                         q->fifo.front().payload.size);
            e = std::move(q->fifo.front());
            q->fifo.pop_front();
            q->not_full.notify_one();
            ForwardLocked(s);
        }
        Error err = npu::rt::TdtLoadPayload(e.payload, data);
        npu::rt::TdtReleasePayload(&e.payload);
        NPU_RETURN_IF_ERROR(err);
        if (userDataSize != 0) {
            std::memset(userData, 0, userDataSize);
            std::memcpy(userData, e.user, std::min(userDataSize, e.user_size));
        }
        return Error::Ok();
    });
}

aclError acltdtEnqueue(uint32_t qid, acltdtBuf buf, int32_t timeout) {
    (void)qid, (void)buf, (void)timeout;
    return RunApi("acltdtEnqueue", [] { return Unsupported("acltdtEnqueue"); });
}

aclError acltdtDequeue(uint32_t qid, acltdtBuf *buf, int32_t timeout) {
    (void)qid, (void)buf, (void)timeout;
    return RunApi("acltdtDequeue", [] { return Unsupported("acltdtDequeue"); });
}

aclError acltdtGrantQueue(uint32_t qid, int32_t pid, uint32_t permission, int32_t timeout) {
    (void)qid, (void)pid, (void)permission, (void)timeout;
    return RunApi("acltdtGrantQueue", [] { return Unsupported("acltdtGrantQueue"); });
}

aclError acltdtAttachQueue(uint32_t qid, int32_t timeout, uint32_t *permission) {
    (void)qid, (void)timeout, (void)permission;
    return RunApi("acltdtAttachQueue", [] { return Unsupported("acltdtAttachQueue"); });
}

aclError acltdtAllocBuf(size_t size, uint32_t type, acltdtBuf *buf) {
    (void)size, (void)type, (void)buf;
    return RunApi("acltdtAllocBuf", [] { return Unsupported("acltdtAllocBuf"); });
}

aclError acltdtFreeBuf(acltdtBuf buf) {
    (void)buf;
    return RunApi("acltdtFreeBuf", [] { return Unsupported("acltdtFreeBuf"); });
}

aclError acltdtGetBufData(const acltdtBuf buf, void **dataPtr, size_t *size) {
    (void)buf, (void)dataPtr, (void)size;
    return RunApi("acltdtGetBufData", [] { return Unsupported("acltdtGetBufData"); });
}

aclError acltdtSetBufDataLen(acltdtBuf buf, size_t len) {
    (void)buf, (void)len;
    return RunApi("acltdtSetBufDataLen", [] { return Unsupported("acltdtSetBufDataLen"); });
}

aclError acltdtGetBufDataLen(acltdtBuf buf, size_t *len) {
    (void)buf, (void)len;
    return RunApi("acltdtGetBufDataLen", [] { return Unsupported("acltdtGetBufDataLen"); });
}

aclError acltdtAppendBufChain(acltdtBuf headBuf, acltdtBuf buf) {
    (void)headBuf, (void)buf;
    return RunApi("acltdtAppendBufChain", [] { return Unsupported("acltdtAppendBufChain"); });
}

aclError acltdtGetBufChainNum(acltdtBuf headBuf, uint32_t *num) {
    (void)headBuf, (void)num;
    return RunApi("acltdtGetBufChainNum", [] { return Unsupported("acltdtGetBufChainNum"); });
}

aclError acltdtGetBufFromChain(acltdtBuf headBuf, uint32_t index, acltdtBuf *buf) {
    (void)headBuf, (void)index, (void)buf;
    return RunApi("acltdtGetBufFromChain", [] { return Unsupported("acltdtGetBufFromChain"); });
}

aclError acltdtGetBufUserData(const acltdtBuf buf, void *dataPtr, size_t size, size_t offset) {
    (void)buf, (void)dataPtr, (void)size, (void)offset;
    return RunApi("acltdtGetBufUserData", [] { return Unsupported("acltdtGetBufUserData"); });
}

aclError acltdtSetBufUserData(acltdtBuf buf, const void *dataPtr, size_t size, size_t offset) {
    (void)buf, (void)dataPtr, (void)size, (void)offset;
    return RunApi("acltdtSetBufUserData", [] { return Unsupported("acltdtSetBufUserData"); });
}

aclError acltdtCopyBufRef(const acltdtBuf buf, acltdtBuf *newBuf) {
    (void)buf, (void)newBuf;
    return RunApi("acltdtCopyBufRef", [] { return Unsupported("acltdtCopyBufRef"); });
}

acltdtQueueRoute *acltdtCreateQueueRoute(uint32_t srcId, uint32_t dstId) {
    acltdtQueueRoute *r = NewHandle<acltdtQueueRoute>("acltdtCreateQueueRoute",
                                                      &TdtQueueState::route_handles, "routes");
    if (r != nullptr)
        *r = acltdtQueueRoute{srcId, dstId, ACL_TDT_QUEUE_ROUTE_UNBIND};
    return r;
}

aclError acltdtDestroyQueueRoute(const acltdtQueueRoute *route) {
    return DeleteHandle("acltdtDestroyQueueRoute", &TdtQueueState::route_handles, route, "route",
                        "acltdtCreateQueueRoute");
}

aclError acltdtGetQueueRouteParam(const acltdtQueueRoute *route, acltdtQueueRouteParamType type,
                                  size_t len, size_t *paramRetSize, void *param) {
    return RunApi("acltdtGetQueueRouteParam", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(route_handles, route, "route", "acltdtCreateQueueRoute");
        NPU_ACL_CHECK(param != nullptr, "param is NULL");
        NPU_ACL_CHECK(paramRetSize != nullptr, "paramRetSize is NULL");
        switch (npu::rt::EnumValue(type)) {
            case ACL_TDT_QUEUE_ROUTE_SRC_UINT32:
                return CopyParam(&route->src, sizeof(route->src), param, len, paramRetSize);
            case ACL_TDT_QUEUE_ROUTE_DST_UINT32:
                return CopyParam(&route->dst, sizeof(route->dst), param, len, paramRetSize);
            case ACL_TDT_QUEUE_ROUTE_STATUS_INT32:
                return CopyParam(&route->status, sizeof(route->status), param, len, paramRetSize);
            default:
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "type %d is not an acltdtQueueRouteParamType",
                                     npu::rt::EnumValue(type));
        }
    });
}

acltdtQueueRouteList *acltdtCreateQueueRouteList(void) {
    return NewHandle<acltdtQueueRouteList>("acltdtCreateQueueRouteList", &TdtQueueState::lists,
                                           "route lists");
}

aclError acltdtDestroyQueueRouteList(const acltdtQueueRouteList *routeList) {
    return DeleteHandle("acltdtDestroyQueueRouteList", &TdtQueueState::lists, routeList,
                        "routeList", "acltdtCreateQueueRouteList");
}

aclError acltdtAddQueueRoute(acltdtQueueRouteList *routeList, const acltdtQueueRoute *route) {
    return RunApi("acltdtAddQueueRoute", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(lists, routeList, "routeList", "acltdtCreateQueueRouteList");
        NPU_TDT_CHECK_LIVE(route_handles, route, "route", "acltdtCreateQueueRoute");
        NPU_ACL_CHECK(routeList->routes.size() < kMaxListRoutes, "the list has %zu routes already",
                      kMaxListRoutes);
        routeList->routes.push_back(*route);
        return Error::Ok();
    });
}

aclError acltdtGetQueueRoute(const acltdtQueueRouteList *routeList, size_t index,
                             acltdtQueueRoute *route) {
    return RunApi("acltdtGetQueueRoute", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(lists, routeList, "routeList", "acltdtCreateQueueRouteList");
        NPU_TDT_CHECK_LIVE(route_handles, route, "route", "acltdtCreateQueueRoute");
        NPU_ACL_CHECK(index < routeList->routes.size(), "index %zu is not below the list's %zu",
                      index, routeList->routes.size());
        *route = routeList->routes[index];
        return Error::Ok();
    });
}

size_t acltdtGetQueueRouteNum(const acltdtQueueRouteList *routeList) {
    size_t n = 0;
    RunApi("acltdtGetQueueRouteNum", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(lists, routeList, "routeList", "acltdtCreateQueueRouteList");
        n = routeList->routes.size();
        return Error::Ok();
    });
    return n;
}

acltdtQueueRouteQueryInfo *acltdtCreateQueueRouteQueryInfo(void) {
    acltdtQueueRouteQueryInfo *info = NewHandle<acltdtQueueRouteQueryInfo>(
        "acltdtCreateQueueRouteQueryInfo", &TdtQueueState::infos, "route query infos");
    if (info != nullptr)
        *info = acltdtQueueRouteQueryInfo{ACL_TDT_QUEUE_ROUTE_QUERY_SRC, 0, 0, false, false, false};
    return info;
}

aclError acltdtDestroyQueueRouteQueryInfo(const acltdtQueueRouteQueryInfo *info) {
    return DeleteHandle("acltdtDestroyQueueRouteQueryInfo", &TdtQueueState::infos, info, "info",
                        "acltdtCreateQueueRouteQueryInfo");
}

aclError acltdtSetQueueRouteQueryInfo(acltdtQueueRouteQueryInfo *param,
                                      acltdtQueueRouteQueryInfoParamType type, size_t len,
                                      const void *value) {
    return RunApi("acltdtSetQueueRouteQueryInfo", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(infos, param, "param", "acltdtCreateQueueRouteQueryInfo");
        NPU_ACL_CHECK(value != nullptr, "value is NULL");
        switch (npu::rt::EnumValue(type)) {
            case ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM:
                NPU_RETURN_IF_ERROR(
                    CopyParam(value, len, &param->mode, sizeof(param->mode), nullptr));
                param->mode_set = true;
                return Error::Ok();
            case ACL_TDT_QUEUE_ROUTE_QUERY_SRC_ID_UINT32:
                NPU_RETURN_IF_ERROR(
                    CopyParam(value, len, &param->src, sizeof(param->src), nullptr));
                param->src_set = true;
                return Error::Ok();
            case ACL_TDT_QUEUE_ROUTE_QUERY_DST_ID_UINT32:
                NPU_RETURN_IF_ERROR(
                    CopyParam(value, len, &param->dst, sizeof(param->dst), nullptr));
                param->dst_set = true;
                return Error::Ok();
            default:
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "type %d is not an acltdtQueueRouteQueryInfoParamType",
                                     npu::rt::EnumValue(type));
        }
    });
}

aclError acltdtBindQueueRoutes(acltdtQueueRouteList *qRouteList) {
    return RunApi("acltdtBindQueueRoutes", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(lists, qRouteList, "qRouteList", "acltdtCreateQueueRouteList");
        // Each route is bound or marked BIND_ABNORMAL on its own, as
        // upstream reports per route; the call fails if any was not bound.
        size_t failed = 0;
        for (auto &r : qRouteList->routes) {
            bool dup = false;
            for (const auto &b : s.routes)
                dup = dup || (b.src == r.src && b.dst == r.dst);
            const bool ok = !dup && r.src != r.dst && s.queues.count(r.src) != 0 &&
                            s.queues.count(r.dst) != 0 && s.routes.size() < kMaxRoutes &&
                            !ReachableLocked(s, r.dst, r.src);
            if (ok) {
                r.status = ACL_TDT_QUEUE_ROUTE_BIND;
                s.routes.push_back(r);
            } else if (!dup) {
                r.status = ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL;
                ++failed;
            } else {
                r.status = ACL_TDT_QUEUE_ROUTE_BIND;  // bound already
            }
        }
        ForwardLocked(s);
        if (failed != 0)
            return Error::Format(ACL_ERROR_FAILURE,
                                 "%zu of the %zu routes were not bound (a queue that does not "
                                 "exist, a route from a queue to itself or one closing a cycle, "
                                 "or %zu routes bound already): their status is "
                                 "ACL_TDT_QUEUE_ROUTE_BIND_ABNORMAL",
                                 failed, qRouteList->routes.size(), kMaxRoutes);
        return Error::Ok();
    });
}

aclError acltdtUnbindQueueRoutes(acltdtQueueRouteList *qRouteList) {
    return RunApi("acltdtUnbindQueueRoutes", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(lists, qRouteList, "qRouteList", "acltdtCreateQueueRouteList");
        for (auto &r : qRouteList->routes) {
            for (auto it = s.routes.begin(); it != s.routes.end(); ++it) {
                if (it->src == r.src && it->dst == r.dst) {
                    s.routes.erase(it);
                    break;
                }
            }
            r.status = ACL_TDT_QUEUE_ROUTE_UNBIND;
        }
        return Error::Ok();
    });
}

aclError acltdtQueryQueueRoutes(const acltdtQueueRouteQueryInfo *queryInfo,
                                acltdtQueueRouteList *qRouteList) {
    return RunApi("acltdtQueryQueueRoutes", [&] {
        auto &s = TdtQueueState::Get();
        std::lock_guard<std::mutex> lk(s.mu);
        NPU_TDT_CHECK_LIVE(lists, qRouteList, "qRouteList", "acltdtCreateQueueRouteList");
        NPU_TDT_CHECK_LIVE(infos, queryInfo, "queryInfo", "acltdtCreateQueueRouteQueryInfo");
        qRouteList->routes.clear();
        NPU_ACL_CHECK(queryInfo->mode_set,
                      "the query mode is not set (ACL_TDT_QUEUE_ROUTE_QUERY_MODE_ENUM)");
        const int32_t mode = queryInfo->mode;
        switch (mode) {
            case ACL_TDT_QUEUE_ROUTE_QUERY_SRC:
                NPU_ACL_CHECK(queryInfo->src_set, "mode SRC needs the source queue id");
                break;
            case ACL_TDT_QUEUE_ROUTE_QUERY_DST:
                NPU_ACL_CHECK(queryInfo->dst_set, "mode DST needs the destination queue id");
                break;
            case ACL_TDT_QUEUE_ROUTE_QUERY_SRC_AND_DST:
                NPU_ACL_CHECK(queryInfo->src_set && queryInfo->dst_set,
                              "mode SRC_AND_DST needs both queue ids");
                break;
            case ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL:
                break;
            default:
                return Error::Format(ACL_ERROR_INVALID_PARAM,
                                     "mode %d is not an acltdtQueueRouteQueryMode", mode);
        }
        // Bound routes are never abnormal here: a route that cannot be
        // bound is refused by acltdtBindQueueRoutes.
        if (mode == ACL_TDT_QUEUE_ROUTE_QUERY_ABNORMAL)
            return Error::Ok();
        for (const auto &r : s.routes) {
            const bool src_ok = mode == ACL_TDT_QUEUE_ROUTE_QUERY_DST || r.src == queryInfo->src;
            const bool dst_ok = mode == ACL_TDT_QUEUE_ROUTE_QUERY_SRC || r.dst == queryInfo->dst;
            if (src_ok && dst_ok)
                qRouteList->routes.push_back(r);
        }
        return Error::Ok();
    });
}
