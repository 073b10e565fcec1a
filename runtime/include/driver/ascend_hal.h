/* SPDX-License-Identifier: MIT */
/*
 * CANN's driver API, memory part (libascend_hal.so): upstream's prototypes
 * over this project's device. Functions return DRV_ERROR_NONE or a
 * DRV_ERROR_* code; aclGetRecentErrMsg() of libascendcl says why a call
 * failed. The README's libascend_hal.so section lists which of them answer
 * DRV_ERROR_NOT_SUPPORT, and why.
 *
 * Devices are the user device ids of the acl layer (ASCEND_RT_VISIBLE_DEVICES
 * applies). A call that names a device this process has not opened opens it,
 * as aclrtSetDevice would, and keeps it open until the process exits.
 */
#ifndef NPU_DRIVER_ASCEND_HAL_H
#define NPU_DRIVER_ASCEND_HAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ascend_hal_define.h"
#include "ascend_hal_error.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DLLEXPORT
#define DLLEXPORT __attribute__((visibility("default")))
#endif

/* ---- devices and processes ---------------------------------------------- */
DLLEXPORT drvError_t drvGetDevNum(uint32_t *num_dev);
DLLEXPORT drvError_t drvGetDevIDByLocalDevID(uint32_t localDevId, uint32_t *devId);
DLLEXPORT drvError_t drvGetLocalDevIDByHostDevID(uint32_t host_dev_id, uint32_t *local_dev_id);
DLLEXPORT drvError_t drvGetPhyIdByIndex(uint32_t devIndex, uint32_t *phyId);
DLLEXPORT drvError_t drvGetIndexByPhyId(uint32_t phyId, uint32_t *devIndex);
DLLEXPORT drvError_t halGetDeviceInfo(uint32_t devId, int32_t moduleType, int32_t infoType,
                                      int64_t *value);
DLLEXPORT pid_t drvDeviceGetBareTgid(void);

/* ---- allocation and copies ---------------------------------------------- */
DLLEXPORT drvError_t halMemAlloc(void **pp, unsigned long long size, unsigned long long flag);
DLLEXPORT drvError_t halMemFree(void *pp);
DLLEXPORT drvError_t halMemGetAddressRange(DVdeviceptr ptr, DVdeviceptr *pbase, size_t *psize);
DLLEXPORT DVresult drvMemsetD8(DVdeviceptr dst, size_t destMax, UINT8 value, size_t num);
DLLEXPORT DVresult drvMemcpy(DVdeviceptr dst, size_t dest_max, DVdeviceptr src, size_t byte_count);
DLLEXPORT drvError_t halMemcpy(void *dst, size_t dst_size, void *src, size_t count,
                               struct memcpy_info *info);
DLLEXPORT drvError_t halMemcpy2D(struct MEMCPY2D *p_copy);
DLLEXPORT DVresult halMemcpyBatch(uint64_t dst[], uint64_t src[], size_t size[], size_t count);
DLLEXPORT DVresult halMemcpySumbit(struct DMA_ADDR *dma_addr, int flag);
DLLEXPORT DVresult halMemcpyWait(struct DMA_ADDR *dma_addr);

/* ---- virtual memory management ------------------------------------------ */
DLLEXPORT drvError_t halMemAddressReserve(void **ptr, size_t size, size_t alignment, void *addr,
                                          uint64_t flag);
DLLEXPORT drvError_t halMemAddressFree(void *ptr);
DLLEXPORT drvError_t halMemCreate(drv_mem_handle_t **handle, size_t size,
                                  const struct drv_mem_prop *prop, uint64_t flag);
DLLEXPORT drvError_t halMemRelease(drv_mem_handle_t *handle);
DLLEXPORT drvError_t halMemRetainAllocationHandle(drv_mem_handle_t **handle, void *ptr);
DLLEXPORT drvError_t halMemGetAllocationPropertiesFromHandle(struct drv_mem_prop *prop,
                                                             drv_mem_handle_t *handle);
DLLEXPORT drvError_t halMemMap(void *ptr, size_t size, size_t offset, drv_mem_handle_t *handle,
                               uint64_t flag);
DLLEXPORT drvError_t halMemUnmap(void *ptr);
DLLEXPORT drvError_t halMemSetAccess(void *ptr, size_t size, struct drv_mem_access_desc *desc,
                                     size_t count);
DLLEXPORT drvError_t halMemGetAccess(void *ptr, struct drv_mem_location *location,
                                     uint64_t *flags);
DLLEXPORT drvError_t halMemGetAllocationGranularity(const struct drv_mem_prop *prop,
                                                    drv_mem_granularity_options option,
                                                    size_t *granularity);

/* ---- shareable handles -------------------------------------------------- */
DLLEXPORT drvError_t halMemExportToShareableHandle(drv_mem_handle_t *handle,
                                                   drv_mem_handle_type handle_type, uint64_t flags,
                                                   uint64_t *shareable_handle);
DLLEXPORT drvError_t halMemExportToShareableHandleV2(drv_mem_handle_t *handle,
                                                     drv_mem_handle_type handle_type,
                                                     uint64_t flags,
                                                     struct MemShareHandle *share_handle);
