// SPDX-License-Identifier: MIT
// Context: what a thread works in. For now every context is a device's
// default (primary) context, shared by all threads that set that device;
// it keeps the device session open while it lives, and owns its streams
// (destroyed, after their work, before the session closes).
#ifndef NPU_RT_CORE_CONTEXT_H
#define NPU_RT_CORE_CONTEXT_H

#include <memory>
#include <utility>

#include "core/device_session.h"
#include "core/stream.h"

namespace npu::rt {

class Context {
  public:
    explicit Context(std::shared_ptr<DeviceSession> session)
        : session_(std::move(session)), streams_(this, session_) {}

    DeviceSession &session() const { return *session_; }
    const std::shared_ptr<DeviceSession> &session_ptr() const { return session_; }
    int32_t user_device_id() const { return session_->user_id(); }
    ContextStreams &streams() { return streams_; }

  private:
    const std::shared_ptr<DeviceSession> session_;
    ContextStreams streams_;  // after session_: destroyed first
};

}  // namespace npu::rt

#endif  // NPU_RT_CORE_CONTEXT_H
