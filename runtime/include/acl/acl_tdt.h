/* SPDX-License-Identifier: MIT */
/*
 * CANN's tensor data transfer channels (acl_tdt.h): a program builds
 * datasets of data items (tensors described by type, shape and a host
 * buffer) and sends them through a named channel of a device, from which
 * they are received in order. Here a channel is a bounded FIFO of this
 * process: a send copies each item's payload into device memory of the
 * channel's device, a receive copies it back into host memory the received
 * dataset owns. The README's TDT section describes the limits.
 *
 * The names, values and prototypes are upstream's.
 */
#ifndef INC_EXTERNAL_ACL_ACL_TDT_H_
#define INC_EXTERNAL_ACL_ACL_TDT_H_

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a data item carries. */
enum acltdtTensorType {
    ACL_TENSOR_DATA_UNDEFINED = -1,
    ACL_TENSOR_DATA_TENSOR,
    ACL_TENSOR_DATA_END_OF_SEQUENCE,
    ACL_TENSOR_DATA_ABNORMAL,
    ACL_TENSOR_DATA_SLICE_TENSOR,
    ACL_TENSOR_DATA_END_TENSOR
};
/* Upstream names the type without the enum keyword, which C needs this for. */
typedef enum acltdtTensorType acltdtTensorType;

typedef struct acltdtDataItem acltdtDataItem;
typedef struct acltdtDataset acltdtDataset;
typedef struct acltdtChannelHandle acltdtChannelHandle;

/* Getters of a data item; a NULL item reads as UNDEFINED, NULL or 0. */
ACL_FUNC_VISIBILITY acltdtTensorType acltdtGetTensorTypeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY aclDataType acltdtGetDataTypeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY void *acltdtGetDataAddrFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDataSizeFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDimNumFromItem(const acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY aclError acltdtGetSliceInfoFromItem(const acltdtDataItem *dataItem,
                                                        size_t *sliceNum, size_t *sliceId);
/* Copies the item's dims into dims, which holds dimNum entries. */
ACL_FUNC_VISIBILITY aclError acltdtGetDimsFromItem(const acltdtDataItem *dataItem, int64_t *dims,
                                                   size_t dimNum);

/* A data item describes (does not copy or own) size bytes at data. */
ACL_FUNC_VISIBILITY acltdtDataItem *acltdtCreateDataItem(acltdtTensorType tdtType,
                                                         const int64_t *dims, size_t dimNum,
                                                         aclDataType dataType, void *data,
                                                         size_t size);
ACL_FUNC_VISIBILITY aclError acltdtDestroyDataItem(acltdtDataItem *dataItem);

/* A dataset lists data items; destroying it leaves the items the program
 * added alone, but frees those a receive created. */
ACL_FUNC_VISIBILITY acltdtDataset *acltdtCreateDataset(void);
ACL_FUNC_VISIBILITY aclError acltdtDestroyDataset(acltdtDataset *dataset);
ACL_FUNC_VISIBILITY acltdtDataItem *acltdtGetDataItem(const acltdtDataset *dataset, size_t index);
ACL_FUNC_VISIBILITY aclError acltdtAddDataItem(acltdtDataset *dataset, acltdtDataItem *dataItem);
ACL_FUNC_VISIBILITY size_t acltdtGetDatasetSize(const acltdtDataset *dataset);
ACL_FUNC_VISIBILITY const char *acltdtGetDatasetName(const acltdtDataset *dataset);

/* Channels. timeout is in ms: -1 waits forever, 0 not at all. */
ACL_FUNC_VISIBILITY aclError acltdtStopChannel(acltdtChannelHandle *handle);
ACL_FUNC_VISIBILITY acltdtChannelHandle *acltdtCreateChannel(uint32_t deviceId, const char *name);
ACL_FUNC_VISIBILITY acltdtChannelHandle *acltdtCreateChannelWithCapacity(uint32_t deviceId,
                                                                         const char *name,
                                                                         size_t capacity);
ACL_FUNC_VISIBILITY aclError acltdtDestroyChannel(acltdtChannelHandle *handle);
ACL_FUNC_VISIBILITY aclError acltdtCleanChannel(acltdtChannelHandle *handle);
ACL_FUNC_VISIBILITY aclError acltdtSendTensor(const acltdtChannelHandle *handle,
                                              const acltdtDataset *dataset, int32_t timeout);
ACL_FUNC_VISIBILITY aclError acltdtReceiveTensor(const acltdtChannelHandle *handle,
                                                 acltdtDataset *dataset, int32_t timeout);
ACL_FUNC_VISIBILITY aclError acltdtQueryChannelSize(const acltdtChannelHandle *handle,
                                                    size_t *size);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_TDT_H_ */
