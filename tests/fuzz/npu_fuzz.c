// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer harness of the driver: the kmod/ sources under the mock kernel, driven
 * through its file operations exactly as the in-process device does.
 *
 * One input is a program: a header byte, then ops, each "op byte, payload
 * length byte, payload" (a short payload reads as if padded with zeros, so
 * a mutation inside one op does not shift the ops after it). The ops are
 * ioctls of the real command table with fuzzed structs on two open files,
 * SQEs pushed through rings, doorbells and completion waits, scribbles on
 * the ring headers while the engines run, failure injection in the mock
 * (allocations, user copies, pinning), closing and reopening a file, and
 * identity events: another process calling on our files, and the opener
 * of a file execing or dying (op_ident()).
 * After the program every file is closed, and the mock's leak counters,
 * the driver's own counters and the WARN count must be back where they
 * were before the input; anything else aborts (a crash for libFuzzer).
 *
 * User memory is this process's own memory, so the harness rewrites every
 * user address a struct or SQE carries (ioctl argument, ring region, host
 * registration, pid list, npu-smi buffer, host operand) to one of its own:
 * a data arena, a ring slot, or an address that faults (a guard page,
 * unmapped or non-canonical memory, a device aperture). Everything lives in
 * one big PROT_NONE reservation laid out so that a forward run from the
 * arena (a long copy, a 2-D copy with a large pitch) only meets PROT_NONE
 * memory, and the ring slots and argument page, which the driver reads as
 * pointers, sit below the arena where no operand can reach them. Raw fuzzed
 * values are kept for everything that is not a host address.
 *
 * tests/fuzz/README.md describes the input format and how to run it;
 * tests/fuzz/make_corpus.py writes the seed corpus.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mockdev/host.h>
#include <mockdev/mock.h>
#include <npu/npu_uapi.h>

#include "fuzz_check.h"
#include "npu_ioctl_args.h"

#define KIB (1ULL << 10)
#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
#define PAGE 4096ULL

/* Module parameters: two small devices, two engines each, short polling. */
#define FZ_PARAMS "devices=2 hbm_mb=64 engines=2 engine_poll_us=20 host_pin_mb=64"
#define FZ_DEVICES 2

/*
 * The reservation (1 GiB aligned), offsets from its start:
 *   0                guard
 *   FZ_ARG_OFF       one page: the ioctl argument struct; guard after it
 *   FZ_RING_OFF      FZ_RING_SLOTS ring regions, FZ_RING_SLOT bytes apart,
 *                    each followed by a guard page
 *   FZ_DATA_OFF      FZ_DATA_SIZE bytes of data arena (host operands, host
 *                    registrations, pid lists, npu-smi buffers)
 *   after it         PROT_NONE up to the end, device apertures included
 */
#define FZ_RES_SIZE (2048 * GIB)
#define FZ_ARG_OFF (64 * KIB)
#define FZ_RING_OFF (1 * MIB)
#define FZ_RING_SLOTS 6
#define FZ_RING_SLOT (4 * MIB) /* >= npu_ring_bytes(32768, 32768) + a guard */
#define FZ_DATA_OFF (32 * MIB)
#define FZ_DATA_SIZE (8 * MIB)
#define FZ_APERTURE_OFF (64 * GIB)
#define FZ_APERTURE_SIZE (64 * GIB)
#define FZ_APERTURES 4
#define FZ_UNMAPPED_OFF (1024 * GIB)

/* Bounds that keep one input fast; none hides a driver check. */
#define FZ_MAX_OPS 96
#define FZ_MAX_ROWS 4096		/* COPY2D rows */
#define FZ_MAX_PITCH (16 * MIB)		/* COPY2D pitches */
#define FZ_MAX_WAIT_NS (200 * 1000ULL)	/* RING_ENTER timeout; 0 could block forever */

#define FZ_NFILES 2
#define FZ_MAX_RINGS 8
#define FZ_NKNOWN 16

static uint8_t *res;		/* the reservation */
static bool data_dirty;		/* the data arena may have been written this input */
static size_t slot_dirty[FZ_RING_SLOTS]; /* bytes of each ring slot the driver may have touched */
static bool verbose;		/* NPU_FUZZ_VERBOSE set: print every ioctl */
static struct fz_base base;	/* what must be back after every input */

struct fz_file {
	struct file *f;
	unsigned int dev;
	uint64_t aperture;	/* what auto setup handed over */
};

struct fz_ring {
	bool live;
	unsigned int file;
	uint32_t id;
	unsigned int slot;
	uint32_t sq, cq;	/* the entries we created it with */
	struct npu_ring_hdr *hdr;
	struct npu_sqe *sqes;
};

/*
 * Another process (see op_ident()): made on demand, it only waits to be
 * told to exec, or killed. One that neither exec'd nor died serves the
 * next inputs too (without a task reference or a file between them).
 */
struct fz_child {
	pid_t pid;		/* 0: none */
	int pidfd;
	struct task_struct *task; /* as npud looks a client up; one reference */
	struct file *f;		/* the file it opened, or NULL */
	bool gone;		/* it exec'd or died: its context must go */
};

/* What one input has seen so far: handles, addresses, keys. */
struct fz_state {
	struct fz_file file[FZ_NFILES];
	struct fz_ring ring[FZ_MAX_RINGS];
	bool slot_busy[FZ_RING_SLOTS];
	uint64_t va[FZ_NKNOWN], va_size[FZ_NKNOWN];
	unsigned int nr_va;
	uint32_t phys[FZ_NKNOWN];
	unsigned int nr_phys;
	uint64_t share[FZ_NKNOWN];
	unsigned int nr_share;
	char key[FZ_NKNOWN][NPU_IPC_KEY_LEN];
	unsigned int nr_key;
	uint32_t ctx[FZ_NKNOWN];
	unsigned int nr_ctx;
	uint64_t hostreg[FZ_NKNOWN];
	unsigned int nr_hostreg;
	struct fz_child *child;	/* &fz_kid */
};

#define FZ_REMEMBER(st, arr, nr, v) ((st)->arr[(st)->nr++ % FZ_NKNOWN] = (v))
#define FZ_KNOWN(st, nr) ((st)->nr < FZ_NKNOWN ? (st)->nr : FZ_NKNOWN)

static uint64_t data_base(void)
{
	return (uint64_t)(uintptr_t)res + FZ_DATA_OFF;
}

static uint64_t aperture(unsigned int i)
{
	return (uint64_t)(uintptr_t)res + FZ_APERTURE_OFF + (i % FZ_APERTURES) * FZ_APERTURE_SIZE;
}

/* A user address that faults, whichever way it is used. */
static uint64_t bad_addr(unsigned int i)
{
	switch (i % 7) {
	case 0:
		return data_base() - PAGE;		/* the guard page below the arena */
	case 1:
		return data_base() + FZ_DATA_SIZE;	/* the guard above it */
	case 2:
		return (uint64_t)(uintptr_t)res + FZ_UNMAPPED_OFF;
	case 3:
		return 0x8000000000000000ULL;		/* non-canonical */
	case 4:
		return 0xffff888000000000ULL;		/* kernel half */
	case 5:
		return aperture(i / 7);			/* device VAs are PROT_NONE */
	default:
		return 0;
	}
}

/*
 * A host address for the driver to read or write: mostly inside the data
 * arena at a fuzzed offset, sometimes one that faults. Never anything else.
 */
