#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpus of the driver fuzzer (tests/fuzz/npu_fuzz.c).

    tests/fuzz/make_corpus.py [DIR]     # default: tests/fuzz/corpus next to this script

One small input per ioctl of the command table and per ring operation,
each a short program in the harness's input format (see npu_fuzz.c and
tests/fuzz/README.md): a header byte, then ops of the form
"op, payload length, payload". Files named regress-* in the corpus are
inputs that once found a bug; this script never touches them.
"""
import os
import struct
import sys

# Ops of the harness (enum in npu_fuzz.c).
OP_IOCTL, OP_RING_NEW, OP_ALLOC, OP_SQE, OP_ENTER, OP_SCRIBBLE, OP_FAIL, OP_REOPEN, OP_REAP = range(9)

# fz_cmds[] of npu_fuzz.c, in order.
CMDS = [
    "GET_VERSION", "DEVICE_INFO", "CTX_SETUP", "MEM_ALLOC", "MEM_FREE", "MEM_QUERY",
    "MEM_INFO", "RING_CREATE", "RING_DESTROY", "RING_ENTER", "NOP", "HOST_REGISTER",
    "HOST_UNREGISTER", "RING_STATS", "PEER_ENABLE", "PEER_DISABLE", "RING_ABORT",
    "IPC_EXPORT", "IPC_SET_PID", "IPC_IMPORT", "IPC_UNIMPORT", "IPC_DESTROY", "PHYS_ALLOC",
    "PHYS_FREE", "PHYS_RETAIN", "PHYS_INFO", "VMM_RESERVE", "VMM_RELEASE", "VMM_MAP",
    "VMM_UNMAP", "VMM_SET_ACCESS", "VMM_GET_ACCESS", "SHARE_EXPORT", "SHARE_SET_PID",
    "SHARE_IMPORT", "SMI_PROCS", "SMI_SHARES", "PHYS_PEER",
]
SIZES = {
    "GET_VERSION": 40, "DEVICE_INFO": 120, "CTX_SETUP": 32, "MEM_ALLOC": 48, "MEM_FREE": 16,
    "MEM_QUERY": 40, "MEM_INFO": 64, "RING_CREATE": 48, "RING_DESTROY": 8, "RING_ENTER": 32,
    "NOP": 16, "HOST_REGISTER": 32, "HOST_UNREGISTER": 16, "RING_STATS": 64,
    "PEER_ENABLE": 16, "PEER_DISABLE": 16, "RING_ABORT": 8, "IPC_EXPORT": 88,
    "IPC_SET_PID": 88, "IPC_IMPORT": 96, "IPC_UNIMPORT": 16, "IPC_DESTROY": 64,
    "PHYS_ALLOC": 24, "PHYS_FREE": 8, "PHYS_RETAIN": 16, "PHYS_INFO": 32, "VMM_RESERVE": 24,
    "VMM_RELEASE": 16, "VMM_MAP": 32, "VMM_UNMAP": 16, "VMM_SET_ACCESS": 32,
    "VMM_GET_ACCESS": 32, "SHARE_EXPORT": 16, "SHARE_SET_PID": 88, "SHARE_IMPORT": 32,
    "SMI_PROCS": 24, "SMI_SHARES": 24, "PHYS_PEER": 16,
}
MIB = 1 << 20

# uapi values
(NPU_OP_NOP, NPU_OP_COPY, NPU_OP_MEMSET, NPU_OP_COPY2D, NPU_OP_VALUE_WRITE, NPU_OP_VALUE_WAIT,
 NPU_OP_TIMESTAMP, NPU_OP_COPY_INDIRECT, NPU_OP_COPY_DEREF, NPU_OP_COUNT) = range(10)
H2D, D2H, D2D, H2H = range(4)
NO_WHITELIST = 1
MEM_P2P, MEM_HOST = 1, 4


def op(code, payload=b""):
    assert len(payload) < 256
    return bytes([code, len(payload)]) + payload


def ioctl(name, struct_bytes=b"", sel=b"", file=0, amode=0):
    size = SIZES[name]
    body = struct_bytes.ljust(size, b"\0")
    assert len(body) == size, name
    return op(OP_IOCTL, bytes([file, CMDS.index(name), amode]) + body + sel)


def ring_new(file=0, slot=0, sq_log=3, cq_extra=1):
    return op(OP_RING_NEW, bytes([file, slot, sq_log, cq_extra]))


def alloc(pages, file=0, policy=2, flags=0):
    return op(OP_ALLOC, bytes([file]) + struct.pack("<I", pages) + bytes([0, policy, flags]))


# Operand choices of op_sqe: sel % 8 in 0..2 a known device VA, 3..4 the data arena.
DEV, HOST = 0, 3


def sqe(opcode, dir=0, dst=(DEV, 0), src=(HOST, 0), length=4096, value=0, dpitch=0,
        spitch=0, cond=0, ring=0, count=1, user_data=0x1234, lmode=0, flags=0, rsvd=0):
    return op(OP_SQE, bytes([ring, count - 1, opcode, dir, flags, rsvd]) +
              struct.pack("<Q", user_data) +
              bytes([dst[0]]) + struct.pack("<I", dst[1]) +
              bytes([src[0]]) + struct.pack("<I", src[1]) +
              bytes([lmode]) + struct.pack("<I", length) +
              struct.pack("<QIII", value, dpitch, spitch, cond))


def enter(to_submit=1, min_complete=1, flags=1, ring=0, timeout=200):
    return op(OP_ENTER, bytes([ring, to_submit, min_complete, flags, timeout]))


def scribble(field, mode, value, ring=0):
    return op(OP_SCRIBBLE, bytes([ring, field, mode]) + struct.pack("<I", value))


def fail(kind, n):
    """Fail the n-th next call (n >= 1) of kind 0 alloc, 1 copy_from_user, 2 copy_to_user, 3 pin."""
    return op(OP_FAIL, bytes([kind, n - 1]))


def reopen(file, dev=0, no_setup=0):
    return op(OP_REOPEN, bytes([file, dev | (no_setup << 1)]))


def reap(ring=0):
    return op(OP_REAP, bytes([ring]))


def mem_alloc(size, policy=0, flags=0, file=0):
    return ioctl("MEM_ALLOC", struct.pack("<QII", size, policy, flags), file=file)


def phys_alloc(size=2 * MIB, cls=0, file=0, flags=0):
    return ioctl("PHYS_ALLOC", struct.pack("<QII", size, cls, flags), file=file)


def ipc_export(flags=NO_WHITELIST):
    return ioctl("IPC_EXPORT", struct.pack("<QQII", 0, 0, flags, 0))


# Identity events (op_ident of npu_fuzz.c): an op byte of 0xf0 or more.
OP_IDENT = 0xf0
ID_FOREIGN, ID_OPEN, ID_CALL, ID_DIE, ID_EXEC = range(5)


def ident(kind, payload=b""):
    return op(OP_IDENT, bytes([kind]) + payload)


def child_call(name, struct_bytes=b""):
    return ident(ID_CALL, bytes([CMDS.index(name)]) + struct_bytes.ljust(SIZES[name], b"\0"))


def seeds():
    hdr = b"\x00"            # both files on npu0, both set up
    hdr2 = b"\x02"           # file 1 on npu1
    s = {}
    s["get_version"] = hdr + ioctl("GET_VERSION")
    s["device_info"] = hdr + ioctl("DEVICE_INFO")
    s["mem_info"] = hdr + ioctl("MEM_INFO")
    s["nop"] = hdr + ioctl("NOP", struct.pack("<Q", 42))
    s["ctx_setup"] = b"\x0c" + ioctl("CTX_SETUP") + ioctl("CTX_SETUP", file=1) + \
        ioctl("CTX_SETUP")
    s["ctx_setup_bad"] = b"\x0c" + ioctl("CTX_SETUP", struct.pack("<QQ", 1 << 30, 3 << 29),
                                        sel=b"\xf0")
    s["no_ctx"] = b"\x0c" + mem_alloc(4096)
    s["mem_alloc"] = hdr + mem_alloc(MIB) + mem_alloc(4 * MIB, policy=1) + \
        mem_alloc(8192, policy=2, flags=2) + mem_alloc(1 << 30, policy=3)
    s["mem_free"] = hdr + mem_alloc(MIB) + ioctl("MEM_FREE") + ioctl("MEM_FREE")
    s["mem_query"] = hdr + mem_alloc(MIB) + ioctl("MEM_QUERY", sel=b"\x00\xf0\x10\x00\x00\x00")
    s["ring_create"] = hdr + ioctl("RING_CREATE", sel=b"\x00\x03\x01\x00")
    s["ring_create_bad"] = hdr + ioctl("RING_CREATE", sel=b"\xe5\xf0\x00\xe0")
    s["ring_destroy"] = hdr + ring_new() + ioctl("RING_DESTROY") + ioctl("RING_DESTROY")
    s["ring_enter"] = hdr + ring_new() + ioctl("RING_ENTER", struct.pack("<IIII", 0, 1, 0, 1))
    s["ring_stats"] = hdr + ring_new() + ioctl("RING_STATS")
    s["ring_abort"] = hdr + ring_new() + sqe(NPU_OP_NOP, dst=(7, 0), src=(7, 0), length=0,
                                            count=4) + ioctl("RING_ABORT")
    s["host_register"] = hdr + ioctl("HOST_REGISTER", struct.pack("<QQ", 0, 15)) + \
        ioctl("HOST_UNREGISTER")
    s["peer"] = hdr2 + ioctl("PEER_ENABLE", sel=b"\x01") + ioctl("PEER_DISABLE", sel=b"\x01")
    s["ipc_export_import"] = hdr + mem_alloc(2 * MIB) + ipc_export() + \
        ioctl("IPC_IMPORT", file=1) + ioctl("IPC_UNIMPORT", sel=b"\x01", file=1) + \
        ioctl("IPC_DESTROY")
    s["ipc_set_pid"] = hdr + mem_alloc(2 * MIB) + ipc_export(0) + \
        ioctl("IPC_SET_PID", struct.pack("<64sQQI", b"", 0, 0, 2), sel=b"\x00\x00\x00\x00\x90") + \
        ioctl("IPC_IMPORT", file=1)
    s["phys"] = hdr + phys_alloc() + ioctl("PHYS_INFO") + ioctl("PHYS_FREE") + \
        phys_alloc(1 << 30, cls=2)
    s["phys_host"] = hdr + phys_alloc(4 * MIB, flags=MEM_HOST | MEM_P2P) + \
        ioctl("VMM_RESERVE", struct.pack("<QQ", 4 * MIB, 0)) + \
        ioctl("VMM_MAP", struct.pack("<QQQII", 0, 4 * MIB, 0, 0, 0)) + \
        ioctl("PHYS_INFO") + ioctl("PHYS_FREE")
    s["phys_peer"] = hdr2 + phys_alloc(file=1) + ioctl("PHYS_PEER", sel=b"\x01\x00") + \
        ioctl("VMM_RESERVE", struct.pack("<QQ", 2 * MIB, 0)) + \
        ioctl("VMM_MAP", struct.pack("<QQQII", 0, 2 * MIB, 0, 0, 0), sel=b"\x01") + \
        ioctl("PHYS_FREE", file=1)
    s["share"] = hdr2 + phys_alloc() + ioctl("SHARE_EXPORT", struct.pack("<II", 0, 0)) + \
        ioctl("SHARE_SET_PID", struct.pack("<64sQQI", b"", 0, 0, 1)) + \
        ioctl("SHARE_IMPORT", file=1)
    s["vmm"] = hdr + phys_alloc() + \
        ioctl("VMM_RESERVE", struct.pack("<QQ", 2 * MIB, 0)) + \
        ioctl("VMM_MAP", struct.pack("<QQQII", 0, 2 * MIB, 0, 0, 0)) + \
        ioctl("VMM_SET_ACCESS", struct.pack("<QQIII", 0, 2 * MIB, 1, 0, 3)) + \
        ioctl("VMM_GET_ACCESS", struct.pack("<QQIII", 0, 0, 1, 0, 0)) + \
        ioctl("PHYS_RETAIN") + ioctl("VMM_UNMAP") + ioctl("VMM_RELEASE")
    s["smi"] = hdr + mem_alloc(MIB) + ipc_export() + \
        ioctl("SMI_PROCS", struct.pack("<QI", 0, 4)) + ioctl("SMI_SHARES", struct.pack("<QI", 0, 4))
    s["bad_arg_pointer"] = hdr + ioctl("NOP", amode=0xf9) + ioctl("MEM_INFO", amode=0xf3)
    s["relayed"] = hdr + mem_alloc(MIB) + ioctl("MEM_QUERY", amode=0xe8) + \
        ioctl("SMI_PROCS", struct.pack("<QI", 0, 4), amode=0xe9) + \
        ioctl("IPC_EXPORT", struct.pack("<QQII", 0, 0, NO_WHITELIST, 0), amode=0xea) + \
        ioctl("IPC_SET_PID", struct.pack("<64sQQI", b"", 0, 0, 2), amode=0xeb)
    s["unknown_cmd"] = hdr + op(OP_IOCTL, bytes([0, 0xf0, 0]) + struct.pack("<I", 0xc0104e3f))
    # Rings and the engines.
    ring = hdr + alloc(16) + ring_new()
    s["sqe_h2d_d2h"] = ring + sqe(NPU_OP_COPY, H2D, (DEV, 0), (HOST, 0), 8192) + \
        sqe(NPU_OP_COPY, D2H, (HOST, 65536), (DEV, 0), 8192) + enter(2, 2) + reap()
    s["sqe_memset"] = ring + sqe(NPU_OP_MEMSET, H2D, (DEV, 0), (7, 0), 4096, value=0x5a) + \
        sqe(NPU_OP_MEMSET, H2H, (HOST, 0), (7, 0), 100, value=1) + enter(2, 2) + reap()
    s["sqe_d2d"] = ring + alloc(16) + sqe(NPU_OP_COPY, D2D, (DEV | 8, 0), (DEV, 0), 65536) + \
        enter()
    s["sqe_copy2d"] = ring + sqe(NPU_OP_COPY2D, H2D, (DEV, 0), (HOST, 0), 64, value=16,
                                 dpitch=128, spitch=256) + enter()
    s["sqe_value"] = ring + sqe(NPU_OP_VALUE_WRITE, 0, (DEV, 0), (7, 0), 8, value=7) + \
        sqe(NPU_OP_VALUE_WAIT, 0, (DEV, 0), (7, 0), 8, value=7, cond=1) + \
        sqe(NPU_OP_VALUE_WAIT, 0, (DEV, 0), (7, 0), 8, value=9, cond=0) + enter(3, 2)
    s["sqe_timestamp"] = ring + sqe(NPU_OP_TIMESTAMP, 0, (DEV, 8), (7, 0), 8) + \
        sqe(NPU_OP_TIMESTAMP, 0, (DEV, 4), (7, 0), 0, value=1) + enter(2, 2)
    s["sqe_bad"] = ring + sqe(NPU_OP_COPY, H2D, (6, 0), (6, 0), 4096) + \
        sqe(NPU_OP_COUNT, 0, (7, 0), (7, 0), 0) + enter(2, 2)
    # The record of a COPY_INDIRECT is device memory: zeroed (len 0), then
    # with a value written over its len, then not 32-byte aligned.
    s["sqe_copy_indirect"] = ring + sqe(NPU_OP_COPY_INDIRECT, D2D, (7, 0), (DEV, 0), 0) + \
        sqe(NPU_OP_VALUE_WRITE, 0, (DEV, 16), (7, 0), 8, value=64) + \
        sqe(NPU_OP_COPY_INDIRECT, D2D, (7, 0), (DEV, 0), 0) + \
        sqe(NPU_OP_COPY_INDIRECT, D2D, (7, 0), (DEV, 8), 0) + enter(4, 4) + reap()
    # The slots of a COPY_DEREF are device memory: zeroed (bases 0), then
    # with a value written over the dst slot; a slot not 8-byte aligned; an
    # offset that wraps (rsvd 0xd0: the harness keeps the raw offsets).
    s["sqe_copy_deref"] = ring + \
        sqe(NPU_OP_COPY_DEREF, D2D, (DEV, 0), (DEV, 8), 64, value=16, dpitch=32) + \
        sqe(NPU_OP_VALUE_WRITE, 0, (DEV, 0), (7, 0), 8, value=64) + \
        sqe(NPU_OP_COPY_DEREF, D2D, (DEV, 0), (DEV, 8), 64) + \
        sqe(NPU_OP_COPY_DEREF, D2D, (DEV, 4), (DEV, 8), 64) + \
        sqe(NPU_OP_COPY_DEREF, D2D, (DEV, 0), (DEV, 8), 64, value=2**64 - 1, rsvd=0xd0) + \
        enter(5, 5) + reap()
    s["sqe_host_registered"] = hdr + alloc(16) + ring_new() + \
        ioctl("HOST_REGISTER", struct.pack("<QQ", 0, 15)) + \
        sqe(NPU_OP_COPY, H2D, (DEV, 0), (HOST, 0), 16384) + enter()
    s["sqe_split"] = hdr + alloc(4096) + alloc(4096) + ring_new() + \
        sqe(NPU_OP_COPY, D2D, (DEV | 8, 0), (DEV, 0), 16 * MIB) + enter()
    s["sqe_peer"] = hdr2 + alloc(16) + alloc(16, file=1) + ring_new() + \
        ioctl("PEER_ENABLE", sel=b"\x01") + \
        sqe(NPU_OP_COPY, D2D, (DEV | 8, 0), (DEV, 0), 4096) + enter()
    s["scribble_running"] = ring + sqe(NPU_OP_COPY, H2D, (DEV, 0), (HOST, 0), 65536, count=8) + \
        enter(8, 0, 0) + scribble(0, 0, 0x10) + scribble(1, 2, 0) + scribble(2, 3, 3) + \
        enter(1, 1)
    s["cq_overflow"] = hdr + alloc(1) + ring_new(sq_log=2, cq_extra=0) + \
        sqe(NPU_OP_NOP, 0, (7, 0), (7, 0), 0, count=4) + enter(4, 0, 0) + \
        sqe(NPU_OP_NOP, 0, (7, 0), (7, 0), 0, count=4) + enter(4, 4)
    s["reopen_running"] = ring + sqe(NPU_OP_COPY, H2D, (DEV, 0), (HOST, 0), 65536, count=8) + \
        enter(8, 0, 0) + reopen(0)
    s["fail_alloc"] = hdr + fail(0, 1) + mem_alloc(MIB) + fail(0, 2) + ring_new()
    s["fail_copy"] = hdr + fail(1, 1) + ioctl("NOP") + fail(2, 1) + ioctl("GET_VERSION")
    s["fail_pin"] = hdr + fail(3, 1) + ring_new() + fail(3, 1) + \
        ioctl("HOST_REGISTER", struct.pack("<QQ", 0, 3))
    # Our file used from another process; the child's own file; its exec and death.
    s["ident_foreign"] = hdr + mem_alloc(MIB) + \
        ident(ID_FOREIGN, bytes([0, CMDS.index("MEM_ALLOC")]) + struct.pack("<Q", MIB)) + \
        ident(ID_FOREIGN, bytes([1, CMDS.index("DEVICE_INFO")]))
    s["ident_die"] = hdr + ident(ID_OPEN, bytes([0, 16])) + child_call("DEVICE_INFO") + \
        ident(ID_DIE, b"\x01") + child_call("MEM_ALLOC", struct.pack("<Q", MIB))
    s["ident_zombie"] = hdr + ident(ID_OPEN, bytes([1, 4])) + ident(ID_DIE, b"\x00") + \
        ident(ID_OPEN, bytes([0, 4]))
    s["ident_exec"] = hdr + ident(ID_OPEN, bytes([0, 16])) + ident(ID_EXEC) + \
        child_call("DEVICE_INFO") + ident(ID_FOREIGN, bytes([0, CMDS.index("NOP")]))
    return s


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus")
    os.makedirs(out, exist_ok=True)
    for name, data in sorted(seeds().items()):
        with open(os.path.join(out, "seed-" + name), "wb") as f:
            f.write(data)
    print(f"wrote {len(seeds())} seeds to {out}")


if __name__ == "__main__":
    main()
