/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * The whole contract between userspace and the npu driver: ioctl commands,
 * their argument structs, and the layout of the submission/completion rings.
 *
 * Rules that hold for every command:
 *  - Every command is _IOR/_IOW/_IOWR('N', nr, struct) with a fixed-size
 *    struct, so it works in CUSE/FUSE restricted-ioctl mode, where the kernel
 *    copies exactly _IOC_SIZE bytes each way.
 *  - Fields are fixed width; every pointer, size and handle is a __u64; every
 *    struct is padded explicitly to a multiple of 8 bytes.
 *  - Fields marked "in" are read by the driver, "out" are written by it.
 *    Every "rsvd"/"pad" field and every flag bit not defined here must be
 *    zero, or the command fails with -EINVAL.
 *  - Errors are -errno: EINVAL (bad argument), ENOMEM (out of device memory),
 *    EFAULT (bad user address), ENOENT (unknown handle or address),
 *    EEXIST (already exists), EPERM (not permitted), EBUSY (in use),
 *    EOPNOTSUPP (feature not supported), ENOTTY (unknown command).
 *  - Objects (allocations, rings) belong to the open file that created them
 *    and are released when it is closed, including when its process dies.
 *
 * Device virtual addresses: after NPU_IOCTL_CTX_SETUP the driver places every
 * device mapping inside the aperture the caller handed over. The runtime
 * reserves that aperture in its own address space (PROT_NONE), so a device
 * address is never a valid host address.
 */
#ifndef _UAPI_NPU_UAPI_H
#define _UAPI_NPU_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define NPU_ABI_VERSION_MAJOR 1
#define NPU_ABI_VERSION_MINOR 0

#define NPU_IOCTL_MAGIC 'N'

/* Feature bits reported by NPU_IOCTL_GET_VERSION. */
#define NPU_FEATURE_RING	(1ULL << 0) /* rings and the copy engine */
#define NPU_FEATURE_HUGE	(1ULL << 1) /* 2 MiB pages */
#define NPU_FEATURE_HUGE1G	(1ULL << 2) /* 1 GiB pages */
#define NPU_FEATURE_URING_CMD	(1ULL << 3) /* file_operations.uring_cmd */

/* Page orders are relative to the 4 KiB device frame. */
#define NPU_PAGE_SHIFT		12
#define NPU_PAGE_SIZE		(1ULL << NPU_PAGE_SHIFT)
#define NPU_ORDER_NORMAL	0	/* 4 KiB */
#define NPU_ORDER_HUGE		9	/* 2 MiB */
#define NPU_ORDER_HUGE1G	18	/* 1 GiB */
#define NPU_MAX_ORDER		18

/*
 * NPU_IOCTL_GET_VERSION: ABI version and what this device supports.
 * Needs no context; works on a freshly opened file.
 */
struct npu_version {
	__u32 abi_major;	/* out */
	__u32 abi_minor;	/* out */
	__u64 features;		/* out: NPU_FEATURE_* */
	__u32 device_count;	/* out: devices of this driver instance */
	__u32 device_index;	/* out: which of them this file is */
	__u64 hbm_size;		/* out: bytes of device memory */
	__u64 page_order_mask;	/* out: bit n set = 2^n frames is a page size */
};

/* Page classes, the index of the per-class arrays below. */
#define NPU_CLASS_NORMAL	0	/* 4 KiB pages */
#define NPU_CLASS_HUGE		1	/* 2 MiB pages */
#define NPU_CLASS_HUGE1G	2	/* 1 GiB pages */
#define NPU_CLASS_COUNT		3

/*
 * NPU_IOCTL_DEVICE_INFO: device memory totals and what is free.
 * free[c] is the number of bytes that allocations of class c could still
 * get: for NORMAL every free frame, for HUGE the free naturally aligned
 * 2 MiB blocks, for HUGE1G the free 1 GiB blocks.
 */
