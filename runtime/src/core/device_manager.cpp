// SPDX-License-Identifier: MIT
#include "core/device_manager.h"
#include "core/checker.h"

#include <algorithm>
#include <cstdlib>
#include <string>

#include "base/singleton.h"
#include "core/fork.h"
#include "core/thread_state.h"
#include "npu/hal.h"

namespace npu::rt {

std::optional<std::vector<uint32_t>> ParseVisibleDevices(const char *text,
                                                         uint32_t physical_count) {
    if (text == nullptr || *text == '\0')
        return std::nullopt;
    std::vector<uint32_t> ids;
    const char *p = text;
    while (*p != '\0') {
        while (*p == ' ')
            ++p;
        char *end = nullptr;
        unsigned long v = std::strtoul(p, &end, 10);
        if (end == p || v >= physical_count)
            break;
        if (std::find(ids.begin(), ids.end(), static_cast<uint32_t>(v)) != ids.end())
            break;
        ids.push_back(static_cast<uint32_t>(v));
        p = end;
        while (*p == ' ')
            ++p;
        if (*p != ',')
            break;
        ++p;
    }
    return ids;
}

DeviceManager::DeviceManager() {
    RegisterForkHandlers();
}

DeviceManager &DeviceManager::Get() {
    return base::Singleton<DeviceManager>::Get();
}

Error DeviceManager::EnsureDiscoveredLocked() {
    if (discovered_)
        return Error::Ok();
    uint32_t physical = 0;
    int err = npuHalGetDeviceCount(&physical);
    if (err != 0)
        return Error::FromHal(err, "cannot count devices (backend %s)", npuHalBackendName());
    auto visible = ParseVisibleDevices(std::getenv("ASCEND_RT_VISIBLE_DEVICES"), physical);
    if (visible) {
        visible_ = *visible;
    } else {
        visible_.clear();
        for (uint32_t i = 0; i < physical; ++i)
            visible_.push_back(i);
    }
    slots_.assign(visible_.size(), DeviceSlot());
    discovered_ = true;
    return Error::Ok();
}

Error DeviceManager::CheckUserIdLocked(int32_t user_id) {
    NPU_RETURN_IF_ERROR(EnsureDiscoveredLocked());
    if (user_id < 0 || static_cast<size_t>(user_id) >= visible_.size()) {
        return Error::Format(ACL_ERROR_RT_INVALID_DEVICEID,
                             "invalid device id %d (%zu device(s) visible)", user_id,
                             visible_.size());
    }
    return Error::Ok();
}

Error DeviceManager::DeviceCount(uint32_t *count) {
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(EnsureDiscoveredLocked());
    *count = static_cast<uint32_t>(visible_.size());
    return Error::Ok();
}

Error DeviceManager::ToPhysical(int32_t user_id, uint32_t *phys_id) {
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckUserIdLocked(user_id));
    *phys_id = visible_[static_cast<size_t>(user_id)];
    return Error::Ok();
}

bool DeviceManager::ToUser(uint32_t phys_id, int32_t *user_id) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!EnsureDiscoveredLocked().ok())
        return false;
    auto it = std::find(visible_.begin(), visible_.end(), phys_id);
    if (it == visible_.end())
        return false;
    *user_id = static_cast<int32_t>(it - visible_.begin());
    return true;
}

Error DeviceManager::EnsureSessionLocked(int32_t user_id) {
    DeviceSlot &slot = slots_[static_cast<size_t>(user_id)];
    if (slot.session)
        return Error::Ok();
    return DeviceSession::Open(visible_[static_cast<size_t>(user_id)], user_id, &slot.session);
}

Error DeviceManager::NewContextLocked(int32_t user_id, Context::Kind kind,
                                      std::shared_ptr<Context> *out) {
    NPU_RETURN_IF_ERROR(EnsureSessionLocked(user_id));
    auto ctx = std::make_shared<Context>(slots_[static_cast<size_t>(user_id)].session, kind);
    auto entry = std::make_unique<ContextEntry>();
    entry->ctx = ctx;
    ctx->handle_ = context_handles_.Insert(std::move(entry));
    if (ctx->handle_ == nullptr) {
        return Error::Format(ACL_ERROR_RT_CONTEXT_NULL,
                             "the process has no context handle left (destroy contexts it no "
                             "longer uses)");
    }
    *out = std::move(ctx);
    return Error::Ok();
}

void DeviceManager::TearDownLocked(DeviceSlot *slot, std::vector<std::shared_ptr<void>> *dying) {
    slot->refcount = 0;
    // The contexts first: their streams drain before the session closes.
    for (auto &ctx : slot->explicit_contexts) {
        context_handles_.Remove(ctx->handle());
        dying->push_back(std::move(ctx));
    }
    slot->explicit_contexts.clear();
    if (slot->default_context) {
        context_handles_.Remove(slot->default_context->handle());
        dying->push_back(std::move(slot->default_context));
    }
    if (slot->session)
        dying->push_back(std::move(slot->session));
}

Error DeviceManager::SetDevice(int32_t user_id) {
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckUserIdLocked(user_id));
    DeviceSlot &slot = slots_[static_cast<size_t>(user_id)];
    if (!slot.default_context)
        NPU_RETURN_IF_ERROR(
            NewContextLocked(user_id, Context::Kind::kPrimary, &slot.default_context));
    ++slot.refcount;
    ThreadState::SetCurrentContext(slot.default_context);
    return Error::Ok();
}

