#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A CANN user's path through this install, as upstream's sample READMEs
# describe it: install to a CANN root, source its set_env.sh, set
# SOC_VERSION and ASCENDC_CMAKE_DIR the way CANN's sample environment
# script finds them (a helper calling aclrtGetSocName, linked with
# -lacl_rt; the ascendc.cmake search order), then run cann_sample/run.sh,
# which builds an upstream-shaped host sample and runs it on the in-process
# device. Also checked: the error-code headers compile from CANN's paths,
# run.sh reports a failing program as a failure, and a project that builds
# kernels (cann_kernel/) fails to configure with ascendc.cmake's message.
set -euo pipefail

usage() {
	echo "usage: $0 BUILD_DIR SCRATCH_DIR   (BUILD_DIR: a build of this tree to install)"
}
step() { printf '==> %s\n' "$*"; }
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# show_fail LOG MESSAGE: print the log, then fail with MESSAGE.
show_fail() {
	cat "$1" >&2
	fail "$2"
}

if [[ $# -ne 2 ]]; then
	usage >&2
	exit 2
fi
build=$(readlink -f "$1")
dir=$(readlink -m "$2")
src=$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")
root=$dir/Ascend/cann

# A shell with nothing of CANN's or this project's in its environment.
PATH=/usr/local/bin:/usr/bin:/bin
unset LD_LIBRARY_PATH CMAKE_PREFIX_PATH ASCEND_HOME_PATH ASCEND_INSTALL_PATH \
	ASCEND_TOOLKIT_HOME SOC_VERSION ASCENDC_CMAKE_DIR NPU_SOC_NAME NPU_DEVICE

rm -rf "$dir"
mkdir -p "$dir"
step "installing $build to the CANN root $root"
cmake --install "$build" --prefix "$root" >"$dir/install.log" || show_fail "$dir/install.log" "install"

step "source $root/set_env.sh"
# shellcheck source=/dev/null
source "$root/set_env.sh"
[[ $ASCEND_HOME_PATH == "$root" ]] || fail "ASCEND_HOME_PATH=$ASCEND_HOME_PATH, want $root"

step "the error-code headers at CANN's paths (include/acl/error_codes, include/ge)"
cat >"$dir/error_codes.cpp" <<'CPP'
#include "acl/error_codes/rt_error_codes.h"
#include "acl/error_codes/ge_error_codes.h"
#include "ge/ge_error_codes.h"
#include "acl/acl.h"
int rt_param_invalid(void) { return ACL_ERROR_RT_PARAM_INVALID; }
CPP
for compiler in "cc -x c" "c++ -x c++"; do
	# shellcheck disable=SC2086  # the compiler and its language option
	$compiler -fsyntax-only -Wall -Werror -I"$ASCEND_HOME_PATH/include" "$dir/error_codes.cpp" ||
		fail "the error-code headers do not compile with $compiler from CANN's paths"
done

step "SOC_VERSION from aclrtGetSocName, without a device, as CANN's sample scripts find it"
inc=$ASCEND_HOME_PATH/include
lib=$ASCEND_HOME_PATH/lib64
g++ -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -O2 -I"$inc" "$src/get_soc_version.cpp" \
	-o "$dir/get_soc_version" -L"$lib" -lacl_rt -Wl,-rpath,"$lib"
soc_output=$(NPU_DEVICE=$dir/no-such-device "$dir/get_soc_version") || fail "get_soc_version failed"
SOC_VERSION=$(grep -m1 -E '^[A-Za-z0-9_-]+$' <<<"${soc_output//[[:blank:]$'\r']/}") ||
	fail "no SoC name in get_soc_version's output: $soc_output"
export SOC_VERSION

step "ASCENDC_CMAKE_DIR: the first of CANN's candidate directories that has ascendc.cmake"
ASCENDC_CMAKE_DIR=
for d in "$root/$(uname -m)-linux" "$root/aarch64-linux" "$root/x86_64-linux" "$root"; do
	if [[ -f $d/tikcpp/ascendc_kernel_cmake/ascendc.cmake ]]; then
		ASCENDC_CMAKE_DIR=$d/tikcpp/ascendc_kernel_cmake
		break
	fi
done
[[ $ASCENDC_CMAKE_DIR == "$root/$(uname -m)-linux/tikcpp/ascendc_kernel_cmake" ]] ||
	fail "ascendc.cmake not at the host architecture's place (found: '${ASCENDC_CMAKE_DIR}')"
export ASCENDC_CMAKE_DIR
export ASCEND_INSTALL_PATH=$root
echo "SOC_VERSION=$SOC_VERSION ASCENDC_CMAKE_DIR=$ASCENDC_CMAKE_DIR"

step "bash run.sh in a copy of cann_sample/, on the in-process device"
cp -r "$src/cann_sample" "$dir/cann_sample"
NPU_DEVICE=inproc bash "$dir/cann_sample/run.sh" >"$dir/run.log" 2>&1 ||
	show_fail "$dir/run.log" "run.sh failed"
grep -E '^\[(INFO|SUCCESS)\]' "$dir/run.log"
grep -q "ascendc.cmake: SOC_VERSION $SOC_VERSION;" "$dir/run.log" ||
	show_fail "$dir/run.log" "the sample's configure did not include ascendc.cmake with SOC_VERSION"
for program in main main_acl_rt main_acl_rt_impl; do
	grep -q "completed successfully" "$dir/cann_sample/output_msg_$program.txt" ||
		show_fail "$dir/run.log" "$program did not finish"
done

# The three names are one library: the program needs it once, by its SONAME.
needed=$(readelf -d "$dir/cann_sample/build/main_acl_rt_impl" | sed -n 's/.*(NEEDED).*\[\(libascendcl[^]]*\|libacl_rt[^]]*\)\]/\1/p')
[[ $needed == libascendcl.so.0 ]] ||
	fail "main_acl_rt_impl needs '$needed', not libascendcl.so.0 once"

step "run.sh fails when the program fails (no device to set)"
if NPU_DEVICE=$dir/no-such-device bash "$dir/cann_sample/run.sh" >"$dir/run-fail.log" 2>&1; then
	show_fail "$dir/run-fail.log" "run.sh passed although the program could not set a device"
fi
grep -q '^\[FAILURE\] main exited with status 255' "$dir/run-fail.log" ||
	show_fail "$dir/run-fail.log" "run.sh did not report the program's failure"

for rule in library fatbin; do
	fn=ascendc_library
	[[ $rule == library ]] || fn=ascendc_${rule}_library
	step "a project calling $fn() fails to configure, with ascendc.cmake's message"
	log=$dir/kernel-$rule.log
	if cmake -S "$src/cann_kernel" -B "$dir/kernel-$rule" -DKERNEL_RULE="$rule" >"$log" 2>&1; then
		show_fail "$log" "a project calling $fn() configured"
	fi
	tr -s '[:space:]' ' ' <"$log" |
		grep -q "$fn([^)]*): device kernels are not supported by this runtime" ||
		show_fail "$log" "the configure did not stop at $fn() with ascendc.cmake's message"
done
rm -rf "$dir"
echo "CANN sample built the CANN way (set_env.sh, ascendc.cmake, run.sh): ok"