struct npu_device_info {
	__u64 hbm_total;			/* out */
	__u64 hbm_free;				/* out: free frames, in bytes */
	__u64 total[NPU_CLASS_COUNT];		/* out */
	__u64 free[NPU_CLASS_COUNT];		/* out */
	__u64 page_order_mask;			/* out */
	__u32 engines;				/* out: copy engines */
	__u32 contexts;				/* out: open contexts */
	__u64 allocations;			/* out: live allocation objects */
	__u64 rsvd[4];				/* out: zero */
};

/*
 * NPU_IOCTL_CTX_SETUP: hand the driver the device-VA aperture. Must come
 * before any allocation or ring command on this file, and only once.
 * va_base and va_size must be multiples of 1 GiB and must not wrap.
 */
struct npu_ctx_setup {
	__u64 va_base;	/* in */
	__u64 va_size;	/* in */
	__u32 flags;	/* in: must be 0 */
	__u32 ctx_id;	/* out: the context's id as the driver sees it */
	__u32 tgid;	/* out: the caller's TGID as the driver sees it */
	__u32 pad;
};

/* Allocation policies (npu_mem_alloc.policy). */
#define NPU_POLICY_HUGE_FIRST	0 /* 2 MiB pages if size > 1 MiB and free, else 4 KiB */
#define NPU_POLICY_HUGE_ONLY	1 /* 2 MiB pages or -ENOMEM */
#define NPU_POLICY_NORMAL_ONLY	2 /* 4 KiB pages (possibly many extents) or -ENOMEM */
#define NPU_POLICY_HUGE1G_ONLY	3 /* 1 GiB pages or -ENOMEM */
#define NPU_POLICY_COUNT	4

/* Allocation flags (npu_mem_alloc.flags). */
#define NPU_MEM_P2P		(1U << 0) /* usable for device-to-device transfers */
#define NPU_MEM_READONLY	(1U << 1) /* host-side writes (H2D, memset) are refused */
#define NPU_MEM_FLAGS_ALL	(NPU_MEM_P2P | NPU_MEM_READONLY)

/*
 * NPU_IOCTL_MEM_ALLOC: allocate device memory and map it in the aperture.
 * The mapping covers size rounded up to the page size; va is aligned to the
 * page size.
 */
struct npu_mem_alloc {
	__u64 size;		/* in: bytes, > 0 */
	__u32 policy;		/* in: NPU_POLICY_* */
	__u32 flags;		/* in: NPU_MEM_* */
	__u64 va;		/* out: device virtual address */
	__u64 handle;		/* out: per-file handle of the allocation */
	__u64 mapped_size;	/* out: size rounded up to the page size */
	__u32 page_size;	/* out: bytes, 4 KiB, 2 MiB or 1 GiB */
	__u32 pad;
};

/* NPU_IOCTL_MEM_FREE: free the allocation whose base is va. */
struct npu_mem_free {
	__u64 va;	/* in: exactly the va MEM_ALLOC returned */
	__u64 rsvd;	/* in: must be 0 */
};

/* Kinds of mapping reported by NPU_IOCTL_MEM_QUERY. */
#define NPU_MAPPING_NONE	0 /* not a device address of this context */
#define NPU_MAPPING_ALLOC	1 /* from NPU_IOCTL_MEM_ALLOC */

/*
 * NPU_IOCTL_MEM_QUERY: what contains address va in this context.
 * An address outside every mapping succeeds with kind NPU_MAPPING_NONE.
 */
struct npu_mem_query {
	__u64 va;		/* in: any address */
	__u64 base;		/* out: base of the containing mapping */
	__u64 size;		/* out: its mapped size */
	__u32 kind;		/* out: NPU_MAPPING_* */
	__u32 page_size;	/* out */
	__u32 flags;		/* out: NPU_MEM_* of the allocation */
	__u32 pad;
};

/*
 * NPU_IOCTL_MEM_INFO: the same counters as DEVICE_INFO for the device, plus
 * what this file's context holds.
 */
