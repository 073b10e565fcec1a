// SPDX-License-Identifier: MIT
// Every API that the headers declare but this runtime does not implement:
// those outside what an emulated memory device can do (kernels, task
// graphs, AI Core state and other hardware-only features). Each one does no
// work, leaves its output parameters alone, records a message for
// aclGetRecentErrMsg saying why, sets the thread's last error and returns
// ACL_ERROR_RT_FEATURE_NOT_SUPPORT; the few that do not return aclError
// return the neutral value of their type (Neutral below). The table is the
// single place to edit: implementing an API means moving it out of it.
#include <cstdint>
#include <type_traits>

#include "acl/acl.h"
#include "api/api_boundary.h"

namespace {

// Why each group of APIs is outside an emulated memory device, for the
// message of NPU_OUTSIDE_APIS.
constexpr const char *kKernels = "kernels need an AI Core instruction set";
constexpr const char *kSymbols =
    "device symbols live in kernel binaries, which need an AI Core instruction set";
constexpr const char *kKernelArgs = "kernel arguments and handles exist only for launched kernels";
constexpr const char *kTaskGraphs =
    "model runtime instances and graph capture work on device task graphs";
constexpr const char *kStreamSwitch =
    "stream activation and switching need streams bound to a model runtime instance";
constexpr const char *kOverflow = "floating-point overflow and saturation are AI Core state";
constexpr const char *kProfiling = "task-level profiling needs the hardware toolchain";
constexpr const char *kCoreGroups = "core groups partition AI Cores";
constexpr const char *kMbufs = "mbuf shared buffers belong to the device's data queues";
constexpr const char *kSnapshots = "process snapshot and restore need device firmware";
constexpr const char *kCountingNotifies = "counting notifies are hardware counters of the device";
constexpr const char *kCmoBarriers = "cache-maintenance barriers use hardware barrier ids";
constexpr const char *kUce = "uncorrectable-error records come from real HBM";
constexpr const char *kInterServer =
    "inter-server (super-pod) PID lists need devices on more than one server; on one server "
    "aclrtIpcMemSetImportPid and aclrtNotifySetImportPid allow processes";

// The return type R of a function type R (*)(Args...).
template <typename F>
struct ReturnOf;
template <typename R, typename... Args>
struct ReturnOf<R (*)(Args...)> {
    using type = R;
};

// What an unsupported API returns: ACL_ERROR_RT_FEATURE_NOT_SUPPORT, NULL
// for the Create functions that return a handle, and 0xFFFFFFFF ("no
// information", what the exception-information getters return for a NULL
// info) for a uint32_t.
template <typename R>
R Neutral() {
    if constexpr (std::is_same_v<R, aclError>)
        return ACL_ERROR_RT_FEATURE_NOT_SUPPORT;
    else if constexpr (std::is_pointer_v<R>)
        return nullptr;
    else {
        static_assert(std::is_same_v<R, uint32_t>, "no neutral value for this return type");
        return UINT32_MAX;
    }
}

template <typename R>
R OutsideEmulatedDevice(const char *api, const char *why) {
    npu::rt::RunApi(api, [&] {
        return npu::rt::Error::Format(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
                                      "outside an emulated memory device: %s", why);
    });
    return Neutral<R>();
}

}  // namespace

