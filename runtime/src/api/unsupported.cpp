// SPDX-License-Identifier: MIT
// Every API that the headers declare but this runtime does not implement
// yet. Each one returns ACL_ERROR_RT_FEATURE_NOT_SUPPORT and records
// "<name>: not supported by this runtime yet (...)". The list is the single
// place to edit: implementing an API means moving it out of this table.
#include "acl/acl.h"
#include "api/api_boundary.h"

namespace {

aclError NotSupportedYet(const char *api) {
    return npu::rt::RunApi(api, [&] {
        return npu::rt::Error::Format(
            ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            "not supported by this runtime yet (the README's \"The API\" lists what is)");
    });
}

}  // namespace

// X(name, (parameters))
// clang-format off
#define NPU_UNSUPPORTED_APIS(X) \
    X(aclrtCreateContext, (aclrtContext *context, int32_t deviceId)) \
    X(aclrtDestroyContext, (aclrtContext context)) \
    X(aclrtSetCurrentContext, (aclrtContext context)) \
    X(aclrtGetCurrentContext, (aclrtContext *context)) \
    X(aclrtSetOpWaitTimeout, (uint32_t timeout)) \
    X(aclrtMemAllocManaged, (void **ptr, uint64_t size, uint32_t flag)) \
    X(aclGetCannAttributeList, (const aclCannAttr **cannAttrList, size_t *num)) \
    X(aclGetCannAttribute, (aclCannAttr cannAttr, int32_t *value)) \
    X(aclGetDeviceCapability, (uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value))
// clang-format on

// The parameters are deliberately unused.
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define NPU_DEFINE_UNSUPPORTED(name, params) \
    aclError name params {                   \
        return NotSupportedYet(#name);       \
    }

NPU_UNSUPPORTED_APIS(NPU_DEFINE_UNSUPPORTED)