struct npu_mem_info {
	__u64 total[NPU_CLASS_COUNT];	/* out */
	__u64 free[NPU_CLASS_COUNT];	/* out */
	__u64 ctx_bytes;		/* out: bytes mapped by this context */
	__u64 ctx_allocations;		/* out: allocations held by this context */
};

/* ---------------------------------------------------------------------- */
/* Rings                                                                   */
/* ---------------------------------------------------------------------- */

/*
 * A ring is a region of the caller's memory (page aligned, typically a memfd
 * mapped MAP_SHARED) that holds, in this order:
 *
 *   offset 0                  struct npu_ring_hdr (one 4 KiB page)
 *   offset sqes_off           sq_entries x struct npu_sqe (64 bytes each)
 *   offset cqes_off           cq_entries x struct npu_cqe (16 bytes each)
 *
 * NPU_RING_SQES_OFF is fixed; cqes_off = NPU_RING_SQES_OFF + 64 * sq_entries.
 * npu_ring_bytes() gives the minimum region size. The driver pins the region
 * (or, in npud, maps the memfd behind it) for the lifetime of the ring.
 *
 * Ownership (as in io_uring): the application writes SQEs and sq.tail, the
 * driver writes sq.head; the driver writes CQEs and cq.tail, the application
 * writes cq.head. Indices are free-running __u32, masked with entries - 1.
 * Producers publish with a release store of the tail after writing the
 * entries; consumers read the tail with an acquire load, and publish their
 * progress with a release store of the head. The driver reads each SQE
 * exactly once, into private memory, before it validates it.
 */
#define NPU_RING_SQES_OFF	4096ULL
#define NPU_RING_MAX_ENTRIES	32768

/* Bits of npu_ring_hdr.flags (driver-written). */
#define NPU_RING_NEED_WAKEUP	(1U << 0) /* engine sleeps: ring the doorbell */
#define NPU_RING_CQ_OVERFLOW	(1U << 1) /* completions were dropped */

struct npu_ring_hdr {
	/* Submission queue: application produces, driver consumes. */
	__u32 sq_head;		/* driver-written */
	__u32 sq_pad0[15];
	__u32 sq_tail;		/* application-written */
	__u32 sq_pad1[15];
	/* Completion queue: driver produces, application consumes. */
	__u32 cq_head;		/* application-written */
	__u32 cq_pad0[15];
	__u32 cq_tail;		/* driver-written */
	__u32 cq_pad1[15];
	/* Driver-written, read-only for the application. */
	__u32 flags;		/* NPU_RING_* */
	__u32 sq_dropped;	/* SQEs the driver could not read */
	__u32 cq_overflow;	/* CQEs lost because the CQ was full */
	__u32 sq_entries;
	__u32 cq_entries;
	__u32 sq_mask;
	__u32 cq_mask;
	__u32 pad2[9];
};

/* SQE opcodes. */
#define NPU_OP_NOP		0 /* completes with res 0 */
#define NPU_OP_COPY		1 /* copy len bytes from src to dst, direction in dir */
#define NPU_OP_MEMSET		2 /* fill len bytes at dst with the low byte of value */
#define NPU_OP_COPY2D		3 /* height rows of len bytes; pitches in dpitch/spitch */
#define NPU_OP_VALUE_WRITE	4 /* store the __u64 value at device VA dst (8-aligned) */
#define NPU_OP_VALUE_WAIT	5 /* hold this ring until cond(*(u64 *)dst, value) */
#define NPU_OP_COUNT		6

/*
 * NPU_OP_VALUE_WAIT conditions (npu_sqe.cond), the values of CANN's
 * ACL_STREAM_WAIT_VALUE_*. m is the __u64 at dst:
 *   GEQ: (__s64)(m - value) >= 0 (wrap-around safe), EQ: m == value,
 *   AND: (m & value) != 0, NOR: ~(m | value) != 0.
 * A waiting ring holds only itself: the engines keep serving other rings.
 */
#define NPU_WAIT_GEQ		0
#define NPU_WAIT_EQ		1
#define NPU_WAIT_AND		2
#define NPU_WAIT_NOR		3
#define NPU_WAIT_COUNT		4

