/* SPDX-License-Identifier: MIT */
/*
 * CANN's dump API (acl/acl_dump.h, libascend_dump.so): the operators a
 * program runs write their tensors (data dump, configured by aclInit's
 * file or aclmdlSetDump), their arguments (aclopStartDumpArgs) or tensors
 * the program names (acldumpSaveExceptionInfo) to files under a dump path,
 * or hand them in chunks to a registered callback. Here the operators are
 * aclnnAdd and aclnnMul; the README's dump section describes the files,
 * whose layout is this runtime's own, not upstream's binary format.
 *
 * The names, values, layouts and prototypes are upstream's.
 */
#ifndef INC_EXTERNAL_ACL_DUMP_H_
#define INC_EXTERNAL_ACL_DUMP_H_

#include <stddef.h>
#include <stdint.h>

#include "acl_base.h"

#ifndef ACL_DUMP_API
#define ACL_DUMP_API ACL_FUNC_VISIBILITY
#endif
/* Upstream declares two functions weak for programs that may run without
 * the dump library; this library always has them. */
#ifndef ACL_DUMP_WEAK
#define ACL_DUMP_WEAK
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_DUMP_MAX_FILE_PATH_LENGTH 4096

/* One piece of a dump file, as the callback of acldumpRegCallback gets it. */
typedef struct acldumpChunk {
    char fileName[ACL_DUMP_MAX_FILE_PATH_LENGTH]; /* absolute path of the file it belongs to */
    uint32_t bufLen;                              /* bytes in dataBuf */
    uint32_t isLastChunk;                         /* 1 on the file's last chunk, else 0 */
    int64_t offset;                               /* of dataBuf in the file; -1: append */
    int32_t flag;                                 /* reserved, 0 */
    uint8_t dataBuf[0];
} acldumpChunk;

/*
 * Dump files go to messageCallback, in chunks, instead of to disk (flag
 * must be 0). The callback's second argument is sizeof(acldumpChunk) +
 * bufLen. ACL_ERROR_FAILURE for a NULL callback or another flag.
 */
ACL_DUMP_API aclError acldumpRegCallback(int32_t (*const messageCallback)(const acldumpChunk *,
                                                                          int32_t),
                                         int32_t flag);
/* Dump files go to disk again. */
ACL_DUMP_API void acldumpUnregCallback(void);

#define ACL_OP_DUMP_OP_AICORE_ARGS 0x00000001U

/* Operators' arguments are dumped under path (dumpType must include
 * ACL_OP_DUMP_OP_AICORE_ARGS; NULL path or other type: ACL_ERROR_FAILURE). */
ACL_FUNC_VISIBILITY aclError aclopStartDumpArgs(uint32_t dumpType, const char *path);

/* Stops what aclopStartDumpArgs started (other types: nothing to do). */
ACL_FUNC_VISIBILITY aclError aclopStopDumpArgs(uint32_t dumpType);

typedef enum acldumpType {
    AIC_ERR_BRIEF_DUMP = 1,  /* lite exception dump */
    AIC_ERR_NORM_DUMP = 2,   /* exception dump with shapes, types, formats */
    AIC_ERR_DETAIL_DUMP = 3, /* exception dump with AI Core memory and registers */
    DATA_DUMP = 4,           /* model or single-operator data dump */
    OVERFLOW_DUMP = 5        /* overflow operator dump */
} acldumpType;

/* The dump path of a dump type, or NULL when that dump is off. */
ACL_FUNC_VISIBILITY const char *acldumpGetPath(acldumpType dumpType);

#define ACL_DUMP_MAX_SHAPE_NUM 25

typedef enum acldumpTensorType {
    ACL_DUMP_TENSOR_INPUT = 0,
    ACL_DUMP_TENSOR_OUTPUT,
    ACL_DUMP_TENSOR_WORKSPACE
} acldumpTensorType;

typedef enum acldumpTensorAddressType {
    ACL_DUMP_ADDR_PTR = 0, /* the address of the data's address */
    ACL_DUMP_ADDR_PTR_PTR, /* two dereferences to the data */
    ACL_DUMP_ADDR_RAW      /* the data's address */
} acldumpTensorAddressType;

typedef enum acldumpTensorPlacement {
    ACL_DUMP_PLACEMENT_DEVICE = 0,
    ACL_DUMP_PLACEMENT_HOST,
    ACL_DUMP_PLACEMENT_END /* bound of the enumeration, not a placement */
} acldumpTensorPlacement;

typedef struct acldumpTensorInfo {
    acldumpTensorType type;
    size_t tensorSize; /* bytes */
    int32_t format;    /* an aclFormat */
    int32_t dataType;  /* an aclDataType */
    int64_t *tensorAddr;
    acldumpTensorAddressType addrType;
    acldumpTensorPlacement placement;
    uint32_t argsOffset;
    uint32_t shapeNum;       /* entries of shape used, at most ACL_DUMP_MAX_SHAPE_NUM */
    uint32_t originShapeNum; /* entries of originShape used, at most ACL_DUMP_MAX_SHAPE_NUM */
    uint64_t shape[ACL_DUMP_MAX_SHAPE_NUM];
    uint64_t originShape[ACL_DUMP_MAX_SHAPE_NUM];
} acldumpTensorInfo;

/*
 * Writes tensors (raw device addresses) with userTag to fileName (a
 * relative path without "..") under the exception dump path, with the
 * suffix ".custom.<milliseconds timestamp>". Exception dump must be on
 * (aclInit's dump_scene): otherwise ACL_ERROR_FAILURE; bad arguments are
 * ACL_ERROR_INVALID_PARAM.
 */
ACL_DUMP_WEAK ACL_FUNC_VISIBILITY aclError
acldumpSaveExceptionInfo(const char *fileName, const char *userTag,
                         const acldumpTensorInfo *tensors, size_t tensorCount);

/* <dump path>/extra-info/data-dump/<device id>/ into path (maxLen > 1 and
 * enough for it). ACL_ERROR_FAILURE when exception dump is off. */
ACL_DUMP_WEAK ACL_FUNC_VISIBILITY aclError acldumpGetExceptionInfoPath(char *path, size_t maxLen);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_DUMP_H_ */
