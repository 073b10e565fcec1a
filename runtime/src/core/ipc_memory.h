// SPDX-License-Identifier: MIT
// IPC memory (CANN's aclrtIpcMem* calls) and aclrtDeviceGetBareTgid: the
// runtime side of the driver's IPC keys. The API layer (api/ipc.cpp) checks
// arguments in upstream's order and calls these; what talks to the driver,
// and the messages that explain its refusals, live here.
#ifndef NPU_RT_CORE_IPC_MEMORY_H
#define NPU_RT_CORE_IPC_MEMORY_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/context.h"
#include "core/error.h"

namespace npu::rt::ipc {

// Characters of a key (the caller's buffer needs one more for the NUL).
constexpr size_t kKeyLength = 64;  // NPU_IPC_KEY_LEN

// The TGID of the caller as the driver sees it.
Error GetBareTgid(int32_t *pid);
// Exports the allocation based at dev_ptr (at least size bytes) under a new
// key written to key (kKeyLength characters and a NUL); no_whitelist: any
// process may import it.
Error ExportKey(void *dev_ptr, size_t size, bool no_whitelist, char *key);
// Whitelists count TGIDs for a key this process exported.
Error SetImportPid(Context &ctx, const std::string &key, int32_t *pid, size_t count);
// Maps the memory behind key in ctx's device.
Error ImportKey(Context &ctx, const std::string &key, void **dev_ptr);
// aclrtIpcMemClose: an importer drops its oldest import of the key, else a
// key only configured here is forgotten, else the exporter destroys it.
Error CloseKey(Context &ctx, const std::string &key);
// rtIpcCloseMemory: unmaps the import at dev_ptr.
Error CloseImportAt(const void *dev_ptr);
// rtIpcDestroyMemoryName: the exporter destroys key (its imports elsewhere
// stay mapped until closed).
Error DestroyKey(Context &ctx, const std::string &key);

}  // namespace npu::rt::ipc

#endif  // NPU_RT_CORE_IPC_MEMORY_H
