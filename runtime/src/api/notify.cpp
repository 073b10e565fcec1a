// SPDX-License-Identifier: MIT
// Notifies: aclrtCreateNotify, aclrtDestroyNotify, aclrtRecordNotify,
// aclrtWaitAndResetNotify, aclrtGetNotifyId, aclrtNotifyBatchReset, and
// between processes aclrtNotifyGetExportKey, aclrtNotifySetImportPid,
// aclrtNotifyImportByKey (core/notify.h says how they work).
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "api/stream_args.h"
#include "core/ipc_signal.h"
#include "core/notify.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::Notify;
using npu::rt::Pinned;
using npu::rt::RunApi;
using npu::rt::StreamRef;
using npu::rt::ThreadState;

namespace {

// The notify and the stream of a record or wait, in the current context.
template <typename Op>
Error OnStream(aclrtNotify notify, aclrtStream stream, Op op) {
    NPU_ACL_CHECK(notify != nullptr, "notify is NULL");
    Pinned<Notify> n;
    NPU_RETURN_IF_ERROR(Notify::Acquire(notify, &n));
    std::shared_ptr<Context> ctx;
    StreamRef s;
    NPU_RETURN_IF_ERROR(npu::rt::CurrentContextStream(stream, &ctx, &s));
    return op(*n.get(), *s.get());
}

}  // namespace

aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag) {
    return RunApi("aclrtCreateNotify", [&] {
        NPU_ACL_CHECK(notify != nullptr, "notify is NULL");
        NPU_RT_CHECK(flag == ACL_NOTIFY_DEFAULT || flag == ACL_NOTIFY_DEVICE_USE_ONLY,
                     "flag 0x%llx is neither ACL_NOTIFY_DEFAULT nor ACL_NOTIFY_DEVICE_USE_ONLY",
                     static_cast<unsigned long long>(flag));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return Notify::Create(*ctx, flag, notify);
    });
}

aclError aclrtDestroyNotify(aclrtNotify notify) {
    return RunApi("aclrtDestroyNotify", [&] {
        NPU_ACL_CHECK(notify != nullptr, "notify is NULL");
        return Notify::Destroy(notify);
    });
}

aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream) {
    return RunApi("aclrtRecordNotify", [&] {
        return OnStream(notify, stream, [](Notify &n, npu::rt::Stream &s) { return n.Record(s); });
    });
}

aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout) {
    // The timeout (seconds; 0 and UINT32_MAX: forever) is accepted and not
    // enforced, as on upstream's chips without timed notify waits.
    (void)timeout;
    return RunApi("aclrtWaitAndResetNotify", [&] {
        return OnStream(notify, stream,
                        [](Notify &n, npu::rt::Stream &s) { return n.WaitAndReset(s); });
    });
}

aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId) {
    return RunApi("aclrtGetNotifyId", [&] {
        NPU_ACL_CHECK(notify != nullptr, "notify is NULL");
        NPU_ACL_CHECK(notifyId != nullptr, "notifyId is NULL");
        Pinned<Notify> n;
        NPU_RETURN_IF_ERROR(Notify::Acquire(notify, &n));
        *notifyId = n->id();
        return Error::Ok();
    });
}

aclError aclrtNotifyBatchReset(aclrtNotify *notifies, size_t num) {
    return RunApi("aclrtNotifyBatchReset", [&] {
        NPU_ACL_CHECK(notifies != nullptr, "notifies is NULL");
        NPU_RT_CHECK(num != 0, "num is 0");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        for (size_t i = 0; i < num; ++i) {
            NPU_ACL_CHECK(notifies[i] != nullptr, "notifies[%zu] is NULL", i);
            Pinned<Notify> n;
            NPU_RETURN_IF_ERROR(Notify::Acquire(notifies[i], &n));
            NPU_RETURN_IF_ERROR(n->Reset());
        }
        return Error::Ok();
    });
}

aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags) {
    return RunApi("aclrtNotifyGetExportKey", [&] {
        NPU_ACL_CHECK(notify != nullptr, "notify is NULL");
        NPU_ACL_CHECK(key != nullptr, "key is NULL");
        NPU_RT_CHECK(len != 0, "len is 0");
        NPU_RT_CHECK(flags == ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT ||
                         flags == ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                     "flags 0x%llx is neither ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT nor "
                     "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION",
                     static_cast<unsigned long long>(flags));
        NPU_RT_CHECK(len > npu::rt::IpcSignal::kKeyLength,
                     "len %zu is too short: the key takes %zu characters and a NUL", len,
                     npu::rt::IpcSignal::kKeyLength);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        Pinned<Notify> n;
        NPU_RETURN_IF_ERROR(Notify::Acquire(notify, &n));
        std::string k;
        NPU_RETURN_IF_ERROR(
            n->Export(*ctx, flags == ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, &k));
        std::memcpy(key, k.data(), k.size());
        key[k.size()] = '\0';
        return Error::Ok();
    });
}

aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num) {
    return RunApi("aclrtNotifySetImportPid", [&] {
        NPU_ACL_CHECK(notify != nullptr, "notify is NULL");
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        NPU_RT_CHECK(num != 0, "num is 0");
        Pinned<Notify> n;
        NPU_RETURN_IF_ERROR(Notify::Acquire(notify, &n));
        return n->SetImportPid(pid, num);
    });
}

aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags) {
    return RunApi("aclrtNotifyImportByKey", [&] {
        NPU_ACL_CHECK(notify != nullptr, "notify is NULL");
        NPU_ACL_CHECK(key != nullptr, "key is NULL");
        NPU_RT_CHECK(flags <= 3,
                     "flags 0x%llx: only ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT and "
                     "ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS are defined",
                     static_cast<unsigned long long>(flags));
        const size_t n = strnlen(key, npu::rt::IpcSignal::kKeyLength + 1);
        NPU_RT_CHECK(n == npu::rt::IpcSignal::kKeyLength,
                     "key is not a key of aclrtNotifyGetExportKey (%zu characters)", n);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        // ENABLE_PEER_ACCESS needs nothing more: the mapping is the
        // importing device's own (as for aclrtIpcMemImportByKey).
        return Notify::Import(*ctx, std::string(key, n), notify);
    });
}
