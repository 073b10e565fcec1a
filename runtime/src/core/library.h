// SPDX-License-Identifier: MIT
// Library: the aclInit/aclFinalize state of the process.
#ifndef NPU_RT_CORE_LIBRARY_H
#define NPU_RT_CORE_LIBRARY_H

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/singleton.h"
#include "core/error.h"

namespace npu::rt {

class Library {
  public:
    // The instance (base::Singleton). A forked child gets a fresh,
    // uninitialised library that keeps the parent's init and finalize
    // hooks (ForkChildCopy).
    static Library &Get();

    // aclInit. While initialised: one more reference and
    // ACL_ERROR_REPEAT_INITIALIZE, the file is not looked at. Otherwise the
    // file (if any) must be readable JSON and, after a finalize, have the
    // same content as at the first aclInit of the process.
    Error Init(const char *config_path);
    // Whether aclInit holds a reference now (the dump calls require it).
    bool Initialized();
    // aclFinalize: tears every device down and forgets all references.
    Error Finalize();
    // aclFinalizeReference: one reference less, finalising at the last;
    // *ref_count (if not null) receives the references left.
    Error FinalizeReference(uint64_t *ref_count);

    // The hooks of aclInitCallbackRegister and aclFinalizeCallbackRegister
    // (their aclInitCallbackFunc and aclFinalizeCallbackFunc), kept per
    // (module type, function) in the order registered: registering a pair
    // again replaces its user data, removing an absent pair does nothing.
    // aclInit calls every init hook with the configuration's JSON text (""
    // without a file) once it accepted the file; the first hook that fails
    // fails aclInit with its code, and the library stays uninitialised.
    // The finalize that releases the last reference calls every finalize
    // hook before tearing the devices down, and returns the first hook
    // failure after the teardown. A hook may register and remove hooks,
    // but calling aclInit or aclFinalize from one fails.
    using InitHook = aclError (*)(const char *config, size_t len, void *user_data);
    using FinalizeHook = aclError (*)(void *user_data);
    void AddInitHook(int32_t type, InitHook fn, void *user_data);
    void RemoveInitHook(int32_t type, InitHook fn);
    void AddFinalizeHook(int32_t type, FinalizeHook fn, void *user_data);
    void RemoveFinalizeHook(int32_t type, FinalizeHook fn);

  private:
    friend class base::Singleton<Library>;
    Library();
    static Library *ForkChildCopy(const Library &parent);
    Error TearDownLocked();
    Error RunInitHooks(const std::string &config);

    template <typename Fn>
    struct Hook {
        int32_t type;
        Fn fn;
        void *user_data;
    };
    template <typename Fn>
    static void AddHook(std::vector<Hook<Fn>> *hooks, int32_t type, Fn fn, void *user_data);
    template <typename Fn>
    static void RemoveHook(std::vector<Hook<Fn>> *hooks, int32_t type, Fn fn);

    std::mutex mu_;  // Protects: refcount_, first_config_hash_
    uint64_t refcount_ = 0;
    std::optional<uint64_t> first_config_hash_;  // content hash of the first aclInit

    std::mutex hooks_mu_;  // Protects: init_hooks_, finalize_hooks_ (taken after mu_)
    std::vector<Hook<InitHook>> init_hooks_;
    std::vector<Hook<FinalizeHook>> finalize_hooks_;
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_LIBRARY_H
