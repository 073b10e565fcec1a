// SPDX-License-Identifier: MIT
// aclInit, aclFinalize, aclFinalizeReference (spec §7.1, §7.2).
#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/library.h"

using npu::rt::Error;
using npu::rt::Library;
using npu::rt::RunApi;

aclError aclInit(const char *configPath) {
    return RunApi("aclInit", [&] { return Library::Get().Init(configPath); });
}

aclError aclFinalize() {
    return RunApi("aclFinalize", [&] { return Library::Get().Finalize(); });
}

aclError aclFinalizeReference(uint64_t *refCount) {
    return RunApi("aclFinalizeReference",
                  [&] { return Library::Get().FinalizeReference(refCount); });
}
