// SPDX-License-Identifier: MIT
// ShareRegistry: what this process knows about its IPC keys and shareable
// handles. The driver owns the truth (who may import, what is mapped); the
// runtime remembers only what the API needs locally: which session
// exported a key or handle (later calls on it go to the same driver file),
// this process's imports of each key, oldest first (aclrtIpcMemClose drops
// the oldest, as aclrtIpcMemGetExportKey does), and link attributes set with aclrtIpcMemSetAttr.
#ifndef NPU_RT_CORE_SHARE_REGISTRY_H
#define NPU_RT_CORE_SHARE_REGISTRY_H

#include <cerrno>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "core/device_session.h"
#include "base/errno_codes.h"
#include "core/error.h"
#include "error_codes/rt_error_codes.h"

namespace npu::rt {

struct IpcImport {
    std::weak_ptr<DeviceSession> session;
    uint64_t va = 0;
};

// Thread safe.
class ShareRegistry {
  public:
    // The instance (base::Singleton); empty in a forked child.
    static ShareRegistry &Get();

    void AddExportedKey(const std::string &key, const std::shared_ptr<DeviceSession> &s);
    std::shared_ptr<DeviceSession> ExporterOfKey(const std::string &key);
    void ForgetExportedKey(const std::string &key);

    void AddImport(const std::string &key, const IpcImport &imp);
    // Removes and returns the oldest import of key, if any.
    std::optional<IpcImport> TakeOldestImport(const std::string &key);
    // Removes and returns the import mapped at va, with its key in *key.
    std::optional<IpcImport> TakeImportAt(uint64_t va, std::string *key);

    // aclrtIpcMemSetAttr: remembered per key; Forget returns whether there was one.
    void SetAttr(const std::string &key, uint64_t attr);
    bool ForgetAttr(const std::string &key);

    void AddExportedHandle(uint64_t share, const std::shared_ptr<DeviceSession> &s);
    std::shared_ptr<DeviceSession> ExporterOfHandle(uint64_t share);

  private:
    std::mutex mu_;  // Protects: the four maps below
    std::map<std::string, std::weak_ptr<DeviceSession>> exported_keys_;
    std::map<std::string, std::deque<IpcImport>> imports_;
    std::map<std::string, uint64_t> attrs_;
    std::map<uint64_t, std::weak_ptr<DeviceSession>> exported_handles_;
};

// aclrtDrvMemHandle values: an opaque tag, the user device id and the
// driver's per-file handle. Never a host address.
void *EncodePhysHandle(int32_t user_device, uint32_t id);
bool DecodePhysHandle(const void *handle, int32_t *user_device, uint32_t *id);

// The codes of the sharing calls (IPC keys, shareable handles, VMM), for
// Error::FromErrno: the driver's "invalid" answers (EINVAL, EEXIST, EBUSY,
// EFAULT and ENOENT, a key or address it does not know) are
// ACL_ERROR_RT_PARAM_INVALID, as the spec's [DRV] rows give them.
inline constexpr base::ErrnoCode kShareCodes[] = {
    {-EEXIST, ACL_ERROR_RT_PARAM_INVALID},
    {-EBUSY, ACL_ERROR_RT_PARAM_INVALID},
    {-ENOENT, ACL_ERROR_RT_PARAM_INVALID},
};
// The same where ENOENT means that a handle the caller passed is unknown
// (ACL_ERROR_RT_INVALID_HANDLE, the default row).
inline constexpr base::ErrnoCode kShareHandleCodes[] = {
    {-EEXIST, ACL_ERROR_RT_PARAM_INVALID},
    {-EBUSY, ACL_ERROR_RT_PARAM_INVALID},
};

// For a name (IPC key, shareable handle) the driver does not know: on the
// in-process backend, the reason it most likely has (the exporter is
// another process, with its own private device); else "".
const char *ImportNotFoundHint(int err);

}  // namespace npu::rt

#endif  // NPU_RT_CORE_SHARE_REGISTRY_H
