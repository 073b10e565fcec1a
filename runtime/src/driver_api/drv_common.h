// SPDX-License-Identifier: MIT
// libascend_hal.so: CANN's driver memory API (include/driver/ascend_hal.h)
// over the acl layer of libascendcl, so that both libraries share one device
// state per process. What every part needs: the mapping of acl codes to
// DRV_ERROR_*, the checks' reporting, and the device a call works on.
#ifndef NPU_DRIVER_API_DRV_COMMON_H
#define NPU_DRIVER_API_DRV_COMMON_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

#include "acl/acl.h"
#include "driver/ascend_hal.h"

namespace npu::drv {

// The value a C caller stored in an enum-typed parameter or field, read
// without assuming it is one of the enumerators.
template <typename E>
uint32_t Raw(const E &e) {
    static_assert(sizeof(E) == sizeof(uint32_t), "driver enums are int-sized");
    uint32_t v;
    std::memcpy(&v, &e, sizeof(v));
    return v;
}

// The driver code for an acl code (DRV_ERROR_NONE for ACL_SUCCESS).
drvError_t FromAcl(aclError err);

// A refused argument: logs why (NPU_LOG=error or more verbose) and returns code.
drvError_t Refuse(drvError_t code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

// While it lives, the calling thread's current context is one of user device
// dev (its primary context, made with aclrtSetDevice the first time a call
// of this library needs the device; the device stays open until exit). The
// thread's own context comes back at the end of the scope.
class DeviceScope {
  public:
    explicit DeviceScope(uint32_t dev);
    ~DeviceScope();
    DeviceScope(const DeviceScope &) = delete;
    DeviceScope &operator=(const DeviceScope &) = delete;
    drvError_t status() const { return status_; }

  private:
    aclrtContext saved_ = nullptr;
    drvError_t status_ = DRV_ERROR_NONE;
};

// A context for calls that only need one: the thread's own, else device 0's.
class AnyContextScope {
  public:
    AnyContextScope();
    drvError_t status() const { return scope_ ? scope_->status() : DRV_ERROR_NONE; }

  private:
    std::optional<DeviceScope> scope_;
};

// Shareable handles exported through this library, and named IPC memory it
// opened: process-wide tables (one lock, see docs/runtime-locks.md).
struct ShareRecord {
    bool v2 = false;        // exported by halMemExportToShareableHandleV2: no whitelist
    bool pids_set = false;  // halMemSetPidToShareableHandle succeeded on it
    uint32_t phys_dev = 0;  // the physical device of the memory
};
void RememberShare(uint64_t share, const ShareRecord &rec);
bool FindShare(uint64_t share, ShareRecord *rec);
void MarkSharePids(uint64_t share);

void RememberShmem(uint64_t va, const char *name);
bool TakeShmem(uint64_t va, char *name, size_t len);

}  // namespace npu::drv

#define NPU_DRV_API extern "C" __attribute__((visibility("default")))

#endif  // NPU_DRIVER_API_DRV_COMMON_H
