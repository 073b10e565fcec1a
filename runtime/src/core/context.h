// SPDX-License-Identifier: MIT
// Context: what a thread works in. Each device has one primary (default)
// context, made by the first aclrtSetDevice and shared by every thread that
// sets the device; aclrtCreateContext makes explicit ones beside it. Either
// kind keeps the device session open while it lives and owns its streams
// (destroyed, after their work, before the session closes). Memory belongs
// to the device, not to a context: every context of a device shares its
// session. DeviceManager owns contexts and gives each its aclrtContext
// handle.
#ifndef NPU_RT_CORE_CONTEXT_H
#define NPU_RT_CORE_CONTEXT_H

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "core/device_session.h"
#include "core/host_tasks.h"
#include "core/model_ri.h"
#include "core/stream.h"

namespace npu::rt {

class Context {
  public:
    enum class Kind { kPrimary, kExplicit };

    Context(std::shared_ptr<DeviceSession> session, Kind kind)
        : session_(std::move(session)),
          kind_(kind),
          host_funcs_(session_),
          streams_(this, session_) {}
    // The models made here go first (as upstream's context teardown), then
    // the streams, which end the executions still running on them.
    ~Context() { DropContextModels(this); }
    Context(const Context &) = delete;
    Context &operator=(const Context &) = delete;

    DeviceSession &session() const { return *session_; }
    const std::shared_ptr<DeviceSession> &session_ptr() const { return session_; }
    int32_t user_device_id() const { return session_->user_id(); }
    ContextStreams &streams() { return streams_; }
    // The thread that runs aclrtLaunchHostFunc's work.
    HostFuncThread &host_funcs() { return host_funcs_; }
    bool primary() const { return kind_ == Kind::kPrimary; }
    // The aclrtContext handle (set once by DeviceManager when it registers
    // the context, before any other thread can see it).
    void *handle() const { return handle_; }

    // aclrtCtxSetSysParamOpt / aclrtCtxGetSysParamOpt (options 0..2): false
    // when opt was never set in this context.
    void SetSysParam(int opt, int64_t value) {
        std::lock_guard<std::mutex> lock(sys_params_mu_);
        sys_params_[static_cast<size_t>(opt)] = value;
    }
    bool SysParam(int opt, int64_t *value) {
        std::lock_guard<std::mutex> lock(sys_params_mu_);
        const std::optional<int64_t> &v = sys_params_[static_cast<size_t>(opt)];
        if (v)
            *value = *v;
        return v.has_value();
    }

  private:
    friend class DeviceManager;

    const std::shared_ptr<DeviceSession> session_;
    const Kind kind_;
    void *handle_ = nullptr;
    std::mutex sys_params_mu_;  // Protects: sys_params_
    std::array<std::optional<int64_t>, 3> sys_params_;
    HostFuncThread host_funcs_;  // destroyed after the streams it serves
    ContextStreams streams_;     // after session_: destroyed first
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_CONTEXT_H