static uint64_t host_addr(uint8_t sel, uint32_t off)
{
	data_dirty = true;
	if (sel >= 0xe0)
		return bad_addr(sel);
	return data_base() + off % FZ_DATA_SIZE;
}

/*
 * A device VA: a known one plus a fuzzed offset, or somewhere in an
 * aperture, or (rarely) the raw value, which can only matter to the
 * driver's address space lookups: every host use of it is the harness's
 * choice, never this value.
 */
static uint64_t dev_addr(struct fz_state *st, uint8_t sel, uint32_t off, uint64_t raw)
{
	unsigned int n = FZ_KNOWN(st, nr_va);

	if (sel >= 0xf0)
		return raw;
	if (sel >= 0xe0 || !n)
		return aperture(sel) + ((uint64_t)off << 12) % FZ_APERTURE_SIZE;
	return st->va[sel % n] + off;
}

static uint32_t pick_u32(uint8_t sel, const uint32_t *known, unsigned int n, uint32_t raw)
{
	return sel >= 0xe0 || !n ? raw : known[sel % n];
}

static uint64_t pick_u64(uint8_t sel, const uint64_t *known, unsigned int n, uint64_t raw)
{
	return sel >= 0xe0 || !n ? raw : known[sel % n];
}

static long fz_ioctl(struct fz_state *st, unsigned int fi, unsigned int cmd, uint64_t uarg)
{
	return mockdev_file_ioctl(st->file[fi].f, mockdev_task_self(), cmd, (unsigned long)uarg);
}

/* Ring slots: each region is used by one live ring at most. */
static int slot_get(struct fz_state *st, uint8_t sel)
{
	unsigned int i;

	for (i = 0; i < FZ_RING_SLOTS; i++) {
		unsigned int s = (sel + i) % FZ_RING_SLOTS;

		if (!st->slot_busy[s])
			return (int)s;
	}
	return -1;
}

/* Offset of addr from the first ring slot (huge when below it). */
static uint64_t slot_offset(uint64_t addr)
{
	return addr - ((uint64_t)(uintptr_t)res + FZ_RING_OFF);
}

/*
 * RING_CREATE touches at most size bytes of the slot it names (it stops at
 * the guard page after the slot). Remember how far, so that the next input
 * clears just that much: memset of resident pages is far cheaper than
 * MADV_DONTNEED and a page fault on every page again.
 */
static void slot_note_create(const struct npu_ring_create *rc)
{
	uint64_t off = slot_offset(rc->addr);
	uint64_t len = rc->size < FZ_RING_SLOT - PAGE ? rc->size : FZ_RING_SLOT - PAGE;
	unsigned int s = (unsigned int)(off / FZ_RING_SLOT);

	if (off >= FZ_RING_SLOTS * FZ_RING_SLOT || off % FZ_RING_SLOT)
		return;
	if (slot_dirty[s] < len)
		slot_dirty[s] = len;
}

static uint64_t slot_addr(unsigned int s)
{
	return (uint64_t)(uintptr_t)res + FZ_RING_OFF + (uint64_t)s * FZ_RING_SLOT;
}

static void ring_add(struct fz_state *st, unsigned int fi, uint32_t id, int slot,
		     uint32_t sq, uint32_t cq)
{
	unsigned int i;

	for (i = 0; i < FZ_MAX_RINGS; i++) {
		struct fz_ring *r = &st->ring[i];

		if (r->live)
			continue;
		r->live = true;
		r->file = fi;
		r->id = id;
		r->slot = (unsigned int)slot;
		r->sq = sq;
		r->cq = cq;
		r->hdr = (struct npu_ring_hdr *)(uintptr_t)slot_addr(slot);
		r->sqes = (struct npu_sqe *)((uint8_t *)r->hdr + NPU_RING_SQES_OFF);
		st->slot_busy[slot] = true;
		return;
	}
	/* More rings than we track: the driver has it, we cannot drive it. */
	st->slot_busy[slot] = true;
}

static void ring_gone(struct fz_state *st, unsigned int fi, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < FZ_MAX_RINGS; i++) {
		struct fz_ring *r = &st->ring[i];

		if (r->live && r->file == fi && r->id == id) {
			r->live = false;
			st->slot_busy[r->slot] = false;
		}
	}
}

static struct fz_ring *ring_pick(struct fz_state *st, uint8_t sel)
{
	unsigned int i, n = 0;

	for (i = 0; i < FZ_MAX_RINGS; i++)
		n += st->ring[i].live;
	if (!n)
		return NULL;
	n = sel % n;
	for (i = 0; i < FZ_MAX_RINGS; i++) {
		if (st->ring[i].live && !n--)
			return &st->ring[i];
	}
	return NULL;
}

/* The entry counts the harness hands over: valid unless raw was asked for. */
static void ring_entries(struct fz_in *in, uint32_t *sq, uint32_t *cq)
{
	uint8_t a = in_u8(in), b = in_u8(in);

	if (a >= 0xf0)
		return;		/* keep the fuzzed values */
	*sq = 1U << (a % 16);
	*cq = *sq << (b % (16 - a % 16));
}

/* The command table the fuzzer picks from: every command of the uapi. */
static const unsigned int fz_cmds[] = {
	NPU_IOCTL_GET_VERSION,	  NPU_IOCTL_DEVICE_INFO,   NPU_IOCTL_CTX_SETUP,
	NPU_IOCTL_MEM_ALLOC,	  NPU_IOCTL_MEM_FREE,	   NPU_IOCTL_MEM_QUERY,
	NPU_IOCTL_MEM_INFO,	  NPU_IOCTL_RING_CREATE,   NPU_IOCTL_RING_DESTROY,
	NPU_IOCTL_RING_ENTER,	  NPU_IOCTL_NOP,	   NPU_IOCTL_HOST_REGISTER,
	NPU_IOCTL_HOST_UNREGISTER, NPU_IOCTL_RING_STATS,   NPU_IOCTL_PEER_ENABLE,
	NPU_IOCTL_PEER_DISABLE,	  NPU_IOCTL_RING_ABORT,	   NPU_IOCTL_IPC_EXPORT,
	NPU_IOCTL_IPC_SET_PID,	  NPU_IOCTL_IPC_IMPORT,	   NPU_IOCTL_IPC_UNIMPORT,
	NPU_IOCTL_IPC_DESTROY,	  NPU_IOCTL_PHYS_ALLOC,	   NPU_IOCTL_PHYS_FREE,
	NPU_IOCTL_PHYS_RETAIN,	  NPU_IOCTL_PHYS_INFO,	   NPU_IOCTL_VMM_RESERVE,
	NPU_IOCTL_VMM_RELEASE,	  NPU_IOCTL_VMM_MAP,	   NPU_IOCTL_VMM_UNMAP,
	NPU_IOCTL_VMM_SET_ACCESS, NPU_IOCTL_VMM_GET_ACCESS, NPU_IOCTL_SHARE_EXPORT,
	NPU_IOCTL_SHARE_SET_PID,  NPU_IOCTL_SHARE_IMPORT,  NPU_IOCTL_SMI_PROCS,
	NPU_IOCTL_SMI_SHARES,	  NPU_IOCTL_PHYS_PEER,	   NPU_IOCTL_SMI_USERS,
};
#define FZ_NCMDS (sizeof(fz_cmds) / sizeof(fz_cmds[0]))

