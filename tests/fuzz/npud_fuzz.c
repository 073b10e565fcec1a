// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer harness of npud's client boundary: the FUSE/CUSE request
 * handlers of mockdev/npud/npud_client.c (npud_client_open, _ioctl and
 * _release) in process, over the driver under the mock kernel, with the
 * few libfuse functions they call defined here (no FUSE session).
 *
 * The ioctl handler is fed what a hostile or broken kernel/client pair
 * could send: any 32-bit command (the driver's, the driver's with its
 * direction or size bits changed, or anything at all), input and output
 * buffer sizes that disagree with _IOC_SIZE, FUSE_IOCTL_UNRESTRICTED and
 * FUSE_IOCTL_COMPAT, argument addresses that fault, caller tids of 0,
 * negative, of no process, of another process, of another thread of the
 * opener, FUSE INTERRUPTs, and an opener that execs. Every request must be
 * answered exactly once, after its interrupt callback was taken back, with
 * a reply whose size is what the command says, and with EINVAL / EPERM /
 * EBADF / ENOTTY where npud promises them.
 *
 * The client is this process (the mock treats it as a remote process and
 * reaches its memory with process_vm_readv/writev, which work on oneself)
 * and a child forked at start-up that only sleeps (another process: its
 * memory is a copy of ours, so the driver's writes for it cannot disturb
 * the harness). No client is ever another process of the machine: this
 * runs as root in CI, and the driver would write where a client pointer
 * says. For the same reason every user address a struct carries is
 * rewritten to the harness's own memory (an arena, an aperture) or to one
 * that faults.
 *
 * After every input each client is released, and the mock's leak
 * counters, the driver's counters and the WARN count must be where they
 * were (fuzz_check.h). tests/fuzz/README.md describes the input format.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mockdev/host.h>
#include <mockdev/mock.h>
#include <npu/npu_uapi.h>

#include "npud.h"
#include "fuzz_check.h"

#define KIB (1ULL << 10)
#define MIB (1ULL << 20)
#define GIB (1ULL << 30)
#define PAGE 4096ULL

#define NF_PARAMS "devices=2 hbm_mb=64 engines=1 engine_poll_us=20"
#define NF_DEVICES 2

/*
 * The reservation (1 GiB aligned): NF_APERTURES device apertures of
 * NF_APERTURE_SIZE (PROT_NONE), then a guard page, the argument page, a
 * guard page, the arena, and PROT_NONE again after it.
 */
#define NF_APERTURE_SIZE (64 * GIB)
#define NF_APERTURES 4
#define NF_ARG_OFF (NF_APERTURES * NF_APERTURE_SIZE + PAGE)
#define NF_DATA_OFF (NF_ARG_OFF + 2 * PAGE)
#define NF_DATA_SIZE (1 * MIB)
#define NF_RES_SIZE (NF_DATA_OFF + NF_DATA_SIZE + 16 * MIB)

#define NF_CLIENTS 4
#define NF_OTHER_UID 65534
/*
 * --limit-user-clients: this process and the child for our uid; the old
 * and the new image for the exec'd child's own uid, which nothing else uses.
 */
#define NF_USER_CLIENTS 2
#define NF_EXEC_UID 65533
#define NF_MAX_OPS 64
#define NF_NKNOWN 8
/* The largest in_bufsz/out_bufsz tried: a little past _IOC_SIZE's maximum. */
#define NF_MAX_BUFSZ (_IOC_SIZEMASK + 64)

/* A FUSE request as npud_client_ioctl sees it, and what it did with it. */
struct fuse_req {
	struct fuse_ctx ctx;
	unsigned int replies;
	bool ioctl_reply; /* fuse_reply_ioctl, else fuse_reply_err */
	int err;
	int result;
	size_t size;
	fuse_interrupt_func_t ifunc; /* registered and not yet taken back */
	void *idata;
	bool interrupted;	 /* an INTERRUPT came for it */
	unsigned int interrupts; /* callbacks run */
};

