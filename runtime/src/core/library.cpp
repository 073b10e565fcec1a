// SPDX-License-Identifier: MIT
#include "core/library.h"

#include <string>
#include <string_view>

#include "core/config_file.h"
#include "core/device_manager.h"
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

}  // namespace

Library *&Library::Slot() {
    static Library *library =
        (RegisterForkHandlers(), new Library());  // never destroyed, see DeviceManager::Get
    return library;
}

Library &Library::Get() {
    return *Slot();
}

// The parent's state is left as it is (leaked): the child never touches it.
void Library::ForkChild() {
    KeepParentCopy(Slot());
    Slot() = new Library();
}

Error Library::Init(const char *config_path) {
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
    first_config_hash_ = hash;
    refcount_ = 1;
    return Error::Ok();
}

void Library::TearDownLocked() {
    refcount_ = 0;
    DeviceManager::Get().ResetAll();
}

Error Library::Finalize() {
    std::lock_guard<std::mutex> lock(mu_);
    if (refcount_ == 0) {
        return Error(ACL_ERROR_REPEAT_FINALIZE, "not initialised (or already finalised)");
    }
    TearDownLocked();
    return Error::Ok();
}

Error Library::FinalizeReference(uint64_t *ref_count) {
    std::lock_guard<std::mutex> lock(mu_);
    if (refcount_ == 0) {
        return Error(ACL_ERROR_REPEAT_FINALIZE, "not initialised (or already finalised)");
    }
    if (refcount_ > 1) {
        --refcount_;
    } else {
        TearDownLocked();
    }
    if (ref_count != nullptr)
        *ref_count = refcount_;
    return Error::Ok();
}

}  // namespace npu::rt
