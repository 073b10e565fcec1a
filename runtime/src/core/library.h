// SPDX-License-Identifier: MIT
// Library: the aclInit/aclFinalize state of the process (spec §7.1, §7.2).
#ifndef NPU_RT_CORE_LIBRARY_H
#define NPU_RT_CORE_LIBRARY_H

#include <cstdint>
#include <mutex>
#include <optional>

#include "core/error.h"

namespace npu::rt {

class Library {
  public:
    static Library &Get();
    // In a forked child: a fresh, uninitialised library (core/fork.cpp).
    static void ForkChild();

    // aclInit. While initialised: one more reference and
    // ACL_ERROR_REPEAT_INITIALIZE, the file is not looked at. Otherwise the
    // file (if any) must be readable JSON and, after a finalize, have the
    // same content as at the first aclInit of the process.
    Error Init(const char *config_path);
    // aclFinalize: tears every device down and forgets all references.
    Error Finalize();
    // aclFinalizeReference: one reference less, finalising at the last;
    // *ref_count (if not null) receives the references left.
    Error FinalizeReference(uint64_t *ref_count);

  private:
    Library() = default;
    static Library *&Slot();  // the instance; a forked child replaces it
    void TearDownLocked();

    std::mutex mu_;
    // Protected by mu_.
    uint64_t refcount_ = 0;
    std::optional<uint64_t> first_config_hash_;  // content hash of the first aclInit
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_LIBRARY_H
