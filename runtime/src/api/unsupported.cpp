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
    X(4, aclrtSynchronizeDevice, (void)) \
    X(4, aclrtDeviceCanAccessPeer, (int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)) \
    X(4, aclrtDeviceEnablePeerAccess, (int32_t peerDeviceId, uint32_t flags)) \
    X(4, aclrtDeviceDisablePeerAccess, (int32_t peerDeviceId)) \
    X(4, aclrtCreateContext, (aclrtContext *context, int32_t deviceId)) \
    X(4, aclrtDestroyContext, (aclrtContext context)) \
    X(4, aclrtSetCurrentContext, (aclrtContext context)) \
    X(4, aclrtGetCurrentContext, (aclrtContext *context)) \
    X(4, aclrtCreateStream, (aclrtStream *stream)) \
    X(4, aclrtDestroyStream, (aclrtStream stream)) \
    X(4, aclrtDestroyStreamForce, (aclrtStream stream)) \
    X(4, aclrtSynchronizeStream, (aclrtStream stream)) \
    X(4, aclrtSetStreamFailureMode, (aclrtStream stream, uint64_t mode)) \
    X(4, aclrtStreamWaitEvent, (aclrtStream stream, aclrtEvent event)) \
    X(4, aclrtCreateEvent, (aclrtEvent *event)) \
    X(4, aclrtCreateEventWithFlag, (aclrtEvent *event, uint32_t flag)) \
    X(4, aclrtCreateEventExWithFlag, (aclrtEvent *event, uint32_t flag)) \
    X(4, aclrtRecordEvent, (aclrtEvent event, aclrtStream stream)) \
    X(4, aclrtResetEvent, (aclrtEvent event, aclrtStream stream)) \
    X(4, aclrtSynchronizeEvent, (aclrtEvent event)) \
    X(4, aclrtQueryEventStatus, (aclrtEvent event, aclrtEventRecordedStatus *status)) \
    X(4, aclrtEventElapsedTime, (float *ms, aclrtEvent startEvent, aclrtEvent endEvent)) \
    X(4, aclrtDestroyEvent, (aclrtEvent event)) \
    X(4, aclrtSetOpWaitTimeout, (uint32_t timeout)) \
    X(4, aclrtFreeWithDevSync, (void *devPtr)) \
    X(4, aclrtMemAllocManaged, (void **ptr, uint64_t size, uint32_t flag)) \
    X(4, aclrtMallocHost, (void **hostPtr, size_t size)) \
    X(4, aclrtMallocHostWithCfg, (void **ptr, uint64_t size, aclrtMallocConfig *cfg)) \
    X(4, aclrtFreeHost, (void *hostPtr)) \
    X(4, aclrtFreeHostWithDevSync, (void *hostPtr)) \
    X(4, aclrtHostRegister, (void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)) \
    X(4, aclrtHostRegisterV2, (void *ptr, uint64_t size, uint32_t flag)) \
    X(4, aclrtHostGetDevicePointer, (void *pHost, void **pDevice, uint32_t flag)) \
    X(4, aclrtHostUnregister, (void *ptr)) \
    X(4, aclrtMemcpyAsync, (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream stream)) \
    X(4, aclrtMemsetAsync, (void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)) \
    X(4, aclrtMemcpy2d, (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind)) \
    X(4, aclrtMemcpy2dAsync, (void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, aclrtMemcpyKind kind, aclrtStream stream)) \
    X(4, aclrtMemcpyBatch, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex)) \
    X(4, aclrtMemcpyBatchV2, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs)) \
    X(4, aclrtMemcpyBatchAsync, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, size_t *failIndex, aclrtStream stream)) \
    X(4, aclrtMemcpyBatchAsyncV2, (void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches, aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs, aclrtStream stream)) \
    X(4, aclrtValueWrite, (void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)) \
    X(4, aclrtValueWait, (void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)) \
    X(4, aclrtPointerGetAttributes, (const void *ptr, aclrtPtrAttributes *attributes))
// clang-format on

// The parameters are deliberately unused.
#pragma GCC diagnostic ignored "-Wunused-parameter"

#define NPU_DEFINE_UNSUPPORTED(issue, name, params) \
    aclError name params {                          \
        return NotSupportedYet(#name, issue);       \
    }

NPU_UNSUPPORTED_APIS(NPU_DEFINE_UNSUPPORTED)