/* A pid list in the arena: ours (so whitelists can match) and fuzzed ones. */
static uint64_t fz_pids(struct fz_in *in, uint32_t count)
{
	uint8_t sel = in_u8(in);
	int32_t *p;
	uint32_t i, n = count < 64 ? count : 64;
	uint64_t at;

	if (sel >= 0xe0)
		return bad_addr(sel);
	data_dirty = true;
	/* Near the end of the arena now and then: the list runs into the guard. */
	at = sel >= 0xd0 ? data_base() + FZ_DATA_SIZE - 4 * (uint64_t)(sel - 0xcf) :
			   data_base() + 4 * (uint64_t)sel;
	p = (int32_t *)(uintptr_t)at;
	for (i = 0; i < n && (uint64_t)(uintptr_t)(p + i) < data_base() + FZ_DATA_SIZE; i++) {
		uint8_t v = in_u8(in);

		p[i] = v < 0x80 ? (int32_t)getpid() : (int32_t)(v - 0x80) - 8;
	}
	return at;
}

/*
 * Rewrite what the driver would take as a user address, and point
 * handles, VAs and keys at values this input has seen (unless the choice
 * byte asks for the fuzzed value).
 */
static void fz_fixup(struct fz_state *st, unsigned int fi, unsigned int cmd,
		     union npu_ioctl_args *a, struct fz_in *in)
{
	uint8_t sel = in_u8(in);

	switch (cmd) {
	case NPU_IOCTL_CTX_SETUP:
		/* A valid aperture is always one of ours: PROT_NONE host memory. */
		if (sel < 0xe0) {
			a->ctx_setup.va_base = aperture(sel);
			/* A raw size still ends inside the reservation. */
			if (in_u8(in) < 0xe0)
				a->ctx_setup.va_size = FZ_APERTURE_SIZE;
			else if (a->ctx_setup.va_size > FZ_RES_SIZE / 2)
				a->ctx_setup.va_size &= FZ_RES_SIZE / 2 - 1;
		} else if (a->ctx_setup.va_base % GIB == 0) {
			a->ctx_setup.va_base |= 1;	/* raw, but never valid */
		}
		break;
	case NPU_IOCTL_MEM_FREE:
	case NPU_IOCTL_MEM_QUERY:
	case NPU_IOCTL_IPC_UNIMPORT:
	case NPU_IOCTL_VMM_RELEASE:
	case NPU_IOCTL_VMM_UNMAP:
	case NPU_IOCTL_PHYS_RETAIN:
	case NPU_IOCTL_VMM_SET_ACCESS:
	case NPU_IOCTL_VMM_GET_ACCESS:
		/* va is the first field of each of these. */
		a->mem_free.va = dev_addr(st, sel, in_u8(in) < 0xf0 ? 0 : in_u32(in), a->mem_free.va);
		if (cmd == NPU_IOCTL_VMM_SET_ACCESS && in_u8(in) < 0xe0) {
			unsigned int n = FZ_KNOWN(st, nr_va);

			if (n)
				a->vmm_access.size = st->va_size[sel % n];
		}
		break;
	case NPU_IOCTL_IPC_EXPORT:
		a->ipc_export.va = dev_addr(st, sel, 0, a->ipc_export.va);
		if (in_u8(in) < 0xe0 && FZ_KNOWN(st, nr_va))
			a->ipc_export.size = st->va_size[sel % FZ_KNOWN(st, nr_va)];
		break;
	case NPU_IOCTL_VMM_RESERVE:
		if (sel < 0x80)
			a->vmm_reserve.va = 0;
		else if (sel < 0xe0)
			a->vmm_reserve.va = dev_addr(st, sel, in_u32(in), 0);
		break;
	case NPU_IOCTL_VMM_MAP:
		a->vmm_map.va = dev_addr(st, sel, 0, a->vmm_map.va);
		sel = in_u8(in);
		a->vmm_map.handle = pick_u32(sel, st->phys, FZ_KNOWN(st, nr_phys), a->vmm_map.handle);
		break;
	case NPU_IOCTL_RING_CREATE: {
		int slot = slot_get(st, sel);

		ring_entries(in, &a->ring_create.sq_entries, &a->ring_create.cq_entries);
		if (sel < 0xe0 && slot >= 0)
			a->ring_create.addr = slot_addr(slot);
		else if (sel < 0xf0)
			a->ring_create.addr = bad_addr(sel);
		else
			a->ring_create.addr = data_base() + 1;	/* unaligned: -EINVAL */
		if (in_u8(in) < 0xe0)
			a->ring_create.size = npu_ring_bytes(a->ring_create.sq_entries,
							     a->ring_create.cq_entries);
		break;
	}
	case NPU_IOCTL_RING_DESTROY:
	case NPU_IOCTL_RING_ENTER:
	case NPU_IOCTL_RING_STATS:
	case NPU_IOCTL_RING_ABORT: {
		/* ring_id is the first field of each of these. */
		struct fz_ring *r = sel < 0xe0 ? ring_pick(st, sel) : NULL;

		if (r)
			a->ring_destroy.ring_id = r->id;
		if (cmd == NPU_IOCTL_RING_ENTER)
			a->ring_enter.timeout_ns = 1 + a->ring_enter.timeout_ns % FZ_MAX_WAIT_NS;
		break;
	}
	case NPU_IOCTL_HOST_REGISTER: {
		uint64_t pages = FZ_DATA_SIZE / PAGE;

		if (sel < 0xe0) {
			data_dirty = true;
			a->host_register.addr = data_base() + PAGE * (a->host_register.addr % pages);
			/* Now and then past the end of the arena: -EFAULT. */
			a->host_register.size = PAGE * (1 + a->host_register.size % (pages + 2));
		} else {
			a->host_register.addr = bad_addr(sel);
		}
		if (in_u8(in) < 0xe0) {
			a->host_register.fd = -1;
			a->host_register.fd_off = 0;
		}
		break;
	}
	case NPU_IOCTL_HOST_UNREGISTER:
		a->host_unregister.addr = pick_u64(sel, st->hostreg, FZ_KNOWN(st, nr_hostreg),
						   a->host_unregister.addr);
		break;
	case NPU_IOCTL_PEER_ENABLE:
	case NPU_IOCTL_PEER_DISABLE:
		if (sel < 0xe0) {
			a->peer.peer_device = st->file[!fi].dev;
			a->peer.peer_ctx = pick_u32(sel, st->ctx, FZ_KNOWN(st, nr_ctx),
						    a->peer.peer_ctx);
		}
		break;
	case NPU_IOCTL_PHYS_PEER:
		if (sel < 0xe0) {
			a->phys_peer.peer_device = st->file[!fi].dev;
			a->phys_peer.peer_ctx = pick_u32(sel, st->ctx, FZ_KNOWN(st, nr_ctx),
							 a->phys_peer.peer_ctx);
			a->phys_peer.peer_handle = pick_u32(in_u8(in), st->phys,
							    FZ_KNOWN(st, nr_phys),
							    a->phys_peer.peer_handle);
		}
		break;
	case NPU_IOCTL_IPC_SET_PID:
	case NPU_IOCTL_SHARE_SET_PID:
		if (sel < 0xe0 && cmd == NPU_IOCTL_IPC_SET_PID && FZ_KNOWN(st, nr_key))
			memcpy(a->share_set_pid.key, st->key[sel % FZ_KNOWN(st, nr_key)],
			       NPU_IPC_KEY_LEN);
		if (cmd == NPU_IOCTL_SHARE_SET_PID)
			a->share_set_pid.handle = pick_u64(sel, st->share, FZ_KNOWN(st, nr_share),
							   a->share_set_pid.handle);
		if (in_u8(in) < 0xe0)
			a->share_set_pid.count = 1 + a->share_set_pid.count % 64;
		a->share_set_pid.pids = fz_pids(in, a->share_set_pid.count);
		break;
	case NPU_IOCTL_IPC_IMPORT:
	case NPU_IOCTL_IPC_DESTROY:
		/* key is the first field of both. */
		if (sel < 0xe0 && FZ_KNOWN(st, nr_key))
			memcpy(a->ipc_import.key, st->key[sel % FZ_KNOWN(st, nr_key)],
			       NPU_IPC_KEY_LEN);
		break;
	case NPU_IOCTL_PHYS_FREE:
	case NPU_IOCTL_PHYS_INFO:
	case NPU_IOCTL_SHARE_EXPORT:
		/* handle is the first field of each of these. */
		a->phys_free.handle = pick_u32(sel, st->phys, FZ_KNOWN(st, nr_phys),
					       a->phys_free.handle);
		break;
	case NPU_IOCTL_SHARE_IMPORT:
		a->share_import.share = pick_u64(sel, st->share, FZ_KNOWN(st, nr_share),
						 a->share_import.share);
		break;
	case NPU_IOCTL_SMI_PROCS:
	case NPU_IOCTL_SMI_SHARES:
	case NPU_IOCTL_SMI_USERS:
		if (sel < 0xe0)
			a->smi_query.count %= 64;
		a->smi_query.buf = sel >= 0xf0 ? 0 : host_addr(sel, in_u32(in));
		break;
	default:
		break;
	}
}