Error DeviceManager::ResetDevice(int32_t user_id) {
    std::vector<std::shared_ptr<void>> dying;  // released after the lock is dropped
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckUserIdLocked(user_id));
    DeviceSlot &slot = slots_[static_cast<size_t>(user_id)];
    if (slot.refcount == 0) {
        return Error::Format(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                             "device %d is not set (or already reset)", user_id);
    }
    if (--slot.refcount == 0) {
        if (check::On())
            check::DeviceReset(user_id);
        TearDownLocked(&slot, &dying);
    }
    return Error::Ok();
}

Error DeviceManager::ResetDeviceForce(int32_t user_id) {
    std::vector<std::shared_ptr<void>> dying;
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckUserIdLocked(user_id));
    DeviceSlot &slot = slots_[static_cast<size_t>(user_id)];
    if (slot.refcount == 0) {
        return Error::Format(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR,
                             "device %d is not set (or already reset)", user_id);
    }
    if (check::On())
        check::DeviceReset(user_id);
    TearDownLocked(&slot, &dying);
    return Error::Ok();
}

void DeviceManager::ResetAll() {
    std::vector<std::shared_ptr<void>> dying;
    std::lock_guard<std::mutex> lock(mu_);
    if (check::On())
        check::DeviceReset(-1);
    for (DeviceSlot &slot : slots_)
        TearDownLocked(&slot, &dying);
}

Error DeviceManager::CreateContext(int32_t user_id, void **handle) {
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckUserIdLocked(user_id));
    std::shared_ptr<Context> ctx;
    NPU_RETURN_IF_ERROR(NewContextLocked(user_id, Context::Kind::kExplicit, &ctx));
    slots_[static_cast<size_t>(user_id)].explicit_contexts.push_back(ctx);
    ThreadState::SetCurrentContext(ctx);
    *handle = ctx->handle();
    return Error::Ok();
}

Error DeviceManager::DestroyContext(void *handle) {
    std::vector<std::shared_ptr<void>> dying;  // released after the lock is dropped
    std::lock_guard<std::mutex> lock(mu_);
    std::shared_ptr<Context> ctx = FindContext(handle);
    if (!ctx) {
        return Error::Format(ACL_ERROR_RT_CONTEXT_NULL,
                             "context %p is not a live context (destroyed, its device reset, or "
                             "not a context)",
                             handle);
    }
    if (ctx->primary()) {
        return Error::Format(ACL_ERROR_RT_CONTEXT_NULL,
                             "context %p is device %d's primary context: aclrtResetDevice "
                             "releases it, aclrtDestroyContext only destroys contexts made by "
                             "aclrtCreateContext",
                             handle, ctx->user_device_id());
    }
    auto &list = slots_[static_cast<size_t>(ctx->user_device_id())].explicit_contexts;
    std::erase(list, ctx);
    context_handles_.Remove(handle);
    dying.push_back(std::move(ctx));
    return Error::Ok();
}

std::shared_ptr<Context> DeviceManager::FindContext(void *handle) {
    ContextEntry *entry = context_handles_.Acquire(handle);
    if (entry == nullptr)
        return nullptr;
    std::shared_ptr<Context> ctx = entry->ctx.lock();
    context_handles_.Release(handle);
    return ctx;
}

std::vector<std::shared_ptr<Context>> DeviceManager::ContextsOf(int32_t user_id) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::shared_ptr<Context>> out;
    if (user_id < 0 || static_cast<size_t>(user_id) >= slots_.size())
        return out;
    const DeviceSlot &slot = slots_[static_cast<size_t>(user_id)];
    if (slot.default_context)
        out.push_back(slot.default_context);
    out.insert(out.end(), slot.explicit_contexts.begin(), slot.explicit_contexts.end());
    return out;
}

Error DeviceManager::PrimaryActive(int32_t user_id, bool *active) {
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckUserIdLocked(user_id));
    *active = slots_[static_cast<size_t>(user_id)].default_context != nullptr;
    return Error::Ok();
}

int DeviceManager::RefCount(int32_t user_id) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!CheckUserIdLocked(user_id).ok())
        return 0;
    return slots_[static_cast<size_t>(user_id)].refcount;
}

std::shared_ptr<DeviceSession> DeviceManager::SessionOf(int32_t user_id) {
    std::lock_guard<std::mutex> lock(mu_);
    if (user_id < 0 || static_cast<size_t>(user_id) >= slots_.size())
        return nullptr;
    return slots_[static_cast<size_t>(user_id)].session;
}

Error DeviceManager::OpenSession(int32_t user_id, std::shared_ptr<DeviceSession> *out) {
    std::lock_guard<std::mutex> lock(mu_);
    NPU_RETURN_IF_ERROR(CheckUserIdLocked(user_id));
    NPU_RETURN_IF_ERROR(EnsureSessionLocked(user_id));
    *out = slots_[static_cast<size_t>(user_id)].session;
    return Error::Ok();
}

std::shared_ptr<DeviceSession> DeviceManager::AnySession() {
    std::lock_guard<std::mutex> lock(mu_);
    for (const DeviceSlot &slot : slots_) {
        if (slot.session)
            return slot.session;
    }
    return nullptr;
}

std::shared_ptr<DeviceSession> DeviceManager::FindSession(const void *addr, size_t len) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const DeviceSlot &slot : slots_) {
        if (slot.session && slot.session->InAperture(addr, len))
            return slot.session;
    }
    return nullptr;
}

}  // namespace npu::rt
