/* SPDX-License-Identifier: MIT */
/*
 * CANN's profiling API (acl_prof.h): start and stop a profiling session,
 * and the msproftx marks, nested ranges, free ranges and training steps a
 * program adds to it. Here a session is the runtime's trace (the NPU_TRACE
 * recorder): aclprofInit names a directory, aclprofStart starts recording,
 * aclprofStop writes what was recorded since into one Chrome/Perfetto JSON
 * file in that directory, and the marks and ranges are events in it. The
 * README's profiling section describes the file.
 *
 * Model subscription (aclprofModelSubscribe, the aclprofGetOp* readers of
 * its records): this runtime loads no models, so a model id is one a
 * program registered on a device (MsprofSetDeviceIdByGeModelIdx of
 * profiling/aprof_pub.h, what upstream's model loading does), and the
 * operators that run on that device's streams while it is subscribed
 * (aclnnAdd, aclnnMul) are its operators: each writes one record to the
 * subscription's pipe. The README's profiling section says more.
 *
 * The names, values, layouts and prototypes are upstream's.
 */
#ifndef INC_EXTERNAL_ACL_PROF_H_
#define INC_EXTERNAL_ACL_PROF_H_

#include "acl_base.h"

/* Upstream marks the profiling functions with this; here it is the ACL one. */
#ifndef MSVP_PROF_API
#define MSVP_PROF_API ACL_FUNC_VISIBILITY
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a session collects (aclprofCreateConfig's dataTypeConfig bits). */
#define ACL_PROF_ACL_API 0x0001ULL
#define ACL_PROF_TASK_TIME 0x0002ULL
#define ACL_PROF_AICORE_METRICS 0x0004ULL
#define ACL_PROF_AICPU 0x0008ULL
#define ACL_PROF_L2CACHE 0x0010ULL
#define ACL_PROF_HCCL_TRACE 0x0020ULL
#define ACL_PROF_TRAINING_TRACE 0x0040ULL
#define ACL_PROF_MSPROFTX 0x0080ULL
#define ACL_PROF_RUNTIME_API 0x0100ULL
#define ACL_PROF_GE_API_L0 0x0200ULL
#define ACL_PROF_TASK_TIME_L0 0x0800ULL
#define ACL_PROF_TASK_MEMORY 0x1000ULL
#define ACL_PROF_GE_API_L1 0x01000000ULL
#define ACL_PROF_TASK_TIME_L2 0x2000ULL
#define ACL_PROF_OP_ATTR 0x4000ULL
#define ACL_PROF_TASK_TIME_L3 0x8000ULL
#define ACL_PROF_API_STATS 0x400000000ULL
#define ACL_PROF_AICORE_SHAPE 0x800000000ULL

/* Buffer sizes of the subscription readers (kept for source compatibility). */
#define ACL_PROF_MAX_OP_NAME_LEN 257
#define ACL_PROF_MAX_OP_TYPE_LEN 65

/* aclprofTensor.shape's length: part of the struct's layout. */
#ifndef ACL_PROF_TENSOR_DATA_SHAPE_LEN
#define ACL_PROF_TENSOR_DATA_SHAPE_LEN 8
#endif

/* AI Core counter groups (no AI Core here: recorded in the file only). */
typedef enum {
    ACL_AICORE_ARITHMETIC_UTILIZATION = 0,
    ACL_AICORE_PIPE_UTILIZATION = 1,
    ACL_AICORE_MEMORY_BANDWIDTH = 2,
    ACL_AICORE_L0B_AND_WIDTH = 3,
    ACL_AICORE_RESOURCE_CONFLICT_RATIO = 4,
    ACL_AICORE_MEMORY_UB = 5,
    ACL_AICORE_L2_CACHE = 6,
    ACL_AICORE_PIPE_EXECUTE_UTILIZATION = 7,
    ACL_AICORE_MEMORY_ACCESS = 8,
    ACL_AICORE_NONE = 0xFF
} aclprofAicoreMetrics;

/* aclprofGetStepTimestamp: which end of a step. */
typedef enum { ACL_STEP_START = 0, ACL_STEP_END = 1 } aclprofStepTag;

typedef enum {
    ACL_SUBSCRIBE_OP = 0,
    ACL_SUBSCRIBE_SUBGRAPH = 1,
    ACL_SUBSCRIBE_OP_THREAD = 2,
    ACL_SUBSCRIBE_NONE = 0xFF
} aclprofSubscribeOpFlag;

typedef enum { ACL_SUBSCRIBE_ATTRI_THREADID = 0, ACL_SUBSCRIBE_ATTRI_NONE } aclprofSubscribeOpAttri;

/* aclprofSetConfig's settings (there is no 2). */
typedef enum {
    ACL_PROF_ARGS_MIN = 0,
    ACL_PROF_STORAGE_LIMIT = 1,
    ACL_PROF_SYS_HARDWARE_MEM_FREQ = 3,
    ACL_PROF_LLC_MODE = 4,
    ACL_PROF_SYS_IO_FREQ = 5,
    ACL_PROF_SYS_INTERCONNECTION_FREQ = 6,
    ACL_PROF_DVPP_FREQ = 7,
    ACL_PROF_HOST_SYS = 8,
    ACL_PROF_HOST_SYS_USAGE = 9,
    ACL_PROF_HOST_SYS_USAGE_FREQ = 10,
    ACL_PROF_LOW_POWER_FREQ = 11,
    ACL_PROF_SYS_MEM_SERVICEFLOW = 12,
    ACL_PROF_SYS_CPU_FREQ = 13,
    ACL_PROF_OPTYPE = 14,
    ACL_PROF_NTS_METRICS = 15,
    ACL_PROF_PATH = 16,
    ACL_PROF_ARGS_MAX = 17
} aclprofConfigType;

typedef enum { ACL_PROF_MESSAGE_TYPE_TENSOR_INFO = 0 } aclprofMessageType;

typedef struct aclprofConfig aclprofConfig;
typedef struct aclprofStopConfig aclprofStopConfig;
typedef struct aclprofAicoreEvents aclprofAicoreEvents;
typedef struct aclprofSubscribeConfig aclprofSubscribeConfig;
typedef struct aclprofStepInfo aclprofStepInfo;

/*
 * The operator description of aclprofRangePushEx. Programs that defined
 * these structs themselves before CANN did define
 * ACL_PROF_TENSOR_INFO_DEFINED first and keep theirs; the layout is
 * upstream's and only ever grows at the end (ACL_PROF_EVENT_ATTR_VERSION).
 */
#ifndef ACL_PROF_TENSOR_INFO_DEFINED
#define ACL_PROF_TENSOR_INFO_DEFINED

#define ACL_PROF_EVENT_ATTR_VERSION 1

typedef struct aclprofTensor {
    uint32_t type;     /* 0 input, 1 output */
    uint32_t format;   /* an aclFormat */
    uint32_t dataType; /* an aclDataType */
    uint32_t shapeDim; /* entries of shape used, at most ACL_PROF_TENSOR_DATA_SHAPE_LEN */
    uint32_t shape[ACL_PROF_TENSOR_DATA_SHAPE_LEN];
} aclprofTensor;

typedef struct aclprofTensorInfo {
    uint64_t opNameId; /* aclprofStr2Id of the operator's name */
    uint64_t opTypeId; /* aclprofStr2Id of its type */
    uint32_t resv;
    uint32_t tensorNum;
    uint32_t kernelType;
    uint32_t blockNums;
    void *stream;
    aclprofTensor *tensors;
} aclprofTensorInfo;

typedef struct aclprofEventAttributes {
    uint16_t version;     /* ACL_PROF_EVENT_ATTR_VERSION the caller was built with */
    uint16_t size;        /* sizeof(aclprofEventAttributes) the caller was built with */
    uint32_t messageType; /* an aclprofMessageType */
    union Message {
        aclprofTensorInfo *tensorInfo;
    } message;
} aclprofEventAttributes;

#endif /* ACL_PROF_TENSOR_INFO_DEFINED */

/*
 * Sets the directory the session files go to (created if missing; a
 * relative path is taken from the current directory now). length is
 * strlen(profilerResultPath), 1..4095. A second call before aclprofFinalize
 * returns ACL_ERROR_REPEAT_INITIALIZE.
 */
ACL_FUNC_VISIBILITY aclError aclprofInit(const char *profilerResultPath, size_t length);

/* Stops a running session (writing its file) and ends aclprofInit's. */
ACL_FUNC_VISIBILITY aclError aclprofFinalize(void);

/*
 * Starts recording into a new file of aclprofInit's directory (NULL: every
 * device, the configuration's defaults). ACL_ERROR_PROF_NOT_RUN before
 * aclprofInit; starting again with the same configuration does nothing.
 */
ACL_FUNC_VISIBILITY aclError aclprofStart(const aclprofConfig *profilerConfig);

/*
 * A configuration for aclprofStart and aclprofStop: devices (ids below
 * aclrtGetDeviceCount, each once; none only with ACL_PROF_MSPROFTX), the
 * AI Core counters, aicoreEvents (must be NULL) and the ACL_PROF_* bits.
 * NULL on a bad argument (aclGetRecentErrMsg says which).
 */
ACL_FUNC_VISIBILITY aclprofConfig *aclprofCreateConfig(uint32_t *deviceIdList, uint32_t deviceNums,
                                                      aclprofAicoreMetrics aicoreMetrics,
                                                      const aclprofAicoreEvents *aicoreEvents,
                                                      uint64_t dataTypeConfig);

ACL_FUNC_VISIBILITY aclError aclprofDestroyConfig(const aclprofConfig *profilerConfig);

/* Ends the session and writes its file; without aclprofInit it does nothing. */
ACL_FUNC_VISIBILITY aclError aclprofStop(const aclprofConfig *profilerConfig);

/*
 * One setting (config: a string of configLength <= 256 characters). The
 * frequencies are whole numbers 1..100; ACL_PROF_PATH sets the directory as
 * aclprofInit does. Settings are written into the session's file.
 */
ACL_FUNC_VISIBILITY aclError aclprofSetConfig(aclprofConfigType configType, const char *config,
                                             size_t configLength);

/* Marks one training step: ACL_STEP_START, then ACL_STEP_END, once each. */
ACL_FUNC_VISIBILITY aclError aclprofGetStepTimestamp(aclprofStepInfo *stepInfo, aclprofStepTag tag,
                                                    aclrtStream stream);

ACL_FUNC_VISIBILITY aclprofStepInfo *aclprofCreateStepInfo(void);

ACL_FUNC_VISIBILITY void aclprofDestroyStepInfo(aclprofStepInfo *stepinfo);

/* A stamp: the message of a mark or range (aclprofSetStampTraceMessage). */
ACL_FUNC_VISIBILITY void *aclprofCreateStamp(void);

ACL_FUNC_VISIBILITY void aclprofDestroyStamp(void *stamp);

/* Opens a range on the calling thread; aclprofPop closes the innermost. */
ACL_FUNC_VISIBILITY aclError aclprofPush(void *stamp);

ACL_FUNC_VISIBILITY aclError aclprofPop(void);

/* Opens a range that any thread may close with the id it returns. */
ACL_FUNC_VISIBILITY aclError aclprofRangeStart(void *stamp, uint32_t *rangeId);

ACL_FUNC_VISIBILITY aclError aclprofRangeStop(uint32_t rangeId);

/* The stamp's message: msgLen characters (below 128) of msg. */
ACL_FUNC_VISIBILITY aclError aclprofSetStampTraceMessage(void *stamp, const char *msg,
                                                        uint32_t msgLen);

/* An instant event with the stamp's message. */
ACL_FUNC_VISIBILITY aclError aclprofMark(void *stamp);

/* An instant event with msg (strlen msgLen, 1..127) on the stream's lane. */
ACL_FUNC_VISIBILITY aclError aclprofMarkEx(const char *msg, size_t msgLen, aclrtStream stream);

/* A 64-bit id of a string (an operator's name for aclprofRangePushEx). */
ACL_FUNC_VISIBILITY uint64_t aclprofStr2Id(const char *message);

/* aclprofPush for an operator: the range is named after attr's opNameId. */
ACL_FUNC_VISIBILITY aclError aclprofRangePushEx(aclprofEventAttributes *attr);

/* Closes the calling thread's innermost aclprofRangePushEx range. */
ACL_FUNC_VISIBILITY aclError aclprofRangePop(void);

/*
 * A subscription's configuration: timeInfoSwitch 0 or 1 (whether records
 * carry times), the AI Core counters (recorded only), fd a pointer to the
 * int write end of a pipe. NULL for a NULL fd or another switch.
 */
MSVP_PROF_API aclprofSubscribeConfig *aclprofCreateSubscribeConfig(int8_t timeInfoSwitch,
                                                                  aclprofAicoreMetrics aicoreMetrics,
                                                                  void *fd);
MSVP_PROF_API aclError aclprofDestroySubscribeConfig(const aclprofSubscribeConfig *profSubscribeConfig);

/*
 * Records of modelId's operators go to the configuration's pipe until
 * aclprofModelUnSubscribe, which closes that pipe's write end (so that a
 * reader sees its end). ACL_ERROR_INVALID_MODEL_ID for a model id no one
 * registered, ACL_ERROR_PROF_REPEAT_SUBSCRIBE when subscribed already.
 */
MSVP_PROF_API aclError aclprofModelSubscribe(uint32_t modelId,
                                             const aclprofSubscribeConfig *profSubscribeConfig);
MSVP_PROF_API aclError aclprofModelUnSubscribe(uint32_t modelId);

/* The readers of the records read from the pipe: opInfo holds opInfoLen
 * bytes, whole records of aclprofGetOpDescSize bytes each. */
MSVP_PROF_API aclError aclprofGetOpDescSize(size_t *opDescSize);
MSVP_PROF_API aclError aclprofGetOpNum(const void *opInfo, size_t opInfoLen, uint32_t *opNumber);
/* Lengths include the terminating NUL. */
MSVP_PROF_API aclError aclprofGetOpTypeLen(const void *opInfo, size_t opInfoLen, uint32_t index,
                                           size_t *opTypeLen);
MSVP_PROF_API aclError aclprofGetOpType(const void *opInfo, size_t opInfoLen, uint32_t index,
                                        char *opType, size_t opTypeLen);
MSVP_PROF_API aclError aclprofGetOpNameLen(const void *opInfo, size_t opInfoLen, uint32_t index,
                                           size_t *opNameLen);
MSVP_PROF_API aclError aclprofGetOpName(const void *opInfo, size_t opInfoLen, uint32_t index,
                                        char *opName, size_t opNameLen);
/* Times in microseconds (0 on a bad argument, or without time info). */
MSVP_PROF_API uint64_t aclprofGetOpStart(const void *opInfo, size_t opInfoLen, uint32_t index);
MSVP_PROF_API uint64_t aclprofGetOpEnd(const void *opInfo, size_t opInfoLen, uint32_t index);
MSVP_PROF_API uint64_t aclprofGetOpDuration(const void *opInfo, size_t opInfoLen, uint32_t index);
/* The model id of record index (0 on a bad argument). */
MSVP_PROF_API size_t aclprofGetModelId(const void *opInfo, size_t opInfoLen, uint32_t index);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_PROF_H_ */
