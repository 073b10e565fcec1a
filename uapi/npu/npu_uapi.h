/* SPDX-License-Identifier: GPL-2.0 OR MIT */
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
#define NPU_ABI_VERSION_MINOR 10 /* 1: sharing (0x18..0x2b), ring stats, host registration, peers;
				 * 2: asynchronous engines, RING_ABORT;
				 * 3: NPU_RING_FAILED, NPU_CQE_RING_FAILED; per-process
				 *    limits in struct npu_smi_proc;
				 * 4: PHYS_PEER, NPU_MEM_HOST physical memory,
				 *    NPU_OP_TIMESTAMP;
				 * 5: NPU_OP_COPY_INDIRECT, struct npu_copy_ind;
				 * 6: npu_device_info.busy_ns and up_ns;
				 * 7: NPU_OP_COPY_DEREF, npu_sqe.dst_off and src_off;
				 * 8: NPU_LIMIT_RING_BYTES, per-user limits and
				 *    NPU_IOCTL_SMI_USERS (struct npu_smi_user);
				 *    whitelists hold each process once;
				 * 9: NPU_OP_REDUCE; NPU_FEATURE_FUTEX_DOORBELL,
				 *    NPU_RING_CREATE_FUTEX, NPU_RING_FUTEX and the
				 *    ring header's futex words,
				 *    npu_ring_stats.futex_checks;
				 * 10: NPU_REDUCE_PROD */

#define NPU_IOCTL_MAGIC 'N'

/* Feature bits reported by NPU_IOCTL_GET_VERSION. */
#define NPU_FEATURE_RING	(1ULL << 0) /* rings and the copy engine */
#define NPU_FEATURE_HUGE	(1ULL << 1) /* 2 MiB pages */
#define NPU_FEATURE_HUGE1G	(1ULL << 2) /* 1 GiB pages */
#define NPU_FEATURE_URING_CMD	(1ULL << 3) /* file_operations.uring_cmd */
#define NPU_FEATURE_FUTEX_DOORBELL (1ULL << 4) /* NPU_RING_CREATE_FUTEX (npud only) */

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
	__u64 busy_ns;				/* out: time the engines (and submitters
						 * running their own ring) spent running
						 * descriptors, summed over them */
	__u64 up_ns;				/* out: time since the engines started */
	__u64 rsvd[2];				/* out: zero */
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
/* Physical memory only (npu_phys_alloc.flags): host memory, not device frames. */
#define NPU_MEM_HOST		(1U << 2)

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
/*
 * The ring has failed for good: the application published an impossible
 * sq_tail (more than sq_entries away from sq_head; RING_ENTER then returns
 * -EPROTO) or the ring's memory failed (-EFAULT). It completes nothing
 * more; destroy it.
 */
#define NPU_RING_FAILED		(1U << 2)
/*
 * The futex doorbell of a ring created with NPU_RING_CREATE_FUTEX is on:
 * with NEED_WAKEUP set, a producer rings by bumping sq_doorbell and a
 * FUTEX_WAKE on it instead of RING_ENTER. Clear (from creation on, or
 * later, when the driver stopped watching the word) means RING_ENTER.
 */
#define NPU_RING_FUTEX		(1U << 3)