/* Remember what a successful command handed out. */
static void fz_record(struct fz_state *st, unsigned int fi, unsigned int cmd,
		      const union npu_ioctl_args *a)
{
	switch (cmd) {
	case NPU_IOCTL_CTX_SETUP:
		FZ_REMEMBER(st, ctx, nr_ctx, a->ctx_setup.ctx_id);
		break;
	case NPU_IOCTL_MEM_ALLOC:
		st->va_size[st->nr_va % FZ_NKNOWN] = a->mem_alloc.mapped_size;
		FZ_REMEMBER(st, va, nr_va, a->mem_alloc.va);
		break;
	case NPU_IOCTL_IPC_IMPORT:
		st->va_size[st->nr_va % FZ_NKNOWN] = a->ipc_import.size;
		FZ_REMEMBER(st, va, nr_va, a->ipc_import.va);
		break;
	case NPU_IOCTL_VMM_RESERVE:
		st->va_size[st->nr_va % FZ_NKNOWN] = a->vmm_reserve.size;
		FZ_REMEMBER(st, va, nr_va, a->vmm_reserve.va);
		break;
	case NPU_IOCTL_PHYS_ALLOC:
		FZ_REMEMBER(st, phys, nr_phys, a->phys_alloc.handle);
		break;
	case NPU_IOCTL_PHYS_RETAIN:
		FZ_REMEMBER(st, phys, nr_phys, a->phys_retain.handle);
		break;
	case NPU_IOCTL_PHYS_PEER:
		FZ_REMEMBER(st, phys, nr_phys, a->phys_peer.handle);
		break;
	case NPU_IOCTL_SHARE_IMPORT:
		FZ_REMEMBER(st, phys, nr_phys, a->share_import.handle);
		break;
	case NPU_IOCTL_SHARE_EXPORT:
		FZ_REMEMBER(st, share, nr_share, a->share_export.share);
		break;
	case NPU_IOCTL_IPC_EXPORT:
		memcpy(st->key[st->nr_key++ % FZ_NKNOWN], a->ipc_export.key, NPU_IPC_KEY_LEN);
		break;
	case NPU_IOCTL_HOST_REGISTER:
		FZ_REMEMBER(st, hostreg, nr_hostreg, a->host_register.addr);
		break;
	case NPU_IOCTL_RING_DESTROY:
		ring_gone(st, fi, a->ring_destroy.ring_id);
		break;
	case NPU_IOCTL_RING_CREATE: {
		/* Only a slot can be pinned: the harness gives no other memory. */
		uint64_t off = slot_offset(a->ring_create.addr);

		if (off < FZ_RING_SLOTS * FZ_RING_SLOT && off % FZ_RING_SLOT == 0)
			ring_add(st, fi, a->ring_create.ring_id, (int)(off / FZ_RING_SLOT),
				 a->ring_create.sq_entries, a->ring_create.cq_entries);
		break;
	}
	default:
		break;
	}
}

/*
 * Issue cmd with args on file fi: the struct goes to the argument page
 * (or the argument pointer is one that faults, or the struct runs into
 * the guard page after it), and what the driver wrote back is read from
 * there.
 */
static long fz_do_ioctl(struct fz_state *st, unsigned int fi, unsigned int cmd,
			union npu_ioctl_args *a, uint8_t amode)
{
	uint8_t *arg = res + FZ_ARG_OFF;
	size_t size = _IOC_SIZE(cmd) <= sizeof(*a) ? _IOC_SIZE(cmd) : sizeof(*a);
	uint64_t uarg;
	long ret;

	if (!st->file[fi].f)
		return -EBADF;
	if (cmd == NPU_IOCTL_RING_CREATE)
		slot_note_create(&a->ring_create);
	if (amode >= 0xe8 && amode < 0xf0) {
		/*
		 * As npud relays a restricted CUSE/FUSE ioctl: the struct was
		 * copied already, the driver's copies of it are served from a
		 * buffer, every other user address is memory as usual.
		 */
		union npu_ioctl_args buf = *a;

		ret = mockdev_file_ioctl_relayed(st->file[fi].f, mockdev_task_self(), cmd,
						 (unsigned long)(uintptr_t)arg, &buf);
		if (verbose)
			fprintf(stderr, "npu_fuzz: file %u relayed ioctl nr 0x%02x -> %ld\n", fi,
				_IOC_NR(cmd), ret);
		if (!ret) {
			*a = buf;
			fz_record(st, fi, cmd, a);
		}
		return ret;
	}
	if (amode < 0xf0) {
		uarg = (uint64_t)(uintptr_t)arg;
	} else if (amode < 0xf8) {
		/* The struct's tail lies in the guard page. */
		uarg = (uint64_t)(uintptr_t)arg + PAGE - 1 - (amode & 7);
	} else {
		uarg = bad_addr(amode);
	}
	if (uarg >= (uint64_t)(uintptr_t)arg && uarg < (uint64_t)(uintptr_t)arg + PAGE) {
		size_t fit = (uint64_t)(uintptr_t)arg + PAGE - uarg;

		memcpy((void *)(uintptr_t)uarg, a, size < fit ? size : fit);
	}
	ret = fz_ioctl(st, fi, cmd, uarg);
	if (verbose)
		fprintf(stderr, "npu_fuzz: file %u ioctl nr 0x%02x -> %ld\n", fi, _IOC_NR(cmd), ret);
	if (!ret && uarg == (uint64_t)(uintptr_t)arg) {
		memcpy(a, arg, size);
		fz_record(st, fi, cmd, a);
	}
	return ret;
}

/* A command and its struct from the input, addresses rewritten for file fi. */
static unsigned int fz_build_ioctl(struct fz_state *st, unsigned int fi, uint8_t ci,
				   union npu_ioctl_args *a, struct fz_in *in)
{
	unsigned int cmd, i;

