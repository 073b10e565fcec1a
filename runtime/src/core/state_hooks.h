// SPDX-License-Identifier: MIT
// Named callbacks: those of aclrtRegDeviceStateCallback (DeviceHooks), of
// aclrtRegStreamStateCallback (StreamHooks) and of
// aclrtSetDeviceTaskAbortCallback (TaskAbortHooks).
//
// DeviceHooks run with ACL_RT_DEVICE_STATE_SET_PRE / _SET_POST around
// aclrtSetDevice and ACL_RT_DEVICE_STATE_RESET_PRE / _RESET_POST around
// aclrtResetDevice and aclrtResetDeviceForce: PRE once the device id is
// known to be valid, before the call does anything; POST after the call
// succeeded (a call that fails after PRE runs no POST). Every call runs
// them, not only the one that opens or tears down the device.
//
// StreamHooks run with ACL_RT_STREAM_STATE_CREATE_POST once a stream exists
// and with ACL_RT_STREAM_STATE_DESTROY_PRE before it goes (default streams
// and the streams a destroyed context takes with it included); the handle
// is live during both calls.
//
// TaskAbortHooks run with ACL_RT_DEVICE_TASK_ABORT_PRE before
// aclrtDeviceTaskAbort aborts the device's streams and with
// ACL_RT_DEVICE_TASK_ABORT_POST after; what they return is not looked at.
//
// Every kind runs on the thread that makes the call, with no lock of the
// runtime held, in the order the hooks were registered.
#ifndef NPU_RT_CORE_STATE_HOOKS_H
#define NPU_RT_CORE_STATE_HOOKS_H

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl_rt.h"
#include "base/singleton.h"
#include "core/error.h"

namespace npu::rt {

// Callback: a function whose last parameter is the registered args.
template <typename Callback>
class StateHooks {
  public:
    // what: "device state", "stream state", ..., for messages.
    explicit StateHooks(const char *what) : what_(what) {}

    // Adds hook name; ACL_ERROR_RT_PARAM_INVALID when the name is taken.
    // A null callback removes the name (no error when absent).
    Error Register(const std::string &name, Callback callback, void *args) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = std::find_if(hooks_.begin(), hooks_.end(),
                               [&](const Hook &h) { return h.name == name; });
        if (callback == nullptr) {
            if (it != hooks_.end())
                hooks_.erase(it);
        } else {
            if (it != hooks_.end()) {
                return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                                     "a %s callback named \"%s\" is already registered "
                                     "(register NULL under that name first to replace it)",
                                     what_, name.c_str());
            }
            hooks_.push_back(Hook{name, callback, args});
        }
        any_.store(!hooks_.empty(), std::memory_order_release);
        return Error::Ok();
    }

    // Runs every hook with arguments (what, state, ...) and its args.
    template <typename... Arguments>
    void Notify(Arguments... arguments) {
        if (!any_.load(std::memory_order_acquire))
            return;
        std::vector<Hook> hooks;
        {
            std::lock_guard<std::mutex> lock(mu_);
            hooks = hooks_;
        }
        // Unlocked: a hook may register or remove hooks, or use the subject.
        for (const Hook &hook : hooks)
            hook.callback(arguments..., hook.args);
    }

  private:
    struct Hook {
        std::string name;
        Callback callback;
        void *args;
    };

    const char *const what_;
    std::mutex mu_;  // Protects: hooks_
    std::vector<Hook> hooks_;
    // Whether hooks_ is non-empty: the device and stream paths look at this only.
    std::atomic<bool> any_{false};
};

class DeviceHooks : public StateHooks<aclrtDeviceStateCallback> {
  public:
    DeviceHooks() : StateHooks("device state") {}
    static DeviceHooks &Get() {
        // Never destroyed: devices may be reset from static destructors.
        return base::Singleton<DeviceHooks>::Get();
    }
};

class StreamHooks : public StateHooks<aclrtStreamStateCallback> {
  public:
    StreamHooks() : StateHooks("stream state") {}
    static StreamHooks &Get() {
        // Never destroyed: streams may be destroyed from static destructors.
        return base::Singleton<StreamHooks>::Get();
    }
};

class TaskAbortHooks : public StateHooks<aclrtDeviceTaskAbortCallback> {
  public:
    TaskAbortHooks() : StateHooks("device task abort") {}
    static TaskAbortHooks &Get() { return base::Singleton<TaskAbortHooks>::Get(); }
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_STATE_HOOKS_H
