// SPDX-License-Identifier: MIT
// IPC memory by name: rtIpcSetMemoryName, rtSetIpcMemPid,
// rtSetIpcMemorySuperPodPid, rtIpcDestroyMemoryName, rtIpcOpenMemory,
// rtIpcCloseMemory (the aclrtIpcMem* calls under other names; a name is an
// IPC key).
#include <cstring>
#include <memory>
#include <string>

#include "core/ipc_memory.h"
#include "core/thread_state.h"
#include "rt_api/rt_call.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::FromAcl;
using npu::rt::RunApi;
using npu::rt::ThreadState;

namespace {

Error SetPids(const char *name, int32_t pid[], int32_t num) {
    NPU_RT_CHECK(name != nullptr, "name is NULL");
    NPU_RT_CHECK(pid != nullptr, "pid is NULL");
    NPU_RT_CHECK(num > 0, "num %d is not positive", num);
    return FromAcl(aclrtIpcMemSetImportPid(name, pid, static_cast<size_t>(num)),
                   "aclrtIpcMemSetImportPid");
}

}  // namespace

rtError_t rtIpcSetMemoryName(const void *ptr, uint64_t byteCount, char_t *name, uint32_t len) {
    return RunApi("rtIpcSetMemoryName", [&] {
        NPU_RT_CHECK(ptr != nullptr, "ptr is NULL");
        NPU_RT_CHECK(name != nullptr, "name is NULL");
        return FromAcl(aclrtIpcMemGetExportKey(const_cast<void *>(ptr), byteCount, name, len,
                                               ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT),
                       "aclrtIpcMemGetExportKey");
    });
}

rtError_t rtSetIpcMemPid(const char_t *name, int32_t pid[], int32_t num) {
    return RunApi("rtSetIpcMemPid", [&] { return SetPids(name, pid, num); });
}

rtError_t rtSetIpcMemorySuperPodPid(const char_t *name, uint32_t sdid, int32_t pid[], int32_t num) {
    // sdid names the importers' device in a super pod; without one, every
    // importer is on this host and it selects nothing.
    (void)sdid;
    return RunApi("rtSetIpcMemorySuperPodPid", [&] { return SetPids(name, pid, num); });
}

rtError_t rtIpcDestroyMemoryName(const char_t *name) {
    return RunApi("rtIpcDestroyMemoryName", [&] {
        NPU_RT_CHECK(name != nullptr, "name is NULL");
        const size_t n = strnlen(name, npu::rt::ipc::kKeyLength + 1);
        NPU_RT_CHECK(n == npu::rt::ipc::kKeyLength,
                     "name is %zu characters, not a name rtIpcSetMemoryName gave (%zu)", n,
                     npu::rt::ipc::kKeyLength);
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return npu::rt::ipc::DestroyKey(*ctx, std::string(name, n));
    });
}

rtError_t rtIpcOpenMemory(void **ptr, const char_t *name) {
    return RunApi("rtIpcOpenMemory", [&] {
        NPU_RT_CHECK(ptr != nullptr, "ptr is NULL");
        NPU_RT_CHECK(name != nullptr, "name is NULL");
        return FromAcl(aclrtIpcMemImportByKey(ptr, name, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT),
                       "aclrtIpcMemImportByKey");
    });
}

rtError_t rtIpcCloseMemory(const void *ptr) {
    return RunApi("rtIpcCloseMemory", [&] {
        NPU_RT_CHECK(ptr != nullptr, "ptr is NULL");
        return npu::rt::ipc::CloseImportAt(ptr);
    });
}