	memset(a, 0, sizeof(*a));
	if (ci < 0xf0) {
		cmd = fz_cmds[ci % FZ_NCMDS];
	} else {
		/* A command not in the table (or a table one with a wrong size). */
		cmd = in_u32(in);
		if (_IOC_SIZE(cmd) > sizeof(*a))
			cmd &= ~(_IOC_SIZEMASK << _IOC_SIZESHIFT);
	}
	in_bytes(in, a, _IOC_SIZE(cmd));
	/* A table command, however chosen, gets its addresses rewritten. */
	for (i = 0; i < FZ_NCMDS; i++) {
		if (cmd == fz_cmds[i])
			fz_fixup(st, fi, cmd, a, in);
	}
	return cmd;
}

static void op_ioctl(struct fz_state *st, struct fz_in *in)
{
	unsigned int fi = in_u8(in) % FZ_NFILES;
	uint8_t ci = in_u8(in), amode = in_u8(in);
	unsigned int cmd;
	union npu_ioctl_args a;

	cmd = fz_build_ioctl(st, fi, ci, &a, in);
	fz_do_ioctl(st, fi, cmd, &a, amode);
}

/* RING_CREATE with valid arguments in a free slot. */
static void op_ring_new(struct fz_state *st, struct fz_in *in)
{
	unsigned int fi = in_u8(in) % FZ_NFILES;
	int slot = slot_get(st, in_u8(in));
	union npu_ioctl_args a;

	if (slot < 0)
		return;
	memset(&a, 0, sizeof(a));
	ring_entries(in, &a.ring_create.sq_entries, &a.ring_create.cq_entries);
	a.ring_create.addr = slot_addr(slot);
	a.ring_create.size = npu_ring_bytes(a.ring_create.sq_entries, a.ring_create.cq_entries);
	fz_do_ioctl(st, fi, NPU_IOCTL_RING_CREATE, &a, 0);
}

/* MEM_ALLOC with a size in pages and a policy. */
static void op_alloc(struct fz_state *st, struct fz_in *in)
{
	unsigned int fi = in_u8(in) % FZ_NFILES;
	union npu_ioctl_args a;

	memset(&a, 0, sizeof(a));
	a.mem_alloc.size = (uint64_t)in_u32(in) % (8192 + 16);
	a.mem_alloc.size = a.mem_alloc.size ? a.mem_alloc.size * PAGE - in_u8(in) : 1;
	a.mem_alloc.policy = in_u8(in) % (NPU_POLICY_COUNT + 1);
	a.mem_alloc.flags = in_u8(in) % 4;
	fz_do_ioctl(st, fi, NPU_IOCTL_MEM_ALLOC, &a, 0);
}

/* One SQE operand: a device VA, a host address, or a bad one. */
static uint64_t sqe_operand(struct fz_state *st, struct fz_in *in)
{
	uint8_t sel = in_u8(in);
	uint32_t off = in_u32(in);

	switch (sel % 8) {
	case 0:
	case 1:
	case 2:
		return dev_addr(st, sel >> 3, off % (1U << 24), 0);
	case 3:
	case 4:
		return host_addr(0, off);
	case 5:
		return aperture(sel >> 3) + ((uint64_t)off << 12) % FZ_APERTURE_SIZE;
	case 6:
		return bad_addr(sel >> 3);
	default:
		return 0;
	}
}

/*
 * Push count copies of one SQE and publish them. Every field is fuzzed;
 * dst and src only ever name device VAs or harness host addresses.
 */
static void op_sqe(struct fz_state *st, struct fz_in *in)
{
	struct fz_ring *r = ring_pick(st, in_u8(in));
	unsigned int i, count = 1 + in_u8(in) % 16;
	struct npu_sqe s;
	uint8_t lmode, rsvd;
	uint32_t len;

	memset(&s, 0, sizeof(s));
	s.opcode = in_u8(in) % (NPU_OP_COUNT + 1);
	s.dir = in_u8(in);
	s.dir = s.dir < 0xf0 ? s.dir % NPU_DIR_COUNT : s.dir;
	s.flags = in_u8(in);
	rsvd = in_u8(in);
	if (rsvd >= 0xf0) {
		s.rsvd0 = rsvd;
		s.rsvd1 = rsvd;
		s.rsvd2 = rsvd;
	}
	s.user_data = in_u64(in);
	s.dst = sqe_operand(st, in);
	s.src = sqe_operand(st, in);
	lmode = in_u8(in);
	len = in_u32(in);
	switch (lmode % 4) {
	case 0:
		s.len = len % (16 * MIB + 1);
		break;
	case 1:
		s.len = len;
		break;
	case 2:
		s.len = FZ_KNOWN(st, nr_va) ? st->va_size[len % FZ_KNOWN(st, nr_va)] : 0;
		break;
	default:
		s.len = lmode >= 0xf0 ? ~0ULL - len : 8;
		break;
	}
	s.value = in_u64(in);
	s.dpitch = in_u32(in);
	s.spitch = in_u32(in);
	s.cond = in_u32(in);
	if (s.opcode == NPU_OP_COPY2D) {
		s.value %= FZ_MAX_ROWS + 1;
		s.dpitch %= FZ_MAX_PITCH + 1;
		s.spitch %= FZ_MAX_PITCH + 1;
	}
	/* Unless the reserved byte says raw: only the fields the opcode uses. */
	if (rsvd < 0xe0) {
		if (s.opcode == NPU_OP_COPY_DEREF) {
			/* Offsets mostly inside an allocation, sometimes wrapping. */
			if (rsvd < 0xc0) {
				s.dst_off %= 16 * MIB;
				s.src_off %= 16 * MIB;
			}
		} else if (s.opcode != NPU_OP_COPY2D) {
			s.dpitch = s.spitch = 0;
		}
		s.cond = s.opcode == NPU_OP_VALUE_WAIT ? s.cond % NPU_WAIT_COUNT : 0;
		if (s.opcode == NPU_OP_MEMSET)
			s.value &= 0xff;
	}
	if (!r)
		return;
	for (i = 0; i < count; i++) {
		uint32_t tail = __atomic_load_n(&r->hdr->sq_tail, __ATOMIC_RELAXED);

		r->sqes[tail & (r->sq - 1)] = s;
		__atomic_store_n(&r->hdr->sq_tail, tail + 1, __ATOMIC_RELEASE);
	}
	/* The producer's side of the NEED_WAKEUP handshake. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void op_enter(struct fz_state *st, struct fz_in *in)
{
	struct fz_ring *r = ring_pick(st, in_u8(in));
	union npu_ioctl_args a;

	memset(&a, 0, sizeof(a));
	a.ring_enter.to_submit = in_u8(in);
	a.ring_enter.min_complete = in_u8(in);
	a.ring_enter.flags = in_u8(in) & 3;
	a.ring_enter.timeout_ns = 1 + (uint64_t)in_u8(in) * 1000;
	if (!r)
		return;
	a.ring_enter.ring_id = r->id;
	a.ring_enter.min_complete %= r->cq + 2;
	fz_do_ioctl(st, r->file, NPU_IOCTL_RING_ENTER, &a, 0);
}

/* Write a word of a ring header, as a buggy or hostile application would. */
static void op_scribble(struct fz_state *st, struct fz_in *in)
{
	struct fz_ring *r = ring_pick(st, in_u8(in));
	uint8_t field = in_u8(in), mode = in_u8(in);
	uint32_t v = in_u32(in), *w;

	if (!r)
		return;
	switch (field % 8) {
	case 0:
		w = &r->hdr->sq_tail;
		break;
	case 1:
		w = &r->hdr->cq_head;
		break;
	case 2:
		w = &r->hdr->flags;
		break;
	case 3:
		w = &r->hdr->sq_head;
		break;
	case 4:
		w = &r->hdr->cq_tail;
		break;
	case 5:
		w = &r->hdr->sq_entries + (v % 4);	/* entries and masks */
		break;
	case 6:
		w = &r->hdr->sq_dropped;
		break;
	default:
		w = &r->hdr->cq_overflow;
		break;
	}
	switch (mode % 4) {
	case 0:
		v = __atomic_load_n(w, __ATOMIC_RELAXED) + (int8_t)v;
		break;
	case 1:
		v = __atomic_load_n(w, __ATOMIC_RELAXED) + (v % 4) * r->cq;
		break;
	case 2:
		v = __atomic_load_n(w, __ATOMIC_RELAXED) + 0x80000000U + (int8_t)v;
		break;
	default:
		break;
	}
	__atomic_store_n(w, v, __ATOMIC_RELEASE);
}

/* Arm one of the mock's failure injections for the n-th next call. */
static void op_fail(struct fz_in *in)
{
	uint8_t kind = in_u8(in);
	unsigned long n = 1 + in_u8(in) % 32;

	switch (kind % 4) {
	case 0:
		mock_fail_alloc_nth(n);
		break;
	case 1:
		mock_fail_copy_from_user_nth(n);
		break;
	case 2:
		mock_fail_copy_to_user_nth(n);
		break;
	default:
		mock_fail_pin_nth(n);
		break;
	}
}

/* With NPU_FUZZ_VERBOSE: the CQEs still in the rings of file fi. */
static void dump_cqes(struct fz_state *st, unsigned int fi)
{
	unsigned int i;

	for (i = 0; i < FZ_MAX_RINGS; i++) {
		struct fz_ring *r = &st->ring[i];
		const struct npu_cqe *cqes;
		uint32_t h, t;

		if (!r->live || r->file != fi)
			continue;
		cqes = (const struct npu_cqe *)((const uint8_t *)r->sqes +
						(uint64_t)r->sq * sizeof(struct npu_sqe));
		h = __atomic_load_n(&r->hdr->cq_head, __ATOMIC_RELAXED);
		t = __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE);
		for (; h != t && t - h <= r->cq; h++)
			fprintf(stderr, "npu_fuzz: file %u ring %u cqe user_data 0x%llx res %d\n",
				fi, r->id, (unsigned long long)cqes[h & (r->cq - 1)].user_data,
				cqes[h & (r->cq - 1)].res);
	}
}

