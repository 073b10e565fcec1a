/* SPDX-License-Identifier: MIT */
/*
 * Compiled, not run, by check_headers.sh: once as C11 and once as C++17
 * with the flags of CANN's samples, both with -Wall -Werror. The CANN
 * headers must compile warning-free in both languages and carry upstream's
 * layouts (the sizes, alignments and offsets measured on upstream's headers,
 * x86-64 LP64) and values.
 */
#include <stddef.h>

#include "acl/acl.h"
#include "acl/acl_dump.h"
#include "acl/acl_rt_allocator.h"
#include "aclnn/opdev/op_errno.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "mstx/ms_tools_ext.h"
#include "profiling/aprof_pub.h"
#include "securec.h"

#ifdef __cplusplus
#define ABI_ASSERT(cond, what) static_assert(cond, what)
#define ABI_ALIGNOF(t) alignof(t)
#else
#define ABI_ASSERT(cond, what) _Static_assert(cond, what)
#define ABI_ALIGNOF(t) _Alignof(t)
#endif

#define ABI_SIZE(t, size, align)                     \
	ABI_ASSERT(sizeof(t) == (size), #t " size"); \
	ABI_ASSERT(ABI_ALIGNOF(t) == (align), #t " alignment")
#define ABI_OFFSET(t, member, offset) \
	ABI_ASSERT(offsetof(t, member) == (offset), #t "." #member " offset")

/* acl/acl_dump.h */
ABI_SIZE(acldumpChunk, 4120, 8);
ABI_OFFSET(acldumpChunk, bufLen, 4096);
ABI_OFFSET(acldumpChunk, isLastChunk, 4100);
ABI_OFFSET(acldumpChunk, offset, 4104);
ABI_OFFSET(acldumpChunk, flag, 4112);
ABI_OFFSET(acldumpChunk, dataBuf, 4116);
ABI_SIZE(acldumpTensorInfo, 456, 8);
ABI_OFFSET(acldumpTensorInfo, tensorSize, 8);
ABI_OFFSET(acldumpTensorInfo, tensorAddr, 24);
ABI_OFFSET(acldumpTensorInfo, placement, 36);
ABI_OFFSET(acldumpTensorInfo, shapeNum, 44);
ABI_OFFSET(acldumpTensorInfo, shape, 56);
ABI_OFFSET(acldumpTensorInfo, originShape, 256);
ABI_ASSERT(AIC_ERR_BRIEF_DUMP == 1 && DATA_DUMP == 4 && OVERFLOW_DUMP == 5, "acldumpType");
ABI_ASSERT(ACL_DUMP_ADDR_RAW == 2 && ACL_DUMP_PLACEMENT_END == 2 &&
		   ACL_DUMP_TENSOR_WORKSPACE == 2 && ACL_OP_DUMP_OP_AICORE_ARGS == 1 &&
		   ACL_DUMP_MAX_SHAPE_NUM == 25 && ACL_DUMP_MAX_FILE_PATH_LENGTH == 4096,
	   "acl_dump.h values");
/* securec.h */
ABI_ASSERT(EINVAL_AND_RESET == 150 && ERANGE_AND_RESET == 162 && EOVERLAP_AND_RESET == 182,
	   "securec.h codes");
/* mstx/ms_tools_ext.h */
ABI_ASSERT(sizeof(mstxRangeId) == 8, "mstxRangeId");

ABI_SIZE(aclrtUtilizationInfo, 24, 8);
ABI_OFFSET(aclrtUtilizationInfo, vectorUtilization, 4);
ABI_OFFSET(aclrtUtilizationInfo, aicpuUtilization, 8);
ABI_OFFSET(aclrtUtilizationInfo, memoryUtilization, 12);
ABI_OFFSET(aclrtUtilizationInfo, utilizationExtend, 16);

ABI_SIZE(aclrtStreamConfigHandle, 32, 8);
ABI_OFFSET(aclrtStreamConfigHandle, workSize, 8);
ABI_OFFSET(aclrtStreamConfigHandle, flag, 16);
ABI_OFFSET(aclrtStreamConfigHandle, priority, 24);

ABI_SIZE(aclrtStreamAttrValue, 16, 8);
ABI_OFFSET(aclrtStreamAttrValue, streamPriority, 0);

ABI_SIZE(aclrtUuid, 16, 1);

ABI_SIZE(aclCANNPackageVersion, 512, 1);
ABI_OFFSET(aclCANNPackageVersion, majorVersion, 128);
ABI_OFFSET(aclCANNPackageVersion, minorVersion, 192);
ABI_OFFSET(aclCANNPackageVersion, releaseVersion, 256);
ABI_OFFSET(aclCANNPackageVersion, patchVersion, 320);
ABI_OFFSET(aclCANNPackageVersion, reserved, 384);

ABI_SIZE(aclrtMemUceInfo, 128, 8);
ABI_OFFSET(aclrtMemUceInfo, len, 8);
ABI_OFFSET(aclrtMemUceInfo, reserved, 16);
ABI_SIZE(aclrtMemUceInfoArray, 2568, 8);
ABI_OFFSET(aclrtMemUceInfoArray, memUceInfoArray, 8);
ABI_SIZE(aclrtErrorInfoDetail, 2568, 8);
ABI_OFFSET(aclrtErrorInfoDetail, aicoreErrType, 0);
ABI_SIZE(aclrtErrorInfo, 2576, 8);
ABI_OFFSET(aclrtErrorInfo, hasDetail, 1);
ABI_OFFSET(aclrtErrorInfo, reserved, 2);
ABI_OFFSET(aclrtErrorInfo, errorType, 4);
ABI_OFFSET(aclrtErrorInfo, detail, 8);

ABI_SIZE(aclrtCntNotifyRecordInfo, 8, 4);
ABI_OFFSET(aclrtCntNotifyRecordInfo, value, 4);
ABI_SIZE(aclrtCntNotifyWaitInfo, 16, 4);
ABI_OFFSET(aclrtCntNotifyWaitInfo, value, 4);
ABI_OFFSET(aclrtCntNotifyWaitInfo, timeout, 8);
ABI_OFFSET(aclrtCntNotifyWaitInfo, isClear, 12);
ABI_OFFSET(aclrtCntNotifyWaitInfo, rsv, 13);

ABI_SIZE(aclrtBarrierCmoInfo, 8, 4);
ABI_OFFSET(aclrtBarrierCmoInfo, barrierId, 4);
ABI_SIZE(aclrtBarrierTaskInfo, 56, 8);
ABI_OFFSET(aclrtBarrierTaskInfo, cmoInfo, 8);

ABI_SIZE(aclrtBinaryLoadOption, 20, 4);
ABI_OFFSET(aclrtBinaryLoadOption, value, 4);
ABI_SIZE(aclrtBinaryLoadOptions, 16, 8);
ABI_OFFSET(aclrtBinaryLoadOptions, numOpt, 8);

ABI_SIZE(dim3, 12, 4);
ABI_OFFSET(dim3, y, 4);
ABI_OFFSET(dim3, z, 8);

ABI_SIZE(aclrtLaunchKernelAttrValue, 16, 4);
ABI_OFFSET(aclrtLaunchKernelAttrValue, timeoutUs, 0);
ABI_SIZE(aclrtLaunchKernelAttr, 20, 4);
ABI_OFFSET(aclrtLaunchKernelAttr, value, 4);
ABI_SIZE(aclrtLaunchKernelCfg, 16, 8);
ABI_OFFSET(aclrtLaunchKernelCfg, numAttrs, 8);

ABI_SIZE(aclrtPlaceHolderInfo, 8, 4);
ABI_OFFSET(aclrtPlaceHolderInfo, dataOffset, 4);

ABI_SIZE(aclrtRandomNumTaskInfo, 104, 8);
ABI_OFFSET(aclrtRandomNumTaskInfo, randomNumFuncParaInfo, 4);
ABI_OFFSET(aclrtRandomNumTaskInfo, randomParaAddr, 40);
ABI_OFFSET(aclrtRandomNumTaskInfo, randomResultAddr, 48);
ABI_OFFSET(aclrtRandomNumTaskInfo, randomCounterAddr, 56);
ABI_OFFSET(aclrtRandomNumTaskInfo, randomSeed, 64);
ABI_OFFSET(aclrtRandomNumTaskInfo, randomNum, 80);
ABI_OFFSET(aclrtRandomNumTaskInfo, rsv, 96);

ABI_SIZE(aclrtTaskUpdateInfo, 48, 8);
ABI_OFFSET(aclrtTaskUpdateInfo, val, 8);

ABI_SIZE(aclmdlRITaskParams, 200, 8);
ABI_OFFSET(aclmdlRITaskParams, rsv0, 4);
ABI_OFFSET(aclmdlRITaskParams, taskGrp, 16);
ABI_OFFSET(aclmdlRITaskParams, opInfoPtr, 24);
ABI_OFFSET(aclmdlRITaskParams, opInfoSize, 32);
ABI_OFFSET(aclmdlRITaskParams, rsv1, 40);
ABI_OFFSET(aclmdlRITaskParams, kernelTaskParams, 72);
ABI_OFFSET(aclmdlRITaskParams, valueWaitTaskParams, 72);

ABI_SIZE(aclmdlRICondTaskParams, 24, 8);
ABI_OFFSET(aclmdlRICondTaskParams, type, 8);
ABI_OFFSET(aclmdlRICondTaskParams, size, 12);
ABI_OFFSET(aclmdlRICondTaskParams, modelRIArray, 16);

ABI_SIZE(aclrtSnapShotBackupArgs, 64, 4);
ABI_OFFSET(aclrtSnapShotBackupArgs, reserved, 4);
ABI_SIZE(aclrtSnapShotRestoreArgs, 64, 4);
ABI_OFFSET(aclrtSnapShotRestoreArgs, reserved, 4);

/* Enums are int-sized, and a few values that are easy to get wrong. */
ABI_SIZE(aclDataType, 4, 4);
ABI_SIZE(aclrtDevAttr, 4, 4);
ABI_ASSERT(ACL_DT_UNDEFINED == -1, "ACL_DT_UNDEFINED");
ABI_ASSERT(ACL_BF16 == 27 && ACL_FLOAT4_E1M2 == 41, "aclDataType");
ABI_ASSERT(ACL_FORMAT_FRACTAL_NZ_C0_8 == 54 && ACL_FRACTAL_Z_3D == 33, "aclFormat");
ABI_ASSERT(ACL_ERROR == 3, "aclLogLevel");
ABI_ASSERT(ACL_OPT_ENABLE_KERNEL_EARLY_START == 3, "aclSysParamOpt");
ABI_ASSERT(ACL_REG_TYPE_ACL_RETR == 7 && ACL_REG_TYPE_OTHER == 0xFFFF, "aclRegisterCallbackType");
ABI_ASSERT(ACL_PKG_NAME_DRIVER == 7, "aclCANNPackageName");
ABI_ASSERT(ACL_DEV_ATTR_UBUF_PER_VECTOR_CORE == 204 && ACL_DEV_ATTR_NPU_ARCH == 601,
	   "aclrtDevAttr");
ABI_ASSERT(ACL_RT_DEVICE_STATUS_END == 0xFFFF, "aclrtDeviceStatus");
ABI_ASSERT(ACL_RT_ATOMIC_CAPABILITY_VECTOR32X4 == 0x100, "aclrtAtomicOperationCapability");
ABI_ASSERT(ACL_RT_ATOMIC_OPERATION_SIMD_SCALAR_EXCH == 44, "aclrtAtomicOperation");
ABI_ASSERT(ACL_STREAM_ATTR_PRIORITY == 5, "aclrtStreamAttr");
ABI_ASSERT(ACL_RT_STREAM_STATE_DESTROY_PRE == 2, "aclrtStreamState");
ABI_ASSERT(ACL_RT_CNT_NOTIFY_RECORD_BIT_AND_MODE == 4, "aclrtCntNotifyRecordMode");
ABI_ASSERT(ACL_MEM_LOCATIONTYPE_INVALID == 0 && ACL_MEM_LOCATIONTYPE_HOST == 2 &&
	   ACL_MEM_LOCATIONTYPE_HOST_NUMA_CURRENT == 4,
	   "aclrtMemManagedLocationType");
ABI_ASSERT(ACL_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID == 8, "aclrtMemManagedRangeAttribute");
ABI_ASSERT(ACL_RT_ERROR_OTHERS == 0xFFFF, "aclrtErrorType");
ABI_ASSERT(ACL_RT_BINARY_LOAD_OPT_MAGIC == 2, "aclrtBinaryLoadOptionType");
ABI_ASSERT(ACL_RT_LAUNCH_KERNEL_ATTR_ENABLE_PROFILING == 9, "aclrtLaunchKernelAttrId");
ABI_ASSERT(ACL_MODEL_RI_TASK_VALUE_WAIT == 6, "aclmdlRITaskType");
ABI_ASSERT(ACL_RT_MEMCPY_SDMA_AUTOMATIC_EQUAL == 13, "aclrtReduceKind");
ABI_ASSERT(ACL_KERNEL_TYPE_AICPU == 100, "aclrtKernelType");
ABI_ASSERT(ACL_RT_SNAPSHOT_UNLOCK_POST == 5, "aclrtSnapShotStage");
ABI_ASSERT(ACL_MAJOR_VERSION == 1 && ACL_MINOR_VERSION == 17 && ACL_PATCH_VERSION == 0,
	   "interface version");
ABI_ASSERT(ACL_RT_CMO_MAX_BARRIER_NUM == 6 && ACL_RT_MEM_UCE_INFO_MAX_NUM == 20, "array sizes");
ABI_ASSERT(ACLNN_SUCCESS == 0 && ACLNN_ERR_PARAM_NULLPTR == 161001 &&
               ACLNN_ERR_PARAM_INVALID == 161002 && ACLNN_ERR_RUNTIME_ERROR == 361001,
           "aclnnStatus codes");
ABI_ASSERT(sizeof(aclnnStatus) == 4 && ACL_FORMAT_ND == 2, "aclnnStatus, aclFormat");

#ifdef __cplusplus
/* In C++, dim3's constructor defaults every dimension to 1, in constant expressions. */
static_assert(dim3().x == 1 && dim3(4).y == 1 && dim3(4, 5, 6).z == 6, "dim3 constructor");
#endif

/* The callback typedefs take what upstream's callers pass. */
static void *abi_alloc(aclrtAllocator allocator, size_t size)
{
	(void)allocator;
	(void)size;
	return NULL;
}

/* The macros expand to valid calls, with and without arguments. */
void abi_use_macros(void);
void abi_use_macros(void)
{
	aclrtAllocatorAllocFunc alloc = abi_alloc;
	(void)alloc;
	ACL_APP_LOG(ACL_INFO, "no arguments");
	ACL_APP_LOG(ACL_ERROR, "%d %s", 1, "two");
}
