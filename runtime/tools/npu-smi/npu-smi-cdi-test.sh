#!/bin/bash
# SPDX-License-Identifier: MIT
# npu-smi cdi generate: the CDI spec of FUSE files (a shared parent
# directory mounted with slave propagation, NPU_DEVICE) and of device
# nodes (the nodes), one CDI device per device and "all"; and npu-smi -L
# names each device's own file. No npud is needed: the spec comes from the
# files alone (stand-ins here), and -L runs on a real npud when NPU_DEVICE
# names one (the FUSE fixture).
set -euo pipefail
if [ $# -ne 2 ]; then
	echo "usage: $0 NPU_SMI CHECK_CDI_CMAKE" >&2
	exit 2
fi
smi=$1 check=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -n "${NPU_DEVICE:-}" ] && [ -e "$NPU_DEVICE" ]; then
	list=$("$smi" -L)
	echo "$list"
	stem=${NPU_DEVICE%0}
	if ! grep -F "NPU 0: " <<<"$list" | grep -qF "(backend ${stem}0)"; then
		fail "-L: device 0 does not name ${stem}0"
	fi
	grep -F "NPU 1: " <<<"$list" | grep -qF "(backend ${stem}1)" ||
		fail "-L: device 1 does not name ${stem}1"
fi

# FUSE: npud's directory is share/dev; the spec shares share/.
mkdir -p "$tmp/share/dev" "$tmp/out"
: >"$tmp/share/dev/npu0"
: >"$tmp/share/dev/npu1"
NPU_DEVICE=$tmp/share/dev/npu0 "$smi" cdi generate --output "$tmp/out" || fail "cdi generate"
spec=$tmp/out/npu.local-npu.json
[ -s "$spec" ] || fail "no $spec"
cat "$spec"
cmake -DSPEC="$spec" -DMODE=fuse -DSHARE="$tmp/share" -DDEV="$tmp/share/dev/npu" -P "$check"
NPU_DEVICE=$tmp/share/dev/npu0 "$smi" cdi generate >"$tmp/stdout.json" || fail "cdi to stdout"
cmp -s "$tmp/stdout.json" "$spec" || fail "stdout and --output differ"

# Device nodes (the null device stands in for a CUSE node).
if [ -c /dev/null ] && ln -s /dev/null "$tmp/node0" && ln -s /dev/null "$tmp/node1" &&
	ln -s /dev/null "$tmp/node2"; then
	NPU_DEVICE=$tmp/node0 "$smi" cdi generate >"$tmp/nodes.json" || fail "cdi nodes"
	cat "$tmp/nodes.json"
	cmake -DSPEC="$tmp/nodes.json" -DMODE=nodes -DDEV="$tmp/node" -DCOUNT=3 -P "$check"
fi

# Bad use and the in-process device are refused.
rc=0
"$smi" cdi bogus 2>/dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "cdi bogus exited $rc, want 2"
rc=0
NPU_DEVICE=inproc "$smi" cdi generate >/dev/null 2>"$tmp/err" || rc=$?
if [ "$rc" -ne 1 ] || ! grep -q "in-process" "$tmp/err"; then
	fail "inproc: exit $rc, $(cat "$tmp/err")"
fi
echo PASS
