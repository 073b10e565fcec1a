#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Build the stack and walk a CANN-style program through the basic memory
# scenarios (allocate, H2D, D2D, D2H, verify, memset, memory info) and a
# second one through asynchronous copies on streams with pinned host memory
# and an event, on the in-process device and on a FUSE device served by
# npud, then run the benchmark on both. Leaves two pictures in the build
# directory: a trace of the in-process async_copy run (NPU_TRACE, open it in
# https://ui.perfetto.dev) and a copy-bandwidth sweep (npu-bench --sweep).
set -euo pipefail

usage() {
	cat <<EOF
usage: scripts/demo.sh [--no-install] [-h|--help]
  --no-install  do not install missing apt packages (fail instead)
Builds in build/ (or \$NPU_DEMO_BUILD_DIR), installs to <build>/install,
builds samples/memory_basics and samples/async_copy out of tree against
that prefix and runs them on NPU_DEVICE=inproc and on a FUSE device started
with npud --fuse. Writes <build>/demo-trace.json (the trace of the in-process
async_copy run) and <build>/demo-sweep/sweep.csv (and sweep.svg when
gnuplot is installed).
EOF
}

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

install=1
while [[ $# -gt 0 ]]; do
	case $1 in
	--no-install) install=0 ;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
	shift
done

cd "$NPU_ROOT"
BUILD=${NPU_DEMO_BUILD_DIR:-$NPU_ROOT/build}
PREFIX=$BUILD/install
SAMPLE_BUILD=$BUILD/sample-memory_basics
ASYNC_BUILD=$BUILD/sample-async_copy
TRACE=$BUILD/demo-trace.json
SWEEP=$BUILD/demo-sweep

# run_async NPU_DEVICE: the out-of-tree async_copy sample on a backend.
run_async() {
	step "running async_copy (pinned H2D on stream 1, event, D2D + D2H on stream 2) with NPU_DEVICE=$1"
	NPU_DEVICE=$1 LD_LIBRARY_PATH="$PREFIX/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
		"$ASYNC_BUILD/main"
}

trap npud_cleanup EXIT

if [[ $install -eq 1 ]]; then
	step "checking the apt packages the build needs"
	ensure_packages "${NPU_BUILD_PACKAGES[@]}"
fi

step "configuring $BUILD (RelWithDebInfo)"
cmake -S "$NPU_ROOT" -B "$BUILD" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
step "building with $(nproc) jobs"
cmake --build "$BUILD" -j "$(nproc)"

step "installing to $PREFIX (include/, lib64/)"
cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null

build_sample "$PREFIX" "$SAMPLE_BUILD"

step "configuring samples/async_copy against ASCEND_HOME=$PREFIX in $ASYNC_BUILD"
cmake -S "$NPU_ROOT/samples/async_copy" -B "$ASYNC_BUILD" -G "Unix Makefiles" \
	-DASCEND_HOME="$PREFIX" >/dev/null
step "building samples/async_copy"
cmake --build "$ASYNC_BUILD" -j "$(nproc)"

step "scenario run 1: the in-process device"
run_sample "$PREFIX" "$SAMPLE_BUILD" inproc
step "scenario run 1b: asynchronous copies on streams, in-process, traced into $TRACE"
rm -f "$TRACE"
NPU_TRACE=$TRACE run_async inproc
[[ -s $TRACE ]] || die "NPU_TRACE=$TRACE wrote no trace"

step "scenario run 2: a FUSE device"
npud=$(find_binary "$BUILD" npud)
mnt=$(mktemp -d "${TMPDIR:-/tmp}/npu-demo.XXXXXX")
npud_start "$npud" "$mnt"
run_sample "$PREFIX" "$SAMPLE_BUILD" "$mnt/npu0"
step "scenario run 2b: asynchronous copies on streams, FUSE ($mnt/npu0)"
run_async "$mnt/npu0"

# run_pair SAMPLE: build a two-process sample against the install, the
# CANN way (set_env.sh), and run it on the FUSE device.
run_pair() {
	(
		# shellcheck source=/dev/null  # the installed script
		source "$PREFIX/set_env.sh"
		cmake -S "$NPU_ROOT/samples/$1" -B "$BUILD/sample-$1" >/dev/null
		cmake --build "$BUILD/sample-$1" >/dev/null
		NPU_DEVICE=$mnt/npu0 "$NPU_ROOT/samples/$1/run.sh" "$BUILD/sample-$1"
	)
}
step "scenario run 3: two processes share an IPC buffer and VMM physical memory ($mnt/npu0)"
run_pair ipc_share
step "scenario run 4: two processes order their streams with an IPC notify and event ($mnt/npu0)"
run_pair notify_pair
step "npu-smi on the FUSE device"
NPU_DEVICE=$mnt/npu0 LD_LIBRARY_PATH=$PREFIX/lib64 "$PREFIX/bin/npu-smi"

bench=$(find_binary "$BUILD" npu-bench)
step "npu-bench --quick --json on the FUSE device ($mnt/npu0)"
NPU_DEVICE=$mnt/npu0 "$bench" --quick --json

npud_stop

step "npu-bench --quick --json on the in-process device"
NPU_DEVICE=inproc "$bench" --quick --json

# Up to 64 MiB: the 256 MiB step alone would double the sweep's time.
step "npu-bench --sweep=$SWEEP --sweep-max 64M on the in-process device"
NPU_DEVICE=inproc "$bench" --sweep="$SWEEP" --sweep-max 64M

step "demo finished: all scenarios passed on inproc and FUSE"
info "trace of the in-process async_copy run: $TRACE"
info "  (open it in https://ui.perfetto.dev or chrome://tracing)"
info "copy bandwidth sweep: $SWEEP/sweep.csv"
if [[ -f $SWEEP/sweep.svg ]]; then
	info "  plot: $SWEEP/sweep.svg"
else
	info "  no plot: gnuplot is not installed (apt-get install gnuplot-nox, then run the sweep again)"
fi