struct npu_ring_hdr {
	/* Submission queue: application produces, driver consumes. */
	__u32 sq_head;		/* driver-written */
	__u32 sq_pad0[15];
	__u32 sq_tail;		/* application-written */
	__u32 sq_doorbell;	/* application-written: futex doorbell (NPU_RING_FUTEX) */
	__u32 sq_pad1[14];
	/* Completion queue: driver produces, application consumes. */
	__u32 cq_head;		/* application-written */
	__u32 cq_pad0[15];
	__u32 cq_tail;		/* driver-written */
	__u32 cq_futex;		/* driver-written: moves when CQEs come and cq_waiters != 0 */
	__u32 cq_waiters;	/* application-written: threads asleep on cq_futex */
	__u32 cq_pad1[13];
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
#define NPU_OP_VALUE_WRITE	4 /* store the __u64 value at device VA dst (8-aligned); len 0 or 8 */
#define NPU_OP_VALUE_WAIT	5 /* hold this ring until cond(*(u64 *)dst, value); len 0 or 8 */
#define NPU_OP_TIMESTAMP	6 /* store the engine's clock (CLOCK_MONOTONIC, ns) as a __u64
				   * at device VA dst (8-aligned) when it runs; len 0 or 8, value 0 */
#define NPU_OP_COPY_INDIRECT	7 /* a D2D copy whose operands are read from device memory
				   * when it runs: src is the device VA of a struct
				   * npu_copy_ind; dir NPU_DIR_D2D; dst, len, value 0 */
#define NPU_OP_COPY_DEREF	8 /* a D2D copy of len bytes whose base addresses are read
				   * from device memory when it runs: dst and src are the
				   * device VAs of two 8-byte aligned __u64 slots of the
				   * ring's context; the copy runs from *src + src_off to
				   * *dst + dst_off; dir NPU_DIR_D2D; cond 0 (see below) */
#define NPU_OP_REDUCE		9 /* dst[i] = op(dst[i], src[i]) for the len bytes of
				   * elements at dst and src, device memory (the source may
				   * be an enabled peer's); dir NPU_DIR_D2D; the operation
				   * and the element type in value (below); dst, src and
				   * len multiples of the element size */
#define NPU_OP_COUNT		10

/*
 * NPU_OP_REDUCE's value: NPU_REDUCE_VALUE(op, type), every other bit 0.
 * CANN's aclrtReduceAsync (an SDMA copy that reduces into its destination).
 * Floating-point sums round to nearest even (16-bit types: computed in
 * single precision, then rounded); MAX and MIN propagate NaN from either
 * side. Integer sums and products wrap (two's complement); a product of
 * two 16-bit floats is exact in single precision, so it is rounded once. Elements are read and
 * written one at a time, so a range that overlaps itself reduces in
 * ascending order.
 */
#define NPU_REDUCE_SUM		0
#define NPU_REDUCE_MAX		1
#define NPU_REDUCE_MIN		2
#define NPU_REDUCE_PROD		3 /* ABI 1.10 (CANN's aclnnMul) */
#define NPU_REDUCE_OP_COUNT	4
#define NPU_REDUCE_F32		0 /* IEEE 754 binary32 */
#define NPU_REDUCE_F16		1 /* IEEE 754 binary16 */
#define NPU_REDUCE_BF16		2 /* bfloat16: the upper half of a binary32 */
#define NPU_REDUCE_S8		3
#define NPU_REDUCE_S16		4
#define NPU_REDUCE_S32		5
#define NPU_REDUCE_TYPE_COUNT	6
#define NPU_REDUCE_VALUE(op, type) ((__u64)(op) | ((__u64)(type) << 8))

/*
 * The record of an NPU_OP_COPY_INDIRECT, in device memory of the ring's
 * context (not a peer's), 32-byte aligned. The application writes it, at
 * any time; the engine reads each field once when the descriptor runs,
 * then checks and runs the copy exactly as an NPU_OP_COPY of dir
 * NPU_DIR_D2D with these dst, src and len (-EFAULT for ranges not inside
 * one allocation of the context or of an enabled peer; -EPERM for a
 * READONLY destination). A record with len 0 or rsvd not 0: -EINVAL.
 */
struct npu_copy_ind {
	__u64 src;		/* device VA of the source */
	__u64 dst;		/* device VA of the destination */
	__u64 len;		/* bytes, > 0 */
	__u64 rsvd;		/* must be 0 */
};

/*
 * NPU_OP_COPY_DEREF, CANN's aclrtMemcpyAsyncWithOffset: the application may
 * rewrite either slot at any time. The engine loads each slot once when the
 * descriptor runs, adds the offset (a sum that wraps: -EINVAL), then checks
 * and runs the copy exactly as an NPU_OP_COPY of dir NPU_DIR_D2D with that
 * dst, src and len (-EFAULT for ranges not inside one allocation of the
 * context or of an enabled peer; -EPERM for a READONLY destination). A
 * slot that is not 8-byte aligned, len 0, or dir other than NPU_DIR_D2D:
 * -EINVAL; a slot not in the context's own device memory: -EFAULT.
 */

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
	__u64 dst;		/* COPY_DEREF: the dst slot */
	__u64 src;		/* COPY, COPY2D; COPY_INDIRECT: the record; COPY_DEREF:
				 * the src slot; 0 otherwise */
	__u64 len;		/* bytes, > 0; COPY2D: bytes per row (width) */
	union {
		__u64 value;	/* MEMSET: fill byte in bits 0..7; VALUE_*: the value;
				 * REDUCE: NPU_REDUCE_VALUE(op, type);
				 * COPY2D: height (rows); 0 otherwise */
		__u64 dst_off;	/* COPY_DEREF: added to the base in the dst slot */
	};
	union {
		struct {
			__u32 dpitch;	/* COPY2D: dst row pitch in bytes, >= len;
					 * 0 otherwise */
			__u32 spitch;	/* COPY2D: src row pitch in bytes, >= len;
					 * 0 otherwise */
		};
		__u64 src_off;	/* COPY_DEREF: added to the base in the src slot */
	};
	__u32 cond;		/* VALUE_WAIT: NPU_WAIT_*; 0 otherwise */
	__u32 rsvd2;
};

/* Bits of npu_cqe.flags. */
#define NPU_CQE_RING_FAILED	(1U << 0) /* not a descriptor's: the ring failed with res
					   * (see NPU_RING_FAILED); user_data is 0 */

struct npu_cqe {
	__u64 user_data;
	__s32 res;		/* 0, or -errno for this descriptor */
	__u32 flags;		/* NPU_CQE_* */
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
 *
 * NPU_RING_CREATE_FUTEX (devices that report NPU_FEATURE_FUTEX_DOORBELL,
 * i.e. npud; others fail it with -EINVAL): doorbell and completion wait
 * through futex words in the ring header, with no system call to the
 * driver. The driver says whether it watches sq_doorbell with
 * NPU_RING_FUTEX in the header's flags (it may not, e.g. when it watches
 * too many rings already; RING_ENTER then stays the doorbell). Protocol,
 * all futexes shared (no FUTEX_PRIVATE_FLAG), the words hostile both ways:
 *  - doorbell: publish sq_tail, a full barrier; if flags has NEED_WAKEUP:
 *    with NPU_RING_FUTEX an atomic increment of sq_doorbell then
 *    FUTEX_WAKE on it, else RING_ENTER with to_submit. The driver re-checks
 *    sq_tail as RING_ENTER would; wakes that find nothing to do are
 *    rate-limited: past the budget the driver clears NPU_RING_FUTEX.
 *  - completion wait: an atomic increment of cq_waiters, read cq_futex,
 *    then cq_tail; if what is waited for is not there, FUTEX_WAIT on
 *    cq_futex with the value read (bounded by a timeout), then decrement
 *    cq_waiters. The driver, after publishing cq_tail and a full barrier,
 *    bumps cq_futex and wakes it when cq_waiters is not 0.
 * RING_ENTER works on such a ring as on any other.
 */
#define NPU_RING_CREATE_FUTEX	(1U << 0)
#define NPU_RING_CREATE_FLAGS_ALL NPU_RING_CREATE_FUTEX

struct npu_ring_create {
	__u64 addr;		/* in: user address of the region */
	__u64 size;		/* in: bytes of the region */
	__u32 sq_entries;	/* in */
	__u32 cq_entries;	/* in */
	__u32 flags;		/* in: NPU_RING_CREATE_* */
	__u32 ring_id;		/* out */
	__u64 sqes_off;		/* out */
	__u64 cqes_off;		/* out */
};

/*
 * NPU_IOCTL_RING_DESTROY: drop a ring. The descriptor an engine is running
 * finishes; every other one not yet completed (still in the SQ, or a
 * VALUE_WAIT holding the ring) completes with -ECANCELED first.
 */
struct npu_ring_destroy {
	__u32 ring_id;	/* in */
	__u32 pad;
};

/*
 * NPU_IOCTL_RING_ABORT: complete with -ECANCELED every descriptor of the
 * ring published (sq_tail) before the call and not yet started, including
 * a VALUE_WAIT holding the ring; returns once they are in the CQ. The
 * descriptor an engine is running finishes normally. Descriptors published
 * afterwards run as usual.
 */
struct npu_ring_abort {
	__u32 ring_id;	/* in */
	__u32 pad;
};

/* Bits of npu_ring_enter.flags. */
#define NPU_ENTER_GETEVENTS	(1U << 0) /* wait until min_complete CQEs are ready */
#define NPU_ENTER_FLAGS_ALL	(NPU_ENTER_GETEVENTS)

/*
 * NPU_IOCTL_RING_ENTER: the doorbell. With to_submit > 0 it makes sure an
 * engine runs the ring and returns at once: the engines consume the SQEs
 * asynchronously (submitted: SQEs published since the previous doorbell,
 * at most to_submit). Engines poll a ring they ran for a short while, so a
 * producer needs the doorbell only when it sees NPU_RING_NEED_WAKEUP after
 * publishing sq_tail (with a full barrier in between, as io_uring SQPOLL).
 * With NPU_ENTER_GETEVENTS it then returns once at least min_complete CQEs
 * are waiting in the CQ, or when the ring has nothing left in flight (or
 * timeout_ns passes: -ETIME; 0 means no timeout). A signal ends the wait
 * with -EINTR, with or without a timeout. Through npud (CUSE/FUSE) a wait
 * may also fail at once with -EAGAIN when the caller's process already
 * has its share of the daemon's workers waiting: the doorbell part
 * (to_submit) was done; wait again a little later.
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
 * RING_ENTER as an io_uring command, for devices that report
 * NPU_FEATURE_URING_CMD (the kernel module on a kernel with io_uring):
 * an IORING_OP_URING_CMD SQE on the device's fd, with sqe->cmd_op one of
 * the two commands below and the arguments in the SQE's command area.
 * The CQE's res is what RING_ENTER would return in submitted (>= 0), or
 * the -errno the ioctl would fail with; nothing is written back.
 *
 * NPU_URING_CMD_ENTER: the area holds a struct npu_ring_enter (submitted
 * and pad 0); the ring must be set up with IORING_SETUP_SQE128 (else
 * -EINVAL). NPU_URING_CMD_ENTER16 fits a 64-byte SQE: a struct
 * npu_uring_enter, RING_ENTER without a timeout. Unknown cmd_op: -ENOTTY.
 */
struct npu_uring_enter {
	__u32 ring_id;		/* in */
	__u32 to_submit;	/* in */
	__u32 min_complete;	/* in */
	__u32 flags;		/* in: NPU_ENTER_* */
};

#define NPU_URING_CMD_ENTER	_IOW(NPU_IOCTL_MAGIC, 0x80, struct npu_ring_enter)
#define NPU_URING_CMD_ENTER16	_IOW(NPU_IOCTL_MAGIC, 0x80, struct npu_uring_enter)

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
	__u64 futex_checks;	/* out: times the driver looked at the ring for a futex doorbell */
	__u64 rsvd[2];		/* out: zero */
};

