/* SPDX-License-Identifier: MIT */
/*
 * Types, flags and structures of CANN's driver memory API, with upstream's
 * names, values and layouts (libascend_hal.so implements the functions of
 * ascend_hal.h over this project's device).
 */
#ifndef NPU_DRIVER_ASCEND_HAL_DEFINE_H
#define NPU_DRIVER_ASCEND_HAL_DEFINE_H

#include <stddef.h>
#include <stdint.h>

#include "ascend_hal_error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned long long UINT64;
typedef unsigned int UINT32;
typedef unsigned short UINT16;
typedef unsigned char UINT8;

typedef UINT32 DVmem_advise;
typedef UINT32 DVdevice;
typedef UINT64 DVdeviceptr;
typedef drvError_t DVresult;

/* ---- halMemAlloc flag: bit fields --------------------------------------- */
/* bits 0-9: device id */
#define MEM_DEVID_WIDTH 10
#define MEM_DEVID_MASK ((1UL << MEM_DEVID_WIDTH) - 1)
/* bits 10-13: virtual memory type */
#define MEM_VIRT_BIT 10
#define MEM_VIRT_WIDTH 4
#define MEM_SVM_VAL 0X0
#define MEM_DEV_VAL 0X1
#define MEM_HOST_VAL 0X2
#define MEM_DVPP_VAL 0X3
#define MEM_HOST_AGENT_VAL 0X4
#define MEM_RESERVE_VAL 0X5
#define MEM_HOST_UVA_VAL 0X6
#define MEM_UVM_VAL 0x7
#define MEM_MAX_VAL 0X8
#define MEM_SVM (MEM_SVM_VAL << MEM_VIRT_BIT)
#define MEM_DEV (MEM_DEV_VAL << MEM_VIRT_BIT)
#define MEM_HOST (MEM_HOST_VAL << MEM_VIRT_BIT)
#define MEM_HOST_UVA (MEM_HOST_UVA_VAL << MEM_VIRT_BIT)
#define MEM_DVPP (MEM_DVPP_VAL << MEM_VIRT_BIT)
#define MEM_HOST_AGENT (MEM_HOST_AGENT_VAL << MEM_VIRT_BIT)
#define MEM_UVM (MEM_UVM_VAL << MEM_VIRT_BIT)
#define MEM_RESERVE (MEM_RESERVE_VAL << MEM_VIRT_BIT)
/* bits 14-16: physical memory type */
#define MEM_PHY_BIT 14
#define MEM_TYPE_DDR (0X0UL << MEM_PHY_BIT)
#define MEM_TYPE_HBM (0X1UL << MEM_PHY_BIT)
/* bits 17-18: page size */
#define MEM_PAGE_BIT 17
#define MEM_PAGE_NORMAL (0X0UL << MEM_PAGE_BIT)
#define MEM_PAGE_HUGE (0X1UL << MEM_PAGE_BIT)
/* bit 19: physical continuity */
#define MEM_CONTINUTY_BIT 19
#define MEM_DISCONTIGUOUS_PHY (0X0UL << MEM_CONTINUTY_BIT)
#define MEM_CONTIGUOUS_PHY (0X1UL << MEM_CONTINUTY_BIT)
/* bits 20-24: alignment exponent */
#define MEM_ALIGN_BIT 20
#define MEM_ALIGN_SIZE(x) (1U << (((x) >> MEM_ALIGN_BIT) & 0x1FU))
#define MEM_SET_ALIGN_SIZE(x) ((((x) & 0x1FU) << MEM_ALIGN_BIT))
/* bits 25-32: advice */
#define MEM_ADVISE_P2P_BIT 25
#define MEM_ADVISE_P2P (0X1UL << MEM_ADVISE_P2P_BIT)
#define MEM_ADVISE_4G_BIT 26
#define MEM_ADVISE_4G (0X1UL << MEM_ADVISE_4G_BIT)
#define MEM_ADVISE_TS_BIT 27
#define MEM_ADVISE_TS (0X1UL << MEM_ADVISE_TS_BIT)
#define MEM_ADVISE_BAR_BIT 28
#define MEM_ADVISE_BAR (0X1UL << MEM_ADVISE_BAR_BIT)
#define MEM_READONLY_BIT 29
#define MEM_READONLY (0X1UL << MEM_READONLY_BIT)
#define MEM_HOST_RW_DEV_RO_BIT 30
#define MEM_HOST_RW_DEV_RO (0X1UL << MEM_HOST_RW_DEV_RO_BIT)
#define MEM_PAGE_GIANT_BIT 31
#define MEM_PAGE_GIANT (0X1UL << MEM_PAGE_GIANT_BIT)
#define MEM_DEV_CP_ONLY_BIT 32
#define MEM_DEV_CP_ONLY (0X1UL << MEM_DEV_CP_ONLY_BIT)
/* bits 56-63: module id */
#define MEM_MODULE_ID_BIT 56
#define MEM_MODULE_ID_WIDTH 8
#define MEM_MODULE_ID_MASK ((1UL << MEM_MODULE_ID_WIDTH) - 1)

