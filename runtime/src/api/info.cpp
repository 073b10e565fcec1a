// SPDX-License-Identifier: MIT
// aclrtGetMemInfo, aclrtGetMemUsageInfo, aclrtMemGetAddressRange,
// aclGetRecentErrMsg and the last error of the thread (aclrtGetLastError, aclrtPeekAtLastError)
//.
#include <algorithm>
#include <cstring>
#include <vector>

#include "acl/acl.h"
#include "api/api_boundary.h"
#include "core/device_manager.h"
#include "core/device_memory.h"
#include "core/error_messages.h"
#include "core/mem_info.h"
#include "core/thread_state.h"

using npu::rt::Context;
using npu::rt::Error;
using npu::rt::RunApi;
using npu::rt::ThreadState;

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total) {
    return RunApi("aclrtGetMemInfo", [&] {
        int32_t a = npu::rt::EnumValue(attr);
        NPU_ACL_CHECK(free != nullptr, "free is NULL (attr %d)", a);
        NPU_ACL_CHECK(total != nullptr, "total is NULL (attr %d)", a);
        if (a < ACL_DDR_MEM || a > ACL_MEM_P2P_HUGE1G) {
            return Error::Format(ACL_ERROR_RT_INVALID_MEMORY_TYPE,
                                 "attr %d is not a memory attribute (0..17)", a);
        }
        std::shared_ptr<Context> ctx;
        NPU_RETURN_IF_ERROR(ThreadState::RequireContext(&ctx));
        return npu::rt::QueryMemInfo(ctx->session(), attr, free, total);
    });
}

aclError aclrtGetMemUsageInfo(int32_t deviceId, aclrtMemUsageInfo *memUsageInfo, size_t inputNum,
                              size_t *outputNum) {
    return RunApi("aclrtGetMemUsageInfo", [&] {
        NPU_ACL_CHECK(memUsageInfo != nullptr, "memUsageInfo is NULL");
        NPU_ACL_CHECK(outputNum != nullptr, "outputNum is NULL");
        NPU_ACL_CHECK(inputNum != 0, "inputNum is 0: memUsageInfo has no room");
        uint32_t phys = 0;
        NPU_RETURN_IF_ERROR(npu::rt::DeviceManager::Get().ToPhysical(deviceId, &phys));
        std::vector<npu::rt::MemUsage> usage;
        NPU_RETURN_IF_ERROR(npu::rt::QueryMemUsage(deviceId, &usage));
        const size_t n = std::min(inputNum, usage.size());
        for (size_t i = 0; i < n; i++) {
            aclrtMemUsageInfo out = {};
            std::strncpy(out.name, usage[i].name, sizeof(out.name) - 1);
            out.curMemSize = usage[i].current;
            out.memPeakSize = usage[i].peak;
            memUsageInfo[i] = out;
        }
        *outputNum = n;
        return Error::Ok();
    });
}

aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize) {
    return RunApi("aclrtMemGetAddressRange", [&] {
        NPU_ACL_CHECK(ptr != nullptr, "ptr is NULL");
        NPU_ACL_CHECK(pbase != nullptr, "pbase is NULL (ptr %p)", ptr);
        NPU_ACL_CHECK(psize != nullptr, "psize is NULL (ptr %p)", ptr);
        return npu::rt::DeviceAddressRange(ptr, pbase, psize);
    });
}

const char *aclGetRecentErrMsg() {
    try {
        return npu::rt::ErrorMessages::Take();
    } catch (...) {
        return nullptr;
    }
}

aclError aclrtGetLastError(aclrtLastErrLevel level) {
    if (npu::rt::EnumValue(level) != ACL_RT_THREAD_LEVEL)
        return ACL_ERROR_INVALID_PARAM;
    return npu::rt::ErrorMessages::LastCode(true);
}

aclError aclrtPeekAtLastError(aclrtLastErrLevel level) {
    if (npu::rt::EnumValue(level) != ACL_RT_THREAD_LEVEL)
        return ACL_ERROR_INVALID_PARAM;
    return npu::rt::ErrorMessages::LastCode(false);
}