/* ---------------------------------------------------------------------- */
/* Host memory registration and peers                                     */
/* ---------------------------------------------------------------------- */

/*
 * NPU_IOCTL_HOST_REGISTER: pin [addr, addr + size) of the caller (page
 * aligned, non-zero, not wrapping) so the engines copy it directly. fd is a
 * memfd that backs the range from offset fd_off (the daemon maps it), or -1
 * for anonymous memory. Ranges must not overlap another registration of the
 * file (-EEXIST). The pages stay pinned until HOST_UNREGISTER or close.
 */
struct npu_host_register {
	__u64 addr;	/* in */
	__u64 size;	/* in */
	__u64 fd_off;	/* in: page aligned; 0 when fd is -1 */
	__s32 fd;	/* in: memfd or -1 */
	__u32 flags;	/* in: must be 0 */
};

/* NPU_IOCTL_HOST_UNREGISTER: drop the registration whose base is addr. */
struct npu_host_unregister {
	__u64 addr;	/* in */
	__u64 rsvd;	/* in: must be 0 */
};

/*
 * NPU_IOCTL_PEER_ENABLE / NPU_IOCTL_PEER_DISABLE: let the rings of this
 * file name device VAs of the context peer_ctx (npu_ctx_setup.ctx_id) on
 * device peer_device of the same driver instance, which the same process
 * (TGID) must have opened (-EPERM otherwise; -ENOENT if there is no such
 * context; -EINVAL for this file's own device; ENABLE twice is -EEXIST,
 * DISABLE of a peer not enabled -ENOENT). Only D2D copies use peer VAs.
 */
