// SPDX-License-Identifier: MIT
// ExceptionCallbacks: the callbacks told about failed device tasks
// (aclrtSetExceptionInfoCallback, aclrtExceptionInfoCallbackRegister), and
// the aclrtExceptionInfo they receive.
//
// When they run. The engine reports a failed descriptor in its completion;
// the runtime notices it in the call that waits for the stream and takes
// its errors (aclrtSynchronizeStream[WithTimeout], aclrtSynchronizeDevice,
// aclrtMemcpy and the other synchronous calls that queue on a stream; not
// aclrtSynchronizeEvent, which does not take the stream's errors either).
// That call, in its own thread, runs every callback
// once per failed task (in completion order), with no lock of the runtime
// held, before it returns the first task's error to its caller. Failures
// that no call ever waits for are never reported (upstream's device pushes
// them to a runtime thread instead; an emulated device has only the
// completion queue). A callback may call the API (synchronise, register,
// copy), except to destroy the failed task's stream, its context or reset
// its device: the reporting call pins the stream, and destroying it waits
// for that pin. A stream keeps the first HAL_QUEUE_MAX_ERRORS failures
// between two waits; later ones are counted in the returned error only.
#ifndef NPU_RT_CORE_EXCEPTION_CALLBACKS_H
#define NPU_RT_CORE_EXCEPTION_CALLBACKS_H

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "acl/acl_rt.h"
#include "core/error.h"

// The layout of aclrtExceptionInfo is private to the runtime (the headers
// only name the struct), so this one is the emulator's own.
struct rtExceptionInfo {
    // The descriptor's sequence number on its stream (what
    // aclrtGetThreadLastTaskId returned for it).
    uint32_t task_id;
    uint32_t stream_id;   // aclrtStreamGetId of the stream
    uint32_t thread_id;   // kernel thread id of the thread that saw the failure
    uint32_t device_id;   // user device id (what aclrtSetDevice took)
    uint32_t error_code;  // the aclError the waiting call returns for it
};

namespace npu::rt {

class ExceptionCallbacks {
  public:
    static ExceptionCallbacks &Get();

    // aclrtSetExceptionInfoCallback: the one callback of the ACL module;
    // nullptr clears it.
    void SetModuleCallback(aclrtExceptionInfoCallback callback);
    // aclrtExceptionInfoCallbackRegister / ...Unregister: a set (a second
    // register of one callback, or an unregister of an absent one, changes
    // nothing). The caller rejects nullptr.
    void Register(aclrtExceptionInfoCallback callback);
    void Unregister(aclrtExceptionInfoCallback callback);

    // Runs the module callback, then the registered ones in registration
    // order, on a copy of info. Must be called with no runtime lock held:
    // a callback may call the API (see above).
    void Report(const rtExceptionInfo &info);

  private:
    std::mutex mu_;  // Protects: module_, registered_
    aclrtExceptionInfoCallback module_ = nullptr;
    std::vector<aclrtExceptionInfoCallback> registered_;
    // Whether any callback is set: the failure path looks at this only.
    std::atomic<bool> any_{false};

    void UpdateAnyLocked() { any_.store(module_ != nullptr || !registered_.empty()); }
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_EXCEPTION_CALLBACKS_H
