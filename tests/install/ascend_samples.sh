#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Builds and runs Ascend's memory samples (the Ascend/samples repository:
# cplusplus/level1_single_api/1_acl/2_memory_management) with their own
# scripts and CMake files, unchanged, against an install of BUILD_DIR:
# scripts/sample_build.sh (cmake of src/ with the older toolkit layout,
# INSTALL_DIR/runtime/include and runtime/lib64/stub, then make), then
# scripts/sample_run.sh, as the samples' READMEs say, with the environment
# variables they expect (INSTALL_DIR, CPU_ARCH, THIRDPART_PATH for the
# repository's common/sample_common.sh, TargetKernel for its architecture
# prompt). The programs run with the install's lib64 on LD_LIBRARY_PATH,
# as set_env.sh sets it, on the in-process device (NPU_DEVICE may name
# another). Not part of ctest: the samples come from a checkout of
# Ascend/samples (network).
#   ascend_samples.sh SAMPLES_ROOT BUILD_DIR WORK_DIR
# SAMPLES_ROOT holds common/ and cplusplus/ of that repository. Prints one
# line per sample and exits 1 if any fails to build or run.
set -uo pipefail
[[ $# -eq 3 ]] || { echo "usage: $0 SAMPLES_ROOT BUILD_DIR WORK_DIR" >&2; exit 2; }
samples=$(readlink -f "$1") build=$(readlink -f "$2") work=$(readlink -m "$3")
memdir=cplusplus/level1_single_api/1_acl/2_memory_management
[[ -f $samples/common/sample_common.sh && -d $samples/$memdir ]] || {
	echo "$samples has no common/sample_common.sh or $memdir" >&2
	exit 2
}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/Ascend/ascend-toolkit/latest
cmake --install "$build" --prefix "$prefix" >"$work/install.log" || {
	cat "$work/install.log" >&2
	exit 1
}
cp -r "$samples/common" "$work/common"
mkdir -p "$work/$(dirname "$memdir")"
cp -r "$samples/$memdir" "$work/$memdir"
# shellcheck source=/dev/null  # the installed script
source "$prefix/set_env.sh"
export INSTALL_DIR=$prefix THIRDPART_PATH=$work CPU_ARCH
CPU_ARCH=$(uname -m)
case $CPU_ARCH in
x86_64) export TargetKernel=x86 ;;
*) export TargetKernel=arm ;;
esac
export NPU_DEVICE=${NPU_DEVICE:-inproc}

pass=0 fail=0
while IFS= read -r script; do
	dir=$(dirname "$(dirname "$script")")
	name=$(basename "$dir")
	log=$work/logs/$name.log
	mkdir -p "$work/logs"
	if ! (cd "$dir/scripts" && timeout 300 bash sample_build.sh </dev/null) >"$log" 2>&1 ||
		[[ ! -x $dir/out/main ]]; then
		fail=$((fail + 1))
		echo "fail: build $name ($log)"
		continue
	fi
	if (cd "$dir/scripts" && timeout 300 bash sample_run.sh </dev/null) >>"$log" 2>&1 &&
		grep -q "The program runs successfully" "$log" && ! grep -qi "\[ERROR\]" "$log"; then
		pass=$((pass + 1))
		echo "pass        $name"
	else
		fail=$((fail + 1))
		echo "fail: run   $name ($log)"
	fi
done < <(find "$work/$memdir" -path '*/scripts/sample_build.sh' | sort)
echo "$pass passed, $fail failed"
[[ $fail -eq 0 && $pass -gt 0 ]]