struct npu_peer {
	__u32 peer_device;	/* in */
	__u32 peer_ctx;		/* in */
	__u32 flags;		/* in: must be 0 */
	__u32 pad;
};

/* NPU_IOCTL_NOP: does nothing; measures the ioctl floor. */
struct npu_nop {
	__u64 cookie;	/* in, echoed in out */
	__u64 out;	/* out */
};

/* ---------------------------------------------------------------------- */
/* Sharing: IPC keys, physical memory (VMM), shareable handles, npu-smi    */
/* ---------------------------------------------------------------------- */

/*
 * Lifetimes (all commands below):
 *  - Device frames are reference counted. Every mapping (MEM_ALLOC, an IPC
 *    import, a VMM map), every physical handle and every export holds one;
 *    the frames return to the allocator when the last one goes.
 *  - Keys and shareable handles live in one table of the driver instance,
 *    so a process on another device of the same instance can import them.
 *    Whitelists hold TGIDs as the driver sees them (npu_ctx_setup.tgid).
 *  - An export belongs to the file that created it and dies with it (or
 *    with IPC_DESTROY / the last PHYS_FREE of the exported handle); imports
 *    made before stay valid until they are closed.
 */

/* Kinds of mapping reported by NPU_IOCTL_MEM_QUERY (continued). */
#define NPU_MAPPING_IMPORT	2 /* from NPU_IOCTL_IPC_IMPORT */
#define NPU_MAPPING_VMM		3 /* a physical handle mapped by NPU_IOCTL_VMM_MAP */
#define NPU_MAPPING_RESERVED	4 /* reserved by NPU_IOCTL_VMM_RESERVE, nothing mapped at va */

/* An IPC key: 64 lowercase hex characters (256 random bits), no NUL. */
#define NPU_IPC_KEY_LEN		64

/* Export flags (IPC_EXPORT, SHARE_EXPORT): anyone may import, no whitelist. */
#define NPU_SHARE_NO_WHITELIST	(1U << 0)
#define NPU_SHARE_FLAGS_ALL	(NPU_SHARE_NO_WHITELIST)

/*
 * A whitelist holds at most this many processes (in total, over all
 * SET_PID calls; a TGID listed again is stored once), and one call passes
 * at most this many TGIDs. CANN's limit (65535 on the 950).
 */
#define NPU_SHARE_MAX_PIDS	65535

/*
 * NPU_IOCTL_IPC_EXPORT: create a key for the first size bytes of the
 * allocation whose base is va (MEM_ALLOC memory only: no interior address,
 * no import, no VMM address). The import maps size rounded up to the
 * allocation's page size. Without NPU_SHARE_NO_WHITELIST only TGIDs added
 * by IPC_SET_PID may import.
 */
struct npu_ipc_export {
	__u64 va;			/* in */
	__u64 size;			/* in: 0 < size <= the allocation's mapped size */
	__u32 flags;			/* in: NPU_SHARE_* */
	__u32 pad;
	char key[NPU_IPC_KEY_LEN];	/* out */
};