/* Copy directions (npu_sqe.dir). Host operands are addresses of the
 * process that submitted the SQE; device operands are device VAs of the
 * ring's context. */
#define NPU_DIR_H2D	0
#define NPU_DIR_D2H	1
#define NPU_DIR_D2D	2
#define NPU_DIR_H2H	3
#define NPU_DIR_COUNT	4

/* For NPU_OP_MEMSET, dir says whether dst is device (NPU_DIR_H2D: host
 * fills device) or host memory (NPU_DIR_H2H). */

/* SQE flags (npu_sqe.flags). None defined yet: must be 0. */
#define NPU_SQE_FLAGS_ALL	0

struct npu_sqe {
	__u8 opcode;		/* NPU_OP_* */
	__u8 flags;		/* NPU_SQE_* */
	__u8 dir;		/* NPU_DIR_* */
	__u8 rsvd0;
	__u32 rsvd1;
	__u64 user_data;	/* copied to the CQE untouched */
	__u64 dst;
	__u64 src;		/* COPY only; 0 otherwise */
	__u64 len;		/* bytes, > 0; COPY2D: bytes per row (width) */
	__u64 value;		/* MEMSET: fill byte in bits 0..7; VALUE_*: the value;
				 * COPY2D: height (rows); 0 otherwise */
	__u32 dpitch;		/* COPY2D: dst row pitch in bytes, >= len; 0 otherwise */
	__u32 spitch;		/* COPY2D: src row pitch in bytes, >= len; 0 otherwise */
	__u32 cond;		/* VALUE_WAIT: NPU_WAIT_*; 0 otherwise */
	__u32 rsvd2;
};

struct npu_cqe {
	__u64 user_data;
	__s32 res;		/* 0, or -errno for this descriptor */
	__u32 flags;
};

static inline __u64 npu_ring_bytes(__u32 sq_entries, __u32 cq_entries)
{
	return NPU_RING_SQES_OFF + (__u64)sq_entries * sizeof(struct npu_sqe) +
	       (__u64)cq_entries * sizeof(struct npu_cqe);
}

/*
 * NPU_IOCTL_RING_CREATE: register a ring region. sq_entries and cq_entries
 * are powers of two in [1, NPU_RING_MAX_ENTRIES], cq_entries >= sq_entries.
 * addr is page aligned and size >= npu_ring_bytes(). The driver initialises
 * the header (indices 0, entries, masks).
 */
struct npu_ring_create {
	__u64 addr;		/* in: user address of the region */
	__u64 size;		/* in: bytes of the region */
	__u32 sq_entries;	/* in */
	__u32 cq_entries;	/* in */
	__u32 flags;		/* in: must be 0 */
	__u32 ring_id;		/* out */
	__u64 sqes_off;		/* out */
	__u64 cqes_off;		/* out */
};

/* NPU_IOCTL_RING_DESTROY: wait for the ring's in-flight work, then drop it. */
struct npu_ring_destroy {
	__u32 ring_id;	/* in */
	__u32 pad;
};

/* Bits of npu_ring_enter.flags. */
#define NPU_ENTER_GETEVENTS	(1U << 0) /* wait until min_complete CQEs are ready */
#define NPU_ENTER_FLAGS_ALL	(NPU_ENTER_GETEVENTS)

/*
 * NPU_IOCTL_RING_ENTER: the doorbell. The driver consumes up to to_submit
 * new SQEs and, with NPU_ENTER_GETEVENTS, returns once at least
 * min_complete CQEs are waiting in the CQ (or timeout_ns passes: -ETIME;
 * 0 means no timeout). A fatal signal ends the wait with -EINTR.
 */
struct npu_ring_enter {
	__u32 ring_id;		/* in */
	__u32 to_submit;	/* in */
	__u32 min_complete;	/* in */
	__u32 flags;		/* in: NPU_ENTER_* */
	__u64 timeout_ns;	/* in */
	__u32 submitted;	/* out: SQEs consumed by this call */
	__u32 pad;
};