static void file_close(struct fz_state *st, unsigned int fi)
{
	unsigned int i;

	if (!st->file[fi].f)
		return;
	if (verbose)
		dump_cqes(st, fi);
	if (mockdev_file_release(st->file[fi].f, mockdev_task_self())) {
		fprintf(stderr, "npu_fuzz: release of file %u failed\n", fi);
		abort();
	}
	st->file[fi].f = NULL;
	for (i = 0; i < FZ_MAX_RINGS; i++) {
		if (st->ring[i].live && st->ring[i].file == fi)
			ring_gone(st, fi, st->ring[i].id);
	}
}

static void file_open(struct fz_state *st, unsigned int fi, unsigned int dev, bool setup)
{
	char name[16];
	union npu_ioctl_args a;

	snprintf(name, sizeof(name), "npu%u", dev % FZ_DEVICES);
	st->file[fi].dev = dev % FZ_DEVICES;
	if (mockdev_file_open(mockdev_misc_find(name), mockdev_task_self(), &st->file[fi].f)) {
		st->file[fi].f = NULL;
		return;
	}
	if (!setup)
		return;
	memset(&a, 0, sizeof(a));
	a.ctx_setup.va_base = aperture(fi);
	a.ctx_setup.va_size = FZ_APERTURE_SIZE;
	st->file[fi].aperture = a.ctx_setup.va_base;
	fz_do_ioctl(st, fi, NPU_IOCTL_CTX_SETUP, &a, 0);
}

static void op_reopen(struct fz_state *st, struct fz_in *in)
{
	unsigned int fi = in_u8(in) % FZ_NFILES;
	uint8_t how = in_u8(in);

	file_close(st, fi);
	file_open(st, fi, how & 1, !(how & 2));
}

/*
 * Identity events: another process uses our files, a file's opener execs
 * or dies. The other process is a child that only waits; the calls it
 * makes are made for it here, with its task, as npud relays a client's
 * requests (mockdev_file_ioctl_relayed). Its memory is a copy of ours, so
 * whatever the driver does to it (through the mock's remote-process path)
 * cannot disturb the harness.
 *
 * Forking this process for each one would cost some 30 ms (copying and
 * then faulting in the page tables of ASan's shadow). So a zygote, forked
 * once at start-up while the process is small and has no other thread,
 * forks them: a few hundred microseconds each. They are its children, not
 * ours: it reaps them, and we follow them by pidfd.
 */
static int zygote_req = -1, zygote_resp = -1;	/* our ends of its pipes */

/*
 * A child of the zygote. SIGUSR1 (blocked, taken synchronously) makes it
 * exec a program that sleeps; SIGKILL ends it; the zygote's death too.
 */
static void __attribute__((noreturn)) child_main(void)
{
	sigset_t set;
	int sig;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (;;) {
		if (sigwait(&set, &sig) == 0 && sig == SIGUSR1) {
			/* The signal mask survives exec: the new image ignores SIGUSR1 too. */
			execl("/bin/sleep", "sleep", "600", (char *)NULL);
			_exit(127);
		}
	}
}

/* At start-up, before any thread exists. */
static void zygote_start(void)
{
	int req[2], resp[2];
	pid_t parent = getpid(), pid;

	if (pipe2(req, O_CLOEXEC) || pipe2(resp, O_CLOEXEC)) {
		perror("npu_fuzz: pipe");
		abort();
	}
	pid = fork();
	if (pid < 0) {
		perror("npu_fuzz: fork");
		abort();
	}
	if (pid == 0) {
		close(req[1]);
		close(resp[0]);
		fuzz_zygote_main(req[0], resp[1], parent, child_main);
	}
	close(req[0]);
	close(resp[1]);
	zygote_req = req[1];
	zygote_resp = resp[0];
}

/* Until the process behind pidfd is gone (at most 10 s: then abort). */
static void pidfd_wait(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int ret;

	/* libFuzzer's SIGALRM (for -timeout) interrupts the wait now and then. */
	while ((ret = poll(&p, 1, 10000)) < 0 && errno == EINTR)
		;
	if (ret != 1) {
		fprintf(stderr, "npu_fuzz: a killed child does not go\n");
		abort();
	}
}

static struct fz_child fz_kid;

/*
 * At the end of an input (and before a new child): release the child's
 * file and drop its task; unless keep and it is still what it was, kill
 * it and wait for it to go.
 */
static void child_end(struct fz_state *st, bool keep)
{
	struct fz_child *c = st->child;

	if (!c->pid)
		return;
	if (c->f && mockdev_file_release(c->f, c->task)) {
		fprintf(stderr, "npu_fuzz: release of the child's file failed\n");
		abort();
	}
	c->f = NULL;
	if (keep && !c->gone) {
		mockdev_task_put(c->task);
		c->task = NULL;
		return;
	}
	kill(c->pid, SIGKILL);
	pidfd_wait(c->pidfd);
	close(c->pidfd);
	mockdev_task_put(c->task);
	memset(c, 0, sizeof(*c));
}