/*
 * NPU_IOCTL_IPC_SET_PID / NPU_IOCTL_SHARE_SET_PID: add count TGIDs, read
 * from the user array pids (__s32 each), to the whitelist of a key (or of a
 * shareable handle, in handle). Only the exporting file may do it (-EPERM),
 * never for a NO_WHITELIST export (-EPERM); an unknown key is -ENOENT.
 * Each TGID must name a running process (else -ESRCH, and none is added):
 * the entry is that process, so a later process that reuses the pid is not
 * whitelisted. A TGID already listed (or listed twice) is kept once, for
 * the process that has it now. More than NPU_SHARE_MAX_PIDS processes on
 * the whitelist is -EINVAL. Since ABI 1.8 each entry is charged to the
 * caller's NPU_LIMIT_PIN_BYTES (-ENOMEM past it) until the export goes.
 */
struct npu_share_set_pid {
	char key[NPU_IPC_KEY_LEN];	/* in: IPC_SET_PID; zero for SHARE_SET_PID */
	__u64 handle;			/* in: SHARE_SET_PID; 0 for IPC_SET_PID */
	__u64 pids;			/* in: user address of __s32[count] */
	__u32 count;			/* in: 1..NPU_SHARE_MAX_PIDS */
	__u32 pad;
};

/*
 * NPU_IOCTL_IPC_IMPORT: map the memory behind key in this context.
 * -ENOENT: no such key (never existed, destroyed, or malformed);
 * -EPERM: the caller's process is not on the whitelist (its TGID is not, or
 * was listed for an earlier process with the same pid).
 */
struct npu_ipc_import {
	char key[NPU_IPC_KEY_LEN];	/* in */
	__u32 flags;			/* in: must be 0 */
	__u32 owner_device;		/* out: device index of the exported frames */
	__u64 va;			/* out: base of the new mapping */
	__u64 size;			/* out: its mapped size */
	__u32 page_size;		/* out */
	__u32 owner_tgid;		/* out */
};

/* NPU_IOCTL_IPC_UNIMPORT: unmap an import; va is what IPC_IMPORT returned. */
struct npu_ipc_unimport {
	__u64 va;	/* in */
	__u64 rsvd;	/* in: must be 0 */
};

/*
 * NPU_IOCTL_IPC_DESTROY: destroy a key this file exported: no new imports.
 * A key this file did not export is -ENOENT.
 */
struct npu_ipc_destroy {
	char key[NPU_IPC_KEY_LEN];	/* in */
};

/* Classes of physical memory (npu_phys_alloc.page_class) are NPU_CLASS_*. */

/*
 * NPU_IOCTL_PHYS_ALLOC: physical memory with no mapping, as a per-file
 * handle holding one reference. size must be a multiple of the
 * granularity: 2 MiB for NORMAL and HUGE, 1 GiB for HUGE1G (-EINVAL);
 * NORMAL is backed by 4 KiB frames, HUGE by 2 MiB and HUGE1G by 1 GiB ones.
 * With NPU_MEM_HOST the memory is zeroed host memory instead, charged to
 * the process's NPU_LIMIT_PIN_BYTES (-ENOMEM past it); mapped into a
 * reservation, this file's device reads and writes it through the VA.
 */
struct npu_phys_alloc {
	__u64 size;		/* in */
	__u32 page_class;	/* in: NPU_CLASS_* */
	__u32 flags;		/* in: NPU_MEM_P2P, NPU_MEM_HOST */
	__u32 handle;		/* out */
	__u32 pad;
};

/*
 * NPU_IOCTL_PHYS_FREE: drop one reference of a handle (PHYS_ALLOC,
 * SHARE_IMPORT and each PHYS_RETAIN took one). At zero the handle goes away
 * with its shareable handle, if exported; the frames stay while mapped.
 */
struct npu_phys_free {
	__u32 handle;	/* in */
	__u32 pad;
};

/*
 * NPU_IOCTL_PHYS_RETAIN: one more reference on the handle of the physical
 * memory mapped at any address va of a VMM mapping (a new handle if this
 * file holds none for it any more).
 */
struct npu_phys_retain {
	__u64 va;	/* in */
	__u32 handle;	/* out */
	__u32 pad;
};

/* NPU_IOCTL_PHYS_INFO: what a handle is. */
struct npu_phys_info {
	__u32 handle;		/* in */
	__u32 page_class;	/* out: NPU_CLASS_* */
	__u64 size;		/* out */
	__u32 flags;		/* out: NPU_MEM_* (NPU_MEM_HOST: host memory) */
	__u32 device;		/* out: device index of the frames (HOST: of the allocating file) */
	__u32 imported;		/* out: 1 if from SHARE_IMPORT */
	__u32 refs;		/* out: references of the handle */
};

/*
 * NPU_IOCTL_PHYS_PEER: a handle of this file, with one reference, for the
 * physical memory behind handle peer_handle of context peer_ctx
 * (npu_ctx_setup.ctx_id) on device peer_device, which the same process
 * (TGID) must have opened (-EPERM otherwise; -ENOENT if there is no such
 * context or handle; -EINVAL for this file's own device). It lets one
 * reservation map the memory of another device of the process (CANN's
 * aclrtMapMem takes any device's handle). Mapped through such a handle,
 * the memory is readable and writable from both devices.
 */
struct npu_phys_peer {
	__u32 peer_device;	/* in */
	__u32 peer_ctx;		/* in */
	__u32 peer_handle;	/* in */
	__u32 handle;		/* out */
};