static uint8_t *res;
static uint8_t reply_data[_IOC_SIZEMASK + 1]; /* of the last fuse_reply_ioctl */
static pid_t self_tid;			      /* the main thread: tgid == tid */
static pid_t helper_tid; /* another thread of this process */
static pid_t child_pid;	 /* another process, sleeping */
static pid_t exec_pid;	 /* this input's process that execs (op_exec), or 0 */
static int exec_pidfd = -1;
/* Our ends of the zygote's pipes (op_exec). */
static int zygote_req = -1, zygote_resp = -1;
static bool verbose;
static struct fz_base base;


/* libfuse, as far as npud_client.c uses it */

static void nf_fail(const char *what, const struct fuse_req *req)
{
	fprintf(stderr,
		"npud_fuzz: %s (replies %u, err %d, result %d, size %zu)\n",
		what, req->replies, req->err, req->result, req->size);
	abort();
}

int fuse_reply_err(fuse_req_t req, int err)
{
	if (req->replies++)
		nf_fail("a second reply", req);
	/* libfuse frees the request with its reply: no callback may remain. */
	if (req->ifunc)
		nf_fail("reply with the interrupt callback still set", req);
	if (err <= 0 || err >= 4096)
		nf_fail("fuse_reply_err with no positive errno", req);
	req->err = err;
	return 0;
}

int fuse_reply_ioctl(fuse_req_t req, int result, const void *buf, size_t size)
{
	if (req->replies++)
		nf_fail("a second reply", req);
	if (req->ifunc)
		nf_fail("reply with the interrupt callback still set", req);
	req->ioctl_reply = true;
	req->result = result;
	req->size = size;
	if (size && !buf)
		nf_fail("fuse_reply_ioctl of bytes without a buffer", req);
	if (size > sizeof(reply_data))
		nf_fail("fuse_reply_ioctl larger than any command", req);
	/* Read it all, as the kernel would: ASan checks the bounds. */
	if (size)
		memcpy(reply_data, buf, size);
	return 0;
}

const struct fuse_ctx *fuse_req_ctx(fuse_req_t req)
{
	return &req->ctx;
}

/*
 * As libfuse: a callback set on a request that was already interrupted
 * runs at once; NULL takes it back.
 */
void fuse_req_interrupt_func(fuse_req_t req, fuse_interrupt_func_t func,
			     void *data)
{
	if (req->replies)
		nf_fail("interrupt callback set after the reply", req);
	req->ifunc = func;
	req->idata = data;
	if (func && req->interrupted) {
		req->interrupts++;
		func(req, data);
	}
}

/* State of one input (its ops read with fuzz_check.h's in_*()) */

struct nf_client {
	struct npud_client *c;
	pid_t tgid; /* whose it is: getpid(), child_pid or exec_pid */
	bool stale; /* its opener exec'd: every request is EBADF */
};

struct nf_state {
	struct nf_client cl[NF_CLIENTS];
	uint64_t va[NF_NKNOWN];
	unsigned int nr_va;
	uint32_t handle[NF_NKNOWN];
	unsigned int nr_handle;
};

