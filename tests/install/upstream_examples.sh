#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs the runtime examples of upstream CANN (hicann/runtime's
# example/ directory) the CANN way against an install of BUILD_DIR: each
# example's own run.sh, after set_env.sh, with SOC_VERSION and
# ASCENDC_CMAKE_DIR set as CANN's sample environment script sets them, on
# the in-process backend with two devices, or with NPU_EXAMPLES_DEVICE=fuse
# (root, /dev/fuse) on a two-device npud --fuse that the script starts from
# the install and stops at the end: examples of two processes sharing
# memory, events or notifies need that, as they would need one device node
# on real hardware. Not part of ctest: the examples come from a checkout of
# upstream's repository (network).
#   upstream_examples.sh EXAMPLE_DIR BUILD_DIR WORK_DIR [NAME_REGEX]
# Prints one line per example (pass, fail: run, fail: build) and the totals;
# exits 1 if any example that builds fails. An example that exits 0 after
# its CHECK_ERROR macro printed "Operation failed:" has failed (exit 125).
# Examples whose CMakeLists.txt builds an AscendC kernel (ascendc_library) stop at configure, as
# ascendc.cmake says (no device kernels here), and count as not built.
set -uo pipefail
[[ $# -ge 3 ]] || { echo "usage: $0 EXAMPLE_DIR BUILD_DIR WORK_DIR [NAME_REGEX]" >&2; exit 2; }
examples=$(readlink -f "$1") build=$(readlink -f "$2") work=$(readlink -m "$3")
filter=${4:-.}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/Ascend/cann
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || {
	cat "$work/install.log" >&2
	exit 1
}
# shellcheck source=/dev/null  # the installed script
source "$prefix/set_env.sh"
# The examples' READMEs have the user export ASCEND_INSTALL_PATH (the
# CANN root) too.
export ASCEND_INSTALL_PATH=$ASCEND_HOME_PATH
export SOC_VERSION=Ascend910B2
export ASCENDC_CMAKE_DIR=$ASCEND_HOME_PATH/$(uname -m)-linux/tikcpp/ascendc_kernel_cmake
case ${NPU_EXAMPLES_DEVICE:-inproc} in
inproc)
	export NPU_DEVICE=inproc NPU_INPROC_DEVICES=2
	;;
fuse)
	mkdir -p "$work/dev"
	"$prefix/bin/npud" --fuse "$work/dev" --devices 2 >"$work/npud.log" 2>&1 &
	npud_pid=$!
	trap 'kill -TERM "$npud_pid" 2>/dev/null; wait "$npud_pid" 2>/dev/null' EXIT
	for ((i = 0; i < 100; i++)); do
		[[ -e $work/dev/npu1 ]] && break
		kill -0 "$npud_pid" 2>/dev/null || { cat "$work/npud.log" >&2; exit 1; }
		sleep 0.1
	done
	[[ -e $work/dev/npu1 ]] || { echo "npud did not serve $work/dev/npu1 in 10 s" >&2; exit 1; }
	export NPU_DEVICE=$work/dev/npu0
	;;
*)
	echo "NPU_EXAMPLES_DEVICE must be inproc or fuse" >&2
	exit 2
	;;
esac
cp -r "$examples" "$work/example"

pass=0 run_fail=0 build_fail=0
failed=()
while IFS= read -r script; do
	dir=$(dirname "$script")
	name=${dir#"$work/example/"}
	[[ $name =~ $filter ]] || continue
	log=$work/logs/${name//\//_}.log
	mkdir -p "$work/logs"
	(cd "$dir" && timeout 300 bash run.sh) >"$log" 2>&1
	rc=$?
	# Some examples return a failed call's code from a helper whose result
	# main ignores, and exit 0: the examples' CHECK_ERROR line (utils.h)
	# marks the failure, and it fails the run.
	if [[ $rc -eq 0 ]] && grep -q '^\[ERROR\]  Operation failed:' "$log"; then
		rc=125
	fi
	if [[ $rc -eq 0 ]]; then
		pass=$((pass + 1))
		echo "pass        $name"
	elif find "$dir/build" -maxdepth 3 -type f -perm -u+x -name 'main*' 2>/dev/null | grep -q .; then
		run_fail=$((run_fail + 1))
		failed+=("$name")
		echo "fail: run   $name (exit $rc, $log)"
	else
		build_fail=$((build_fail + 1))
		echo "fail: build $name (exit $rc, $log)"
	fi
done < <(find "$work/example" -name run.sh | sort)
echo "$pass passed, $run_fail built but failed, $build_fail did not build"
[[ $run_fail -eq 0 ]]