/* A live child that has not exec'd (a new one if needed), or NULL. */
static struct fz_child *child_get(struct fz_state *st)
{
	struct fz_child *c = st->child;
	ssize_t n;
	pid_t pid;

	if (c->pid && !c->gone) {
		if (!c->task && mockdev_task_get(c->pid, &c->task)) {
			fprintf(stderr, "npu_fuzz: no task for the child %d\n", (int)c->pid);
			abort();
		}
		return c;
	}
	child_end(st, false);
	if (write(zygote_req, "f", 1) != 1)
		return NULL;
	while ((n = read(zygote_resp, &pid, sizeof(pid))) < 0 && errno == EINTR)
		;
	if (n != sizeof(pid) || pid <= 0)
		return NULL;
	c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (c->pidfd < 0) {
		kill(pid, SIGKILL);
		return NULL;
	}
	c->pid = pid;
	if (mockdev_task_get(c->pid, &c->task)) {
		fprintf(stderr, "npu_fuzz: no task for the child %d\n", (int)c->pid);
		abort();
	}
	return c;
}

/* A relayed ioctl of the child on file f, the struct in buf. */
static long child_ioctl(struct fz_child *c, struct file *f, unsigned int cmd, void *buf)
{
	return mockdev_file_ioctl_relayed(f, c->task, cmd,
					  (unsigned long)(uintptr_t)(res + FZ_ARG_OFF), buf);
}

/*
 * After the child exec'd or died: its context must be torn down (the
 * mock's mm reaper does it), after which the file answers -EBADF to
 * everyone, its opener's stale task included.
 */
static void child_wait_gone(struct fz_state *st)
{
	struct fz_child *c = st->child;
	struct npu_device_info info;
	long ret = 0;
	int i;

	c->gone = true;
	if (!c->f)
		return;
	for (i = 0; i < 20000; i++) {
		memset(&info, 0, sizeof(info));
		ret = child_ioctl(c, c->f, NPU_IOCTL_DEVICE_INFO, &info);
		if (ret == -EBADF)
			return;
		usleep(100);
	}
	fprintf(stderr, "npu_fuzz: the file of an opener that exec'd or died still answers (%ld)\n",
		ret);
	abort();
}

/* The device counters a call that changes nothing leaves alone. */
static bool fz_info(struct fz_state *st, unsigned int fi, struct npu_device_info *info)
{
	memset(info, 0, sizeof(*info));
	return mockdev_file_ioctl_relayed(st->file[fi].f, mockdev_task_self(),
					  NPU_IOCTL_DEVICE_INFO, (unsigned long)(uintptr_t)info,
					  info) == 0;
}

static bool fz_info_same(const struct npu_device_info *a, const struct npu_device_info *b)
{
	return a->hbm_free == b->hbm_free && !memcmp(a->free, b->free, sizeof(a->free)) &&
	       a->contexts == b->contexts && a->allocations == b->allocations;
}

/* Our file fi used from the child (a fork that inherited it): -EBADF, no effect. */
static void ident_foreign(struct fz_state *st, struct fz_in *in)
{
	unsigned int fi = in_u8(in) % FZ_NFILES;
	struct npu_device_info i0, i1;
	union npu_ioctl_args a, before;
	struct fz_child *c;
	unsigned int cmd;
	bool info;
	long ret;

	cmd = fz_build_ioctl(st, fi, in_u8(in), &a, in);
	c = child_get(st);
	if (!c || !st->file[fi].f)
		return;
	/* The device counters read around the call must not fail by injection. */
	mock_fail_reset();
	before = a;
	info = fz_info(st, fi, &i0);
	ret = child_ioctl(c, st->file[fi].f, cmd, &a);
	if (verbose)
		fprintf(stderr, "npu_fuzz: file %u ioctl nr 0x%02x from the child -> %ld\n", fi,
			_IOC_NR(cmd), ret);
	if (ret != -EBADF || memcmp(&a, &before, sizeof(a))) {
		fprintf(stderr, "npu_fuzz: another process's ioctl 0x%08x on file %u gave %ld%s\n",
			cmd, fi, ret, memcmp(&a, &before, sizeof(a)) ? " and wrote its struct" : "");
		abort();
	}
	if (info && (!fz_info(st, fi, &i1) || !fz_info_same(&i0, &i1))) {
		fprintf(stderr,
			"npu_fuzz: another process's ioctl 0x%08x changed file %u's device: hbm_free %llu -> %llu, contexts %u -> %u, allocations %llu -> %llu\n",
			cmd, fi, (unsigned long long)i0.hbm_free, (unsigned long long)i1.hbm_free,
			i0.contexts, i1.contexts, (unsigned long long)i0.allocations,
			(unsigned long long)i1.allocations);
		abort();
	}
}

/* The child opens a file of its own: set up, with an allocation. */
static void ident_open(struct fz_state *st, struct fz_in *in)
{
	uint8_t how = in_u8(in);
	uint32_t pages = in_u8(in);
	struct fz_child *c = child_get(st);
	char name[16];
	union npu_ioctl_args a;

	if (!c)
		return;
	if (c->f && mockdev_file_release(c->f, c->task))
		abort();
	c->f = NULL;
	snprintf(name, sizeof(name), "npu%u", how & 1);
	if (mockdev_file_open(mockdev_misc_find(name), c->task, &c->f)) {
		c->f = NULL;
		return;
	}
	if (how & 2)
		return;
	memset(&a, 0, sizeof(a));
	a.ctx_setup.va_base = aperture(2 + (how >> 2));
	a.ctx_setup.va_size = FZ_APERTURE_SIZE;
	if (child_ioctl(c, c->f, NPU_IOCTL_CTX_SETUP, &a) || !pages)
		return;
	memset(&a, 0, sizeof(a));
	a.mem_alloc.size = pages * PAGE;
	a.mem_alloc.policy = how >> 4 & 3;
	child_ioctl(c, c->f, NPU_IOCTL_MEM_ALLOC, &a);
}

/* The child calls on its own file (any command, fuzzed). */
static void ident_call(struct fz_state *st, struct fz_in *in)
{
	struct fz_child *c = st->child;
	unsigned int cmd;
	union npu_ioctl_args a;
	long ret;

	cmd = fz_build_ioctl(st, 0, in_u8(in), &a, in);
	if (!c->pid || !c->f)
		return;
	ret = child_ioctl(c, c->f, cmd, &a);
	if (verbose)
		fprintf(stderr, "npu_fuzz: child ioctl nr 0x%02x -> %ld\n", _IOC_NR(cmd), ret);
	if (c->gone && ret != -EBADF) {
		fprintf(stderr, "npu_fuzz: a call on the file of a gone opener gave %ld\n", ret);
		abort();
	}
}

/* The child dies (SIGKILL); the driver may hear of it before or after it is gone. */
static void ident_die(struct fz_state *st, struct fz_in *in)
{
	struct fz_child *c = st->child;

	if (!c->pid || c->gone)
		return;
	kill(c->pid, SIGKILL);
	if (in_u8(in) & 1)
		pidfd_wait(c->pidfd);
	child_wait_gone(st);
}