/* Bits of npu_vmm_reserve.flags. */
#define NPU_RESERVE_HUGE	(1U << 0) /* CANN's "huge page VA" flag; accepted, no effect */
#define NPU_RESERVE_FLAGS_ALL	(NPU_RESERVE_HUGE)

/*
 * NPU_IOCTL_VMM_RESERVE: reserve size bytes (rounded up to 2 MiB) of the
 * aperture, nothing mapped. The start is aligned to the next power of two
 * >= size, capped at 1 GiB. va != 0 asks for exactly that start: it must be
 * aligned that way (-EINVAL), inside the aperture (-EINVAL) and free (-EEXIST).
 */
struct npu_vmm_reserve {
	__u64 size;	/* in */
	__u64 va;	/* in: 0 or the wanted start; out: the start */
	__u32 flags;	/* in: NPU_RESERVE_* */
	__u32 pad;
};

/* NPU_IOCTL_VMM_RELEASE: release a reservation by its start; -EBUSY while mapped. */
struct npu_vmm_release {
	__u64 va;	/* in */
	__u64 rsvd;	/* in: must be 0 */
};

/* Bits of npu_vmm_map.flags. */
#define NPU_MAP_NOACCESS	(1U << 0) /* grant no access (aclrtMemMapNoAccess) */
#define NPU_MAP_FLAGS_ALL	(NPU_MAP_NOACCESS)

/*
 * NPU_IOCTL_VMM_MAP: map all of a handle at va, inside one reservation.
 * size must equal the handle's size, va must be aligned to the handle's
 * granularity, the range must be unmapped (-EEXIST otherwise) and one
 * reservation maps only local handles or only imported ones, of one
 * device (-EINVAL). Without NOACCESS the mapping is readable and writable
 * from the device of the frames.
 */
struct npu_vmm_map {
	__u64 va;	/* in */
	__u64 size;	/* in */
	__u64 offset;	/* in: must be 0 */
	__u32 handle;	/* in */
	__u32 flags;	/* in: NPU_MAP_* */
};

/* NPU_IOCTL_VMM_UNMAP: unmap the mapping that starts at va. */
struct npu_vmm_unmap {
	__u64 va;	/* in */
	__u64 rsvd;	/* in: must be 0 */
};

/* Access of a mapping for one location (npu_vmm_access.access). */
#define NPU_ACCESS_NONE		0
#define NPU_ACCESS_READ		1
#define NPU_ACCESS_RW		3

/* Locations (npu_vmm_access.loc_type): CANN's aclrtMemLocationType values. */
#define NPU_LOC_HOST		0	/* loc_id 0 */
#define NPU_LOC_DEVICE		1	/* loc_id: device index */

/*
 * NPU_IOCTL_VMM_SET_ACCESS / NPU_IOCTL_VMM_GET_ACCESS: the access one
 * location has to a mapping. SET needs va and size of exactly one mapping
 * and access NPU_ACCESS_RW (the only kind supported); setting a location
 * again with another kind is -EBUSY. GET takes any address of a mapping
 * and reports NPU_ACCESS_NONE for a location never granted.
 */
struct npu_vmm_access {
	__u64 va;		/* in */
	__u64 size;		/* in: SET only; 0 for GET */
	__u32 loc_type;		/* in: NPU_LOC_* */
	__u32 loc_id;		/* in */
	__u32 access;		/* in (SET) / out (GET): NPU_ACCESS_* */
	__u32 pad;
};

/*
 * NPU_IOCTL_SHARE_EXPORT: a shareable handle (a random non-zero 64-bit
 * value) for a local physical handle. One per handle (-EEXIST); imported
 * handles cannot be exported again (-EINVAL). It dies with the handle.
 */
struct npu_share_export {
	__u32 handle;	/* in */
	__u32 flags;	/* in: NPU_SHARE_* */
	__u64 share;	/* out */
};

/*
 * NPU_IOCTL_SHARE_IMPORT: a physical handle of this file for the memory
 * behind a shareable handle. -ENOENT: unknown (or the exporter freed it);
 * -EPERM: not whitelisted; -EINVAL: the caller's process is the exporter's.
 */
struct npu_share_import {
	__u64 share;		/* in */
	__u32 flags;		/* in: must be 0 */
	__u32 handle;		/* out */
	__u64 size;		/* out */
	__u32 owner_device;	/* out */
	__u32 pad;
};

/*
 * Limits: the index of npu_smi_proc.used[] and .limit[] (and of
 * npu_smi_user's). Each process (TGID) has one budget per device, shared by
 * all its open files, and so has each user (the real UID of the processes
 * that opened the device), shared by all its processes: a charge must fit
 * in both. Past a count limit a call fails with -ENOSPC, past a memory
 * limit with -ENOMEM.
 */