// clang-format off
// X(name, (parameters), why)
#define NPU_OUTSIDE_APIS(X) \
    /* Sharing across servers */ \
    X(aclrtIpcMemImportPidInterServer, (const char *key, aclrtServerPid *serverPids, size_t num), \
        kInterServer) \
    X(aclrtNotifySetImportPidInterServer, (aclrtNotify notify, aclrtServerPid *serverPids, \
        size_t num), kInterServer) \
    /* Counting notifies */ \
    X(aclrtCntNotifyCreate, (aclrtCntNotify *cntNotify, uint64_t flag), kCountingNotifies) \
    X(aclrtCntNotifyDestroy, (aclrtCntNotify cntNotify), kCountingNotifies) \
    X(aclrtCntNotifyRecord, (aclrtCntNotify cntNotify, aclrtStream stream, \
        aclrtCntNotifyRecordInfo *info), kCountingNotifies) \
    X(aclrtCntNotifyWaitWithTimeout, (aclrtCntNotify cntNotify, aclrtStream stream, \
        aclrtCntNotifyWaitInfo *info), kCountingNotifies) \
    X(aclrtCntNotifyReset, (aclrtCntNotify cntNotify, aclrtStream stream), kCountingNotifies) \
    X(aclrtCntNotifyGetId, (aclrtCntNotify cntNotify, uint32_t *notifyId), kCountingNotifies) \
    /* Cache-maintenance barriers */ \
    X(aclrtCmoAsyncWithBarrier, (void *src, size_t size, aclrtCmoType cmoType, \
        uint32_t barrierId, aclrtStream stream), kCmoBarriers) \
    X(aclrtCmoWaitBarrier, (aclrtBarrierTaskInfo *taskInfo, aclrtStream stream, uint32_t flag), \
        kCmoBarriers) \
    /* Memory fault records, kernel exception details */ \
    X(aclrtGetMemUceInfo, (int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize, \
        size_t *retSize), kUce) \
    X(aclrtMemUceRepair, (int32_t deviceId, aclrtMemUceInfo *memUceInfoArray, size_t arraySize), \
        kUce) \
    X(aclrtGetArgsFromExceptionInfo, (const aclrtExceptionInfo *info, void **devArgsPtr, \
        uint32_t *devArgsLen), kKernelArgs) \
    X(aclrtGetFuncHandleFromExceptionInfo, (const aclrtExceptionInfo *info, \
        aclrtFuncHandle *func), kKernelArgs) \
    /* Kernels and device symbols */ \
    X(aclrtCreateBinary, (const void *data, size_t dataLen), kKernels) \
    X(aclrtDestroyBinary, (aclrtBinary binary), kKernels) \
    X(aclrtBinaryLoad, (const aclrtBinary binary, aclrtBinHandle *binHandle), kKernels) \
    X(aclrtBinaryUnLoad, (aclrtBinHandle binHandle), kKernels) \
    X(aclrtBinaryLoadFromFile, (const char *binPath, aclrtBinaryLoadOptions *options, \
        aclrtBinHandle *binHandle), kKernels) \
    X(aclrtBinaryLoadFromData, (const void *data, size_t length, \
        const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle), kKernels) \
    X(aclrtBinaryGetFunction, (const aclrtBinHandle binHandle, const char *kernelName, \
        aclrtFuncHandle *funcHandle), kKernels) \
    X(aclrtBinaryGetFunctionByEntry, (aclrtBinHandle binHandle, uint64_t funcEntry, \
        aclrtFuncHandle *funcHandle), kKernels) \
    X(aclrtBinaryGetDevAddress, (const aclrtBinHandle binHandle, void **binAddr, \
        size_t *binSize), kKernels) \
    X(aclrtBinaryGetGlobal, (aclrtBinHandle binHandle, const char *name, void **dptr, \
        size_t *size), kKernels) \
    X(aclrtBinarySetExceptionCallback, (aclrtBinHandle binHandle, \
        aclrtOpExceptionCallback callback, void *userData), kKernels) \
    X(aclrtGetFuncBySymbol, (const void *symbol, aclrtFuncHandle *funcHandle), kSymbols) \
    X(aclrtGetFunctionAddr, (aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr), \
        kKernels) \
    X(aclrtGetFunctionSize, (aclrtFuncHandle funcHandle, size_t *aicSize, size_t *aivSize), \
        kKernels) \
    X(aclrtGetFunctionName, (aclrtFuncHandle funcHandle, uint32_t maxLen, char *name), kKernels) \
    X(aclrtGetFunctionAttribute, (aclrtFuncHandle funcHandle, aclrtFuncAttribute attrType, \
        int64_t *attrValue), kKernels) \
    X(aclrtFunctionGetBinary, (const aclrtFuncHandle funcHandle, aclrtBinHandle *binHandle), \
        kKernels) \
    X(aclrtFunctionGetParamCount, (const void *func, size_t *paramCount), kKernels) \
    X(aclrtFunctionGetParamInfo, (const void *func, size_t paramIndex, size_t *paramOffset, \
        size_t *paramSize), kKernels) \
    X(aclrtFunctionGetAvailDynUbufPerBlock, (void *func, uint32_t flags, \
        size_t *dynamicUbufSize), kKernels) \
    X(aclrtRegisterCpuFunc, (const aclrtBinHandle handle, const char *funcName, \
        const char *kernelName, aclrtFuncHandle *funcHandle), kKernels) \
    X(aclrtGetHardwareSyncAddr, (void **addr), kKernels) \
    X(aclrtKernelArgsGetHandleMemSize, (aclrtFuncHandle funcHandle, size_t *memSize), kKernels) \
    X(aclrtKernelArgsGetMemSize, (aclrtFuncHandle funcHandle, size_t userArgsSize, \
        size_t *actualArgsSize), kKernels) \
    X(aclrtKernelArgsInit, (aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle), kKernels) \
    X(aclrtKernelArgsInitByUserMem, (aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle, \
        void *userHostMem, size_t actualArgsSize), kKernels) \
    X(aclrtKernelArgsAppend, (aclrtArgsHandle argsHandle, void *param, size_t paramSize, \
        aclrtParamHandle *paramHandle), kKernels) \
    X(aclrtKernelArgsAppendPlaceHolder, (aclrtArgsHandle argsHandle, \
        aclrtParamHandle *paramHandle), kKernels) \
    X(aclrtKernelArgsGetPlaceHolderBuffer, (aclrtArgsHandle argsHandle, \
        aclrtParamHandle paramHandle, size_t dataSize, void **bufferAddr), kKernels) \
    X(aclrtKernelArgsParaUpdate, (aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, \
        void *param, size_t paramSize), kKernels) \
    X(aclrtKernelArgsFinalize, (aclrtArgsHandle argsHandle), kKernels) \
    X(aclrtLaunchKernel, (aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, \
        size_t argsSize, aclrtStream stream), kKernels) \
    X(aclrtLaunchKernelV2, (aclrtFuncHandle funcHandle, uint32_t numBlocks, \
        const void *argsData, size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream), \
        kKernels) \
    X(aclrtLaunchKernelWithConfig, (aclrtFuncHandle funcHandle, uint32_t numBlocks, \
        aclrtStream stream, aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, \
        void *reserve), kKernels) \
    X(aclrtLaunchKernelWithHostArgs, (aclrtFuncHandle funcHandle, uint32_t numBlocks, \
        aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize, \
        aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum), kKernels) \
    X(aclrtLaunchKernelWithArgsArray, (void *func, uint32_t numBlocks, aclrtStream stream, \
        aclrtLaunchKernelCfg *cfg, void **args), kKernels) \
    X(aclrtLaunchSIMTKernelWithArgsArray, (void *func, dim3 gridDim, dim3 blockDim, \
        size_t dynUbufSize, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void **args), kKernels) \
    X(aclrtLaunchSIMTKernelWithHostArgs, (void *func, dim3 gridDim, dim3 blockDim, \
        size_t dynUbufSize, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs, \
        size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum), kKernels) \
    X(aclrtGetSymbolAddress, (const void *symbol, void **devPtr), kSymbols) \
    X(aclrtGetSymbolSize, (const void *symbol, size_t *size), kSymbols) \
    X(aclrtMemcpyFromSymbol, (void *dst, size_t dstMax, const void *symbol, size_t count, \
        size_t offset, aclrtMemcpyKind kind), kSymbols) \
    X(aclrtMemcpyFromSymbolAsync, (void *dst, size_t dstMax, const void *symbol, size_t count, \
        size_t offset, aclrtMemcpyKind kind, aclrtStream stream), kSymbols) \
    X(aclrtMemcpyToSymbol, (const void *symbol, const void *src, size_t count, size_t offset, \
        aclrtMemcpyKind kind), kSymbols) \
    X(aclrtMemcpyToSymbolAsync, (const void *symbol, const void *src, size_t count, \
        size_t offset, aclrtMemcpyKind kind, aclrtStream stream), kSymbols) \
    /* Model runtime instances, graph capture, stream activation and switch, task update */ \
    X(aclmdlRITaskGetParams, (aclmdlRITask task, aclmdlRITaskParams *params), kTaskGraphs) \
    X(aclmdlRITaskSetParams, (aclmdlRITask task, aclmdlRITaskParams *params), kTaskGraphs) \
    X(aclmdlRIKernelTaskGetAttribute, (aclmdlRITask task, aclrtLaunchKernelAttrId attrId, \
        aclrtLaunchKernelAttrValue *attrValue), kTaskGraphs) \
    X(aclmdlRIUpdate, (aclmdlRI modelRI), kTaskGraphs) \
    X(aclmdlRITaskDisable, (aclmdlRITask task), kTaskGraphs) \
    X(aclrtActiveStream, (aclrtStream activeStream, aclrtStream stream), kStreamSwitch) \
    X(aclrtSwitchStream, (void *leftValue, aclrtCondition cond, void *rightValue, \
        aclrtCompareDataType dataType, aclrtStream trueStream, aclrtStream falseStream, \
        aclrtStream stream), kStreamSwitch) \
    X(aclmdlRISetName, (aclmdlRI modelRI, const char *name), kTaskGraphs) \
    X(aclmdlRIGetName, (aclmdlRI modelRI, uint32_t maxLen, char *name), kTaskGraphs) \
    X(aclmdlRIGetId, (aclmdlRI modelRI, uint32_t *modelRIId), kTaskGraphs) \
    X(aclmdlRIDestroyRegisterCallback, (aclmdlRI modelRI, aclrtCallback func, void *userData), \
        kTaskGraphs) \
    X(aclmdlRIDestroyUnregisterCallback, (aclmdlRI modelRI, aclrtCallback func), kTaskGraphs) \
    X(aclmdlRIGetStreams, (aclmdlRI modelRI, aclrtStream *streams, uint32_t *numStreams), \
        kTaskGraphs) \
    X(aclmdlRIGetTasksByStream, (aclrtStream stream, aclmdlRITask *tasks, uint32_t *numTasks), \
        kTaskGraphs) \
    X(aclmdlRITaskGetType, (aclmdlRITask task, aclmdlRITaskType *type), kTaskGraphs) \
    X(aclmdlRITaskGetSeqId, (aclmdlRITask task, uint32_t *id), kTaskGraphs) \
    X(aclrtTaskUpdateAsync, (aclrtStream taskStream, uint32_t taskId, aclrtTaskUpdateInfo *info, \
        aclrtStream execStream), kTaskGraphs) \
    X(aclmdlRIAbort, (aclmdlRI modelRI), kTaskGraphs) \
    X(aclmdlRICondHandleCreate, (aclmdlRI modelRI, uint32_t defaultLaunchValue, \
        aclmdlRICondHandleFlag flag, aclmdlRICondHandle *handle), kTaskGraphs) \
    X(aclmdlRICondHandleGetCondPtr, (aclmdlRICondHandle handle, uint64_t **ptr), kTaskGraphs) \
    X(aclmdlRIAddCondTask, (aclmdlRICondTaskParams params, aclrtStream stream, uint32_t flags), \
        kTaskGraphs) \
    X(aclmdlRICaptureToModelRIBegin, (aclrtStream stream, aclmdlRI modelRI, \
        aclmdlRICaptureMode mode), kTaskGraphs) \
    /* Floating-point overflow and saturation */ \
    X(aclrtSetDeviceSatMode, (aclrtFloatOverflowMode mode), kOverflow) \
    X(aclrtGetDeviceSatMode, (aclrtFloatOverflowMode *mode), kOverflow) \
    X(aclrtGetOverflowStatus, (void *outputAddr, size_t outputSize, aclrtStream stream), \
        kOverflow) \
    X(aclrtResetOverflowStatus, (aclrtStream stream), kOverflow) \
    X(aclrtSetStreamOverflowSwitch, (aclrtStream stream, uint32_t flag), kOverflow) \
    X(aclrtGetStreamOverflowSwitch, (aclrtStream stream, uint32_t *flag), kOverflow) \
    X(aclrtCtxGetFloatOverflowAddr, (void **overflowAddr), kOverflow) \
    X(aclrtGetFloatOverflowStatus, (void *outputAddr, uint64_t outputSize, aclrtStream stream), \
        kOverflow) \
    X(aclrtResetFloatOverflowStatus, (aclrtStream stream), kOverflow) \
    X(aclrtNpuGetFloatOverFlowStatus, (void *outputAddr, uint64_t outputSize, \
        uint32_t checkMode, aclrtStream stream), kOverflow) \
    X(aclrtNpuClearFloatOverFlowStatus, (uint32_t checkMode, aclrtStream stream), kOverflow) \
    /* Profiling */ \
    X(aclrtProfTrace, (void *userdata, int32_t length, aclrtStream stream), kProfiling) \
    X(aclrtCacheLastTaskOpInfo, (const void *const infoPtr, const size_t infoSize), kProfiling) \
    X(aclrtCacheLastTaskExtendInfo, (const char *const extendInfoPtr, const size_t infoSize), \
        kProfiling) \
    /* Core groups, mbufs, process snapshots */ \
    X(aclrtSetGroup, (int32_t groupId), kCoreGroups) \
    X(aclrtGetGroupCount, (uint32_t *count), kCoreGroups) \
    X(aclrtCreateGroupInfo, (void), kCoreGroups) \
    X(aclrtDestroyGroupInfo, (aclrtGroupInfo *groupInfo), kCoreGroups) \
    X(aclrtGetAllGroupInfo, (aclrtGroupInfo *groupInfo), kCoreGroups) \
    X(aclrtGetGroupInfoDetail, (const aclrtGroupInfo *groupInfo, int32_t groupIndex, \
        aclrtGroupAttr attr, void *attrValue, size_t valueLen, size_t *paramRetSize), kCoreGroups) \
    X(aclrtAllocBuf, (aclrtMbuf *buf, size_t size), kMbufs) \
    X(aclrtFreeBuf, (aclrtMbuf buf), kMbufs) \
    X(aclrtGetBufData, (const aclrtMbuf buf, void **dataPtr, size_t *size), kMbufs) \
    X(aclrtGetBufDataLen, (aclrtMbuf buf, size_t *len), kMbufs) \
    X(aclrtSetBufDataLen, (aclrtMbuf buf, size_t len), kMbufs) \
    X(aclrtGetBufUserData, (const aclrtMbuf buf, void *dataPtr, size_t size, size_t offset), \
        kMbufs) \
    X(aclrtSetBufUserData, (aclrtMbuf buf, const void *dataPtr, size_t size, size_t offset), \
        kMbufs) \
    X(aclrtCopyBufRef, (const aclrtMbuf buf, aclrtMbuf *newBuf), kMbufs) \
    X(aclrtAppendBufChain, (aclrtMbuf headBuf, aclrtMbuf buf), kMbufs) \
    X(aclrtGetBufChainNum, (aclrtMbuf headBuf, uint32_t *num), kMbufs) \
    X(aclrtGetBufFromChain, (aclrtMbuf headBuf, uint32_t index, aclrtMbuf *buf), kMbufs) \
    X(aclrtSnapShotProcessLock, (int pid, void *reserve), kSnapshots) \
    X(aclrtSnapShotProcessUnlock, (int pid, void *reserve), kSnapshots) \
    X(aclrtSnapShotProcessBackup, (int pid, aclrtSnapShotBackupArgs *args), kSnapshots) \
    X(aclrtSnapShotProcessRestore, (int pid, aclrtSnapShotRestoreArgs *args), kSnapshots) \
    X(aclrtSnapShotCallbackRegister, (aclrtSnapShotStage stage, aclrtSnapShotCallBack callback, \
        void *args), kSnapshots) \
    X(aclrtSnapShotCallbackUnregister, (aclrtSnapShotStage stage, \
        aclrtSnapShotCallBack callback), kSnapshots)
// clang-format on

// The parameters are deliberately unused, and the deprecated APIs of the
// table are defined here like any other.
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define NPU_RETURN_TYPE(name) ReturnOf<decltype(&name)>::type

#define NPU_DEFINE_OUTSIDE(name, params, why)                            \
    NPU_RETURN_TYPE(name) name params {                                  \
        return OutsideEmulatedDevice<NPU_RETURN_TYPE(name)>(#name, why); \
    }

NPU_OUTSIDE_APIS(NPU_DEFINE_OUTSIDE)