#define MEM_SVM_HUGE (MEM_SVM | MEM_PAGE_HUGE)
#define MEM_SVM_NORMAL (MEM_SVM | MEM_PAGE_NORMAL)

/* ---- halMemGetInfo types ------------------------------------------------ */
#define MEM_INFO_TYPE_DDR_SIZE 1
#define MEM_INFO_TYPE_HBM_SIZE 2
#define MEM_INFO_TYPE_DDR_P2P_SIZE 3
#define MEM_INFO_TYPE_HBM_P2P_SIZE 4
#define MEM_INFO_TYPE_ADDR_CHECK 5
#define MEM_INFO_TYPE_CTRL_NUMA_INFO 6
#define MEM_INFO_TYPE_AI_NUMA_INFO 7
#define MEM_INFO_TYPE_BAR_NUMA_INFO 8
#define MEM_INFO_TYPE_SVM_GRP_INFO 9
#define MEM_INFO_TYPE_UB_TOKEN_INFO 10
#define MEM_INFO_TYPE_SYS_NUMA_INFO 11
#define MEM_INFO_TYPE_MAX 12

/* ---- halMemAddressReserve flag ------------------------------------------ */
/* bits 0-1: enum drv_mem_pg_type */
#define MEM_RSV_TYPE_DEVICE_SHARE_BIT 8
#define MEM_RSV_TYPE_DEVICE_SHARE (0x1u << MEM_RSV_TYPE_DEVICE_SHARE_BIT)
#define MEM_RSV_TYPE_REMOTE_MAP_BIT 9
#define MEM_RSV_TYPE_REMOTE_MAP (0x1u << MEM_RSV_TYPE_REMOTE_MAP_BIT)

/* ---- copies ------------------------------------------------------------- */
#define DEVMM_MEMCPY_BATCH_MAX_COUNT 4096

typedef enum tagDrvMemcpyKind {
    DRV_MEMCPY_HOST_TO_HOST,
    DRV_MEMCPY_HOST_TO_DEVICE,
    DRV_MEMCPY_DEVICE_TO_HOST,
    DRV_MEMCPY_DEVICE_TO_DEVICE,
} drvMemcpyKind_t;

struct memcpy_info {
    drvMemcpyKind_t dir;
    uint32_t devid;
    uint64_t reserve[2]; /* must be zero */
};

enum DEVMM_MEMCPY2D_TYPE {
    DEVMM_MEMCPY2D_SYNC = 0,
    DEVMM_MEMCPY2D_ASYNC_CONVERT = 1,
    DEVMM_MEMCPY2D_ASYNC_DESTROY = 2,
    DEVMM_MEMCPY2D_TYPE_MAX
};

struct DMA_ADDR; /* descriptors of the asynchronous copy forms (not supported) */

struct drvMem2D {
    unsigned long long *dst;
    unsigned long long dpitch;
    unsigned long long *src;
    unsigned long long spitch;
    unsigned long long width;
    unsigned long long height;
    unsigned long long fixed_size; /* rows * width already copied (in and out) */
    unsigned int direction;        /* drvMemcpyKind_t */
    unsigned int resv1;
    unsigned long long resv2;
};

struct drvMem2DAsync {
    struct drvMem2D copy2dInfo;
    struct DMA_ADDR *dmaAddr;
};

struct MEMCPY2D {
    unsigned int type; /* enum DEVMM_MEMCPY2D_TYPE */
    unsigned int resv;
    union {
        struct drvMem2D copy2d;
        struct drvMem2DAsync copy2dAsync;
    };
};

/* ---- host register ------------------------------------------------------ */
#define MEM_REGISTER_READ_ONLY 0X1UL << 28UL
enum drvRegisterTpye {
    HOST_MEM_MAP_DEV = 0,
    HOST_SVM_MAP_DEV,
    DEV_SVM_MAP_HOST,
    HOST_MEM_MAP_DEV_PCIE_TH,
    HOST_MEM_MAP_DEV_V2 = HOST_MEM_MAP_DEV_PCIE_TH,
    DEV_MEM_MAP_HOST,
    HOST_MEM_MAP_DMA,
    HOST_IO_MAP_DEV,
    HOST_REGISTER_MAX_TPYE
};

/* ---- virtual memory management ------------------------------------------ */
enum drv_mem_side {
    MEM_HOST_SIDE = 0,
    MEM_DEV_SIDE,
    MEM_HOST_NUMA_SIDE,
    MEM_MAX_SIDE
};