#define NPU_LIMIT_RINGS		0 /* rings (RING_CREATE) */
#define NPU_LIMIT_ALLOCATIONS	1 /* MEM_ALLOC allocations and IPC imports */
#define NPU_LIMIT_PHYS_HANDLES	2 /* physical handles (PHYS_ALLOC, SHARE_IMPORT) */
#define NPU_LIMIT_IPC_KEYS	3 /* IPC keys (IPC_EXPORT) */
#define NPU_LIMIT_SHARE_HANDLES	4 /* shareable handles (SHARE_EXPORT) */
#define NPU_LIMIT_PIN_BYTES	5 /* host memory held for the process, bytes: pinned by
				   * HOST_REGISTER, NPU_MEM_HOST physical memory,
				   * whitelist entries (since 1.8) */
#define NPU_LIMIT_HBM_BYTES	6 /* device memory the process allocated, bytes */
#define NPU_LIMIT_RING_BYTES	7 /* ring memory pinned by RING_CREATE, bytes (since 1.8) */
#define NPU_LIMIT_COUNT		8
#define NPU_LIMIT_SLOTS		8 /* array size; slots past NPU_LIMIT_COUNT are zero */

/* A limit that is not set (per-user limits by default). */
#define NPU_LIMIT_NONE		(~0ULL)

/* One process (open file) of a device, for npu-smi. */
struct npu_smi_proc {
	__u32 tgid;
	__u32 ctx_id;
	__u64 mapped_bytes;	/* bytes mapped in its address space (allocations, imports, VMM) */
	__u64 allocations;	/* MEM_ALLOC allocations */
	__u64 imports;		/* IPC imports */
	__u64 phys_handles;	/* physical handles held */
	__u64 phys_bytes;	/* bytes behind those handles */
	/* Since ABI 1.3: the whole process's use on this device (all its files). */
	__u64 used[NPU_LIMIT_SLOTS];	/* NPU_LIMIT_* */
	__u64 limit[NPU_LIMIT_SLOTS];	/* NPU_LIMIT_* */
};

/*
 * One user (real UID in the initial user namespace) of a device, for
 * npu-smi (since ABI 1.8): what all its processes hold on the device
 * together, and the per-user limits (NPU_LIMIT_NONE where none is set;
 * HBM: the device's size). A user's record lasts as long as anything is
 * charged to one of its processes.
 */
struct npu_smi_user {
	__u32 uid;
	__u32 procs;			/* its processes that hold anything on the device */
	__u64 used[NPU_LIMIT_SLOTS];	/* NPU_LIMIT_* */
	__u64 limit[NPU_LIMIT_SLOTS];	/* NPU_LIMIT_* */
};

/* Kinds of npu_smi_share records. */
#define NPU_SMI_IPC_KEY		1 /* an IPC key */
#define NPU_SMI_SHARE_HANDLE	2 /* a shareable handle */
#define NPU_SMI_IMPORTER	3 /* an importer of the record before it */

/*
 * One export or importer, for npu-smi. tag identifies the export without
 * giving it away: the first 8 characters of a key, or the top 16 bits of
 * a handle in hex, NUL terminated.
 */
struct npu_smi_share {
	__u32 kind;		/* NPU_SMI_* */
	__u32 tgid;		/* exporter, or the importer */
	__u32 device;		/* device index of the frames */
	__u32 whitelist;	/* export: TGIDs on the whitelist, U32_MAX if none is used */
	__u64 size;		/* bytes shared */
	char tag[16];
};

/*
 * NPU_IOCTL_SMI_PROCS / NPU_IOCTL_SMI_SHARES / NPU_IOCTL_SMI_USERS: copy up
 * to count records (struct npu_smi_proc of this device's files / struct
 * npu_smi_share of the driver instance / struct npu_smi_user of this
 * device's users) to the user array buf; total is how many exist, so a
 * caller with count < total retries with a bigger array.
 */