/*
 * NPU_IOCTL_RING_STATS: what a ring has cost so far. Counters are
 * free-running since RING_CREATE.
 */
struct npu_ring_stats {
	__u32 ring_id;		/* in */
	__u32 pad;
	__u64 sqes;		/* out: descriptors consumed */
	__u64 doorbells;	/* out: RING_ENTER / uring_cmd calls with to_submit > 0 */
	__u64 waits;		/* out: calls that blocked for completions */
	__u64 wakeups;		/* out: times an engine was woken for this ring */
	__u64 rsvd[3];		/* out: zero */
};

/* NPU_IOCTL_NOP: does nothing; measures the ioctl floor. */
struct npu_nop {
	__u64 cookie;	/* in, echoed in out */
	__u64 out;	/* out */
};

#define NPU_IOCTL_GET_VERSION	_IOR(NPU_IOCTL_MAGIC, 0x00, struct npu_version)
#define NPU_IOCTL_DEVICE_INFO	_IOR(NPU_IOCTL_MAGIC, 0x01, struct npu_device_info)
#define NPU_IOCTL_CTX_SETUP	_IOWR(NPU_IOCTL_MAGIC, 0x02, struct npu_ctx_setup)
#define NPU_IOCTL_MEM_ALLOC	_IOWR(NPU_IOCTL_MAGIC, 0x03, struct npu_mem_alloc)
#define NPU_IOCTL_MEM_FREE	_IOW(NPU_IOCTL_MAGIC, 0x04, struct npu_mem_free)
#define NPU_IOCTL_MEM_QUERY	_IOWR(NPU_IOCTL_MAGIC, 0x05, struct npu_mem_query)
#define NPU_IOCTL_MEM_INFO	_IOR(NPU_IOCTL_MAGIC, 0x06, struct npu_mem_info)
#define NPU_IOCTL_RING_CREATE	_IOWR(NPU_IOCTL_MAGIC, 0x07, struct npu_ring_create)
#define NPU_IOCTL_RING_DESTROY	_IOW(NPU_IOCTL_MAGIC, 0x08, struct npu_ring_destroy)
#define NPU_IOCTL_RING_ENTER	_IOWR(NPU_IOCTL_MAGIC, 0x09, struct npu_ring_enter)
#define NPU_IOCTL_NOP		_IOWR(NPU_IOCTL_MAGIC, 0x0a, struct npu_nop)
#define NPU_IOCTL_RING_STATS	_IOWR(NPU_IOCTL_MAGIC, 0x0d, struct npu_ring_stats)
/*
 * 0x0b..0x17: host memory registration, peers and ring statistics (streams issue).
 * 0x18..0x2f: IPC keys, physical memory (VMM), shareable handles, npu-smi queries
 *             (sharing issue).
 * 0x30..0x3f: reserved.
 * 0x80:       NPU_URING_CMD_ENTER, the io_uring command form of RING_ENTER (VM issue).
 */
/* 0x80..0xff: experimental commands. */

/*
 * Sizes both sides static_assert (see NPU_UAPI_ASSERT_SIZES): any change to a
 * struct above is an ABI change and must bump NPU_ABI_VERSION_*.
 */
#define NPU_UAPI_SIZES(X)				\
	X(struct npu_version, 40)			\
	X(struct npu_device_info, 120)			\
	X(struct npu_ctx_setup, 32)			\
	X(struct npu_mem_alloc, 48)			\
	X(struct npu_mem_free, 16)			\
	X(struct npu_mem_query, 40)			\
	X(struct npu_mem_info, 64)			\
	X(struct npu_ring_hdr, 320)			\
	X(struct npu_sqe, 64)				\
	X(struct npu_cqe, 16)				\
	X(struct npu_ring_create, 48)			\
	X(struct npu_ring_destroy, 8)			\
	X(struct npu_ring_enter, 32)			\
	X(struct npu_nop, 16)				\
	X(struct npu_ring_stats, 64)

#endif /* _UAPI_NPU_UAPI_H */
