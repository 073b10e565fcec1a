// SPDX-License-Identifier: MIT
// IPC memory (spec §17) and aclrtDeviceGetBareTgid (§7.8): export a whole
// allocation under a random key, let whitelisted processes import it.
#include <cerrno>
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/share_registry.h"
#include "core/thread_state.h"
#include "npu/hal.h"

using npu::rt::Allocation;
using npu::rt::Context;
using npu::rt::DeviceManager;
using npu::rt::DeviceSession;
using npu::rt::Error;
using npu::rt::IpcImport;
using npu::rt::MemoryKind;
using npu::rt::RunApi;
using npu::rt::ShareError;
using npu::rt::ShareRegistry;
using npu::rt::ThreadState;

namespace {

// A key as the caller passed it: exactly NPU_IPC_KEY_LEN characters before
// the NUL, else it cannot name anything (the driver would say "unknown").
Error CheckKey(const char *key, std::string *out) {
    size_t n = strnlen(key, NPU_IPC_KEY_LEN + 1);
    if (n != NPU_IPC_KEY_LEN) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "key \"%.*s\" is not a key: %zu characters, expected %d",
                             static_cast<int>(n > 80 ? 80 : n), key, n, NPU_IPC_KEY_LEN);
    }
    out->assign(key, NPU_IPC_KEY_LEN);
    return Error::Ok();
}

}  // namespace

aclError aclrtDeviceGetBareTgid(int32_t *pid) {
    return RunApi("aclrtDeviceGetBareTgid", [&] {
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        int err = halGetBareTgid(pid);
        if (err != 0)
            return Error::FromHal(err, "cannot ask the driver (backend %s)", halBackendName());
        return Error::Ok();
    });
}

aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len,
                                 uint64_t flags) {
    return RunApi("aclrtIpcMemGetExportKey", [&] {
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL");
        NPU_ACL_CHECK(key != nullptr, "key is NULL");
        NPU_RT_CHECK(size != 0, "size is 0");
        NPU_RT_CHECK(len != 0, "len is 0");
        NPU_RT_CHECK(flags <= ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                     "flags 0x%llx is not ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT or "
                     "_DISABLE_PID_VALIDATION",
                     static_cast<unsigned long long>(flags));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        NPU_RT_CHECK(len > NPU_IPC_KEY_LEN, "len %zu is too small: a key needs %d bytes", len,
                     NPU_IPC_KEY_LEN + 1);
        std::shared_ptr<DeviceSession> s = DeviceManager::Get().FindSession(devPtr, 1);
        NPU_RT_CHECK(s != nullptr, "devPtr %p is not device memory", devPtr);
        uint32_t npu_flags = flags ? NPU_SHARE_NO_WHITELIST : 0;
        char raw[NPU_IPC_KEY_LEN];
        int err = halIpcExport(s->hal(), reinterpret_cast<uintptr_t>(devPtr), size, npu_flags, raw);
        if (err == -ENOSPC) {
            return ShareError(err, false,
                              "the process reached its limit of IPC keys on device %d (npu-smi "
                              "shows use and limits)",
                              s->user_id());
        }
        if (err != 0) {
            return ShareError(err, false,
                              "devPtr %p (%zu bytes) on device %d cannot be exported: it must "
                              "be the base of an aclrtMalloc allocation of at least size bytes",
                              devPtr, size, s->user_id());
        }
        std::memcpy(key, raw, NPU_IPC_KEY_LEN);
        key[NPU_IPC_KEY_LEN] = '\0';
        ShareRegistry::Get().AddExportedKey(std::string(raw, NPU_IPC_KEY_LEN), s);
        return Error::Ok();
    });
}

aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num) {
    return RunApi("aclrtIpcMemSetImportPid", [&] {
        NPU_ACL_CHECK(key != nullptr, "key is NULL");
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        NPU_RT_CHECK(static_cast<int32_t>(num) > 0, "num %zu is not a positive int32", num);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        std::string k;
        NPU_RETURN_IF_ERROR(CheckKey(key, &k));
        std::shared_ptr<DeviceSession> s = ShareRegistry::Get().ExporterOfKey(k);
        if (!s)
            s = ctx->session_ptr();
        int err = halIpcSetPid(s->hal(), k.data(), pid, static_cast<uint32_t>(num));
        if (err == -ESRCH) {
            return ShareError(err, false,
                              "cannot whitelist %zu pid(s) for key %.8s...: a pid names no "
                              "running process (pass TGIDs from aclrtDeviceGetBareTgid of live "
                              "processes); none was added",
                              num, key);
        }
        if (err != 0) {
            return ShareError(err, false,
                              "cannot whitelist %zu pid(s) for key %.8s...: unknown key, not "
                              "exported by this process, exported without a whitelist, or "
                              "more than %d pids",
                              num, key, NPU_SHARE_MAX_PIDS);
        }
        return Error::Ok();
    });
}

aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags) {
    return RunApi("aclrtIpcMemImportByKey", [&] {
        NPU_ACL_CHECK(devPtr != nullptr, "devPtr is NULL");
        NPU_ACL_CHECK(key != nullptr, "key is NULL");
        NPU_RT_CHECK(flags <= ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS,
                     "flags 0x%llx is not ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT or "
                     "_ENABLE_PEER_ACCESS",
                     static_cast<unsigned long long>(flags));
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        std::string k;
        NPU_RETURN_IF_ERROR(CheckKey(key, &k));
        DeviceSession &s = ctx->session();
        // The import is a mapping in this device's own context: its engines
        // reach the exporter's frames directly (one driver instance), so
        // ENABLE_PEER_ACCESS needs no further step here.
        struct npu_ipc_import imp = {};
        int err = halIpcImport(s.hal(), k.data(), &imp);
        if (err == -EPERM) {
            return ShareError(err, false,
                              "this process (tgid as the driver sees it) is not on the "
                              "whitelist of key %.8s...",
                              key);
        }
        if (err == -ENOSPC) {
            return ShareError(err, false,
                              "key %.8s... cannot be imported: the process reached its limit of "
                              "allocations on device %d",
                              key, s.user_id());
        }
        if (err != 0) {
            return ShareError(err, false, "key %.8s... cannot be imported on device %d%s", key,
                              s.user_id(), npu::rt::ImportNotFoundHint(err));
        }
        Allocation a;
        a.base = imp.va;
        a.requested = imp.size;
        a.reserved = imp.size;
        a.mapped = imp.size;
        a.page_size = imp.page_size;
        a.user_device = s.user_id();
        a.kind = MemoryKind::kIpcImport;
        s.allocations().Insert(a);
        IpcImport rec;
        rec.session = ctx->session_ptr();
        rec.va = imp.va;
        ShareRegistry::Get().AddImport(k, rec);
        *devPtr = reinterpret_cast<void *>(static_cast<uintptr_t>(imp.va));
        return Error::Ok();
    });
}

aclError aclrtIpcMemClose(const char *key) {
    return RunApi("aclrtIpcMemClose", [&] {
        NPU_ACL_CHECK(key != nullptr, "key is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        std::string k;
        NPU_RETURN_IF_ERROR(CheckKey(key, &k));
        ShareRegistry &reg = ShareRegistry::Get();
        // An importer drops its oldest import of the key.
        if (std::optional<IpcImport> imp = reg.TakeOldestImport(k)) {
            std::shared_ptr<DeviceSession> s = imp->session.lock();
            if (!s)
                return Error::Ok();  // the device was reset: the import went with it
            s->allocations().Remove(imp->va);
            int err = halIpcUnimport(s->hal(), imp->va);
            if (err != 0)
                return ShareError(err, false, "unmapping the import of key %.8s...", key);
            return Error::Ok();
        }
        // Only an attribute was set here: forget it.
        if (reg.ForgetAttr(k))
            return Error::Ok();
        // Else this process is the exporter: destroy the key.
        std::shared_ptr<DeviceSession> s = reg.ExporterOfKey(k);
        if (!s)
            s = ctx->session_ptr();
        int err = halIpcDestroy(s->hal(), k.data());
        if (err != 0) {
            return ShareError(err, false,
                              "key %.8s... is neither imported nor exported by this process",
                              key);
        }
        reg.ForgetExportedKey(k);
        return Error::Ok();
    });
}

aclError aclrtIpcMemSetAttr(const char *key, aclrtIpcMemAttrType type, uint64_t attr) {
    return RunApi("aclrtIpcMemSetAttr", [&] {
        NPU_RT_CHECK(key != nullptr, "key is NULL");
        int32_t t = npu::rt::EnumValue(type);
        NPU_RT_CHECK(t == ACL_RT_IPC_MEM_ATTR_ACCESS_LINK,
                     "type %d is not ACL_RT_IPC_MEM_ATTR_ACCESS_LINK", t);
        NPU_RT_CHECK(attr <= ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_UB_MULTI_PORT_PATH,
                     "attr %llu is not an ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_* value",
                     static_cast<unsigned long long>(attr));
        if (attr > ACL_RT_IPC_MEM_ATTR_ACCESS_LINK_HCCS) {
            return Error::Format(ACL_ERROR_RT_LINK_TYPE_NOT_SUPPORTED,
                                 "link %llu (UB) is not available on this device",
                                 static_cast<unsigned long long>(attr));
        }
        std::string k;
        NPU_RETURN_IF_ERROR(CheckKey(key, &k));
        // One device die: every link reaches the memory; the value is kept
        // so that a later close of a key only configured here succeeds.
        ShareRegistry::Get().SetAttr(k, attr);
        return Error::Ok();
    });
}