static const unsigned int nf_cmds[] = {
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
#define NF_NCMDS (sizeof(nf_cmds) / sizeof(nf_cmds[0]))

static bool nf_known_cmd(unsigned int cmd)
{
	unsigned int i;

	for (i = 0; i < NF_NCMDS; i++) {
		if (nf_cmds[i] == cmd)
			return true;
	}
	return false;
}

/*
 * A command the driver's table surely lacks: not of its type, or the number
 * of a table command with other bits (the table owns each full cmd).
 * Numbers the harness does not know may be commands added since.
 */
static bool nf_surely_unknown(unsigned int cmd)
{
	unsigned int i;

	if (_IOC_TYPE(cmd) != NPU_IOCTL_MAGIC)
		return true;
	for (i = 0; i < NF_NCMDS; i++) {
		if (_IOC_NR(nf_cmds[i]) == _IOC_NR(cmd))
			return nf_cmds[i] != cmd;
	}
	return false;
}

static uint64_t data_base(void)
{
	return (uint64_t)(uintptr_t)res + NF_DATA_OFF;
}

static uint64_t aperture(unsigned int i)
{
	return (uint64_t)(uintptr_t)res + (i % NF_APERTURES) * NF_APERTURE_SIZE;
}

/* A user address that faults in both processes. */
static uint64_t bad_addr(unsigned int i)
{
	switch (i % 6) {
	case 0:
		return data_base() - PAGE; /* the guard below the arena */
	case 1:
		return data_base() + NF_DATA_SIZE; /* PROT_NONE after it */
	case 2:
		return 0x8000000000000000ULL; /* non-canonical */
	case 3:
		return 0xffff888000000000ULL; /* kernel half */
	case 4:
		return aperture(i); /* PROT_NONE */
	default:
		return 0;
	}
}

/* Somewhere in the arena (which runs into PROT_NONE at its end), or bad. */
static uint64_t host_addr(uint8_t sel, uint32_t off)
{
	if (sel >= 0xe0)
		return bad_addr(sel);
	return data_base() + off % NF_DATA_SIZE;
}

/*
 * The tid a request comes from, or an open is made for. Only ever this
 * process, the child, or a number that is no process at all.
 */
static pid_t pick_tid(uint8_t sel, struct fz_in *in)
{
	switch (sel % 8) {
	case 0:
	case 1:
	case 2:
		return self_tid;
	case 3:
		return helper_tid;
	case 4:
		return sel & 0x80 && exec_pid ? exec_pid : child_pid;
	case 5:
		return 0;
	case 6:
		return -(pid_t)(1 + in_u8(in)) * (sel & 0x80 ? 0x100000 : 1);
	default:
		/* Past the largest pid_max (2^22): no such thread. */
		return (pid_t)(0x400001 + (in_u32(in) & 0x3fffffff));
	}
}

/* Whether thread tid belongs to process tgid (for the harness's tids). */
static bool tid_of(pid_t tid, pid_t tgid)
{
	if (tid <= 0 || tid >= 0x400001)
		return false;
	if (tid == exec_pid)
		return tid == tgid;
	if (tgid == getpid())
		return tid == self_tid || tid == helper_tid;
	return tid == tgid;
}

/*
 * Point what the driver would take as a user address at harness memory
 * (or at an address that faults), and handles and VAs at ones this input
 * has seen unless the choice byte keeps the fuzzed value.
 */
static void nf_fixup(struct nf_state *st, unsigned int cmd, uint8_t *a,
		     struct fz_in *in)
{
	uint8_t sel = in_u8(in);

	switch (cmd) {
	case NPU_IOCTL_CTX_SETUP: {
		struct npu_ctx_setup *s = (void *)a;

		if (sel < 0xe0) {
			s->va_base = aperture(sel);
			if (in_u8(in) < 0xe0)
				s->va_size = NF_APERTURE_SIZE;
			else
				s->va_size %= NF_APERTURE_SIZE * 2;
		} else if (s->va_base % GIB == 0) {
			s->va_base |= 1; /* raw, but never valid */
		}
		break;
	}
	case NPU_IOCTL_RING_CREATE: {
		struct npu_ring_create *r = (void *)a;

		/* Anonymous memory: npud cannot pin it (no file of the client).
		 */
		r->addr = sel < 0xc0 ? data_base() + (uint64_t)sel * PAGE
				     : bad_addr(sel);
		break;
	}
	case NPU_IOCTL_HOST_REGISTER: {
		struct npu_host_register *h = (void *)a;

		h->addr =
		    host_addr(sel, (uint32_t)h->addr & ~(uint32_t)(PAGE - 1));
		if (in_u8(in) < 0xe0) {
			h->fd = -1;
			h->fd_off = 0;
		}
		break;
	}
	case NPU_IOCTL_IPC_SET_PID:
	case NPU_IOCTL_SHARE_SET_PID: {
		struct npu_share_set_pid *s = (void *)a;
		uint32_t i, n = s->count < 64 ? s->count : 64;
		int32_t *p;

		if (cmd == NPU_IOCTL_SHARE_SET_PID && sel < 0xe0 &&
		    st->nr_handle)
			s->handle = st->handle[sel % (st->nr_handle < NF_NKNOWN
							  ? st->nr_handle
							  : NF_NKNOWN)];
		s->pids = host_addr(in_u8(in), 4 * in_u8(in));
		if (s->pids < data_base() ||
		    s->pids >= data_base() + NF_DATA_SIZE)
			break;
		p = (int32_t *)(uintptr_t)(s->pids & ~3ULL);
		s->pids = (uint64_t)(uintptr_t)p;
		for (i = 0; i < n && (uint64_t)(uintptr_t)(p + i) <
					 data_base() + NF_DATA_SIZE;
		     i++) {
			uint8_t v = in_u8(in);

			p[i] = v < 0x60	  ? getpid()
			       : v < 0x80 ? child_pid
					  : (int32_t)v - 0x88;
		}
		break;
	}
	case NPU_IOCTL_SMI_PROCS:
	case NPU_IOCTL_SMI_SHARES:
	case NPU_IOCTL_SMI_USERS: {
		struct npu_smi_query *q = (void *)a;

		q->buf = sel >= 0xf0 ? 0 : host_addr(sel, in_u32(in));
		break;
	}
	case NPU_IOCTL_MEM_FREE:
	case NPU_IOCTL_MEM_QUERY:
	case NPU_IOCTL_IPC_EXPORT:
	case NPU_IOCTL_VMM_RELEASE:
	case NPU_IOCTL_VMM_UNMAP:
	case NPU_IOCTL_VMM_SET_ACCESS:
	case NPU_IOCTL_VMM_GET_ACCESS:
		/* A VA is the first field of each of these. */
		if (sel < 0xe0 && st->nr_va)
			memcpy(
			    a,
			    &st->va[sel % (st->nr_va < NF_NKNOWN ? st->nr_va
								 : NF_NKNOWN)],
			    sizeof(uint64_t));
		break;
	case NPU_IOCTL_PHYS_FREE:
	case NPU_IOCTL_PHYS_INFO:
	case NPU_IOCTL_SHARE_EXPORT:
		/* A physical handle is the first field of each of these. */
		if (sel < 0xe0 && st->nr_handle)
			memcpy(a,
			       &st->handle[sel % (st->nr_handle < NF_NKNOWN
						      ? st->nr_handle
						      : NF_NKNOWN)],
			       sizeof(uint32_t));
		break;
	default:
		break;
	}
}

static void nf_record(struct nf_state *st, unsigned int cmd, const uint8_t *a)
{
	if (cmd == NPU_IOCTL_MEM_ALLOC)
		st->va[st->nr_va++ % NF_NKNOWN] =
		    ((const struct npu_mem_alloc *)a)->va;
	else if (cmd == NPU_IOCTL_VMM_RESERVE)
		st->va[st->nr_va++ % NF_NKNOWN] =
		    ((const struct npu_vmm_reserve *)a)->va;
	else if (cmd == NPU_IOCTL_PHYS_ALLOC)
		st->handle[st->nr_handle++ % NF_NKNOWN] =
		    ((const struct npu_phys_alloc *)a)->handle;
}

/* Ops */

static void op_open(struct nf_state *st, struct fz_in *in)
{
	uint8_t ssel = in_u8(in);
	unsigned int slot = ssel % NF_CLIENTS;
	uint8_t isel = in_u8(in), tsel = in_u8(in);
	unsigned int index = isel < 0xf0 ? isel % (NF_DEVICES + 1) : in_u32(in);
	pid_t tid = pick_tid(tsel, in);
	/* The user FUSE reports: ours, or another, against a cap of one client process each. */
	uid_t uid = ssel & 0x80 ? NF_OTHER_UID : getuid();
	struct npud_client *c = NULL;
	pid_t tgid;
	int ret;

	if (st->cl[slot].c) {
		npud_client_release(st->cl[slot].c);
		st->cl[slot].c = NULL;
	}
	ret = npud_client_open(index, tid, uid, &c);
	if (verbose)
		fprintf(stderr, "npud_fuzz: open npu%u tid %d -> %d\n", index,
			(int)tid, ret);
	tgid = tid == helper_tid ? getpid() : tid;
	if (tid <= 0) {
		if (ret != -EREMOTE) {
			fprintf(
			    stderr,
			    "npud_fuzz: open for tid %d gave %d, not -EREMOTE\n",
			    (int)tid, ret);
			abort();
		}
	} else if (tid >= 0x400001) {
		if (ret != -ESRCH) {
			fprintf(stderr, "npud_fuzz: open for no process gave %d, not -ESRCH\n",
				ret);
			abort();
		}
	} else if (index >= NF_DEVICES && ret != -ENODEV) {
		fprintf(stderr,
			"npud_fuzz: open of npu%u gave %d, not -ENODEV\n",
			index, ret);
		abort();
	}
	if (ret)
		return;
	if (index >= NF_DEVICES) {
		fprintf(stderr, "npud_fuzz: open of npu%u succeeded\n", index);
		abort();
	}
	st->cl[slot].c = c;
	st->cl[slot].tgid = tgid;
	st->cl[slot].stale = false;
}

static void op_release(struct nf_state *st, struct fz_in *in)
{
	unsigned int slot = in_u8(in) % NF_CLIENTS;

	if (!st->cl[slot].c)
		return;
	npud_client_release(st->cl[slot].c);
	st->cl[slot].c = NULL;
}

/*
 * One request. Its sizes and flags are mostly what the kernel sends for
 * the command, sometimes not; the command is one of the driver's, one of
 * the driver's with other direction or size bits, or raw.
 */
static void op_ioctl(struct nf_state *st, struct fz_in *in)
{
	static uint8_t arg[_IOC_SIZEMASK + 1];
	struct nf_client *cl = &st->cl[in_u8(in) % NF_CLIENTS];
	uint8_t csel = in_u8(in), msel = in_u8(in), fsel = in_u8(in),
		asel = in_u8(in);
	pid_t tid = pick_tid(in_u8(in), in);
	struct fuse_req req = {0};
	size_t size, want_in, want_out, in_bufsz, out_bufsz;
	unsigned int cmd, flags = 0;
	uint8_t *in_buf = NULL;
	bool mismatch;
	void *uarg;

	cmd = csel < 0xf0 ? nf_cmds[csel % NF_NCMDS] : in_u32(in);
	if (csel >= 0xc0 && csel < 0xf0) {
		/* The table's command with other direction or size bits. */
		uint32_t x = in_u32(in);

		if (csel & 1)
			cmd ^= (x & _IOC_DIRMASK) << _IOC_DIRSHIFT;
		else
			cmd ^= (x & _IOC_SIZEMASK) << _IOC_SIZESHIFT;
	}
	size = _IOC_SIZE(cmd);
	want_in = (_IOC_DIR(cmd) & _IOC_WRITE) ? size : 0;
	want_out = (_IOC_DIR(cmd) & _IOC_READ) ? size : 0;
	in_bufsz = want_in;
	out_bufsz = want_out;
	switch (msel % 8) {
	case 5:
		in_bufsz = (in_bufsz + (int8_t)in_u8(in)) % (NF_MAX_BUFSZ + 1);
		break;
	case 6:
		out_bufsz =
		    (out_bufsz + (int8_t)in_u8(in)) % (NF_MAX_BUFSZ + 1);
		break;
	case 7:
		in_bufsz = in_u16(in) % (NF_MAX_BUFSZ + 1);
		out_bufsz = in_u16(in) % (NF_MAX_BUFSZ + 1);
		break;
	default:
		break;
	}
	if (fsel >= 0xc0)
		flags |= FUSE_IOCTL_COMPAT;
	if (fsel >= 0xf0)
		flags |= FUSE_IOCTL_UNRESTRICTED;
	if ((fsel & 0x0f) == 0x0f)
		flags |= in_u32(in);
	req.interrupted = fsel & 0x10;
	req.ctx.pid = tid;
	req.ctx.uid = 0;
	req.ctx.gid = 0;

	/* The struct: fuzzed bytes, its user addresses made the harness's. */
	memset(arg, 0, size);
	/*
	 * A command of the driver's type the harness does not know (added
	 * since) may carry user pointers it cannot rewrite: its struct stays
	 * zero, as the driver would otherwise write where they point, in this
	 * process.
	 */
	if (nf_known_cmd(cmd) || nf_surely_unknown(cmd))
		in_bytes(in, arg, size < 256 ? size : 256);
	if (nf_known_cmd(cmd))
		nf_fixup(st, cmd, arg, in);
	/* FUSE hands over exactly in_bufsz bytes; ASan sees past them. */
	if (in_bufsz) {
		in_buf = malloc(in_bufsz);
		if (!in_buf)
			abort();
		memcpy(in_buf, arg, in_bufsz < size ? in_bufsz : size);
		if (in_bufsz > size)
			memset(in_buf + size, 0xa5, in_bufsz - size);
	}
	/* The client's own copy, at the argument address. */
	if (asel < 0xd0) {
		uarg = res + NF_ARG_OFF;
		memcpy(uarg, arg, size < PAGE ? size : PAGE);
	} else if (asel < 0xe0) {
		/* Its tail in the guard page after the argument page. */
		uarg = res + NF_ARG_OFF + PAGE - 1 - (asel & 0xf);
	} else {
		uarg = (void *)(uintptr_t)bad_addr(asel);
	}

	if (!cl->c) {
		free(in_buf);
		return;
	}
	npud_client_ioctl(&req, cl->c, cmd, uarg, flags, in_buf, in_bufsz,
			  out_bufsz);
	if (verbose)
		fprintf(stderr,
			"npud_fuzz: ioctl 0x%08x tid %d flags 0x%x in %zu/%zu out %zu/%zu -> %s %d\n",
			cmd, (int)tid, flags, in_bufsz, want_in, out_bufsz,
			want_out, req.ioctl_reply ? "ok" : "err",
			req.ioctl_reply ? req.result : req.err);

	if (req.replies != 1)
		nf_fail("a request answered other than once", &req);
	if (req.ifunc)
		nf_fail("the interrupt callback left set", &req);
	mismatch = (flags & FUSE_IOCTL_UNRESTRICTED) || in_bufsz != want_in ||
		   out_bufsz != want_out;
	if (mismatch && (req.ioctl_reply || req.err != EINVAL))
		nf_fail("a malformed request not refused with EINVAL", &req);
	if (!mismatch && tid <= 0 && (req.ioctl_reply || req.err != EPERM))
		nf_fail("a request of an unknown caller not refused with EPERM",
			&req);
	if (!mismatch && tid > 0 && !tid_of(tid, cl->tgid) &&
	    (req.ioctl_reply || req.err != EBADF))
		nf_fail("a request from another process not refused with EBADF",
			&req);
	if (!mismatch && tid > 0 && cl->stale &&
	    (req.ioctl_reply || req.err != EBADF))
		nf_fail("a request on the file of an opener that exec'd not refused with EBADF",
			&req);
	if (req.ioctl_reply && (req.result < 0 || req.size != want_out))
		nf_fail("a reply of the wrong size", &req);
	if (!mismatch && tid_of(tid, cl->tgid) && !cl->stale &&
	    nf_surely_unknown(cmd) && (req.ioctl_reply || req.err != ENOTTY))
		nf_fail("a command not in the table not refused with ENOTTY",
			&req);
	/* The reply carries the struct back: remember what it handed out. */
	if (req.ioctl_reply && cl->tgid == getpid() && nf_known_cmd(cmd) &&
	    want_out)
		nf_record(st, cmd, reply_data);
	free(in_buf);
}

/*
 * A process that opens and then execs: a child of the zygote (forked at
 * start-up, before any thread), which execs /bin/sleep on SIGUSR1. Its
 * clients must answer EBADF to every request from then on, the new
 * image's included; the new image may open clients of its own.
 */
static void exec_child_main(void)
{
	sigset_t set;
	int sig;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	for (;;) {
		if (sigwait(&set, &sig) == 0 && sig == SIGUSR1) {
			execl("/bin/sleep", "sleep", "600", (char *)NULL);
			_exit(127);
		}
	}
}

static void exec_end(void)
{
	struct pollfd p = {.fd = exec_pidfd, .events = POLLIN};

	if (!exec_pid)
		return;
	kill(exec_pid, SIGKILL);
	while (poll(&p, 1, 10000) < 0 && errno == EINTR)
		;
	close(exec_pidfd);
	exec_pidfd = -1;
	exec_pid = 0;
}

/* Whether process pid runs the program name now (its comm). */
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

static void op_exec(struct nf_state *st, struct fz_in *in)
{
	unsigned int slot = in_u8(in) % NF_CLIENTS, i;
	uint8_t how = in_u8(in);
	struct pollfd p;
	struct npud_client *c;
	ssize_t n;
	pid_t pid;
	int ret;

	if (exec_pid)
		return; /* one per input */
	if (write(zygote_req, "f", 1) != 1)
		return;
	while ((n = read(zygote_resp, &pid, sizeof(pid))) < 0 && errno == EINTR)
		;
	if (n != sizeof(pid) || pid <= 0)
		return;
	exec_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (exec_pidfd < 0) {
		kill(pid, SIGKILL);
		return;
	}
	exec_pid = pid;
	if (st->cl[slot].c)
		npud_client_release(st->cl[slot].c);
	st->cl[slot].c = NULL;
	ret = npud_client_open(how & 1, pid, NF_EXEC_UID, &c);
	if (ret) {
		fprintf(stderr, "npud_fuzz: open for a live child gave %d\n",
			ret);
		abort();
	}
	st->cl[slot].c = c;
	st->cl[slot].tgid = pid;
	st->cl[slot].stale = false;

	kill(pid, SIGUSR1);
	p.fd = exec_pidfd;
	p.events = POLLIN;
	for (i = 0; i < 100000 && !pid_runs(pid, "sleep"); i++) {
		if (poll(&p, 1, 0) == 1)
			break;
		usleep(20);
	}
	mock_mm_reap_now();
	for (i = 0; i < NF_CLIENTS; i++) {
		if (st->cl[i].c && st->cl[i].tgid == pid)
			st->cl[i].stale = true;
	}
	/* The new image is a new client: it may open (unless told not to). */
	if (how & 2)
		return;
	slot = (slot + 1) % NF_CLIENTS;
	if (st->cl[slot].c)
		npud_client_release(st->cl[slot].c);
	st->cl[slot].c = NULL;
	ret = npud_client_open(how & 1, pid, NF_EXEC_UID, &c);
	if (verbose)
		fprintf(stderr,
			"npud_fuzz: open by the new image of %d -> %d\n",
			(int)pid, ret);
	if (ret)
		return;
	st->cl[slot].c = c;
	st->cl[slot].tgid = pid;
	st->cl[slot].stale = false;
}

/* Init */

static void *helper_main(void *arg)
{
	(void)arg;
	__atomic_store_n(&helper_tid, (pid_t)syscall(SYS_gettid),
			 __ATOMIC_RELEASE);
	for (;;)
		pause();
	return NULL;
}

/* At exit: every client gone, the driver unloaded, the child killed. */
static void nf_exit(void)
{
	npud_clients_release_all();
	mockdev_module_unload();
	if (child_pid > 0) {
		kill(child_pid, SIGKILL);
		waitpid(child_pid, NULL, 0);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct npud_client *c;
	pthread_t helper;
	uint8_t *p;
	int ret;

	(void)argc;
	(void)argv;
	verbose = getenv("NPU_FUZZ_VERBOSE");
	npud_clients_set_user_limit(NF_USER_CLIENTS);
	/* npud's log (npud_log.c), which npud_client.c prints to: quiet unless verbose. */
	npud_log_level = verbose ? NPUD_LOG_DEBUG : NPUD_LOG_ERROR;
	p = mmap(NULL, NF_RES_SIZE + GIB, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		perror("npud_fuzz: reserving the address range");
		abort();
	}
	res = (uint8_t *)(((uintptr_t)p + GIB - 1) & ~(uintptr_t)(GIB - 1));
	if (mprotect(res + NF_ARG_OFF, PAGE, PROT_READ | PROT_WRITE) ||
	    mprotect(res + NF_DATA_OFF, NF_DATA_SIZE, PROT_READ | PROT_WRITE)) {
		perror("npud_fuzz: mprotect");
		abort();
	}
	self_tid = (pid_t)syscall(SYS_gettid);
	if (self_tid != getpid()) {
		fprintf(stderr, "npud_fuzz: must run on the main thread\n");
		abort();
	}
	/* The other process: before any thread exists, it only sleeps. */
	child_pid = fork();
	if (child_pid < 0) {
		perror("npud_fuzz: fork");
		abort();
	}
	if (child_pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	{
		int req[2], resp[2];
		pid_t z, parent = getpid();

		if (pipe2(req, O_CLOEXEC) || pipe2(resp, O_CLOEXEC)) {
			perror("npud_fuzz: pipe");
			abort();
		}
		z = fork();
		if (z < 0) {
			perror("npud_fuzz: fork");
			abort();
		}
		if (z == 0) {
			close(req[1]);
			close(resp[0]);
			fuzz_zygote_main(req[0], resp[1], parent, exec_child_main);
		}
		close(req[0]);
		close(resp[1]);
		zygote_req = req[1];
		zygote_resp = resp[0];
	}
	if (pthread_create(&helper, NULL, helper_main, NULL)) {
		fprintf(stderr, "npud_fuzz: pthread_create failed\n");
		abort();
	}
	while (!__atomic_load_n(&helper_tid, __ATOMIC_ACQUIRE))
		usleep(100);
	/*
	 * Every input makes fresh HBM chunks for its new contexts and touches
	 * few of their bytes: clearing each 2 MiB at allocation was half of the
	 * time of an input (mock.h).
	 */
	mock_vmalloc_huge_populate(false);
	ret = mockdev_module_load(getenv("NPU_FUZZ_PARAMS") ?: NF_PARAMS);
	if (ret) {
		fprintf(stderr, "npud_fuzz: loading the driver: %d\n", ret);
		abort();
	}
	atexit(nf_exit);
	/* Warm up once (lazily created mock state), then take the baseline. */
	if (npud_client_open(0, self_tid, getuid(), &c) == 0)
		npud_client_release(c);
	if (npud_client_open(1, child_pid, getuid(), &c) == 0)
		npud_client_release(c);
	fz_base_take(&base, "npud_fuzz", NF_DEVICES);
	return 0;
}

enum { OP_OPEN, OP_IOCTL, OP_RELEASE, OP_COUNT };
/*
 * An exec costs some 10 ms, a hundred requests: op byte 0xff with a payload
 * of exactly two bytes only, which runs of 0xff that mutations insert are
 * not.
 */
#define OP_EXEC 0xff
#define OP_EXEC_LEN 2

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = {data, size};
	struct nf_state st;
	unsigned int i, ops;

	memset(&st, 0, sizeof(st));
	memset(res + NF_ARG_OFF, 0, PAGE);
	/* Mostly a client of each process to start with. */
	if (npud_client_open(0, self_tid, getuid(), &st.cl[0].c) == 0)
		st.cl[0].tgid = getpid();
	if (npud_client_open(1, child_pid, getuid(), &st.cl[1].c) == 0)
		st.cl[1].tgid = child_pid;

	for (ops = 0; in.n && ops < NF_MAX_OPS; ops++) {
		uint8_t op = in_u8(&in);
		size_t len = in_u8(&in);
		struct fz_in p = {in.p, len < in.n ? len : in.n};

		in.p += p.n;
		in.n -= p.n;
		if (op == OP_EXEC && len == OP_EXEC_LEN) {
			op_exec(&st, &p);
			continue;
		}
		switch (op % OP_COUNT) {
		case OP_OPEN:
			op_open(&st, &p);
			break;
		case OP_IOCTL:
			op_ioctl(&st, &p);
			break;
		default:
			op_release(&st, &p);
			break;
		}
	}

	for (i = 0; i < NF_CLIENTS; i++) {
		if (st.cl[i].c)
			npud_client_release(st.cl[i].c);
	}
	if (npud_clients_release_all()) {
		fprintf(stderr, "npud_fuzz: npud still listed clients after their release\n");
		abort();
	}
	if (npud_clients_charged()) {
		fprintf(stderr, "npud_fuzz: %u client processes still charged to users\n",
			npud_clients_charged());
		abort();
	}
	exec_end();
	fz_check_clean(&base);
	return 0;
}
