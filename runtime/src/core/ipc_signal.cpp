// SPDX-License-Identifier: MIT
#include "core/ipc_signal.h"

#include <cerrno>
#include <mutex>
#include <vector>

#include "base/singleton.h"
#include "base/thread_annotations.h"
#include "core/context.h"
#include "core/copy_plan.h"
#include "core/device_session.h"
#include "core/share_registry.h"
#include "npu/hal.h"

namespace npu::rt {

namespace {

// The signals IpcSignal::KeepForever keeps. Never destroyed; empty in a
// forked child, which never touches the parent's.
struct KeptSignals {
    std::mutex mu;
    std::vector<std::unique_ptr<IpcSignal>> kept GUARDED_BY(mu);
};

}  // namespace

static_assert(IpcSignal::kKeyLength == NPU_IPC_KEY_LEN, "an IPC key");

void IpcSignal::KeepForever(std::unique_ptr<IpcSignal> signal) {
    if (!signal)
        return;
    KeptSignals &k = base::Singleton<KeptSignals>::Get();
    std::lock_guard<std::mutex> lock(k.mu);
    k.kept.push_back(std::move(signal));
}

Error IpcSignal::Export(Context &ctx, bool no_whitelist, std::unique_ptr<IpcSignal> *out) {
    std::unique_ptr<IpcSignal> sig(new IpcSignal(ctx.session_ptr(), false));
    DeviceSession &s = *sig->session_;
    struct npu_mem_alloc a = {};
    int err = npuHalMemAlloc(s.hal(), kBytes, NPU_POLICY_NORMAL_ONLY, 0, &a);
    if (err != 0)
        return Error::FromHal(err, "cannot allocate the shared words on device %d", s.user_id());
    sig->va_ = a.va;
    err = RunFill(s, reinterpret_cast<void *>(a.va), 0, kBytes);
    if (err != 0) {
        npuHalMemFree(s.hal(), a.va);
        return Error::FromHal(err, "cannot clear the shared words on device %d", s.user_id());
    }
    char raw[kKeyLength];
    err = npuHalIpcExport(s.hal(), a.va, kBytes, no_whitelist ? NPU_SHARE_NO_WHITELIST : 0, raw);
    if (err != 0) {
        npuHalMemFree(s.hal(), a.va);
        return Error::FromErrno(
            err, kShareCodes, "cannot export the shared words on device %d%s", s.user_id(),
            err == -ENOSPC ? ": the process reached its limit of IPC keys" : "");
    }
    sig->key_.assign(raw, kKeyLength);
    *out = std::move(sig);
    return Error::Ok();
}

Error IpcSignal::Import(Context &ctx, const std::string &key, std::unique_ptr<IpcSignal> *out) {
    std::unique_ptr<IpcSignal> sig(new IpcSignal(ctx.session_ptr(), true));
    DeviceSession &s = *sig->session_;
    char raw[kKeyLength] = {};
    key.copy(raw, kKeyLength);
    struct npu_ipc_import imp = {};
    int err = npuHalIpcImport(s.hal(), raw, &imp);
    if (err == -EPERM) {
        return Error::FromErrno(
            err, kShareCodes,
            "this process (tgid as the driver sees it) is not on the whitelist of "
            "key %.8s...",
            key.c_str());
    }
    if (err != 0) {
        return Error::FromErrno(err, kShareCodes, "key %.8s... cannot be opened on device %d%s",
                                key.c_str(), s.user_id(), ImportNotFoundHint(err));
    }
    if (imp.size < kBytes) {
        npuHalIpcUnimport(s.hal(), imp.va);
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "key %.8s... names memory, not an IPC event or notify", key.c_str());
    }
    sig->key_ = key.substr(0, kKeyLength);
    sig->va_ = imp.va;
    *out = std::move(sig);
    return Error::Ok();
}

IpcSignal::~IpcSignal() {
    npuHalDevice *dev = session_->hal();
    if (imported_) {
        npuHalIpcUnimport(dev, va_);
        return;
    }
    npuHalIpcDestroy(dev, key_.data());
    npuHalMemFree(dev, va_);
}

Error IpcSignal::Read(uint64_t offset, uint64_t *value) const {
    int err =
        RunCopy(*session_, value, reinterpret_cast<const void *>(va_ + offset), sizeof(*value));
    if (err != 0)
        return Error::FromHal(err, "cannot read the shared words of key %.8s...", key_.c_str());
    return Error::Ok();
}

Error IpcSignal::Write(uint64_t offset, uint64_t value) const {
    int err = RunCopy(*session_, reinterpret_cast<void *>(va_ + offset), &value, sizeof(value));
    if (err != 0)
        return Error::FromHal(err, "cannot write the shared words of key %.8s...", key_.c_str());
    return Error::Ok();
}

Error IpcSignal::SetImportPid(const int32_t *pid, size_t count) const {
    int err = npuHalIpcSetPid(session_->hal(), key_.data(), pid, static_cast<uint32_t>(count));
    if (err == -ESRCH) {
        return Error::FromErrno(err, kShareCodes,
                                "a pid names no running process (pass TGIDs from "
                                "aclrtDeviceGetBareTgid of live processes); none was added");
    }
    if (err != 0) {
        return Error::FromErrno(
            err, kShareCodes,
            "cannot whitelist %zu pid(s): exported without a whitelist, or more "
            "than %d pids",
            count, NPU_SHARE_MAX_PIDS);
    }
    return Error::Ok();
}

}  // namespace npu::rt