enum drv_mem_pg_type {
    MEM_NORMAL_PAGE_TYPE = 0,
    MEM_HUGE_PAGE_TYPE,
    MEM_GIANT_PAGE_TYPE,
    MEM_MAX_PAGE_TYPE
};

enum drv_mem_type {
    MEM_HBM_TYPE = 0,
    MEM_DDR_TYPE,
    MEM_P2P_HBM_TYPE,
    MEM_P2P_DDR_TYPE,
    MEM_TS_DDR_TYPE,
    MEM_MAX_TYPE
};

typedef struct drv_mem_handle drv_mem_handle_t;

struct drv_mem_prop {
    uint32_t side;      /* enum drv_mem_side */
    uint32_t devid;     /* device id; the NUMA node for MEM_HOST_NUMA_SIDE */
    uint32_t module_id;
    uint32_t pg_type;  /* enum drv_mem_pg_type */
    uint32_t mem_type; /* enum drv_mem_type */
    uint64_t reserve;
};

typedef enum {
    MEM_ADDR_RESERVE_TYPE_DCACHE = 0x0,
    MEM_ADDR_RESERVE_TYPE_MAX,
} drv_mem_addr_reserve_type;

typedef enum {
    MEM_ALLOC_GRANULARITY_MINIMUM = 0x0,
    MEM_ALLOC_GRANULARITY_RECOMMENDED,
    MEM_ALLOC_GRANULARITY_INVALID,
} drv_mem_granularity_options;

typedef enum {
    MEM_ACCESS_TYPE_NONE = 0x0,
    MEM_ACCESS_TYPE_READ = 0x1,
    MEM_ACCESS_TYPE_READWRITE = 0x3,
    MEM_ACCESS_TYPE_MAX = 0x7FFFFFFF
} drv_mem_access_type;

struct drv_mem_location {
    uint32_t id; /* device id for MEM_DEV_SIDE; 0 for the host */
    enum drv_mem_side side;
};

struct drv_mem_access_desc {
    drv_mem_access_type type;
    struct drv_mem_location location;
    unsigned int rsv[2];
};

/* ---- shareable handles -------------------------------------------------- */
typedef enum {
    MEM_HANDLE_TYPE_NONE = 0x0,
    MEM_HANDLE_TYPE_FABRIC = 0x1,
    MEM_HANDLE_TYPE_POSIX = 0x2,
    MEM_HANDLE_TYPE_MAX = 0x3,
} drv_mem_handle_type;

#define MEM_SHARE_HANDLE_LEN 128
struct MemShareHandle {
    uint8_t share_info[MEM_SHARE_HANDLE_LEN];
};

enum ShareHandleAttrType {
    SHR_HANDLE_ATTR_NO_WLIST_IN_SERVER = 0,
    SHR_HANDLE_ATTR_TYPE_MAX
};
#define SHR_HANDLE_WLIST_ENABLE 0x0
#define SHR_HANDLE_NO_WLIST_ENABLE 0x1

struct ShareHandleAttr {
    unsigned int enableFlag; /* SHR_HANDLE_WLIST_ENABLE or SHR_HANDLE_NO_WLIST_ENABLE */
    unsigned int rsv[8];
};

struct ShareHandleGetInfo {
    unsigned int phyDevid;
    unsigned int reserve[8];
};

/* ---- named IPC memory (halShmem*) --------------------------------------- */
enum ShmemAttrType {
    SHMEM_ATTR_TYPE_MEM_MAP = 0,
    SHMEM_ATTR_TYPE_NO_WLIST_IN_SERVER,
    SHMEM_ATTR_TYPE_MAX
};
#define SHMEM_WLIST_ENABLE 0x0
#define SHMEM_NO_WLIST_ENABLE 0x1

struct ShmemGetInfo {
    unsigned int phyDevid;
    unsigned int reserve[8];
};

/* ---- memory information ------------------------------------------------- */
struct MemPhyInfo {
    unsigned long total;       /* normal (4 KiB) pages, bytes */
    unsigned long free;
    unsigned long huge_total;  /* huge pages (2 MiB and 1 GiB), bytes */
    unsigned long huge_free;
    unsigned long giant_total; /* 1 GiB pages, bytes */
    unsigned long giant_free;
};

struct MemAddrInfo {
    DVdeviceptr **addr;
    unsigned int cnt;
    unsigned int mem_type; /* MEM_*_TYPE bits */
    unsigned int flag;     /* out: 1 if every address is valid */
};

#define MAX_NUMA_NUM_OF_PER_DEV 64
struct MemNumaInfo {
    unsigned int node_cnt;
    int node_id[MAX_NUMA_NUM_OF_PER_DEV];
};

