// Every API that the headers declare but a later issue implements. Each one
// returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT and records
// "<name>: not supported yet (issue N)". The list is the single place to
// edit: implementing an API means moving it out of this table.
#include "acl/acl.h"
#include "api/api_boundary.h"

namespace {

aclError NotSupportedYet(const char *api, int issue) {
    return npu::rt::RunApi(api, [&] {
        return npu::rt::Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                      "not supported yet (issue %d)", issue);
    });
}

}  // namespace

// X(issue, name, (parameters))
// clang-format off
#define NPU_UNSUPPORTED_APIS(X) \
    X(4, aclrtCreateContext, (aclrtContext *context, int32_t deviceId)) \
    X(4, aclrtDestroyContext, (aclrtContext context)) \
    X(4, aclrtSetCurrentContext, (aclrtContext context)) \
    X(4, aclrtGetCurrentContext, (aclrtContext *context)) \
    X(4, aclrtResetEvent, (aclrtEvent event, aclrtStream stream)) \
    X(4, aclrtEventElapsedTime, (float *ms, aclrtEvent startEvent, aclrtEvent endEvent)) \
    X(4, aclrtSetOpWaitTimeout, (uint32_t timeout)) \
    X(4, aclrtMemAllocManaged, (void **ptr, uint64_t size, uint32_t flag))
// clang-format on

// The parameters are deliberately unused.
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define NPU_DEFINE_UNSUPPORTED(issue, name, params) \
    aclError name params {                          \
        return NotSupportedYet(#name, issue);       \
    }

NPU_UNSUPPORTED_APIS(NPU_DEFINE_UNSUPPORTED)