DLLEXPORT drvError_t halMemImportFromShareableHandle(uint64_t shareable_handle, uint32_t devid,
                                                     drv_mem_handle_t **handle);
DLLEXPORT drvError_t halMemImportFromShareableHandleV2(drv_mem_handle_type handle_type,
                                                       struct MemShareHandle *share_handle,
                                                       uint32_t devid, drv_mem_handle_t **handle);
DLLEXPORT drvError_t halMemTransShareableHandle(drv_mem_handle_type handle_type,
                                                struct MemShareHandle *share_handle,
                                                uint32_t *server_id, uint64_t *shareable_handle);
DLLEXPORT drvError_t halMemSetPidToShareableHandle(uint64_t shareable_handle, int pid[],
                                                   uint32_t pid_num);
DLLEXPORT drvError_t halMemShareHandleSetAttribute(uint64_t shareable_handle,
                                                   enum ShareHandleAttrType type,
                                                   struct ShareHandleAttr attr);
DLLEXPORT drvError_t halMemShareHandleGetAttribute(uint64_t shareable_handle,
                                                   enum ShareHandleAttrType type,
                                                   struct ShareHandleAttr *attr);
DLLEXPORT drvError_t halMemShareHandleInfoGet(uint64_t shareable_handle,
                                              struct ShareHandleGetInfo *info);

/* ---- named IPC memory --------------------------------------------------- */
DLLEXPORT DVresult halShmemCreateHandle(DVdeviceptr vptr, size_t byte_count, char *name,
                                        uint32_t name_len);
DLLEXPORT DVresult halShmemDestroyHandle(const char *name);
DLLEXPORT DVresult halShmemSetPidHandle(const char *name, int pid[], int num);
DLLEXPORT DVresult halShmemSetPodPid(const char *name, uint32_t sdid, int pid[], int num);
DLLEXPORT DVresult halShmemOpenHandle(const char *name, DVdeviceptr *vptr);
DLLEXPORT DVresult halShmemOpenHandleByDevId(DVdevice dev_id, const char *name,
                                             DVdeviceptr *vptr);
DLLEXPORT DVresult halShmemCloseHandle(DVdeviceptr vptr);
DLLEXPORT DVresult halShmemSetAttribute(const char *name, uint32_t type, uint64_t attr);
DLLEXPORT DVresult halShmemGetAttribute(const char *name, enum ShmemAttrType type,
                                        uint64_t *attr);
DLLEXPORT DVresult halShmemInfoGet(const char *name, struct ShmemGetInfo *info);

/* ---- host memory registration ------------------------------------------- */
DLLEXPORT drvError_t halHostRegister(void *src_ptr, UINT64 size, UINT32 flag, UINT32 devid,
                                     void **dst_ptr);
DLLEXPORT drvError_t halHostUnregister(void *src_ptr, UINT32 devid);
DLLEXPORT drvError_t halHostUnregisterEx(void *src_ptr, UINT32 devid, UINT32 flag);

/* ---- memory information ------------------------------------------------- */
DLLEXPORT DVresult halMemGetInfo(DVdevice device, unsigned int type, struct MemInfo *info);
DLLEXPORT DVresult halMemGetInfoEx(DVdevice device, unsigned int type, struct MemInfo *info);

/* ---- task queues and notifies: exported, DRV_ERROR_NOT_SUPPORT ---------- */
DLLEXPORT drvError_t halSqCqQuery(uint32_t devId, struct halSqCqQueryInfo *info);
struct halSqCqInputInfo;
struct halSqCqOutputInfo;
struct halSqCqFreeInfo;
struct halSqCqConfigInfo;
struct halTaskSendInfo;
struct halReportRecvInfo;
struct halResourceIdInputInfo;
struct halResourceIdOutputInfo;
struct halResourceConfigInfo;
struct drvResIdKey;
struct drvNotifyInfo;
DLLEXPORT drvError_t halSqCqAllocate(uint32_t devId, struct halSqCqInputInfo *in,
                                     struct halSqCqOutputInfo *out);
DLLEXPORT drvError_t halSqCqFree(uint32_t devId, struct halSqCqFreeInfo *info);
DLLEXPORT drvError_t halSqCqConfig(uint32_t devId, struct halSqCqConfigInfo *info);
DLLEXPORT drvError_t halSqTaskSend(uint32_t devId, struct halTaskSendInfo *info);
DLLEXPORT drvError_t halCqReportRecv(uint32_t devId, struct halReportRecvInfo *info);
DLLEXPORT drvError_t halResourceIdAlloc(uint32_t devId, struct halResourceIdInputInfo *in,
                                        struct halResourceIdOutputInfo *out);
DLLEXPORT drvError_t halResourceIdFree(uint32_t devId, struct halResourceIdInputInfo *in);
DLLEXPORT drvError_t halResourceConfig(uint32_t devId, struct halResourceIdInputInfo *in,
                                       struct halResourceConfigInfo *para);
DLLEXPORT drvError_t halResourceIdRestore(struct drvResIdKey *info);
DLLEXPORT drvError_t drvNotifyIdAddrOffset(uint32_t devId, struct drvNotifyInfo *info);

#ifdef __cplusplus
}
#endif

#endif /* NPU_DRIVER_ASCEND_HAL_H */