#define SVM_GRP_NAME_LEN 32
struct MemSvmGrpInfo {
    char name[SVM_GRP_NAME_LEN];
};

struct MemUbTokenInfo {
    uint64_t va;
    uint64_t size;
    uint32_t token_id;
    uint32_t token_value;
};

struct MemInfo {
    union {
        struct MemPhyInfo phy_info;
        struct MemAddrInfo addr_info;
        struct MemNumaInfo numa_info;
        struct MemSvmGrpInfo grp_info;
        struct MemUbTokenInfo ub_token_info;
    };
};

#define MEM_SVM_TYPE (1u << MEM_SVM_VAL)
#define MEM_DEV_TYPE (1u << MEM_DEV_VAL)
#define MEM_HOST_TYPE (1u << MEM_HOST_VAL)
#define MEM_DVPP_TYPE (1u << MEM_DVPP_VAL)
#define MEM_HOST_AGENT_TYPE (1u << MEM_HOST_AGENT_VAL)
#define MEM_RESERVE_TYPE (1u << MEM_RESERVE_VAL)
#define SVM_ADDR_CHECK_MAX_NUM 1024u

/* ---- device information (halGetDeviceInfo) ------------------------------ */
typedef enum {
    MODULE_TYPE_SYSTEM = 0,
    MODULE_TYPE_AICPU,
    MODULE_TYPE_CCPU,
    MODULE_TYPE_DCPU,
    MODULE_TYPE_AICORE,
    MODULE_TYPE_TSCPU = 5,
    MODULE_TYPE_PCIE,
    MODULE_TYPE_VECTOR_CORE,
    MODULE_TYPE_HOST_AICPU,
    MODULE_TYPE_QOS,
    MODULE_TYPE_MEMORY = 10,
} DEV_MODULE_TYPE;

typedef enum {
    INFO_TYPE_ENV = 0,
    INFO_TYPE_VERSION,
    INFO_TYPE_MASTERID,
    INFO_TYPE_CORE_NUM,
    INFO_TYPE_FREQUE,
    INFO_TYPE_OS_SCHED = 5,
    INFO_TYPE_IN_USED,
    INFO_TYPE_ERROR_MAP,
    INFO_TYPE_OCCUPY,
    INFO_TYPE_ID,
    INFO_TYPE_IP = 10,
    INFO_TYPE_ENDIAN,
    INFO_TYPE_P2P_CAPABILITY,
    INFO_TYPE_SYS_COUNT,
    INFO_TYPE_MONOTONIC_RAW,
    INFO_TYPE_CORE_NUM_LEVEL = 15,
    INFO_TYPE_FREQUE_LEVEL,
    INFO_TYPE_FFTS_TYPE,
    INFO_TYPE_PHY_CHIP_ID,
    INFO_TYPE_PHY_DIE_ID,
    INFO_TYPE_PF_CORE_NUM = 20,
    INFO_TYPE_PF_OCCUPY,
    INFO_TYPE_WORK_MODE,
    INFO_TYPE_UTILIZATION,
    INFO_TYPE_HOST_OSC_FREQUE,
    INFO_TYPE_DEV_OSC_FREQUE = 25,
    INFO_TYPE_SDID,
    INFO_TYPE_SERVER_ID,
    INFO_TYPE_SCALE_TYPE,
    INFO_TYPE_SUPER_POD_ID,
    INFO_TYPE_ADDR_MODE = 30,
} DEV_INFO_TYPE;

/* ---- task queues (halSqCq*: not supported, see the README) -------------- */
#define SQCQ_QUERY_INFO_LENGTH 8
typedef enum tagDrvSqCqType {
    DRV_NORMAL_TYPE = 0,
    DRV_CALLBACK_TYPE,
    DRV_LOGIC_TYPE,
    DRV_SHM_TYPE,
    DRV_CTRL_TYPE,
    DRV_GDB_TYPE,
    DRV_INVALID_TYPE
} drvSqCqType_t;

typedef enum tagDrvSqCqPropType {
    DRV_SQCQ_PROP_SQ_STATUS = 0x0,
    DRV_SQCQ_PROP_SQ_HEAD,
    DRV_SQCQ_PROP_SQ_TAIL,
} drvSqCqPropType_t;

struct halSqCqQueryInfo {
    drvSqCqType_t type;
    uint32_t tsId;
    uint32_t sqId;
    uint32_t cqId;
    drvSqCqPropType_t prop;
    uint32_t value[SQCQ_QUERY_INFO_LENGTH];
};

#ifdef __cplusplus
}
#endif

#endif /* NPU_DRIVER_ASCEND_HAL_DEFINE_H */