struct npu_smi_query {
	__u64 buf;	/* in: user address, may be 0 when count is 0 */
	__u32 count;	/* in: records buf holds */
	__u32 total;	/* out */
	__u32 written;	/* out: records written, min(count, total) */
	__u32 pad;
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
#define NPU_IOCTL_HOST_REGISTER	_IOW(NPU_IOCTL_MAGIC, 0x0b, struct npu_host_register)
#define NPU_IOCTL_HOST_UNREGISTER _IOW(NPU_IOCTL_MAGIC, 0x0c, struct npu_host_unregister)
#define NPU_IOCTL_RING_STATS	_IOWR(NPU_IOCTL_MAGIC, 0x0d, struct npu_ring_stats)
#define NPU_IOCTL_PEER_ENABLE	_IOW(NPU_IOCTL_MAGIC, 0x0e, struct npu_peer)
#define NPU_IOCTL_PEER_DISABLE	_IOW(NPU_IOCTL_MAGIC, 0x0f, struct npu_peer)
#define NPU_IOCTL_RING_ABORT	_IOW(NPU_IOCTL_MAGIC, 0x10, struct npu_ring_abort)
#define NPU_IOCTL_IPC_EXPORT	_IOWR(NPU_IOCTL_MAGIC, 0x18, struct npu_ipc_export)
#define NPU_IOCTL_IPC_SET_PID	_IOW(NPU_IOCTL_MAGIC, 0x19, struct npu_share_set_pid)
#define NPU_IOCTL_IPC_IMPORT	_IOWR(NPU_IOCTL_MAGIC, 0x1a, struct npu_ipc_import)
#define NPU_IOCTL_IPC_UNIMPORT	_IOW(NPU_IOCTL_MAGIC, 0x1b, struct npu_ipc_unimport)
#define NPU_IOCTL_IPC_DESTROY	_IOW(NPU_IOCTL_MAGIC, 0x1c, struct npu_ipc_destroy)
#define NPU_IOCTL_PHYS_ALLOC	_IOWR(NPU_IOCTL_MAGIC, 0x1d, struct npu_phys_alloc)
#define NPU_IOCTL_PHYS_FREE	_IOW(NPU_IOCTL_MAGIC, 0x1e, struct npu_phys_free)
#define NPU_IOCTL_PHYS_RETAIN	_IOWR(NPU_IOCTL_MAGIC, 0x1f, struct npu_phys_retain)
#define NPU_IOCTL_PHYS_INFO	_IOWR(NPU_IOCTL_MAGIC, 0x20, struct npu_phys_info)
#define NPU_IOCTL_VMM_RESERVE	_IOWR(NPU_IOCTL_MAGIC, 0x21, struct npu_vmm_reserve)
#define NPU_IOCTL_VMM_RELEASE	_IOW(NPU_IOCTL_MAGIC, 0x22, struct npu_vmm_release)
#define NPU_IOCTL_VMM_MAP	_IOW(NPU_IOCTL_MAGIC, 0x23, struct npu_vmm_map)
#define NPU_IOCTL_VMM_UNMAP	_IOW(NPU_IOCTL_MAGIC, 0x24, struct npu_vmm_unmap)
#define NPU_IOCTL_VMM_SET_ACCESS _IOW(NPU_IOCTL_MAGIC, 0x25, struct npu_vmm_access)
#define NPU_IOCTL_VMM_GET_ACCESS _IOWR(NPU_IOCTL_MAGIC, 0x26, struct npu_vmm_access)
#define NPU_IOCTL_SHARE_EXPORT	_IOWR(NPU_IOCTL_MAGIC, 0x27, struct npu_share_export)
#define NPU_IOCTL_SHARE_SET_PID	_IOW(NPU_IOCTL_MAGIC, 0x28, struct npu_share_set_pid)
#define NPU_IOCTL_SHARE_IMPORT	_IOWR(NPU_IOCTL_MAGIC, 0x29, struct npu_share_import)
#define NPU_IOCTL_SMI_PROCS	_IOWR(NPU_IOCTL_MAGIC, 0x2a, struct npu_smi_query)
#define NPU_IOCTL_SMI_SHARES	_IOWR(NPU_IOCTL_MAGIC, 0x2b, struct npu_smi_query)
#define NPU_IOCTL_PHYS_PEER	_IOWR(NPU_IOCTL_MAGIC, 0x2c, struct npu_phys_peer)
#define NPU_IOCTL_SMI_USERS	_IOWR(NPU_IOCTL_MAGIC, 0x2d, struct npu_smi_query)
/*
 * 0x0b..0x17: host memory registration, peers and ring statistics.
 * 0x18..0x2f: IPC keys, physical memory (VMM), shareable handles, npu-smi queries.
 * 0x30..0x3f: reserved.
 * 0x80:       NPU_URING_CMD_ENTER, the io_uring command form of RING_ENTER.
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
	X(struct npu_copy_ind, 32)			\
	X(struct npu_cqe, 16)				\
	X(struct npu_ring_create, 48)			\
	X(struct npu_ring_destroy, 8)			\
	X(struct npu_ring_enter, 32)			\
	X(struct npu_uring_enter, 16)			\
	X(struct npu_nop, 16)				\
	X(struct npu_ring_stats, 64)			\
	X(struct npu_ring_abort, 8)			\
	X(struct npu_host_register, 32)		\
	X(struct npu_host_unregister, 16)		\
	X(struct npu_peer, 16)				\
	X(struct npu_ipc_export, 88)			\
	X(struct npu_share_set_pid, 88)			\
	X(struct npu_ipc_import, 96)			\
	X(struct npu_ipc_unimport, 16)			\
	X(struct npu_ipc_destroy, 64)			\
	X(struct npu_phys_alloc, 24)			\
	X(struct npu_phys_free, 8)			\
	X(struct npu_phys_retain, 16)			\
	X(struct npu_phys_info, 32)			\
	X(struct npu_phys_peer, 16)			\
	X(struct npu_vmm_reserve, 24)			\
	X(struct npu_vmm_release, 16)			\
	X(struct npu_vmm_map, 32)			\
	X(struct npu_vmm_unmap, 16)			\
	X(struct npu_vmm_access, 32)			\
	X(struct npu_share_export, 16)			\
	X(struct npu_share_import, 32)			\
	X(struct npu_smi_proc, 176)			\
	X(struct npu_smi_user, 136)			\
	X(struct npu_smi_share, 40)			\
	X(struct npu_smi_query, 24)

#endif /* _UAPI_NPU_UAPI_H */
