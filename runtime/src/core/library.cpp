// SPDX-License-Identifier: MIT
#include "core/library.h"
#include "core/checker.h"

#include <string>
#include <string_view>
#include <utility>

#include "base/singleton.h"
#include "base/trace.h"
#include "core/config_file.h"
#include "core/device_manager.h"
#include "core/dump.h"
#include "core/fork.h"

namespace npu::rt {
namespace {

// FNV-1a: the hash only tells configuration contents apart.
uint64_t HashContent(std::string_view text) {
    uint64_t h = 14695981039346656037ULL;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    return h;
}

// Whether this thread is running an aclInit or aclFinalize hook, which
// must not re-enter them (the library's lock is held).
thread_local bool t_in_hook = false;

Error ReentryError() {
    return Error(ACL_ERROR_INVALID_PARAM,
                 "called from an aclInit or aclFinalize hook (aclInitCallbackRegister, "
                 "aclFinalizeCallbackRegister), which must not initialise or finalise");
}

}  // namespace

Library::Library() {
    RegisterForkHandlers();
}

Library &Library::Get() {
    return base::Singleton<Library>::Get();  // never destroyed, see DeviceManager::Get
}

// The parent's state is left as it is (leaked): the child never touches it.
// The hooks are functions of the child too: it keeps them.
Library *Library::ForkChildCopy(const Library &parent) {
    auto *child = new Library();
    child->init_hooks_ = parent.init_hooks_;
    child->finalize_hooks_ = parent.finalize_hooks_;
    return child;
}

Error Library::Init(const char *config_path) {
    // Tracing starts here at the latest, so that the first calls are in it.
    base::trace::Start();
    if (t_in_hook)
        return ReentryError();
    std::lock_guard<std::mutex> lock(mu_);
    if (refcount_ > 0) {
        ++refcount_;
        return Error::Format(ACL_ERROR_REPEAT_INITIALIZE,
                             "already initialised (now %llu references; aclFinalize releases all)",
                             static_cast<unsigned long long>(refcount_));
    }
    std::string content;  // a NULL path counts as empty content
    if (config_path != nullptr) {
        NPU_RETURN_IF_ERROR(ReadConfigFile(config_path, &content));
        std::string why;
        if (!ValidateConfigJson(content, &why)) {
            return Error::Format(ACL_ERROR_PARSE_FILE, "config file \"%s\" is not valid JSON: %s",
                                 config_path, why.c_str());
        }
    }
    uint64_t hash = HashContent(content);
    if (first_config_hash_ && *first_config_hash_ != hash) {
        return Error::Format(ACL_ERROR_INVALID_PARAM,
                             "configuration \"%s\" differs from the one of the first aclInit",
                             config_path != nullptr ? config_path : "(null)");
    }
    // The file's "dump" section (acl/acl_dump.h): data and exception dump.
    if (config_path != nullptr)
        NPU_RETURN_IF_ERROR(dump::DumpState::Get().Configure(content, config_path));
    NPU_RETURN_IF_ERROR(RunInitHooks(content));
    first_config_hash_ = hash;
    refcount_ = 1;
    return Error::Ok();
}

bool Library::Initialized() {
    std::lock_guard<std::mutex> lock(mu_);
    return refcount_ > 0;
}

Error Library::RunInitHooks(const std::string &config) {
    std::vector<Hook<InitHook>> hooks;
    {
        std::lock_guard<std::mutex> lock(hooks_mu_);
        hooks = init_hooks_;
    }
    t_in_hook = true;
    for (const Hook<InitHook> &h : hooks) {
        aclError rc = h.fn(config.c_str(), config.size(), h.user_data);
        if (rc != ACL_SUCCESS) {
            t_in_hook = false;
            return Error::Format(rc, "the init hook %p of module type %d failed with %d",
                                 reinterpret_cast<void *>(h.fn), h.type, rc);
        }
    }
    t_in_hook = false;
    return Error::Ok();
}

Error Library::TearDownLocked() {
    std::vector<Hook<FinalizeHook>> hooks;
    {
        std::lock_guard<std::mutex> lock(hooks_mu_);
        hooks = finalize_hooks_;
    }
    Error first;
    t_in_hook = true;
    for (const Hook<FinalizeHook> &h : hooks) {
        aclError rc = h.fn(h.user_data);
        if (rc != ACL_SUCCESS && first.ok()) {
            first = Error::Format(rc, "the finalize hook %p of module type %d failed with %d",
                                  reinterpret_cast<void *>(h.fn), h.type, rc);
        }
    }
    t_in_hook = false;
    refcount_ = 0;
    dump::DumpState::Get().Reset();
    if (check::On())
        check::Finalizing();
    DeviceManager::Get().ResetAll();
    // The streams are gone, their completions observed: a good moment to
    // write the trace (again at exit, with whatever came after).
    base::trace::Flush();
    return first;
}

template <typename Fn>
void Library::AddHook(std::vector<Hook<Fn>> *hooks, int32_t type, Fn fn, void *user_data) {
    for (Hook<Fn> &h : *hooks) {
        if (h.type == type && h.fn == fn) {
            h.user_data = user_data;
            return;
        }
    }
    hooks->push_back(Hook<Fn>{type, fn, user_data});
}

template <typename Fn>
void Library::RemoveHook(std::vector<Hook<Fn>> *hooks, int32_t type, Fn fn) {
    std::erase_if(*hooks, [&](const Hook<Fn> &h) { return h.type == type && h.fn == fn; });
}

void Library::AddInitHook(int32_t type, InitHook fn, void *user_data) {
    std::lock_guard<std::mutex> lock(hooks_mu_);
    AddHook(&init_hooks_, type, fn, user_data);
}

void Library::RemoveInitHook(int32_t type, InitHook fn) {
    std::lock_guard<std::mutex> lock(hooks_mu_);
    RemoveHook(&init_hooks_, type, fn);
}

void Library::AddFinalizeHook(int32_t type, FinalizeHook fn, void *user_data) {
    std::lock_guard<std::mutex> lock(hooks_mu_);
    AddHook(&finalize_hooks_, type, fn, user_data);
}

void Library::RemoveFinalizeHook(int32_t type, FinalizeHook fn) {
    std::lock_guard<std::mutex> lock(hooks_mu_);
    RemoveHook(&finalize_hooks_, type, fn);
}

Error Library::Finalize() {
    if (t_in_hook)
        return ReentryError();
    std::lock_guard<std::mutex> lock(mu_);
    if (refcount_ == 0) {
        return Error(ACL_ERROR_REPEAT_FINALIZE, "not initialised (or already finalised)");
    }
    return TearDownLocked();
}

Error Library::FinalizeReference(uint64_t *ref_count) {
    if (t_in_hook)
        return ReentryError();
    std::lock_guard<std::mutex> lock(mu_);
    if (refcount_ == 0) {
        return Error(ACL_ERROR_REPEAT_FINALIZE, "not initialised (or already finalised)");
    }
    Error err;
    if (refcount_ > 1) {
        --refcount_;
    } else {
        err = TearDownLocked();
    }
    if (ref_count != nullptr)
        *ref_count = refcount_;
    return err;
}

}  // namespace npu::rt
