/* SPDX-License-Identifier: MIT */
/* CANN's runtime API: memory, copies and IPC memory names. */
#ifndef NPU_CANN_RUNTIME_MEM_H
#define NPU_CANN_RUNTIME_MEM_H

#include "runtime/base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* rtMalloc's type: a memory kind, or-ed with at most one page policy. */
#define RT_MEMORY_DEFAULT (0x0U)
#define RT_MEMORY_HBM (0x2U)
#define RT_MEMORY_DDR (0x4U)
#define RT_MEMORY_P2P_HBM (0x10U)
#define RT_MEMORY_P2P_DDR (0x11U)
#define RT_MEMORY_HOST (0x81U)
#define RT_MEMORY_POLICY_NONE (0x0U)
#define RT_MEMORY_POLICY_HUGE_PAGE_FIRST (0x400U)
#define RT_MEMORY_POLICY_HUGE_PAGE_ONLY (0x800U)
#define RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY (0x1000U)
#define RT_MEMORY_POLICY_HUGE_PAGE_FIRST_P2P (0x2000U)
#define RT_MEMORY_POLICY_HUGE_PAGE_ONLY_P2P (0x4000U)
#define RT_MEMORY_POLICY_DEFAULT_PAGE_ONLY_P2P (0x8000U)
#define RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY (0x10000U)
#define RT_MEMORY_POLICY_HUGE1G_PAGE_ONLY_P2P (0x20000U)

typedef uint32_t rtMemType_t;

typedef enum tagRtMemcpyKind {
    RT_MEMCPY_HOST_TO_HOST = 0,
    RT_MEMCPY_HOST_TO_DEVICE,
    RT_MEMCPY_DEVICE_TO_HOST,
    RT_MEMCPY_DEVICE_TO_DEVICE,
    RT_MEMCPY_MANAGED,
    RT_MEMCPY_ADDR_DEVICE_TO_DEVICE,
    RT_MEMCPY_HOST_TO_DEVICE_EX,
    RT_MEMCPY_DEVICE_TO_HOST_EX,
    RT_MEMCPY_DEFAULT,
    RT_MEMCPY_RESERVED,
} rtMemcpyKind_t;

/* moduleId is the caller's log module; it does not change the memory. */
RTS_API rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type,
                           const uint16_t moduleId);
RTS_API rtError_t rtFree(void *devPtr);
RTS_API rtError_t rtMallocHost(void **hostPtr, uint64_t size, const uint16_t moduleId);
RTS_API rtError_t rtFreeHost(void *hostPtr);
RTS_API rtError_t rtMemset(void *devPtr, uint64_t destMax, uint32_t val, uint64_t cnt);
RTS_API rtError_t rtMemGetInfo(size_t *freeSize, size_t *totalSize);

/* RT_MEMCPY_HOST_TO_HOST to RT_MEMCPY_DEVICE_TO_DEVICE and RT_MEMCPY_DEFAULT
 * (the direction from the addresses); the other kinds are refused. */
RTS_API rtError_t rtMemcpy(void *dst, uint64_t destMax, const void *src, uint64_t cnt,
                           rtMemcpyKind_t kind);
RTS_API rtError_t rtMemcpyAsync(void *dst, uint64_t destMax, const void *src, uint64_t cnt,
                                rtMemcpyKind_t kind, rtStream_t stm);
/* As rtMemcpyAsync, but the direction always comes from the addresses:
 * kind is not checked against them. */
RTS_API rtError_t rtMemcpyAsyncWithoutCheckKind(void *dst, uint64_t destMax, const void *src,
                                                uint64_t cnt, rtMemcpyKind_t kind,
                                                rtStream_t stm);

/* IPC memory by name. The exporter names the whole allocation at ptr
 * (len: the size of name, at least 65 bytes), whitelists the importers'
 * process ids (rtDeviceGetBareTgid), and destroys the name at the end; an
 * importer opens the name (a device address in its current context) and
 * closes that address. */
RTS_API rtError_t rtIpcSetMemoryName(const void *ptr, uint64_t byteCount, char_t *name,
                                     uint32_t len);
RTS_API rtError_t rtSetIpcMemPid(const char_t *name, int32_t pid[], int32_t num);
/* As rtSetIpcMemPid. sdid names the importers' device in a super pod;
 * without one (this device is in none) it selects nothing. */
RTS_API rtError_t rtSetIpcMemorySuperPodPid(const char_t *name, uint32_t sdid, int32_t pid[],
                                            int32_t num);
RTS_API rtError_t rtIpcDestroyMemoryName(const char_t *name);
RTS_API rtError_t rtIpcOpenMemory(void **ptr, const char_t *name);
RTS_API rtError_t rtIpcCloseMemory(const void *ptr);

#ifdef __cplusplus
}
#endif

#endif /* NPU_CANN_RUNTIME_MEM_H */
