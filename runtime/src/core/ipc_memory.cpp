// SPDX-License-Identifier: MIT
#include "core/ipc_memory.h"
#include "core/checker.h"

#include <cerrno>
#include <cstring>

#include "core/allocation_registry.h"
#include "core/device_manager.h"
#include "core/share_registry.h"
#include "npu/hal.h"

namespace npu::rt::ipc {

static_assert(kKeyLength == NPU_IPC_KEY_LEN, "an IPC key");

Error GetBareTgid(int32_t *pid) {
    int err = npuHalGetBareTgid(pid);
    if (err != 0)
        return Error::FromHal(err, "cannot ask the driver (backend %s)", npuHalBackendName());
    return Error::Ok();
}

Error ExportKey(void *dev_ptr, size_t size, bool no_whitelist, char *key) {
    std::shared_ptr<DeviceSession> s = DeviceManager::Get().FindSession(dev_ptr, 1);
    if (!s)
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID, "devPtr %p is not device memory", dev_ptr);
    char raw[kKeyLength];
    int err = npuHalIpcExport(s->hal(), reinterpret_cast<uintptr_t>(dev_ptr), size,
                              no_whitelist ? NPU_SHARE_NO_WHITELIST : 0, raw);
    if (err == -ENOSPC) {
        return Error::FromErrno(err, kShareCodes,
                                "the process reached its limit of IPC keys on device %d (npu-smi "
                                "shows use and limits)",
                                s->user_id());
    }
    if (err != 0) {
        return Error::FromErrno(err, kShareCodes,
                                "devPtr %p (%zu bytes) on device %d cannot be exported: it must be "
                                "the base of an aclrtMalloc allocation of at least size bytes",
                                dev_ptr, size, s->user_id());
    }
    std::memcpy(key, raw, kKeyLength);
    key[kKeyLength] = '\0';
    ShareRegistry::Get().AddExportedKey(std::string(raw, kKeyLength), s);
    return Error::Ok();
}

Error SetImportPid(Context &ctx, const std::string &key, int32_t *pid, size_t count) {
    std::shared_ptr<DeviceSession> s = ShareRegistry::Get().ExporterOfKey(key);
    if (!s)
        s = ctx.session_ptr();
    int err = npuHalIpcSetPid(s->hal(), key.data(), pid, static_cast<uint32_t>(count));
    if (err == -ESRCH) {
        return Error::FromErrno(
            err, kShareCodes,
            "cannot whitelist %zu pid(s) for key %.8s...: a pid names no running "
            "process (pass TGIDs from aclrtDeviceGetBareTgid of live processes); "
            "none was added",
            count, key.c_str());
    }
    if (err != 0) {
        return Error::FromErrno(err, kShareCodes,
                                "cannot whitelist %zu pid(s) for key %.8s...: unknown key, not "
                                "exported by this process, exported without a whitelist, or more "
                                "than %d pids",
                                count, key.c_str(), NPU_SHARE_MAX_PIDS);
    }
    return Error::Ok();
}

Error ImportKey(Context &ctx, const std::string &key, void **dev_ptr) {
    DeviceSession &s = ctx.session();
    // The import is a mapping in this device's own context: its engines
    // reach the exporter's frames directly (one driver instance), so
    // ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS needs no further step.
    struct npu_ipc_import imp = {};
    int err = npuHalIpcImport(s.hal(), key.data(), &imp);
    if (err == -EPERM) {
        return Error::FromErrno(err, kShareCodes,
                                "this process (tgid as the driver sees it) is not on the whitelist "
                                "of key %.8s...",
                                key.c_str());
    }
    if (err == -ENOSPC) {
        return Error::FromErrno(err, kShareCodes,
                                "key %.8s... cannot be imported: the process reached its limit of "
                                "allocations on device %d",
                                key.c_str(), s.user_id());
    }
    if (err != 0) {
        return Error::FromErrno(err, kShareCodes, "key %.8s... cannot be imported on device %d%s",
                                key.c_str(), s.user_id(), ImportNotFoundHint(err));
    }
    s.allocations().Insert(Allocation::Of(MemoryKind::kIpcImport, s.user_id(), imp.va, imp.size,
                                          imp.size, imp.size, imp.page_size));
    IpcImport rec;
    rec.session = ctx.session_ptr();
    rec.va = imp.va;
    ShareRegistry::Get().AddImport(key, rec);
    if (check::On())
        check::DeviceAllocated(reinterpret_cast<void *>(static_cast<uintptr_t>(imp.va)), imp.size,
                               s.user_id(), true);
    *dev_ptr = reinterpret_cast<void *>(static_cast<uintptr_t>(imp.va));
    return Error::Ok();
}

namespace {

Error Unimport(const IpcImport &imp, const std::string &key) {
    std::shared_ptr<DeviceSession> s = imp.session.lock();
    if (!s)
        return Error::Ok();  // the device was reset: the import went with it
    s->allocations().Remove(imp.va);
    if (check::On())
        check::DeviceUnmapped(reinterpret_cast<void *>(static_cast<uintptr_t>(imp.va)));
    int err = npuHalIpcUnimport(s->hal(), imp.va);
    if (err != 0)
        return Error::FromErrno(err, kShareCodes, "unmapping the import of key %.8s...",
                                key.c_str());
    return Error::Ok();
}

}  // namespace

Error CloseKey(Context &ctx, const std::string &key) {
    ShareRegistry &reg = ShareRegistry::Get();
    if (std::optional<IpcImport> imp = reg.TakeOldestImport(key))
        return Unimport(*imp, key);
    if (reg.ForgetAttr(key))
        return Error::Ok();
    return DestroyKey(ctx, key);
}

Error CloseImportAt(const void *dev_ptr) {
    std::string key;
    const uint64_t va = reinterpret_cast<uintptr_t>(dev_ptr);
    std::optional<IpcImport> imp = ShareRegistry::Get().TakeImportAt(va, &key);
    if (!imp) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "%p is not an address that opening an IPC name returned (or it was "
                             "closed already)",
                             dev_ptr);
    }
    return Unimport(*imp, key);
}

Error DestroyKey(Context &ctx, const std::string &key) {
    ShareRegistry &reg = ShareRegistry::Get();
    std::shared_ptr<DeviceSession> s = reg.ExporterOfKey(key);
    if (!s)
        s = ctx.session_ptr();
    int err = npuHalIpcDestroy(s->hal(), key.data());
    if (err != 0) {
        return Error::FromErrno(err, kShareCodes,
                                "key %.8s... is neither imported nor exported by this process",
                                key.c_str());
    }
    reg.ForgetExportedKey(key);
    return Error::Ok();
}

}  // namespace npu::rt::ipc
