// SPDX-License-Identifier: MIT
#include "core/runtime_config.h"

#include "core/device_info.h"
#include "core/device_manager.h"
#include "base/singleton.h"

namespace npu::rt {
namespace {

// The stream handle whose limits this thread uses.
thread_local void *t_bound_stream = nullptr;

}  // namespace

RuntimeConfig &RuntimeConfig::Get() {
    return base::Singleton<RuntimeConfig>::Get();  // never destroyed, see Library::Get
}

// The child has only the forking thread: the parent's values are read
// without its lock, which another parent thread may have held at fork().
RuntimeConfig *RuntimeConfig::ForkChildCopy(const RuntimeConfig &parent) {
    auto *child = new RuntimeConfig();
    child->sys_params_ = parent.sys_params_;
    child->dev_limits_ = parent.dev_limits_;
    child->op_timeout_us_ = parent.op_timeout_us_;
    child->op_wait_timeout_s_ = parent.op_wait_timeout_s_;
    child->ts_id_ = parent.ts_id_;
    t_bound_stream = nullptr;  // the forking thread's, the only one left
    return child;
}

void RuntimeConfig::SetSysParam(int opt, int64_t value) {
    std::lock_guard<std::mutex> lock(mu_);
    sys_params_[static_cast<size_t>(opt)] = value;
}

int64_t RuntimeConfig::SysParam(int opt) {
    std::lock_guard<std::mutex> lock(mu_);
    return sys_params_[static_cast<size_t>(opt)];
}

void RuntimeConfig::SetDeviceLimit(int limit, size_t value) {
    std::lock_guard<std::mutex> lock(mu_);
    dev_limits_[static_cast<size_t>(limit)] = value;
}

size_t RuntimeConfig::DeviceLimit(int limit) {
    std::lock_guard<std::mutex> lock(mu_);
    return dev_limits_[static_cast<size_t>(limit)];
}

uint32_t RuntimeConfig::HardwareCores(int type) {
    return static_cast<uint32_t>(type == 0 ? DeviceProfile::kAiCores : DeviceProfile::kVectorCores);
}

uint32_t RuntimeConfig::DeviceResLimit(int32_t user_id, int type) {
    std::shared_ptr<DeviceSession> session = DeviceManager::Get().SessionOf(user_id);
    std::lock_guard<std::mutex> lock(mu_);
    if (session && user_id >= 0 && static_cast<size_t>(user_id) < device_limits_.size()) {
        const DeviceLimits &l = device_limits_[static_cast<size_t>(user_id)];
        if (l.session.lock() == session)
            return l.cores[static_cast<size_t>(type)];
    }
    return HardwareCores(type);
}

Error RuntimeConfig::SetDeviceResLimit(int32_t user_id, int type, uint32_t value) {
    std::shared_ptr<DeviceSession> session = DeviceManager::Get().SessionOf(user_id);
    if (!session) {
        return Error::Format(ACL_ERROR_RT_DEV_SETUP_ERROR,
                             "device %d is not set in this process (aclrtSetDevice first)",
                             user_id);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (device_limits_.size() <= static_cast<size_t>(user_id))
        device_limits_.resize(static_cast<size_t>(user_id) + 1);
    DeviceLimits &l = device_limits_[static_cast<size_t>(user_id)];
    if (l.session.lock() != session) {
        l.session = session;
        for (int t = 0; t < kResTypes; t++)
            l.cores[static_cast<size_t>(t)] = HardwareCores(t);
    }
    l.cores[static_cast<size_t>(type)] = value;
    return Error::Ok();
}

Error RuntimeConfig::ResetDeviceResLimit(int32_t user_id) {
    std::shared_ptr<DeviceSession> session = DeviceManager::Get().SessionOf(user_id);
    if (!session) {
        return Error::Format(ACL_ERROR_RT_DEV_SETUP_ERROR,
                             "device %d is not set in this process (aclrtSetDevice first)",
                             user_id);
    }
    std::lock_guard<std::mutex> lock(mu_);
    if (static_cast<size_t>(user_id) < device_limits_.size())
        device_limits_[static_cast<size_t>(user_id)] = DeviceLimits{};
    return Error::Ok();
}

void RuntimeConfig::BindThreadStream(void *handle) {
    t_bound_stream = handle;
}

void RuntimeConfig::UnbindThreadStream(void *handle) {
    if (t_bound_stream == handle)
        t_bound_stream = nullptr;
}

void *RuntimeConfig::BoundThreadStream() {
    return t_bound_stream;
}

uint64_t RuntimeConfig::SetOpTimeout(uint64_t us, bool zero_is_max) {
    uint64_t applied;
    if (us == 0) {
        applied = zero_is_max ? kOpIntervalUs * kOpMaxIntervals : kNoTimeout;
    } else {
        uint64_t n = us / kOpIntervalUs + (us % kOpIntervalUs != 0 ? 1 : 0);
        applied = (n > kOpMaxIntervals ? kOpMaxIntervals : n) * kOpIntervalUs;
    }
    std::lock_guard<std::mutex> lock(mu_);
    op_timeout_us_ = applied;
    return applied;
}

uint64_t RuntimeConfig::OpTimeout() {
    std::lock_guard<std::mutex> lock(mu_);
    return op_timeout_us_;
}

void RuntimeConfig::SetOpWaitTimeout(uint32_t seconds) {
    std::lock_guard<std::mutex> lock(mu_);
    op_wait_timeout_s_ = seconds;
}

void RuntimeConfig::SetTsId(int32_t ts) {
    std::lock_guard<std::mutex> lock(mu_);
    ts_id_ = ts;
}

}  // namespace npu::rt
