// SPDX-License-Identifier: MIT
#include "core/share_registry.h"

#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "base/singleton.h"
#include "npu/hal.h"

namespace npu::rt {

ShareRegistry &ShareRegistry::Get() {
    return base::Singleton<ShareRegistry>::Get();  // never destroyed: used at exit
}

void ShareRegistry::AddExportedKey(const std::string &key,
                                   const std::shared_ptr<DeviceSession> &s) {
    std::lock_guard<std::mutex> lock(mu_);
    exported_keys_[key] = s;
}

std::shared_ptr<DeviceSession> ShareRegistry::ExporterOfKey(const std::string &key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = exported_keys_.find(key);
    return it == exported_keys_.end() ? nullptr : it->second.lock();
}

void ShareRegistry::ForgetExportedKey(const std::string &key) {
    std::lock_guard<std::mutex> lock(mu_);
    exported_keys_.erase(key);
}

void ShareRegistry::AddImport(const std::string &key, const IpcImport &imp) {
    std::lock_guard<std::mutex> lock(mu_);
    imports_[key].push_back(imp);
}

std::optional<IpcImport> ShareRegistry::TakeOldestImport(const std::string &key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = imports_.find(key);
    if (it == imports_.end() || it->second.empty())
        return std::nullopt;
    IpcImport imp = it->second.front();
    it->second.pop_front();
    if (it->second.empty())
        imports_.erase(it);
    return imp;
}

std::optional<IpcImport> ShareRegistry::TakeImportAt(uint64_t va, std::string *key) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = imports_.begin(); it != imports_.end(); ++it) {
        for (auto i = it->second.begin(); i != it->second.end(); ++i) {
            if (i->va != va)
                continue;
            IpcImport imp = *i;
            *key = it->first;
            it->second.erase(i);
            if (it->second.empty())
                imports_.erase(it);
            return imp;
        }
    }
    return std::nullopt;
}

void ShareRegistry::SetAttr(const std::string &key, uint64_t attr) {
    std::lock_guard<std::mutex> lock(mu_);
    attrs_[key] = attr;
}

bool ShareRegistry::ForgetAttr(const std::string &key) {
    std::lock_guard<std::mutex> lock(mu_);
    return attrs_.erase(key) != 0;
}

void ShareRegistry::AddExportedHandle(uint64_t share, const std::shared_ptr<DeviceSession> &s) {
    std::lock_guard<std::mutex> lock(mu_);
    exported_handles_[share] = s;
}

std::shared_ptr<DeviceSession> ShareRegistry::ExporterOfHandle(uint64_t share) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = exported_handles_.find(share);
    return it == exported_handles_.end() ? nullptr : it->second.lock();
}

namespace {
// Top 24 bits of every handle value: "NPH". Keeps values far from any
// host address and lets a stray pointer be told apart from a handle.
constexpr uint64_t kHandleTag = 0x4e5048ULL;
constexpr unsigned kTagShift = 40;
constexpr unsigned kDeviceShift = 32;
}  // namespace

void *EncodePhysHandle(int32_t user_device, uint32_t id) {
    uint64_t v = (kHandleTag << kTagShift) |
                 (static_cast<uint64_t>(static_cast<uint8_t>(user_device)) << kDeviceShift) | id;
    return reinterpret_cast<void *>(static_cast<uintptr_t>(v));
}

bool DecodePhysHandle(const void *handle, int32_t *user_device, uint32_t *id) {
    uint64_t v = reinterpret_cast<uintptr_t>(handle);
    if ((v >> kTagShift) != kHandleTag)
        return false;
    *user_device = static_cast<int32_t>((v >> kDeviceShift) & 0xff);
    *id = static_cast<uint32_t>(v);
    return *id != 0;
}

const char *ImportNotFoundHint(int err) {
    if (err != -ENOENT || std::strcmp(npuHalBackendName(), "inproc") != 0)
        return "";
    return " (this process runs on a private in-process device, which no other process can "
           "reach: load npu.ko, or start npud --fuse DIR and set NPU_DEVICE=DIR/npu0 in "
           "both processes)";
}

}  // namespace npu::rt