/* Whether process pid now runs the program name (its comm). */
static bool pid_runs(pid_t pid, const char *name)
{
	char path[64], comm[32];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0)
		return false;
	comm[n] = '\0';
	return !strncmp(comm, name, strlen(name)) && comm[strlen(name)] == '\n';
}

/* The child execs: same pid, a new image, the old address space gone. */
static void ident_exec(struct fz_state *st, struct fz_in *in)
{
	struct fz_child *c = st->child;
	struct pollfd p = { .fd = c->pidfd, .events = POLLIN };
	int i;

	(void)in;
	if (!c->pid || c->gone)
		return;
	kill(c->pid, SIGUSR1);
	/* Until the new image runs (or the exec failed and the child exited). */
	for (i = 0; i < 100000 && !pid_runs(c->pid, "sleep"); i++) {
		if (poll(&p, 1, 0) == 1)
			break;
		usleep(20);
	}
	mock_mm_reap_now();
	child_wait_gone(st);
}

/*
 * One identity event (an op byte of 0xf0 or more). Every one leaves the
 * leak counters balanced once the input's files are closed and the child
 * is gone (child_end()).
 */
static void op_ident(struct fz_state *st, struct fz_in *in)
{
	switch (in_u8(in) % 5) {
	case 0:
		ident_foreign(st, in);
		break;
	case 1:
		ident_open(st, in);
		break;
	case 2:
		ident_call(st, in);
		break;
	case 3:
		ident_die(st, in);
		break;
	default:
		ident_exec(st, in);
		break;
	}
}

/* Wait for the CQ of a ring, then consume everything in it. */
static void op_reap(struct fz_state *st, struct fz_in *in)
{
	struct fz_ring *r = ring_pick(st, in_u8(in));
	union npu_ioctl_args a;

	if (!r)
		return;
	memset(&a, 0, sizeof(a));
	a.ring_enter.ring_id = r->id;
	a.ring_enter.min_complete = 1;
	a.ring_enter.flags = NPU_ENTER_GETEVENTS;
	a.ring_enter.timeout_ns = FZ_MAX_WAIT_NS;
	fz_do_ioctl(st, r->file, NPU_IOCTL_RING_ENTER, &a, 0);
	__atomic_store_n(&r->hdr->cq_head, __atomic_load_n(&r->hdr->cq_tail, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/*
 * At exit, unload the driver: its engines stop and everything is freed, so
 * LeakSanitizer's check at exit sees real leaks only (it does not scan the
 * mock's vmalloc mappings, where nothing but device data lives).
 */
static void fz_unload(void)
{
	mockdev_module_unload();
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct fz_state st;
	uint8_t *p;
	int ret;

	(void)argc;
	(void)argv;
	verbose = getenv("NPU_FUZZ_VERBOSE");
	p = mmap(NULL, FZ_RES_SIZE + GIB, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("npu_fuzz: reserving the address range");
		abort();
	}
	res = (uint8_t *)(((uintptr_t)p + GIB - 1) & ~(uintptr_t)(GIB - 1));
	if (mprotect(res + FZ_ARG_OFF, PAGE, PROT_READ | PROT_WRITE) ||
	    mprotect(res + FZ_DATA_OFF, FZ_DATA_SIZE, PROT_READ | PROT_WRITE)) {
		perror("npu_fuzz: mprotect");
		abort();
	}
	/*
	 * The data arena is cleared with MADV_DONTNEED after every input that
	 * may have written it; huge pages make touching it again one fault
	 * per 2 MiB instead of 512.
	 */
	madvise(res + FZ_DATA_OFF, FZ_DATA_SIZE, MADV_HUGEPAGE);
	for (unsigned int s = 0; s < FZ_RING_SLOTS; s++) {
		if (mprotect(res + FZ_RING_OFF + s * FZ_RING_SLOT, FZ_RING_SLOT - PAGE,
			     PROT_READ | PROT_WRITE)) {
			perror("npu_fuzz: mprotect");
			abort();
		}
	}
	/* Before the driver's threads exist, with the reservation made. */
	zygote_start();
	/*
	 * Every input makes fresh HBM chunks for its new contexts and touches
	 * few of their bytes: clearing each 2 MiB at allocation was half of the
	 * time of an input (mock.h).
	 */
	mock_vmalloc_huge_populate(false);
	ret = mockdev_module_load(getenv("NPU_FUZZ_PARAMS") ?: FZ_PARAMS);
	if (ret) {
		fprintf(stderr, "npu_fuzz: loading the driver: %d\n", ret);
		abort();
	}
	/* Warm up once (lazily created mock state), then take the baseline. */
	memset(&st, 0, sizeof(st));
	file_open(&st, 0, 0, true);
	file_open(&st, 1, 1, true);
	file_close(&st, 0);
	file_close(&st, 1);
	fz_base_take(&base, "npu_fuzz", FZ_DEVICES);
	atexit(fz_unload);
	return 0;
}

enum {
	OP_IOCTL,
	OP_RING_NEW,
	OP_ALLOC,
	OP_SQE,
	OP_ENTER,
	OP_SCRIBBLE,
	OP_FAIL,
	OP_REOPEN,
	OP_REAP,
	OP_COUNT
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fz_state st;
	uint8_t hdr;
	unsigned int i, ops;

	memset(&st, 0, sizeof(st));
	st.child = &fz_kid;
	/* Every input starts from zeroed user memory. */
	memset(res + FZ_ARG_OFF, 0, PAGE);
	if (data_dirty)
		madvise(res + FZ_DATA_OFF, FZ_DATA_SIZE, MADV_DONTNEED);
	for (i = 0; i < FZ_RING_SLOTS; i++) {
		memset(res + FZ_RING_OFF + i * FZ_RING_SLOT, 0, slot_dirty[i]);
		slot_dirty[i] = 0;
	}
	data_dirty = false;

	/* Header: bits 0/1 device of file 0/1, bits 2/3 no CTX_SETUP for it. */
	hdr = in_u8(&in);
	file_open(&st, 0, hdr & 1, !(hdr & 4));
	file_open(&st, 1, (hdr >> 1) & 1, !(hdr & 8));

	for (ops = 0; in.n && ops < FZ_MAX_OPS; ops++) {
		uint8_t op = in_u8(&in);
		size_t len = in_u8(&in);
		struct fz_in p = { in.p, len < in.n ? len : in.n };

		in.p += p.n;
		in.n -= p.n;
		/* Apart from the rest, so that older inputs keep their meaning. */
		if (op >= 0xf0) {
			op_ident(&st, &p);
			continue;
		}
		switch (op % OP_COUNT) {
		case OP_IOCTL:
			op_ioctl(&st, &p);
			break;
		case OP_RING_NEW:
			op_ring_new(&st, &p);
			break;
		case OP_ALLOC:
			op_alloc(&st, &p);
			break;
		case OP_SQE:
			op_sqe(&st, &p);
			break;
		case OP_ENTER:
			op_enter(&st, &p);
			break;
		case OP_SCRIBBLE:
			op_scribble(&st, &p);
			break;
		case OP_FAIL:
			op_fail(&p);
			break;
		case OP_REOPEN:
			op_reopen(&st, &p);
			break;
		default:
			op_reap(&st, &p);
			break;
		}
	}

	/* Close everything: rings are detached, engines let go, all is freed. */
	mock_fail_reset();
	file_close(&st, 0);
	file_close(&st, 1);
	child_end(&st, true);
	fz_check_clean(&base);
	return 0;
}
