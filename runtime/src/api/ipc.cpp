// SPDX-License-Identifier: MIT
// IPC memory and aclrtDeviceGetBareTgid: export a whole
// allocation under a random key, let whitelisted processes import it.
#include <cstring>
#include <string>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/ipc_memory.h"
#include "core/share_registry.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::ShareRegistry;
using npu::rt::ThreadState;
using npu::rt::ipc::kKeyLength;

namespace {

// A key as the caller passed it: exactly kKeyLength characters before
// the NUL, else it cannot name anything (the driver would say "unknown").
Error CheckKey(const char *key, std::string *out) {
    size_t n = strnlen(key, kKeyLength + 1);
    if (n != kKeyLength) {
        return Error::Format(ACL_ERROR_RT_PARAM_INVALID,
                             "key \"%.*s\" is not a key: %zu characters, expected %zu",
                             static_cast<int>(n > 80 ? 80 : n), key, n, kKeyLength);
    }
    out->assign(key, kKeyLength);
    return Error::Ok();
}

}  // namespace

aclError aclrtDeviceGetBareTgid(int32_t *pid) {
    return RunApi("aclrtDeviceGetBareTgid", [&] {
        NPU_ACL_CHECK(pid != nullptr, "pid is NULL");
        return npu::rt::ipc::GetBareTgid(pid);
    });
}

aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags) {
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
        NPU_RT_CHECK(len > kKeyLength, "len %zu is too small: a key needs %zu bytes", len,
                     kKeyLength + 1);
        return npu::rt::ipc::ExportKey(devPtr, size, flags != 0, key);
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
        return npu::rt::ipc::SetImportPid(*ctx, k, pid, num);
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
        return npu::rt::ipc::ImportKey(*ctx, k, devPtr);
    });
}

aclError aclrtIpcMemClose(const char *key) {
    return RunApi("aclrtIpcMemClose", [&] {
        NPU_ACL_CHECK(key != nullptr, "key is NULL");
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        std::string k;
        NPU_RETURN_IF_ERROR(CheckKey(key, &k));
        return npu::rt::ipc::CloseKey(*ctx, k);
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
