// SPDX-License-Identifier: MIT
#include "driver_api/drv_common.h"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

#include "npu/hal.h"

namespace npu::drv {

namespace {

// The process-wide state of this library.
struct DriverState {
    std::mutex mu;                              /* Protects: contexts, shares, shmem */
    std::map<uint32_t, aclrtContext> contexts;  // user device -> primary context we hold
    std::map<uint64_t, ShareRecord> shares;
    std::map<uint64_t, std::string> shmem;  // address -> name of opened IPC memory
};

DriverState &State() {
    // Never destroyed: exit-time code of other libraries may still call in.
    static DriverState *state = new DriverState;
    return *state;
}

bool LogErrors() {
    static const bool on = [] {
        const char *env = std::getenv("NPU_LOG");
        return env != nullptr && std::strcmp(env, "off") != 0 && std::strcmp(env, "0") != 0;
    }();
    return on;
}

// The calling thread's current context, or nullptr; leaves no message behind.
aclrtContext CurrentContext() {
    aclrtContext ctx = nullptr;
    if (aclrtGetCurrentContext(&ctx) != ACL_SUCCESS) {
        (void)aclGetRecentErrMsg();
        return nullptr;
    }
    return ctx;
}

}  // namespace

drvError_t FromAcl(aclError err) {
    switch (err) {
        case ACL_SUCCESS:
            return DRV_ERROR_NONE;
        case ACL_ERROR_INVALID_PARAM:
        case ACL_ERROR_RT_PARAM_INVALID:
        case ACL_ERROR_RT_ADDR_UNALIGNED:
            return DRV_ERROR_INVALID_VALUE;
        case ACL_ERROR_INVALID_DEVICE:
        case ACL_ERROR_RT_INVALID_DEVICEID:
            return DRV_ERROR_INVALID_DEVICE;
        case ACL_ERROR_RT_NO_DEVICE:
            return DRV_ERROR_NO_DEVICE;
        case ACL_ERROR_RT_INVALID_HANDLE:
            return DRV_ERROR_INVALID_HANDLE;
        case ACL_ERROR_BAD_ALLOC:
        case ACL_ERROR_RT_MEMORY_ALLOCATION:
        case ACL_ERROR_RT_DEVICE_OOM:
            return DRV_ERROR_OUT_OF_MEMORY;
        case ACL_ERROR_RT_FEATURE_NOT_SUPPORT:
            return DRV_ERROR_NOT_SUPPORT;
        case ACL_ERROR_RT_NO_PERMISSION:
            return DRV_ERROR_OPER_NOT_PERMITTED;
        case ACL_ERROR_RT_OVER_LIMIT:
        case ACL_ERROR_RT_RESOURCE_ALLOC_FAIL:
            return DRV_ERROR_NO_RESOURCES;
        case ACL_ERROR_RT_CONTEXT_NULL:
            return DRV_ERROR_UNINIT;
        default:
            return DRV_ERROR_INNER_ERR;
    }
}

drvError_t Refuse(drvError_t code, const char *fmt, ...) {
    char buf[512];
    char text[600];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    std::snprintf(text, sizeof(text), "%s (drv error %d)", buf, static_cast<int>(code));
    npuHalRecordErrorMessage(text);
    if (LogErrors())
        std::fprintf(stderr, "npu: error: libascend_hal: %s\n", text);
    return code;
}

DeviceScope::DeviceScope(uint32_t dev) {
    int32_t cur = -1;
    saved_ = CurrentContext();
    if (saved_ != nullptr && aclrtGetDevice(&cur) == ACL_SUCCESS &&
        cur == static_cast<int32_t>(dev)) {
        saved_ = nullptr;  // already on dev: nothing to change or restore
        return;
    }
    // No lock is held across the acl calls: a device-state callback they
    // run may call this library again.
    DriverState &st = State();
    aclrtContext held = nullptr;
    {
        std::lock_guard<std::mutex> guard(st.mu);
        auto it = st.contexts.find(dev);
        if (it != st.contexts.end())
            held = it->second;
    }
    if (held != nullptr) {
        if (aclrtSetCurrentContext(held) == ACL_SUCCESS)
            return;
        // The device was reset by force since: open it again.
        (void)aclGetRecentErrMsg();
    }
    aclError err = aclrtSetDevice(static_cast<int32_t>(dev));
    if (err != ACL_SUCCESS) {
        status_ = FromAcl(err);
        return;
    }
    // Two threads may both have opened it: either primary context will do
    // (it is the same one), and the device stays open until exit anyway.
    aclrtContext ctx = CurrentContext();
    std::lock_guard<std::mutex> guard(st.mu);
    st.contexts[dev] = ctx;
}

DeviceScope::~DeviceScope() {
    if (saved_ != nullptr)
        (void)aclrtSetCurrentContext(saved_);
}

AnyContextScope::AnyContextScope() {
    if (CurrentContext() == nullptr)
        scope_.emplace(0);
}

void RememberShare(uint64_t share, const ShareRecord &rec) {
    DriverState &st = State();
    std::lock_guard<std::mutex> guard(st.mu);
    st.shares[share] = rec;
}

bool FindShare(uint64_t share, ShareRecord *rec) {
    DriverState &st = State();
    std::lock_guard<std::mutex> guard(st.mu);
    auto it = st.shares.find(share);
    if (it == st.shares.end())
        return false;
    *rec = it->second;
    return true;
}

void MarkSharePids(uint64_t share) {
    DriverState &st = State();
    std::lock_guard<std::mutex> guard(st.mu);
    auto it = st.shares.find(share);
    if (it != st.shares.end())
        it->second.pids_set = true;
}

void RememberShmem(uint64_t va, const char *name) {
    DriverState &st = State();
    std::lock_guard<std::mutex> guard(st.mu);
    st.shmem[va] = name;
}

bool TakeShmem(uint64_t va, char *name, size_t len) {
    DriverState &st = State();
    std::lock_guard<std::mutex> guard(st.mu);
    auto it = st.shmem.find(va);
    if (it == st.shmem.end() || it->second.size() >= len)
        return false;
    std::memcpy(name, it->second.c_str(), it->second.size() + 1);
    st.shmem.erase(it);
    return true;
}

}  // namespace npu::drv
